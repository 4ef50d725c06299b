#include "vigilo/parquet/value_json.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <cstring>

#include "vigilo/common/hex.h"
#include "vigilo/common/utf8.h"
#include "vigilo/json/write.h"

namespace vigilo::parquet {
namespace {

bool IsUnsigned(const ColumnDescriptor& c) {
  if (c.logical_type && c.logical_type->kind == LogicalType::Kind::kInteger) return !c.logical_type->is_signed;
  if (!c.converted_type) return false;
  switch (*c.converted_type) {
    case ConvertedType::kUint8:
    case ConvertedType::kUint16:
    case ConvertedType::kUint32:
    case ConvertedType::kUint64: return true;
    default: return false;
  }
}

void AppendDouble(double v, std::string* out) {
  if (std::isnan(v)) {
    *out += "\"NaN\"";
  } else if (std::isinf(v)) {
    *out += v > 0 ? "\"Infinity\"" : "\"-Infinity\"";
  } else {
    char buf[32];
    out->append(buf, json::FormatDouble(v, buf));
  }
}

void AppendHex(std::span<const uint8_t> bytes, std::string* out) {
  *out += "{\"hex\":\"";
  *out += HexEncode(bytes);
  *out += "\"}";
}

Status AppendBinary(const ColumnDescriptor& c, std::span<const uint8_t> bytes, std::string* out) {
  if (c.type == Type::kByteArray && IsStringColumn(c)) {
    std::string_view s(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    size_t bad = FindInvalidUtf8(s);
    if (bad != kUtf8Valid) {
      return InvalidFormat("string value is not valid UTF-8 (byte " + std::to_string(bad) + " of the value)");
    }
    json::WriteString(s, out);
    return Status::Ok();
  }
  AppendHex(bytes, out);
  return Status::Ok();
}

void AppendInt32(const ColumnDescriptor& c, int32_t v, std::string* out) {
  *out += IsUnsigned(c) ? std::to_string(static_cast<uint32_t>(v)) : std::to_string(v);
}

void AppendInt64(const ColumnDescriptor& c, int64_t v, std::string* out) {
  *out += IsUnsigned(c) ? std::to_string(static_cast<uint64_t>(v)) : std::to_string(v);
}

}  // namespace

bool IsStringColumn(const ColumnDescriptor& c) {
  if (c.logical_type) {
    switch (c.logical_type->kind) {
      case LogicalType::Kind::kString:
      case LogicalType::Kind::kEnum:
      case LogicalType::Kind::kJson: return true;
      default: break;
    }
  }
  if (c.converted_type) {
    switch (*c.converted_type) {
      case ConvertedType::kUtf8:
      case ConvertedType::kEnum:
      case ConvertedType::kJson: return true;
      default: break;
    }
  }
  return false;
}

Status AppendPlainValueJson(const ColumnDescriptor& c, std::span<const uint8_t> plain, std::string* out) {
  auto need = [&](size_t n) -> Status {
    if (plain.size() == n) return Status::Ok();
    return InvalidFormat("a " + std::to_string(plain.size()) + "-byte value does not fit the column's physical type");
  };
  switch (c.type) {
    case Type::kBoolean:
      VIGILO_RETURN_IF_ERROR(need(1));
      if (plain[0] > 1) return InvalidFormat("a BOOLEAN statistic is neither 0 nor 1");
      *out += plain[0] ? "true" : "false";
      return Status::Ok();
    case Type::kInt32: {
      VIGILO_RETURN_IF_ERROR(need(4));
      int32_t v;
      std::memcpy(&v, plain.data(), 4);
      AppendInt32(c, v, out);
      return Status::Ok();
    }
    case Type::kInt64: {
      VIGILO_RETURN_IF_ERROR(need(8));
      int64_t v;
      std::memcpy(&v, plain.data(), 8);
      AppendInt64(c, v, out);
      return Status::Ok();
    }
    case Type::kFloat: {
      VIGILO_RETURN_IF_ERROR(need(4));
      float v;
      std::memcpy(&v, plain.data(), 4);
      AppendDouble(static_cast<double>(v), out);
      return Status::Ok();
    }
    case Type::kDouble: {
      VIGILO_RETURN_IF_ERROR(need(8));
      double v;
      std::memcpy(&v, plain.data(), 8);
      AppendDouble(v, out);
      return Status::Ok();
    }
    case Type::kInt96:
    case Type::kFixedLenByteArray:
      VIGILO_RETURN_IF_ERROR(need(static_cast<size_t>(c.type_length)));
      return AppendBinary(c, plain, out);
    case Type::kByteArray:
      return AppendBinary(c, plain, out);
  }
  return Unimplemented("physical type is not supported");
}

Status AppendValueJson(const ColumnDescriptor& c, const ColumnValues& values, size_t i, std::string* out) {
  switch (values.type) {
    case Type::kBoolean: *out += values.booleans[i] ? "true" : "false"; return Status::Ok();
    case Type::kInt32: AppendInt32(c, values.int32s[i], out); return Status::Ok();
    case Type::kInt64: AppendInt64(c, values.int64s[i], out); return Status::Ok();
    case Type::kFloat: AppendDouble(static_cast<double>(values.floats[i]), out); return Status::Ok();
    case Type::kDouble: AppendDouble(values.doubles[i], out); return Status::Ok();
    case Type::kInt96:
    case Type::kFixedLenByteArray:
    case Type::kByteArray: return AppendBinary(c, values.Binary(i), out);
  }
  return Unimplemented("physical type is not supported");
}

Result<RowJsonCursor> RowJsonCursor::Make(const ColumnDescriptor& column, const DecodedColumn& decoded) {
  if (column.shape == ColumnShape::kOther) {
    std::string path;
    for (const std::string& p : column.path) path += (path.empty() ? "" : ".") + p;
    return Unimplemented("column " + path + " is inside a group that is not a LIST; it has no JSON row value");
  }
  return RowJsonCursor(column, decoded);
}

Status RowJsonCursor::NextValue(std::string* out) {
  if (value_ >= decoded_->values.size()) return Internal("decoded column has fewer values than its levels");
  return AppendValueJson(*column_, decoded_->values, value_++, out);
}

Status RowJsonCursor::AppendNext(std::string* out) {
  const DecodedColumn& d = *decoded_;
  if (row_ >= d.num_rows) return OutOfRange("no more rows");
  auto r = static_cast<size_t>(row_++);
  if (!d.row_valid.empty() && d.row_valid[r] == 0) {
    *out += "null";
    return Status::Ok();
  }
  if (column_->shape == ColumnShape::kScalar) return NextValue(out);
  *out += '[';
  for (uint64_t s = d.list_offsets[r]; s < d.list_offsets[r + 1]; ++s) {
    if (s != d.list_offsets[r]) *out += ',';
    if (!d.element_valid.empty() && d.element_valid[static_cast<size_t>(s)] == 0) {
      *out += "null";
    } else {
      VIGILO_RETURN_IF_ERROR(NextValue(out));
    }
  }
  *out += ']';
  return Status::Ok();
}

Status RowJsonCursor::Skip(uint64_t rows) {
  const DecodedColumn& d = *decoded_;
  if (rows > d.num_rows - row_) return OutOfRange("cannot skip " + std::to_string(rows) + " rows; " +
                                                  std::to_string(d.num_rows - row_) + " are left");
  for (; rows > 0; --rows) {
    auto r = static_cast<size_t>(row_++);
    if (!d.row_valid.empty() && d.row_valid[r] == 0) continue;
    if (column_->shape == ColumnShape::kScalar) {
      ++value_;
      continue;
    }
    for (uint64_t s = d.list_offsets[r]; s < d.list_offsets[r + 1]; ++s) {
      if (d.element_valid.empty() || d.element_valid[static_cast<size_t>(s)] != 0) ++value_;
    }
  }
  return Status::Ok();
}

Result<RowObjectWriter> RowObjectWriter::Make(std::span<const ColumnDescriptor> columns,
                                               std::span<const DecodedColumn> decoded) {
  if (columns.size() != decoded.size()) return InvalidArgument("one decoded column per descriptor is needed");
  std::vector<size_t> order(columns.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return columns[a].path[0] < columns[b].path[0]; });
  RowObjectWriter w;
  for (size_t k = 0; k < order.size(); ++k) {
    const ColumnDescriptor& c = columns[order[k]];
    if (k > 0 && columns[order[k - 1]].path[0] == c.path[0]) {
      return InvalidArgument("column \"" + c.path[0] + "\" appears twice");
    }
    if (k == 0) {
      w.rows_left_ = decoded[order[k]].num_rows;
    } else if (decoded[order[k]].num_rows != w.rows_left_) {
      return InvalidArgument("decoded columns have different row counts");
    }
    VIGILO_ASSIGN_OR_RETURN(RowJsonCursor cursor, RowJsonCursor::Make(c, decoded[order[k]]));
    std::string key;
    json::WriteString(c.path[0], &key);
    key += ':';
    w.keys_.push_back(std::move(key));
    w.cursors_.push_back(cursor);
  }
  return w;
}

Status RowObjectWriter::AppendNext(std::string* out) {
  if (rows_left_ == 0) return OutOfRange("no more rows");
  --rows_left_;
  *out += '{';
  for (size_t k = 0; k < cursors_.size(); ++k) {
    if (k > 0) *out += ',';
    *out += keys_[k];
    VIGILO_RETURN_IF_ERROR(cursors_[k].AppendNext(out));
  }
  *out += "}\n";
  return Status::Ok();
}

}  // namespace vigilo::parquet
