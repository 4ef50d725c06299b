// The builder's source-table pass (private to src/ivf): which columns the
// source table holds, decided from the input's schema before any pass, and
// the copy of the key and those columns into source/ (docs/format/ivf-build.md).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "vigilo/ivf/input.h"
#include "vigilo/ivf/manifest.h"
#include "vigilo/ivf/source_writer.h"
#include "vigilo/store/owned_writes.h"

namespace vigilo::ivf {

// The input's top-level column names: a Parquet file's fields in file
// order; for the other formats the vector field alone (JSONL members other
// than the vector and the key are never read).
Result<std::vector<std::string>> InputColumnNames(const VectorInput& input);

// The source table's columns: the key first, then the payload columns.
struct SourcePlan {
  std::vector<Field> fields;
  // Per field, the Parquet leaf it is copied from; kFromBlocks for the
  // generated key and for columns of the inputs without names (the key and
  // the vector, taken from the input's blocks).
  std::vector<size_t> leaves;
  static constexpr size_t kFromBlocks = static_cast<size_t>(-1);
};

// `columns` empty: every input column but the key and the vector column,
// or the vector column when there is no other (.fvecs, .bvecs, .npy, JSONL,
// a Parquet file of vectors alone). InvalidArgument, before any pass, for a
// key that is not a long, a column listed twice or naming the key, a column
// the input does not have or cannot copy (its type; a JSONL member), and a
// name the manifest refuses.
Result<SourcePlan> PlanSource(const VectorInput& input, const Field& key, const std::vector<std::string>& columns);

// Copies the planned columns; the key must be 0, 1, 2, … in row order (the
// assign pass has checked it for a key column; the generated key is).
Result<SourceSpec> CopySource(VectorInput& input, const SourcePlan& plan, store::OwnedWrites& writes,
                              const SourceLayout& layout);

}  // namespace vigilo::ivf
