// Parquet footer and page-header metadata (parquet.thrift) as plain structs,
// with compact-protocol decode and encode.
//
// Only the fields vigilo reads or writes are modelled; every other field is
// skipped on decode (forward compatibility) and so is not re-encoded.
// Optional Thrift fields are std::optional, and optional lists are
// std::optional<std::vector>, so "absent" and "empty" stay distinct and
// decode(encode(x)) == x. Encode writes fields in ascending id order, as the
// reference Thrift libraries do, so encode(decode(b)) == b for such bytes.
//
// Enums carry the official numeric values. Decoding accepts any i32 for an
// enum (a newer writer may use a value added later): validation decides what
// a reader supports, not the codec.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "vigilo/common/result.h"
#include "vigilo/parquet/thrift_compact.h"

namespace vigilo::parquet {

enum class Type : int32_t {
  kBoolean = 0,
  kInt32 = 1,
  kInt64 = 2,
  kInt96 = 3,  // deprecated
  kFloat = 4,
  kDouble = 5,
  kByteArray = 6,
  kFixedLenByteArray = 7,
};

// "BOOLEAN" … "FIXED_LEN_BYTE_ARRAY" as the Parquet specification spells
// them; nullptr for a value this reader does not know (a newer writer's).
const char* PhysicalTypeName(Type type);

// Deprecated in favour of LogicalType but still written for old readers.
enum class ConvertedType : int32_t {
  kUtf8 = 0,
  kMap = 1,
  kMapKeyValue = 2,
  kList = 3,
  kEnum = 4,
  kDecimal = 5,
  kDate = 6,
  kTimeMillis = 7,
  kTimeMicros = 8,
  kTimestampMillis = 9,
  kTimestampMicros = 10,
  kUint8 = 11,
  kUint16 = 12,
  kUint32 = 13,
  kUint64 = 14,
  kInt8 = 15,
  kInt16 = 16,
  kInt32 = 17,
  kInt64 = 18,
  kJson = 19,
  kBson = 20,
  kInterval = 21,
};

enum class FieldRepetitionType : int32_t {
  kRequired = 0,
  kOptional = 1,
  kRepeated = 2,
};

enum class Encoding : int32_t {
  kPlain = 0,
  // 1 (GROUP_VAR_INT) was never used.
  kPlainDictionary = 2,
  kRle = 3,
  kBitPacked = 4,
  kDeltaBinaryPacked = 5,
  kDeltaLengthByteArray = 6,
  kDeltaByteArray = 7,
  kRleDictionary = 8,
  kByteStreamSplit = 9,
};

enum class CompressionCodec : int32_t {
  kUncompressed = 0,
  kSnappy = 1,
  kGzip = 2,
  kLzo = 3,
  kBrotli = 4,
  kLz4 = 5,  // deprecated Hadoop framing
  kZstd = 6,
  kLz4Raw = 7,
};

enum class PageType : int32_t {
  kDataPage = 0,
  kIndexPage = 1,
  kDictionaryPage = 2,
  kDataPageV2 = 3,
};

// Member ids of the TimeUnit union.
enum class TimeUnit : int16_t {
  kMillis = 1,
  kMicros = 2,
  kNanos = 3,
};

// The LogicalType union, flattened: `kind` is the union member (its value is
// the Thrift field id) and only the fields of that member are meaningful.
struct LogicalType {
  enum class Kind : int16_t {
    kOther = 0,  // a member this reader does not model; see other_*
    kString = 1,
    kMap = 2,
    kList = 3,
    kEnum = 4,
    kDecimal = 5,
    kDate = 6,
    kTime = 7,
    kTimestamp = 8,
    kInteger = 10,
    kUnknown = 11,  // always-null column
    kJson = 12,
    kBson = 13,
    kUuid = 14,
    kFloat16 = 15,
  };

