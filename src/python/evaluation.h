// `index eval` from Python (evaluation.cc): what Publication.evaluate hands
// over, and the call.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "session.h"
#include "vigilo/engine/publication.h"

namespace vigilo::python {

struct EvalRequest {
  py::object queries;       // an (n, dimension) array
  py::object ground_truth;  // an (n, k) array of row ids, a file of them (str), or None with `base`
  std::string base, base_format, base_vector_field;
  uint32_t k = 10;
  std::vector<uint32_t> nprobes;  // empty: the CLI's 1, 2, 4, … 64
  size_t batch = 1, warmup = 100;
  bool screen = true;
  std::optional<uint32_t> threads;  // ground truth from `base`; default: every core
};

// `index eval --json`: one record per nprobe. Ctrl-C cancels it (nothing is
// written: a ground truth is cached only once complete).
py::object Evaluate(Session& session, engine::Publication& publication, const EvalRequest& request);

}  // namespace vigilo::python
