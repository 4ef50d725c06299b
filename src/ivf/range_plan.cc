#include "vigilo/ivf/range_plan.h"

#include <algorithm>

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

}  // namespace vigilo::ivf
