#include "spaced_column.h"

#include <string_view>

namespace vigilo::ivf {

using Kind = ColumnType::Kind;

void SpacedColumn::Clear() {
  valid.clear();
  any_null = any_null_element = false;
  booleans.clear();
  int32s.clear();
  int64s.clear();
  floats.clear();
  doubles.clear();
  bytes.clear();
  offsets.assign(1, 0);
  elements.clear();
  element_valid.clear();
  estimated_bytes = 0;
}

void SpacedColumn::Take(const parquet::DecodedColumn& col, size_t r, size_t* cursor, bool keep) {
  const bool ok = col.row_valid.empty() || col.row_valid[r] != 0;
  const parquet::ColumnValues& v = col.values;
  if (kind == Kind::kFloatList) {
    const uint64_t lo = col.list_offsets[r], hi = col.list_offsets[r + 1];
    for (uint64_t s = lo; s < hi; ++s) {
      const bool e = col.element_valid.empty() || col.element_valid[s] != 0;
      float x = 0;
      if (e) x = v.type == parquet::Type::kDouble ? static_cast<float>(v.doubles[(*cursor)++]) : v.floats[(*cursor)++];
      if (!keep) continue;
      element_valid.push_back(e ? 1 : 0);
      any_null_element |= !e;
      elements.push_back(x);
    }
    if (!keep) return;
    offsets.push_back(static_cast<int64_t>(elements.size()));
    estimated_bytes += (hi - lo) * 4;
  } else {
    const size_t at = ok ? (*cursor)++ : 0;
    if (!keep) return;
    switch (kind) {
      case Kind::kBoolean: booleans.push_back(ok ? v.booleans[at] : 0); break;
      case Kind::kInt:
      case Kind::kDate: int32s.push_back(ok ? v.int32s[at] : 0); break;
      case Kind::kLong: int64s.push_back(ok ? v.int64s[at] : 0); break;
      case Kind::kFloat: floats.push_back(ok ? v.floats[at] : 0); break;
      case Kind::kDouble: doubles.push_back(ok ? v.doubles[at] : 0); break;
      default: {
        std::string value;
        if (ok) {
          auto b = v.Binary(at);
          value.assign(reinterpret_cast<const char*>(b.data()), b.size());
        }
        estimated_bytes += value.size();
        bytes.push_back(std::move(value));
      }
    }
  }
  valid.push_back(ok ? 1 : 0);
  any_null |= !ok;
  estimated_bytes += 8;
}

Status SpacedColumn::Write(parquet::FileWriter& w, size_t c) const {
  const std::span<const uint8_t> rows_valid = any_null ? std::span<const uint8_t>(valid) : std::span<const uint8_t>();
  switch (kind) {
    case Kind::kBoolean: return w.WriteBoolean(c, booleans, rows_valid);
    case Kind::kInt:
    case Kind::kDate: return w.WriteInt32(c, int32s, rows_valid);
    case Kind::kLong: return w.WriteInt64(c, int64s, rows_valid);
    case Kind::kFloat: return w.WriteFloat(c, floats, rows_valid);
    case Kind::kDouble: return w.WriteDouble(c, doubles, rows_valid);
    case Kind::kFloatList: {
      const std::span<const uint8_t> elements_valid =
          any_null_element ? std::span<const uint8_t>(element_valid) : std::span<const uint8_t>();
      return w.WriteFloatList(c, offsets, elements, rows_valid, elements_valid);
    }
    default: {
      std::vector<std::string_view> views(bytes.begin(), bytes.end());
      return w.WriteByteArray(c, views, rows_valid);
    }
  }
}

}  // namespace vigilo::ivf
