// Thrift compact protocol (the encoding of Parquet metadata), sans-IO.
//
// CompactReader decodes from a byte span and never trusts a length: every
// string length and container size is checked against the bytes that remain
// before anything is allocated, and struct/container nesting is bounded, so a
// hostile footer costs at most O(input) memory and time. Every failure is a
// kParseError Status carrying the byte offset where decoding stopped; after
// an error the reader's position and nesting state are unspecified, so the
// reader is discarded.
//
// CompactWriter appends the same encoding to a byte vector. Field headers use
// the short (delta) form whenever the spec allows, as the reference Thrift
// libraries do, so our bytes match theirs for the same field sequence.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "vigilo/common/result.h"

namespace vigilo::parquet {

// Wire type nibble of a field header (and, for elements, of a list header).
enum class CompactType : uint8_t {
  kStop = 0,
  kBoolTrue = 1,   // as a field: the value is in the header; as an element: bool
  kBoolFalse = 2,  // as a field: the value is in the header; as an element: bool
  kI8 = 3,
  kI16 = 4,
  kI32 = 5,
  kI64 = 6,
  kDouble = 7,
  kBinary = 8,
  kList = 9,
  kSet = 10,
  kMap = 11,
  kStruct = 12,
  kUuid = 13,
};

// "i32", "struct", ... for error messages.
std::string_view CompactTypeName(CompactType type);

// Structs and containers nested deeper than this are rejected (a stack bomb
// guard); real Parquet metadata nests at most 6 levels.
inline constexpr int kMaxNestingDepth = 64;

struct FieldHeader {
  CompactType type = CompactType::kStop;  // kStop ends the struct
  int16_t id = 0;
  bool is_stop() const { return type == CompactType::kStop; }
  bool is_bool() const { return type == CompactType::kBoolTrue || type == CompactType::kBoolFalse; }
  bool bool_value() const { return type == CompactType::kBoolTrue; }
};

struct ListHeader {
  CompactType element_type = CompactType::kStop;
  uint32_t size = 0;  // already checked to fit in the remaining bytes
};

struct MapHeader {
  CompactType key_type = CompactType::kStop;    // unset when size == 0
  CompactType value_type = CompactType::kStop;  // unset when size == 0
  uint32_t size = 0;                            // already checked to fit in the remaining bytes
};

class CompactReader {
 public:
  explicit CompactReader(std::span<const uint8_t> bytes) : bytes_(bytes) {}

  size_t offset() const { return pos_; }
  size_t remaining() const { return bytes_.size() - pos_; }
  // The input bytes in [begin, offset()): an already-read value, verbatim.
  std::span<const uint8_t> ConsumedSince(size_t begin) const { return bytes_.subspan(begin, pos_ - begin); }
  int depth() const { return depth_; }

  // Unsigned LEB128: at most 10 bytes for 64 bits, 5 for 32 bits; a value
  // that overflows the width is an error.
  Result<uint64_t> ReadVarint64();
  Result<uint32_t> ReadVarint32();

  Result<int8_t> ReadI8();
  Result<int16_t> ReadI16();    // zigzag varint
  Result<int32_t> ReadI32();    // zigzag varint
  Result<int64_t> ReadI64();    // zigzag varint
  Result<double> ReadDouble();  // 8 bytes little-endian
  // A bool list/set/map element (one byte: 1 is true; 0 or 2 is false).
  Result<bool> ReadBoolElement();

  // Length-prefixed bytes. The view aliases the input span.
  Result<std::span<const uint8_t>> ReadBinary();
  Result<std::string> ReadString();

  // Struct framing. BeginStruct enters a nested struct (depth-checked);
  // ReadFieldHeader returns the next header, kStop at the end, after which the
  // caller calls EndStruct. Field ids are tracked per nesting level for the
  // delta form.
  Status BeginStruct();
  Result<FieldHeader> ReadFieldHeader();
  void EndStruct();

  // Container headers; sizes are checked against the remaining bytes using
  // the smallest encoding of one element, so a size is never a bomb.
  Result<ListHeader> ReadListHeader();  // list and set share the encoding
  Result<MapHeader> ReadMapHeader();

  // Skips one field value of wire type `type` (bools in field headers have no
  // value) or one container element; nested structs, lists, sets and maps are
  // skipped recursively within the depth limit.
  Status SkipField(CompactType type);
  Status SkipElement(CompactType type);

  // A ParseError at the current offset.
  Status Error(std::string message) const;

 private:
  Status Need(size_t n) const;
  Status Skip(CompactType type, bool in_container);
  Status EnterContainer();

  std::span<const uint8_t> bytes_;
  size_t pos_ = 0;
  int depth_ = 0;
  // last_field_id_[d] is the last field id read in the struct at depth d.
  std::array<int16_t, kMaxNestingDepth + 1> last_field_id_{};
};

// Appends compact-protocol bytes to an owned buffer. What cannot be encoded
// (a length above 2^31-1: kLimitExceeded; unbalanced structs: kInternal) is
// recorded as the first error in status(); later calls are then ignored.
class CompactWriter {
 public:
  CompactWriter() = default;

  const Status& status() const { return status_; }
  const std::vector<uint8_t>& bytes() const { return out_; }
  // The encoded bytes, or the first error. Requires balanced structs.
  Result<std::vector<uint8_t>> Finish() &&;

  void WriteVarint(uint64_t v);
  void WriteI8(int8_t v);
  void WriteI16(int16_t v);
  void WriteI32(int32_t v);
  void WriteI64(int64_t v);
  void WriteDouble(double v);
  void WriteBoolElement(bool v);
  void WriteBinary(std::span<const uint8_t> bytes);
  void WriteString(std::string_view s);
  // Copies already-encoded bytes verbatim (a value kept from a decode).
  void WriteRaw(std::span<const uint8_t> bytes);

  void BeginStruct();
  // Writes the stop byte and leaves the struct.
  void EndStruct();
  // For bool fields use WriteBoolField: the value lives in the header.
  void WriteFieldHeader(CompactType type, int16_t id);
  void WriteBoolField(int16_t id, bool v);

  void WriteListHeader(CompactType element_type, size_t size);
  void WriteMapHeader(CompactType key_type, CompactType value_type, size_t size);

 private:
  void Fail(Status status);
  void PutByte(uint8_t b);

  std::vector<uint8_t> out_;
  Status status_;
  int depth_ = 0;
  std::array<int16_t, kMaxNestingDepth + 1> last_field_id_{};
};

}  // namespace vigilo::parquet
