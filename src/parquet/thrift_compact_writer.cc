#include "vigilo/parquet/thrift_compact.h"

#include <bit>

namespace vigilo::parquet {

void CompactWriter::Fail(Status status) {
  if (status_.ok()) status_ = std::move(status);
}

void CompactWriter::PutByte(uint8_t b) {
  if (status_.ok()) out_.push_back(b);
}

Result<std::vector<uint8_t>> CompactWriter::Finish() && {
  if (status_.ok() && depth_ != 0) Fail(Internal("thrift writer: unbalanced BeginStruct/EndStruct"));
  if (!status_.ok()) return status_;
  return std::move(out_);
}

void CompactWriter::WriteVarint(uint64_t v) {
  if (!status_.ok()) return;
  while (v >= 0x80) {
    PutByte(static_cast<uint8_t>(v | 0x80));
    v >>= 7;
  }
  PutByte(static_cast<uint8_t>(v));
}

void CompactWriter::WriteI8(int8_t v) { PutByte(static_cast<uint8_t>(v)); }

void CompactWriter::WriteI16(int16_t v) { WriteI32(v); }

void CompactWriter::WriteI32(int32_t v) {
  // Zigzag: the arithmetic shift spreads the sign bit over all 32 bits.
  auto u = static_cast<uint32_t>(v);
  WriteVarint((u << 1) ^ static_cast<uint32_t>(v >> 31));
}

void CompactWriter::WriteI64(int64_t v) {
  auto u = static_cast<uint64_t>(v);
  WriteVarint((u << 1) ^ static_cast<uint64_t>(v >> 63));
}

void CompactWriter::WriteDouble(double v) {
  auto bits = std::bit_cast<uint64_t>(v);
  for (int i = 0; i < 8; ++i) PutByte(static_cast<uint8_t>(bits >> (8 * i)));
}

void CompactWriter::WriteBoolElement(bool v) { PutByte(v ? 1 : 0); }

void CompactWriter::WriteBinary(std::span<const uint8_t> bytes) {
  if (bytes.size() > static_cast<size_t>(INT32_MAX)) {
    return Fail(LimitExceeded("thrift writer: binary longer than 2^31-1 bytes"));
  }
  WriteVarint(bytes.size());
  WriteRaw(bytes);
}

void CompactWriter::WriteString(std::string_view s) {
  WriteBinary({reinterpret_cast<const uint8_t*>(s.data()), s.size()});
}

void CompactWriter::WriteRaw(std::span<const uint8_t> bytes) {
  if (!status_.ok()) return;
  out_.insert(out_.end(), bytes.begin(), bytes.end());
}

void CompactWriter::BeginStruct() {
  if (depth_ >= kMaxNestingDepth) {
    return Fail(LimitExceeded("thrift writer: nesting deeper than the reader accepts"));
  }
  ++depth_;
  last_field_id_[depth_] = 0;
}

void CompactWriter::EndStruct() {
  if (depth_ == 0) return Fail(Internal("thrift writer: EndStruct without BeginStruct"));
  PutByte(0);
  --depth_;
}

void CompactWriter::WriteFieldHeader(CompactType type, int16_t id) {
  if (type == CompactType::kStop) return Fail(Internal("thrift writer: a field cannot have type stop"));
  auto t = static_cast<uint8_t>(type);
  int16_t& last = last_field_id_[depth_];
  int32_t delta = id - last;
  if (delta > 0 && delta <= 15) {
    PutByte(static_cast<uint8_t>(delta << 4 | t));
  } else {
    PutByte(t);
    WriteI16(id);
  }
  last = id;
}

void CompactWriter::WriteBoolField(int16_t id, bool v) {
  WriteFieldHeader(v ? CompactType::kBoolTrue : CompactType::kBoolFalse, id);
}

void CompactWriter::WriteListHeader(CompactType element_type, size_t size) {
  if (size > static_cast<size_t>(INT32_MAX)) {
    return Fail(LimitExceeded("thrift writer: list longer than 2^31-1 elements"));
  }
  auto t = static_cast<uint8_t>(element_type);
  if (size < 15) {
    PutByte(static_cast<uint8_t>(size << 4 | t));
  } else {
    PutByte(static_cast<uint8_t>(0xf0 | t));
    WriteVarint(size);
  }
}

void CompactWriter::WriteMapHeader(CompactType key_type, CompactType value_type, size_t size) {
  if (size > static_cast<size_t>(INT32_MAX)) {
    return Fail(LimitExceeded("thrift writer: map larger than 2^31-1 entries"));
  }
  WriteVarint(size);
  if (size == 0) return;
  auto k = static_cast<uint8_t>(key_type);
  auto v = static_cast<uint8_t>(value_type);
  PutByte(static_cast<uint8_t>(k << 4 | v));
}

}  // namespace vigilo::parquet