  Kind kind = Kind::kString;
  int32_t scale = 0;                  // kDecimal
  int32_t precision = 0;              // kDecimal
  bool is_adjusted_to_utc = false;    // kTime, kTimestamp
  TimeUnit unit = TimeUnit::kMillis;  // kTime, kTimestamp
  int8_t bit_width = 0;               // kInteger: 8, 16, 32 or 64
  bool is_signed = false;             // kInteger
  // kOther: the member's field id, wire type and encoded value, kept verbatim
  // so re-encoding reproduces it. Also used for a modelled member whose
  // contents this reader does not understand (e.g. a new TimeUnit).
  int16_t other_field_id = 0;
  CompactType other_type = CompactType::kStruct;
  std::string other_value;

  static LogicalType Simple(Kind kind);  // a member without fields
  static LogicalType Decimal(int32_t scale, int32_t precision);
  static LogicalType Time(bool is_adjusted_to_utc, TimeUnit unit);
  static LogicalType Timestamp(bool is_adjusted_to_utc, TimeUnit unit);
  static LogicalType Integer(int8_t bit_width, bool is_signed);

  bool operator==(const LogicalType&) const = default;
};

// Member ids of the ColumnOrder union (all members are empty structs); an
// unknown member keeps its id.
enum class ColumnOrder : int16_t {
  kTypeDefinedOrder = 1,
  kIeee754TotalOrder = 2,
  kInt96TimestampOrder = 3,
};

struct KeyValue {
  std::string key;
  std::optional<std::string> value;
  bool operator==(const KeyValue&) const = default;
};

// Values are PLAIN-encoded bytes (without a length prefix for BYTE_ARRAY).
struct Statistics {
  std::optional<std::string> max;  // deprecated: signed comparison only
  std::optional<std::string> min;  // deprecated: signed comparison only
  std::optional<int64_t> null_count;
  std::optional<int64_t> distinct_count;
  std::optional<std::string> max_value;
  std::optional<std::string> min_value;
  std::optional<bool> is_max_value_exact;
  std::optional<bool> is_min_value_exact;
  bool operator==(const Statistics&) const = default;
};

struct SchemaElement {
  std::optional<Type> type;  // set on leaves only
  std::optional<int32_t> type_length;
  std::optional<FieldRepetitionType> repetition_type;  // unset on the root
  std::string name;
  std::optional<int32_t> num_children;  // set on groups only
  std::optional<ConvertedType> converted_type;
  std::optional<int32_t> scale;
  std::optional<int32_t> precision;
  std::optional<int32_t> field_id;
  std::optional<LogicalType> logical_type;
  bool operator==(const SchemaElement&) const = default;
};

struct PageEncodingStats {
  PageType page_type = PageType::kDataPage;
  Encoding encoding = Encoding::kPlain;
  int32_t count = 0;
  bool operator==(const PageEncodingStats&) const = default;
};

struct ColumnMetaData {
  Type type = Type::kBoolean;
  std::vector<Encoding> encodings;
  std::vector<std::string> path_in_schema;
  CompressionCodec codec = CompressionCodec::kUncompressed;
  int64_t num_values = 0;
  int64_t total_uncompressed_size = 0;  // all pages including headers
  int64_t total_compressed_size = 0;    // all pages including headers
  std::optional<std::vector<KeyValue>> key_value_metadata;
  int64_t data_page_offset = 0;
  std::optional<int64_t> index_page_offset;
  std::optional<int64_t> dictionary_page_offset;
  std::optional<Statistics> statistics;
  std::optional<std::vector<PageEncodingStats>> encoding_stats;
  bool operator==(const ColumnMetaData&) const = default;
};

struct ColumnChunk {
  std::optional<std::string> file_path;  // set only for chunks in another file
  int64_t file_offset = 0;               // deprecated; writers put 0
  std::optional<ColumnMetaData> meta_data;
  bool operator==(const ColumnChunk&) const = default;
};

struct RowGroup {
  std::vector<ColumnChunk> columns;  // in schema leaf order
  int64_t total_byte_size = 0;
  int64_t num_rows = 0;
  std::optional<int64_t> file_offset;
  std::optional<int64_t> total_compressed_size;
  std::optional<int16_t> ordinal;
  bool operator==(const RowGroup&) const = default;
};

struct FileMetaData {
  int32_t version = 1;
  std::vector<SchemaElement> schema;  // depth-first; schema[0] is the root
  int64_t num_rows = 0;
  std::vector<RowGroup> row_groups;
  std::optional<std::vector<KeyValue>> key_value_metadata;
  std::optional<std::string> created_by;
  // One per leaf column: how min_value/max_value are ordered.
  std::optional<std::vector<ColumnOrder>> column_orders;
  bool operator==(const FileMetaData&) const = default;
};

struct DataPageHeader {
  int32_t num_values = 0;  // including nulls
  Encoding encoding = Encoding::kPlain;
  Encoding definition_level_encoding = Encoding::kRle;
  Encoding repetition_level_encoding = Encoding::kRle;
  std::optional<Statistics> statistics;
  bool operator==(const DataPageHeader&) const = default;
};

struct DictionaryPageHeader {
  int32_t num_values = 0;
  Encoding encoding = Encoding::kPlain;
  std::optional<bool> is_sorted;
  bool operator==(const DictionaryPageHeader&) const = default;
};

struct DataPageHeaderV2 {
  int32_t num_values = 0;
  int32_t num_nulls = 0;
  int32_t num_rows = 0;
  Encoding encoding = Encoding::kPlain;
  int32_t definition_levels_byte_length = 0;
  int32_t repetition_levels_byte_length = 0;
  std::optional<bool> is_compressed;  // absent means compressed
  std::optional<Statistics> statistics;
  bool operator==(const DataPageHeaderV2&) const = default;
};

// index_page_header (field 6) is not modelled: it is skipped on decode.
struct PageHeader {
  PageType type = PageType::kDataPage;
  int32_t uncompressed_page_size = 0;  // excluding this header
  int32_t compressed_page_size = 0;    // excluding this header
  std::optional<int32_t> crc;
  std::optional<DataPageHeader> data_page_header;
  std::optional<DictionaryPageHeader> dictionary_page_header;
  std::optional<DataPageHeaderV2> data_page_header_v2;
  bool operator==(const PageHeader&) const = default;
};

struct DecodeOptions {
  // Budget for the decoded C++ objects (element sizes plus string bytes).
  // Small encodings can expand ~100x in memory; this bounds what a hostile
  // input can make us allocate. Exceeding it is kLimitExceeded.
  uint64_t max_decoded_bytes = uint64_t{512} << 20;
  // DecodePageHeader only: false skips a data page header's statistics
  // (still checked to be a well-formed struct, left unset). Column readers
  // never use them, and a BYTE_ARRAY column's min and max can be as large as
  // its values (a postings code page carries two whole codes).
  bool page_statistics = true;
};

// Decodes a FileMetaData that occupies exactly `bytes` (trailing bytes are
// an error). Malformed bytes or a missing required field are kParseError;
// the Status path names where (e.g. "row_groups[2].columns[0].meta_data").
Result<FileMetaData> DecodeFileMetaData(std::span<const uint8_t> bytes, const DecodeOptions& options = {});
Result<std::vector<uint8_t>> EncodeFileMetaData(const FileMetaData& metadata);

// Decodes the PageHeader at the start of `bytes` (page data follows it) and
// stores its encoded length in *header_size (which must not be null). Sizes
// and counts are not range-checked here: that is the page reader's job.
Result<PageHeader> DecodePageHeader(std::span<const uint8_t> bytes, size_t* header_size,
                                    const DecodeOptions& options = {});
Result<std::vector<uint8_t>> EncodePageHeader(const PageHeader& header);

}  // namespace vigilo::parquet
