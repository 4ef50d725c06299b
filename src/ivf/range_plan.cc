#include "vigilo/ivf/range_plan.h"

#include <algorithm>
#include <utility>

namespace vigilo::ivf {

ObjectRange FooterTailRequest(const ObjectDescriptor& object, uint64_t tail_bytes) {
  const uint64_t tail = std::min(object.size, tail_bytes);
  return ObjectRange{object.path, object.size - tail, tail};
}

Result<FooterStep> ReadFooterTail(const ObjectDescriptor& object, std::span<const uint8_t> tail) {
  auto parsed = parquet::ParseFooter(tail, object.size);
  if (!parsed.ok()) {
    Status s = parsed.status();
    return s.path().empty() ? std::move(s).WithPath(object.path) : s;
  }
  FooterStep step;
  if (auto* footer = std::get_if<parquet::Footer>(&*parsed)) {
    step.footer = std::move(*footer);
  } else {
    const uint64_t need = std::get<parquet::NeedMoreBytes>(*parsed).tail_bytes;
    if (need <= tail.size() || need > object.size) {
      return Internal("the footer parser asked for " + std::to_string(need) + " tail bytes after " +
                      std::to_string(tail.size()))
          .WithPath(object.path);
    }
    step.more = ObjectRange{object.path, object.size - need, need};
  }
  return step;
}

size_t RangePlanner::Add(const std::string& path, uint64_t offset, uint64_t length) {
  if (!requests_.empty()) {
    ObjectRange& last = requests_.back();
    const uint64_t end = last.offset + last.length;
    if (last.path == path && offset >= last.offset && offset <= end + limits_.max_gap) {
      const uint64_t new_end = std::max(end, offset + length);
      if (new_end - last.offset <= limits_.max_request_bytes) {
        last.length = new_end - last.offset;
        return requests_.size() - 1;
      }
    }
  }
  requests_.push_back(ObjectRange{path, offset, length});
  return requests_.size() - 1;
}

std::vector<size_t> RangePlanner::Coalesce() { return CoalesceRound(requests_, limits_); }

namespace {

uint64_t End(const ObjectRange& r) { return r.offset + r.length; }

// A round of n requests sent `width` at a time waits this many latencies.
uint64_t Waves(size_t n, uint32_t width) { return (n + width - 1) / width; }

// The merges the model may choose from, in the order it takes them: gaps
// between neighbouring requests of one object, smallest first (ties: the
// earlier gap), each taken when the merged request stays within
// max_request_bytes and the gap bytes so far within the budget.
struct Merges {
  std::vector<size_t> order;        // gap i (between i and i + 1), in the order taken
  std::vector<uint64_t> gap_bytes;  // after the first j + 1 merges
};

Merges CandidateMerges(const std::vector<ObjectRange>& requests, const RangeLimits& limits, uint64_t budget) {
  std::vector<size_t> gaps;
  for (size_t i = 0; i + 1 < requests.size(); ++i) {
    if (requests[i].path == requests[i + 1].path && End(requests[i]) <= requests[i + 1].offset) gaps.push_back(i);
  }
  auto gap = [&](size_t i) { return requests[i + 1].offset - End(requests[i]); };
  std::sort(gaps.begin(), gaps.end(), [&](size_t a, size_t b) { return gap(a) != gap(b) ? gap(a) < gap(b) : a < b; });
  // Runs of merged requests as index intervals: first[i] / last[i] are valid
  // at a run's two ends.
  std::vector<size_t> first(requests.size()), last(requests.size());
  for (size_t i = 0; i < requests.size(); ++i) first[i] = last[i] = i;
  Merges merges;
  uint64_t total = 0;
  for (size_t i : gaps) {
    const size_t a = first[i], b = last[i + 1];
    if (End(requests[b]) - requests[a].offset > limits.max_request_bytes || total + gap(i) > budget) continue;
    total += gap(i);
    last[a] = b;
    first[b] = a;
    merges.order.push_back(i);
    merges.gap_bytes.push_back(total);
  }
  return merges;
}

}  // namespace

std::vector<size_t> CoalesceRound(std::vector<ObjectRange>& requests, const RangeLimits& limits) {
  std::vector<size_t> into(requests.size());
  for (size_t i = 0; i < into.size(); ++i) into[i] = i;
  const size_t n = requests.size();
  if (limits.round_width == 0 || n <= limits.round_width) return into;
  uint64_t needed = 0, objects = 0;
  for (size_t i = 0; i < n; ++i) {
    needed += requests[i].length;
    objects += i == 0 || requests[i].path != requests[i - 1].path;
  }
  const uint64_t budget = needed / 1000 * limits.max_gap_per_mille +
                          needed % 1000 * limits.max_gap_per_mille / 1000 + objects * limits.gap_bytes_per_object;
  const Merges merges = CandidateMerges(requests, limits, budget);
  // Cost in bytes of taking the first m merges: the round's latencies plus
  // the gaps fetched. The cheapest m wins; ties go to fewer merges.
  size_t best = 0;
  uint64_t best_cost = Waves(n, limits.round_width) * limits.latency_bytes;
  for (size_t m = 1; m <= merges.order.size(); ++m) {
    const uint64_t cost = Waves(n - m, limits.round_width) * limits.latency_bytes + merges.gap_bytes[m - 1];
    if (cost < best_cost) {
      best = m;
      best_cost = cost;
    }
  }
  std::vector<bool> joins_next(n, false);
  for (size_t j = 0; j < best; ++j) joins_next[merges.order[j]] = true;
  std::vector<ObjectRange> merged;
  for (size_t i = 0; i < n; ++i) {
    if (i > 0 && joins_next[i - 1]) {
      merged.back().length = End(requests[i]) - merged.back().offset;
    } else {
      merged.push_back(std::move(requests[i]));  // (requests is replaced below)
    }
    into[i] = merged.size() - 1;
  }
  requests = std::move(merged);
  return into;
}

}  // namespace vigilo::ivf
