// PlanGet (object_store.h): the checks every backend applies to a Get once
// it knows the object's size. Apart from object_store.cc so the HTTP answer
// rules, which apply it to a server's stated size, link alone (target
// vigilo_http_rules; the WebAssembly core links it too).
#include <string>

#include "vigilo/store/object_store.h"

namespace vigilo::store {

Result<ByteRange> PlanGet(std::string_view key, uint64_t object_size, const GetOptions& options) {
  auto fail = [&](Status status) { return std::move(status).WithPath(std::string(key)); };
  if (options.expected_size && *options.expected_size != object_size) {
    return fail(IntegrityError("object is " + std::to_string(object_size) + " bytes, expected " +
                               std::to_string(*options.expected_size)));
  }
  ByteRange range{0, object_size};
  if (options.range) {
    range = *options.range;
    // offset + length may overflow: compare without adding.
    if (range.offset > object_size || range.length > object_size - range.offset) {
      return fail(OutOfRange("range [" + std::to_string(range.offset) + ", +" + std::to_string(range.length) +
                             ") is past the end of the " + std::to_string(object_size) + "-byte object"));
    }
  }
  if (range.length > options.max_bytes) {
    return fail(LimitExceeded("reading " + std::to_string(range.length) + " bytes exceeds the limit of " +
                              std::to_string(options.max_bytes)));
  }
  return range;
}

}  // namespace vigilo::store
