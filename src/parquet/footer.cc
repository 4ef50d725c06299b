#include "vigilo/parquet/footer.h"

#include <cstring>

#include "vigilo/common/checked.h"

namespace vigilo::parquet {
namespace {

uint32_t LoadLe32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 | static_cast<uint32_t>(p[2]) << 16 |
         static_cast<uint32_t>(p[3]) << 24;
}

// Decoder offsets are relative to the footer; callers want file offsets.
Status AtFileOffset(Status st, uint64_t footer_offset) {
  if (st.offset()) return std::move(st).WithOffset(footer_offset + *st.offset());
  return st;
}

std::string JoinPath(const std::vector<std::string>& path) {
  std::string out;
  for (const std::string& name : path) {
    if (!out.empty()) out += '.';
    out += name;
  }
  return out;
}

}  // namespace

Result<FooterParse> ParseFooter(std::span<const uint8_t> tail, uint64_t file_size, const FooterOptions& options) {
  if (tail.size() > file_size) return InvalidArgument("tail is longer than the file");
  if (file_size < kMinFileSize) {
    return ParseError("a " + std::to_string(file_size) + "-byte file is too small to be Parquet");
  }
  if (tail.size() < kTrailerSize) return FooterParse(NeedMoreBytes{kTrailerSize});

  const uint8_t* trailer = tail.data() + (tail.size() - kTrailerSize);
  if (std::memcmp(trailer + 4, "PARE", 4) == 0) {
    return Unimplemented("encrypted Parquet footers (PARE) are not supported");
  }
  if (std::memcmp(trailer + 4, kMagic, 4) != 0) {
    return ParseError("file does not end with PAR1").WithOffset(file_size - 4);
  }
  uint32_t length = LoadLe32(trailer);
  if (length > file_size - kMinFileSize) {
    return ParseError("footer length " + std::to_string(length) + " does not fit a " + std::to_string(file_size) +
                      "-byte file")
        .WithOffset(file_size - kTrailerSize);
  }
  if (length > options.max_footer_bytes) {
    return LimitExceeded("footer length " + std::to_string(length) + " exceeds the limit of " +
                         std::to_string(options.max_footer_bytes))
        .WithOffset(file_size - kTrailerSize);
  }
  uint64_t needed = uint64_t{length} + kTrailerSize;
  if (tail.size() < needed) return FooterParse(NeedMoreBytes{needed});
  if (tail.size() == file_size && std::memcmp(tail.data(), kMagic, 4) != 0) {
    return ParseError("file does not start with PAR1").WithOffset(0);
  }

  uint64_t footer_offset = file_size - needed;
  auto encoded = tail.subspan(tail.size() - needed, length);
  auto metadata = DecodeFileMetaData(encoded, options.decode);
  if (!metadata.ok()) return AtFileOffset(std::move(metadata).take_status(), footer_offset);
  VIGILO_ASSIGN_OR_RETURN(SchemaTree tree, ValidateFileMetaData(*metadata, footer_offset));
  return FooterParse(Footer{std::move(metadata).value(), std::move(tree), footer_offset, length});
}

Result<std::vector<uint8_t>> EncodeFooter(const FileMetaData& metadata) {
  VIGILO_ASSIGN_OR_RETURN(std::vector<uint8_t> out, EncodeFileMetaData(metadata));
  if (out.size() > UINT32_MAX) return LimitExceeded("footer longer than 2^32-1 bytes");
  auto length = static_cast<uint32_t>(out.size());
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<uint8_t>(length >> (8 * i)));
  out.insert(out.end(), std::begin(kMagic), std::end(kMagic));
  return out;
}

Result<ByteRange> ColumnChunkRange(const ColumnChunk& chunk) {
  if (!chunk.meta_data) return InvalidFormat("column chunk has no meta_data");
  const ColumnMetaData& md = *chunk.meta_data;
  int64_t start = md.dictionary_page_offset.value_or(md.data_page_offset);
  if (start < 0 || md.total_compressed_size < 0) {
    return InvalidFormat("column chunk has a negative offset or size");
  }
  VIGILO_RETURN_IF_ERROR(CheckedAdd(start, md.total_compressed_size).status());
  return ByteRange{static_cast<uint64_t>(start), static_cast<uint64_t>(md.total_compressed_size)};
}

Result<std::vector<ByteRange>> ColumnChunkRanges(const FileMetaData& metadata, size_t row_group,
                                                 std::span<const std::string> columns) {
  if (row_group >= metadata.row_groups.size()) {
    return NotFound("row group " + std::to_string(row_group) + " does not exist (the file has " +
                    std::to_string(metadata.row_groups.size()) + ")");
  }
  const RowGroup& rg = metadata.row_groups[row_group];
  std::vector<std::string> names;  // joined paths; "" for a chunk without meta_data
  names.reserve(rg.columns.size());
  for (const ColumnChunk& chunk : rg.columns) {
    names.push_back(chunk.meta_data ? JoinPath(chunk.meta_data->path_in_schema) : std::string());
  }
  std::vector<ByteRange> out;
  out.reserve(columns.size());
  for (const std::string& column : columns) {
    size_t k = 0;
    while (k < names.size() && !(rg.columns[k].meta_data && names[k] == column)) ++k;
    if (k == names.size()) {
      return NotFound("no column \"" + column + "\" in row group " + std::to_string(row_group));
    }
    VIGILO_ASSIGN_OR_RETURN(ByteRange range, ColumnChunkRange(rg.columns[k]));
    out.push_back(range);
  }
  return out;
}

}  // namespace vigilo::parquet
