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

// Requests a reader has in flight at once: the CLI's request permits for
// publication reads (engine::kPublicationReadPermits is this), and the width
// the range planner's cost model assumes for every reader.
inline constexpr uint32_t kRoundWidth = 64;

struct RangeLimits {
  // Spans of one object at most this many bytes apart always share a request
  // (the gap is fetched and discarded); 0 merges only adjacent spans. 0 by
  // default: gaps are merged only when the round's cost model below says so.
  uint64_t max_gap = 0;
  // A merged request never grows past this (a single larger span is still
  // one request).
  uint64_t max_request_bytes = uint64_t{16} << 20;

  // The cost model of one round (docs/format/http-reading.md, "Coalescing"):
  // a reader has `round_width` requests in flight at once, so a round of n
  // requests waits ceil(n / round_width) request latencies ("waves"), and
  // one latency is worth `latency_bytes` bytes of transfer. CoalesceRound
  // merges neighbouring requests of one object across their gaps, smallest
  // first, to the wave count whose latencies plus gap bytes cost least,
  // fetching as gaps at most `max_gap_per_mille` of the bytes the round
  // needs plus `gap_bytes_per_object` per object it reads (half of issue
  // 39's allowance of 1.25 × the minimal bytes + 64 KiB per file; the other
  // half is left to the footer tails and the runs' cid chunks). A width of 0
  // disables it. One constant for every reader (the CLI, locally and over
  // HTTP, and the browser module), so all plan and count the same requests.
  uint32_t round_width = kRoundWidth;
  uint64_t latency_bytes = uint64_t{2} << 20;
  uint32_t max_gap_per_mille = 125;
  uint64_t gap_bytes_per_object = uint64_t{32} << 10;
};

// Spans arrive sorted by object, then offset; each lands in the last request
// when it continues that request within the limits, else starts a new one.
class RangePlanner {
 public:
  explicit RangePlanner(RangeLimits limits = {}) : limits_(limits) {}
  // The request the span went into.
  size_t Add(const std::string& path, uint64_t offset, uint64_t length);
  const std::vector<ObjectRange>& requests() const { return requests_; }
  // The round's requests merged by the cost model (CoalesceRound); for each
  // request Add returned, the index of the request it is now part of.
  std::vector<size_t> Coalesce();
  std::vector<ObjectRange> Take() { return std::move(requests_); }

 private:
  RangeLimits limits_;
  std::vector<ObjectRange> requests_;
};

// One round's requests (grouped by object, ascending and disjoint within
// one) merged across gaps by the cost model of `limits` (RangeLimits):
// `requests` is replaced by the merged requests, in the same order, and the
// result maps each original request to the merged one that holds it.
// Deterministic: a pure function of the requests and the limits.
std::vector<size_t> CoalesceRound(std::vector<ObjectRange>& requests, const RangeLimits& limits);

}  // namespace vigilo::ivf
