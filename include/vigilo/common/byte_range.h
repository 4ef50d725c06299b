// Byte ranges shared by the sans-IO cores (Parquet, the query core) and the
// object stores, so the read core plans ranges without including a store.
#pragma once

#include <cstdint>
#include <string>

namespace vigilo {

// A half-open byte range [offset, offset + length) of one object or file.
struct ByteRange {
  uint64_t offset = 0;
  uint64_t length = 0;
  bool operator==(const ByteRange&) const = default;
};

// A byte range of a named object (a publication path or a logical key).
struct ObjectRange {
  std::string path;
  uint64_t offset = 0;
  uint64_t length = 0;
  friend bool operator==(const ObjectRange&, const ObjectRange&) = default;
};

}  // namespace vigilo
