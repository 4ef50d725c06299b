// The read core's two shared planning steps (sans-IO, like the runs that use
// them): reading a Parquet footer from a speculative tail, and turning the
// byte spans a run needs into few requests.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "vigilo/common/byte_range.h"
#include "vigilo/common/result.h"
#include "vigilo/ivf/manifest.h"
#include "vigilo/parquet/footer.h"

namespace vigilo::ivf {

// The speculative footer read: the object's last min(size, tail_bytes) bytes.
ObjectRange FooterTailRequest(const ObjectDescriptor& object, uint64_t tail_bytes);

// A tail's outcome: the parsed footer, or the longer tail still needed (its
// exact length from the footer's length field).
struct FooterStep {
  std::optional<parquet::Footer> footer;
  std::optional<ObjectRange> more;
};
// Errors carry the object's path.
Result<FooterStep> ReadFooterTail(const ObjectDescriptor& object, std::span<const uint8_t> tail);

struct RangeLimits {
  // Spans of one object at most this many bytes apart share a request (the
  // gap is fetched and discarded); 0 merges only adjacent spans. 0 by
  // default: a round's requests run concurrently, so fewer requests save
  // little, while exact row-group runs keep the cache directory useful (it
  // is keyed by exact ranges: a later query whose runs differ would miss a
  // merged range it partly holds). docs/format/http-reading.md.
  uint64_t max_gap = 0;
  // A merged request never grows past this (a single larger span is still
  // one request).
  uint64_t max_request_bytes = uint64_t{16} << 20;
};

// Spans arrive sorted by object, then offset; each lands in the last request
// when it continues that request within the limits, else starts a new one.
class RangePlanner {
 public:
  explicit RangePlanner(RangeLimits limits = {}) : limits_(limits) {}
  // The request the span went into.
  size_t Add(const std::string& path, uint64_t offset, uint64_t length);
  const std::vector<ObjectRange>& requests() const { return requests_; }
  std::vector<ObjectRange> Take() { return std::move(requests_); }

 private:
  RangeLimits limits_;
  std::vector<ObjectRange> requests_;
};

}  // namespace vigilo::ivf
