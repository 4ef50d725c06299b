// The in-place fast path of column_view.h. Every check mirrors one the full
// decoder (column_reader.cc) makes; where this path cannot be sure, it
// declines and leaves the verdict to the decoder.
#include "vigilo/parquet/column_view.h"

#include <zlib.h>

#include <bit>
#include <cstring>

namespace vigilo::parquet {
namespace {

// The stride of a value of `width` bytes, or 0 for a type this path does not read.
size_t Stride(const ColumnDescriptor& column, size_t width) {
  switch (column.type) {
    case Type::kFloat:
    case Type::kInt32: return width == 4 ? 4 : 0;
    case Type::kDouble:
    case Type::kInt64: return width == 8 ? 8 : 0;
    case Type::kFixedLenByteArray:
      return column.type_length > 0 && width == static_cast<size_t>(column.type_length) ? width : 0;
    case Type::kByteArray: return width <= UINT32_MAX ? width + 4 : 0;
    default: return 0;
  }
}

}  // namespace

bool ByteArrayLengthsAre(std::span<const ValueRun> runs, size_t width) {
  const auto want = static_cast<uint32_t>(width);
  for (const ValueRun& run : runs) {
    const uint8_t* length_at = run.first - 4;  // each value's length just before it
    for (size_t i = 0; i < run.count; ++i) {
      uint32_t length = 0;
      std::memcpy(&length, length_at + i * run.stride, 4);  // little-endian, as the format's and the host's
      if (length != want) return false;
    }
  }
  return true;
}

bool ViewFixedWidthChunk(const ColumnDescriptor& column, const ColumnMetaData& meta, std::span<const uint8_t> bytes,
                         size_t width, std::vector<ValueRun>& runs, const ColumnReadOptions& options,
                         ByteArrayLengths lengths) {
  static_assert(std::endian::native == std::endian::little, "values are read in place as little-endian");
  runs.clear();
  const size_t stride = Stride(column, width);
  if (stride == 0 || meta.type != column.type || column.max_definition_level != 0 || column.max_repetition_level != 0 || meta.num_values < 0) {
    return false;
  }
  uint64_t values_seen = 0;
  size_t pos = 0;
  auto decline = [&] {
    runs.clear();
    return false;
  };
  while (pos < bytes.size()) {
    size_t header_size = 0;
    auto header = DecodePageHeader(bytes.subspan(pos), &header_size, PageHeaderOptions(options));
    if (!header.ok() || header->compressed_page_size < 0 || header->uncompressed_page_size < 0) return decline();
    const auto size = static_cast<size_t>(header->compressed_page_size);
    const size_t data_at = pos + header_size;
    if (size > bytes.size() - data_at) return decline();
    std::span<const uint8_t> page = bytes.subspan(data_at, size);
    pos = data_at + size;
    if (options.verify_crc && header->crc &&
        static_cast<uint32_t>(crc32(0L, page.data(), static_cast<uInt>(page.size()))) !=
            static_cast<uint32_t>(*header->crc)) {
      return decline();
    }
    int64_t count = 0;
    Encoding encoding = Encoding::kPlain;
    switch (header->type) {
      case PageType::kIndexPage: continue;  // the decoder skips them too
      case PageType::kDataPage: {
        if (!header->data_page_header || meta.codec != CompressionCodec::kUncompressed) return decline();
        count = header->data_page_header->num_values;
        encoding = header->data_page_header->encoding;
        break;
      }
      case PageType::kDataPageV2: {
        if (!header->data_page_header_v2) return decline();
        const DataPageHeaderV2& v2 = *header->data_page_header_v2;
        if (v2.is_compressed.value_or(true) && meta.codec != CompressionCodec::kUncompressed) return decline();
        if (v2.num_nulls != 0 || v2.num_rows != v2.num_values || v2.definition_levels_byte_length != 0 ||
            v2.repetition_levels_byte_length != 0) {
          return decline();
        }
        count = v2.num_values;
        encoding = v2.encoding;
        break;
      }
      default: return decline();  // a dictionary page, or a type the decoder refuses
    }
    if (encoding != Encoding::kPlain || count < 0 || header->uncompressed_page_size != header->compressed_page_size) {
      return decline();
    }
    const auto n = static_cast<uint64_t>(count);
    if (n > static_cast<uint64_t>(meta.num_values) - values_seen || n * stride != page.size()) return decline();
    values_seen += n;
    if (n == 0) continue;
    const ValueRun run{page.data() + (column.type == Type::kByteArray ? 4 : 0), static_cast<size_t>(n), stride};
    if (column.type == Type::kByteArray && lengths == ByteArrayLengths::kChecked &&
        !ByteArrayLengthsAre(std::span<const ValueRun>(&run, 1), width)) {
      return decline();
    }
    runs.push_back(run);
  }
  if (values_seen != static_cast<uint64_t>(meta.num_values)) return decline();
  return true;
}

}  // namespace vigilo::parquet
