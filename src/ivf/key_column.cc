// The key column (key_column.h).
#include "vigilo/ivf/key_column.h"

namespace vigilo::ivf {

size_t KeyColumn::size() const {
  switch (type.kind) {
    case ColumnType::Kind::kBoolean: return booleans.size();
    case ColumnType::Kind::kInt:
    case ColumnType::Kind::kLong:
    case ColumnType::Kind::kDate: return integers.size();
    default: return offsets.size() - 1;
  }
}

std::string_view KeyColumn::Bytes(size_t i) const {
  // size_t casts: offsets are uint64_t, and size_t is 32 bits in WebAssembly.
  return {reinterpret_cast<const char*>(bytes.data()) + static_cast<size_t>(offsets[i]),
          static_cast<size_t>(offsets[i + 1] - offsets[i])};
}

void KeyColumn::Clear(ColumnType new_type) {
  type = new_type;
  booleans.clear();
  integers.clear();
  offsets.assign(1, 0);
  bytes.clear();
}

}  // namespace vigilo::ivf
