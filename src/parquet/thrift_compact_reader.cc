#include "vigilo/parquet/thrift_compact.h"

#include <bit>

namespace vigilo::parquet {
namespace {

// 1..13 are the defined field and element types; 0 is only the stop byte.
bool IsValidType(uint8_t nibble) { return nibble >= 1 && nibble <= 13; }

// Smallest encoding of one container element of `type`, so that a declared
// size can be rejected before any element is read or any memory reserved.
uint64_t MinElementSize(CompactType type) {
  switch (type) {
    case CompactType::kDouble: return 8;
    case CompactType::kUuid: return 16;
    default: return 1;  // bool and i8 are one byte; varints, lengths, headers, stop >= 1
  }
}

}  // namespace

std::string_view CompactTypeName(CompactType type) {
  switch (type) {
    case CompactType::kStop: return "stop";
    case CompactType::kBoolTrue: return "bool(true)";
    case CompactType::kBoolFalse: return "bool(false)";
    case CompactType::kI8: return "i8";
    case CompactType::kI16: return "i16";
    case CompactType::kI32: return "i32";
    case CompactType::kI64: return "i64";
    case CompactType::kDouble: return "double";
    case CompactType::kBinary: return "binary";
    case CompactType::kList: return "list";
    case CompactType::kSet: return "set";
    case CompactType::kMap: return "map";
    case CompactType::kStruct: return "struct";
    case CompactType::kUuid: return "uuid";
  }
  return "invalid";
}

Status CompactReader::Error(std::string message) const {
  return ParseError("thrift: " + std::move(message)).WithOffset(pos_);
}

Status CompactReader::Need(size_t n) const {
  if (n > remaining()) {
    return Error("truncated: need " + std::to_string(n) + " bytes, " + std::to_string(remaining()) + " remain");
  }
  return Status::Ok();
}

Result<uint64_t> CompactReader::ReadVarint64() {
  uint64_t value = 0;
  for (int i = 0; i < 10; ++i) {
    if (pos_ >= bytes_.size()) return Error("truncated varint");
    uint8_t b = bytes_[pos_++];
    // The tenth byte carries only bit 63; anything more overflows 64 bits.
    if (i == 9 && b > 1) return Error("varint overflows 64 bits");
    value |= static_cast<uint64_t>(b & 0x7f) << (7 * i);
    if ((b & 0x80) == 0) return value;
  }
  return Error("varint longer than 10 bytes");
}

Result<uint32_t> CompactReader::ReadVarint32() {
  uint32_t value = 0;
  for (int i = 0; i < 5; ++i) {
    if (pos_ >= bytes_.size()) return Error("truncated varint");
    uint8_t b = bytes_[pos_++];
    // The fifth byte carries only bits 28..31.
    if (i == 4 && b > 0x0f) return Error("varint overflows 32 bits");
    value |= static_cast<uint32_t>(b & 0x7f) << (7 * i);
    if ((b & 0x80) == 0) return value;
  }
  return Error("varint longer than 5 bytes");
}

Result<int8_t> CompactReader::ReadI8() {
  VIGILO_RETURN_IF_ERROR(Need(1));
  return static_cast<int8_t>(bytes_[pos_++]);
}

Result<int16_t> CompactReader::ReadI16() {
  size_t start = pos_;
  VIGILO_ASSIGN_OR_RETURN(int32_t v, ReadI32());
  if (v < INT16_MIN || v > INT16_MAX) {
    return ParseError("thrift: i16 value " + std::to_string(v) + " out of range").WithOffset(start);
  }
  return static_cast<int16_t>(v);
}

Result<int32_t> CompactReader::ReadI32() {
  VIGILO_ASSIGN_OR_RETURN(uint32_t u, ReadVarint32());
  return static_cast<int32_t>((u >> 1) ^ (~(u & 1) + 1));  // zigzag decode
}

Result<int64_t> CompactReader::ReadI64() {
  VIGILO_ASSIGN_OR_RETURN(uint64_t u, ReadVarint64());
  return static_cast<int64_t>((u >> 1) ^ (~(u & 1) + 1));  // zigzag decode
}

Result<double> CompactReader::ReadDouble() {
  VIGILO_RETURN_IF_ERROR(Need(8));
  uint64_t bits = 0;
  for (int i = 0; i < 8; ++i) bits |= static_cast<uint64_t>(bytes_[pos_ + i]) << (8 * i);
  pos_ += 8;
  return std::bit_cast<double>(bits);
}

Result<bool> CompactReader::ReadBoolElement() {
  VIGILO_RETURN_IF_ERROR(Need(1));
  uint8_t b = bytes_[pos_];
  if (b > 2) return Error("bool element byte " + std::to_string(b) + " is not 0, 1 or 2");
  ++pos_;
  return b == 1;
}

Result<std::span<const uint8_t>> CompactReader::ReadBinary() {
  size_t start = pos_;
  VIGILO_ASSIGN_OR_RETURN(uint32_t len, ReadVarint32());
  if (len > static_cast<uint32_t>(INT32_MAX)) {
    return ParseError("thrift: negative binary length").WithOffset(start);
  }
  VIGILO_RETURN_IF_ERROR(Need(len));
  auto view = bytes_.subspan(pos_, len);
  pos_ += len;
  return view;
}

Result<std::string> CompactReader::ReadString() {
  VIGILO_ASSIGN_OR_RETURN(auto view, ReadBinary());
  return std::string(reinterpret_cast<const char*>(view.data()), view.size());
}

Status CompactReader::BeginStruct() {
  if (depth_ >= kMaxNestingDepth) {
    return Error("nesting deeper than " + std::to_string(kMaxNestingDepth));
  }
  ++depth_;
  last_field_id_[depth_] = 0;
  return Status::Ok();
}

void CompactReader::EndStruct() {
  if (depth_ > 0) --depth_;
}

Result<FieldHeader> CompactReader::ReadFieldHeader() {
  VIGILO_RETURN_IF_ERROR(Need(1));
  size_t start = pos_;
  uint8_t b = bytes_[pos_++];
  if (b == 0) return FieldHeader{};
  uint8_t type = b & 0x0f;
  uint8_t delta = b >> 4;
  if (!IsValidType(type)) {
    return ParseError("thrift: invalid field type " + std::to_string(type)).WithOffset(start);
  }
  int16_t& last = last_field_id_[depth_];
  int32_t id;
  if (delta != 0) {
    id = last + delta;
    if (id > INT16_MAX) return ParseError("thrift: field id delta overflows i16").WithOffset(start);
  } else {
    VIGILO_ASSIGN_OR_RETURN(id, ReadI16());
  }
  last = static_cast<int16_t>(id);
  return FieldHeader{static_cast<CompactType>(type), static_cast<int16_t>(id)};
}

Result<ListHeader> CompactReader::ReadListHeader() {
  VIGILO_RETURN_IF_ERROR(Need(1));
  size_t start = pos_;
  uint8_t b = bytes_[pos_++];
  uint8_t type = b & 0x0f;
  // 0x00, an empty list of no element type, is what hyparquet-writer writes
  // for a 0-row file's row_groups: nothing is read through the type.
  if (b == 0) return ListHeader{CompactType::kStop, 0};
  if (!IsValidType(type)) {
    return ParseError("thrift: invalid list element type " + std::to_string(type)).WithOffset(start);
  }
  uint32_t size = b >> 4;
  if (size == 15) {
    VIGILO_ASSIGN_OR_RETURN(size, ReadVarint32());
  }
  auto element = static_cast<CompactType>(type);
  // Compare in 64 bits: size * 16 cannot overflow there.
  if (size > static_cast<uint32_t>(INT32_MAX) || size * MinElementSize(element) > remaining()) {
    return ParseError("thrift: list size " + std::to_string(size) + " exceeds the " + std::to_string(remaining()) +
                      " remaining bytes")
        .WithOffset(start);
  }
  return ListHeader{element, size};
}

Result<MapHeader> CompactReader::ReadMapHeader() {
  size_t start = pos_;
  VIGILO_ASSIGN_OR_RETURN(uint32_t size, ReadVarint32());
  if (size == 0) return MapHeader{};
  VIGILO_RETURN_IF_ERROR(Need(1));
  uint8_t b = bytes_[pos_++];
  uint8_t key = b >> 4;
  uint8_t value = b & 0x0f;
  if (!IsValidType(key) || !IsValidType(value)) {
    return ParseError("thrift: invalid map key/value types").WithOffset(pos_ - 1);
  }
  auto key_type = static_cast<CompactType>(key);
  auto value_type = static_cast<CompactType>(value);
  uint64_t entry = MinElementSize(key_type) + MinElementSize(value_type);
  if (size > static_cast<uint32_t>(INT32_MAX) || size * entry > remaining()) {
    return ParseError("thrift: map size " + std::to_string(size) + " exceeds the " + std::to_string(remaining()) +
                      " remaining bytes")
        .WithOffset(start);
  }
  return MapHeader{key_type, value_type, size};
}

Status CompactReader::SkipField(CompactType type) { return Skip(type, /*in_container=*/false); }
Status CompactReader::SkipElement(CompactType type) { return Skip(type, /*in_container=*/true); }

Status CompactReader::EnterContainer() {
  if (depth_ >= kMaxNestingDepth) {
    return Error("nesting deeper than " + std::to_string(kMaxNestingDepth));
  }
  ++depth_;
  return Status::Ok();
}

Status CompactReader::Skip(CompactType type, bool in_container) {
  switch (type) {
    case CompactType::kBoolTrue:
    case CompactType::kBoolFalse:
      if (!in_container) return Status::Ok();  // the value was in the field header
      return ReadBoolElement().status();
    case CompactType::kI8: return ReadI8().status();
    case CompactType::kI16:
    case CompactType::kI32: return ReadVarint32().status();
    case CompactType::kI64: return ReadVarint64().status();
    case CompactType::kDouble:
      VIGILO_RETURN_IF_ERROR(Need(8));
      pos_ += 8;
      return Status::Ok();
    case CompactType::kUuid:
      VIGILO_RETURN_IF_ERROR(Need(16));
      pos_ += 16;
      return Status::Ok();
    case CompactType::kBinary: return ReadBinary().status();
    case CompactType::kList:
    case CompactType::kSet: {
      VIGILO_ASSIGN_OR_RETURN(ListHeader h, ReadListHeader());
      VIGILO_RETURN_IF_ERROR(EnterContainer());
      for (uint32_t i = 0; i < h.size; ++i) VIGILO_RETURN_IF_ERROR(SkipElement(h.element_type));
      --depth_;
      return Status::Ok();
    }
    case CompactType::kMap: {
      VIGILO_ASSIGN_OR_RETURN(MapHeader h, ReadMapHeader());
      VIGILO_RETURN_IF_ERROR(EnterContainer());
      for (uint32_t i = 0; i < h.size; ++i) {
        VIGILO_RETURN_IF_ERROR(SkipElement(h.key_type));
        VIGILO_RETURN_IF_ERROR(SkipElement(h.value_type));
      }
      --depth_;
      return Status::Ok();
    }
    case CompactType::kStruct: {
      VIGILO_RETURN_IF_ERROR(BeginStruct());
      while (true) {
        VIGILO_ASSIGN_OR_RETURN(FieldHeader h, ReadFieldHeader());
        if (h.is_stop()) break;
        VIGILO_RETURN_IF_ERROR(SkipField(h.type));
      }
      EndStruct();
      return Status::Ok();
    }
    case CompactType::kStop: break;
  }
  return Error("cannot skip a value of type " + std::to_string(static_cast<int>(type)));
}

}  // namespace vigilo::parquet
