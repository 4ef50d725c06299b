// The page loop of a column chunk: page headers, decompression, levels to
// rows/lists, and dispatch to the value decoders (value_decoder.cc).
#include "vigilo/parquet/column_reader.h"

#include <zlib.h>

#include <algorithm>

#include "chunk_decoder.h"
#include "value_decoder.h"
#include "vigilo/parquet/compression.h"
#include "levels_reader.h"

namespace vigilo::parquet {
namespace {

using decode::Budget;
using decode::EncodingName;
using decode::Grow;

bool IsListAnnotated(const SchemaElement& el) {
  return (el.logical_type && el.logical_type->kind == LogicalType::Kind::kList) ||
         el.converted_type == ConvertedType::kList;
}

}  // namespace

namespace decode {

Status Locate(Status st, const PageSpot& spot) {
  if (st.ok()) return st;
  std::string path = "pages[" + std::to_string(spot.index) + "]";
  if (!st.path().empty()) path += "." + std::string(st.path());
  if (spot.raw) {
    uint64_t at = spot.data_at + st.offset().value_or(0);
    return std::move(st).WithPath(std::move(path)).WithOffset(at);
  }
  std::string message(st.message());
  if (st.offset()) message += " (byte " + std::to_string(*st.offset()) + " of the decompressed page)";
  return Status(st.code(), std::move(message)).WithPath(std::move(path)).WithOffset(spot.header_at);
}

Result<DecodedColumn> ChunkDecoder::Run(std::span<const uint8_t> bytes) {
  if (meta_.num_values < 0) return InvalidFormat("column chunk has a negative num_values");
  if (column_.max_repetition_level > 0) VIGILO_RETURN_IF_ERROR(Grow(out_.list_offsets, 1, budget_));
  ReserveHint(static_cast<uint64_t>(meta_.num_values), bytes.size());
  size_t pos = 0;
  for (size_t index = 0; pos < bytes.size(); ++index) VIGILO_RETURN_IF_ERROR(Page(bytes, &pos, index));
  if (levels_seen_ != static_cast<uint64_t>(meta_.num_values)) {
    return InvalidFormat("column chunk pages hold " + std::to_string(levels_seen_) +
                         " values, the column metadata says " + std::to_string(meta_.num_values))
        .WithOffset(bytes.size());
  }
  out_.num_rows = rows_;
  if (column_.max_repetition_level > 0) {
    out_.list_offsets.resize(static_cast<size_t>(rows_) + 1);
    out_.list_offsets[static_cast<size_t>(rows_)] = slots_;
    if (!out_.element_valid.empty() || column_.max_definition_level > column_.repeated_definition_level) {
      out_.element_valid.resize(static_cast<size_t>(slots_));
    }
  }
  if (!out_.row_valid.empty()) out_.row_valid.resize(static_cast<size_t>(rows_));
  return std::move(out_);
}

// Reserves the value and validity vectors for the chunk's declared value
// count (at most 8 per chunk byte, so a lying count costs little), so they
// are allocated once instead of regrown page by page. Best effort: without
// budget for it, vectors grow as pages arrive.
void ChunkDecoder::ReserveHint(uint64_t num_values, size_t chunk_bytes) {
  size_t n = static_cast<size_t>(std::min<uint64_t>(num_values, uint64_t{chunk_bytes} * 8));
  auto reserve = [&](auto& v, size_t want) {
    using T = typename std::remove_reference_t<decltype(v)>::value_type;
    if (want > SIZE_MAX / 2 / sizeof(T)) return;
    if (want > v.capacity() && budget_.Charge((want - v.capacity()) * sizeof(T)).ok()) v.reserve(want);
  };
  ColumnValues& values = out_.values;
  switch (column_.type) {
    case Type::kBoolean: reserve(values.booleans, n); break;
    case Type::kInt32: reserve(values.int32s, n); break;
    case Type::kInt64: reserve(values.int64s, n); break;
    case Type::kFloat: reserve(values.floats, n); break;
    case Type::kDouble: reserve(values.doubles, n); break;
    case Type::kByteArray: {
      reserve(values.binary_offsets, n + 1);
      // PLAIN and DELTA value bytes fit in the chunk's uncompressed size
      // (dictionary-encoded ones may not: then the buffer grows as usual).
      // Reserving once avoids regrowing, which copies and touches twice the
      // memory.
      uint64_t declared = meta_.total_uncompressed_size > 0 ? static_cast<uint64_t>(meta_.total_uncompressed_size) : 0;
      reserve(values.binary, static_cast<size_t>(std::min<uint64_t>(declared, uint64_t{chunk_bytes} * 8)));
      break;
    }
    case Type::kInt96:
    case Type::kFixedLenByteArray: {
      size_t width = decode::FixedWidth(column_.type, column_.type_length);
      if (width > 0 && n <= SIZE_MAX / width) reserve(values.binary, n * width);
      break;
    }
  }
  if (column_.max_definition_level > (column_.max_repetition_level > 0 ? column_.repeated_definition_level : 0)) {
    reserve(column_.max_repetition_level > 0 ? out_.element_valid : out_.row_valid, n);
  }
}

Status ChunkDecoder::Page(std::span<const uint8_t> bytes, size_t* pos, size_t index) {
  size_t header_at = *pos;
  size_t header_size = 0;
  auto header = DecodePageHeader(bytes.subspan(header_at), &header_size, PageHeaderOptions(options_));
  if (!header.ok()) {
    Status st = std::move(header).take_status();
    return Locate(std::move(st), PageSpot{index, header_at, header_at, true});
  }
  PageSpot spot{index, header_at, header_at + header_size, true};
  auto fail = [&](Status st) { return Locate(std::move(st).WithOffset(0), PageSpot{index, header_at, header_at, true}); };
  if (header->compressed_page_size < 0 || header->uncompressed_page_size < 0) {
    return fail(InvalidFormat("page header has a negative page size"));
  }
  auto size = static_cast<size_t>(header->compressed_page_size);
  if (size > bytes.size() - spot.data_at) {
    return fail(ParseError("a page of " + std::to_string(size) + " bytes runs past the end of the column chunk (" +
                           std::to_string(bytes.size() - spot.data_at) + " bytes left)"));
  }
  std::span<const uint8_t> page = bytes.subspan(spot.data_at, size);
  *pos = spot.data_at + size;
  if (options_.verify_crc && header->crc) {
    uLong crc = crc32(0L, page.data(), static_cast<uInt>(page.size()));
    if (static_cast<uint32_t>(crc) != static_cast<uint32_t>(*header->crc)) {
      return fail(IntegrityError("page CRC mismatch"));
    }
  }
  switch (header->type) {
    case PageType::kDictionaryPage: return DictionaryPage(*header, page, spot);
    case PageType::kDataPage: return DataPageV1(*header, page, spot);
    case PageType::kDataPageV2: return DataPageV2(*header, page, spot);
    case PageType::kIndexPage: return Status::Ok();  // never needed to read values
  }
  return fail(Unimplemented("page type " + std::to_string(static_cast<int32_t>(header->type)) + " is not supported"));
}

Result<std::span<const uint8_t>> ChunkDecoder::Inflate(std::span<const uint8_t> compressed, int64_t size) {
  if (size < 0) return InvalidFormat("negative uncompressed page size").WithOffset(0);
  if (meta_.codec == CompressionCodec::kUncompressed) {
    if (compressed.size() != static_cast<uint64_t>(size)) {
      return InvalidFormat("uncompressed page holds " + std::to_string(compressed.size()) +
                           " bytes, its header says " + std::to_string(size))
          .WithOffset(0);
    }
    return compressed;
  }
  if (static_cast<uint64_t>(size) > kMaxPageBytes) return LimitExceeded("page larger than 2^31-1 bytes").WithOffset(0);
  VIGILO_ASSIGN_OR_RETURN(std::span<uint8_t> buf, page_buf_.Get(static_cast<size_t>(size), budget_));
  Status st = DecompressInto(meta_.codec, compressed, buf);
  if (!st.ok()) return std::move(st).WithOffset(0);
  return std::span<const uint8_t>(buf);
}

Status ChunkDecoder::DictionaryPage(const PageHeader& header, std::span<const uint8_t> page, const PageSpot& spot) {
  auto fail = [&](Status st) { return Locate(std::move(st).WithOffset(0), PageSpot{spot.index, spot.header_at, spot.header_at, true}); };
  if (!header.dictionary_page_header) return fail(InvalidFormat("dictionary page without a dictionary_page_header"));
  if (has_dictionary_) return fail(InvalidFormat("a second dictionary page"));
  if (seen_data_) return fail(InvalidFormat("a dictionary page after a data page"));
  const DictionaryPageHeader& dict = *header.dictionary_page_header;
  if (dict.encoding != Encoding::kPlain && dict.encoding != Encoding::kPlainDictionary) {
    return fail(Unimplemented("dictionary page encoding " + EncodingName(dict.encoding) + " is not supported"));
  }
  if (dict.num_values < 0) return fail(InvalidFormat("dictionary page has a negative num_values"));
  auto data = Inflate(page, header.uncompressed_page_size);
  if (!data.ok()) return Locate(std::move(data).take_status(), spot);
  PageSpot at = spot;
  at.raw = data->data() == page.data();
  size_t consumed = 0;
  VIGILO_RETURN_IF_ERROR(Locate(decode::DecodePlain(*data, static_cast<size_t>(dict.num_values), &dictionary_,
                                                    budget_, &consumed),
                                at));
  if (consumed != data->size()) {
    return Locate(InvalidFormat(std::to_string(data->size() - consumed) + " bytes follow the dictionary values")
                      .WithOffset(consumed),
                  at);
  }
  has_dictionary_ = true;
  return Status::Ok();
}

Status ChunkDecoder::CheckLevelEncoding(Encoding encoding, const char* which) {
  if (encoding == Encoding::kRle) return Status::Ok();
  if (encoding == Encoding::kBitPacked) {
    return Unimplemented(std::string("BIT_PACKED ") + which + " levels are not supported");
  }
  return InvalidFormat(std::string(which) + " levels cannot use " + EncodingName(encoding));
}

Status ChunkDecoder::Values(Encoding encoding, std::span<const uint8_t> data, size_t count) {
  ColumnValues* out = &out_.values;
  size_t consumed = 0;
  Status st;
  switch (encoding) {
    case Encoding::kPlain:
      st = decode::DecodePlain(data, count, out, budget_, &consumed);
      break;
    case Encoding::kPlainDictionary:
    case Encoding::kRleDictionary:
      if (!has_dictionary_) return InvalidFormat("a dictionary-encoded page without a dictionary page").WithOffset(0);
      st = decode::DecodeDictionaryIndices(data, count, dictionary_, indices_, out, budget_, &consumed);
      break;
    case Encoding::kRle:
      if (column_.type != Type::kBoolean) {
        return InvalidFormat("RLE values are only valid for BOOLEAN, not " + decode::TypeName(column_.type))
            .WithOffset(0);
      }
      st = decode::DecodeRleBooleans(data, count, out, budget_, &consumed);
      break;
    case Encoding::kDeltaBinaryPacked:
      st = decode::DecodeDeltaBinaryPacked(data, count, out, budget_, &consumed);
      break;
    case Encoding::kDeltaLengthByteArray:
      st = decode::DecodeDeltaLengthByteArray(data, count, lengths_, out, budget_, &consumed);
      break;
    case Encoding::kDeltaByteArray:
      st = decode::DecodeDeltaByteArray(data, count, lengths_, suffixes_, out, budget_, &consumed);
      break;
    case Encoding::kByteStreamSplit:
      st = decode::DecodeByteStreamSplit(data, count, out, budget_, &consumed);
      break;
    case Encoding::kBitPacked:
      return InvalidFormat("BIT_PACKED is a level encoding, not a value encoding").WithOffset(0);
    default:
      return Unimplemented("value encoding " + EncodingName(encoding) + " is not supported").WithOffset(0);
  }
  if (!st.ok()) return st.offset() ? st : std::move(st).WithOffset(0);
  if (consumed != data.size()) {
    return InvalidFormat(std::to_string(data.size() - consumed) + " bytes follow the page's " + std::to_string(count) +
                         " " + EncodingName(encoding) + " values")
        .WithOffset(consumed);
  }
  return Status::Ok();
}

Status ChunkDecoder::DataPageV1(const PageHeader& header, std::span<const uint8_t> page, PageSpot spot) {
  auto fail = [&](Status st) { return Locate(std::move(st).WithOffset(0), PageSpot{spot.index, spot.header_at, spot.header_at, true}); };
  if (!header.data_page_header) return fail(InvalidFormat("data page without a data_page_header"));
  const DataPageHeader& dp = *header.data_page_header;
  if (dp.num_values < 0) return fail(InvalidFormat("data page has a negative num_values"));
  auto n = static_cast<size_t>(dp.num_values);
  if (levels_seen_ + n > static_cast<uint64_t>(meta_.num_values)) {
    return fail(InvalidFormat("data pages hold more values than the column metadata's " +
                              std::to_string(meta_.num_values)));
  }
  seen_data_ = true;
  auto data = Inflate(page, header.uncompressed_page_size);
  if (!data.ok()) return Locate(std::move(data).take_status(), spot);
  spot.raw = data->data() == page.data();
  // Split the level sections first (their length prefixes), then decode them.
  size_t pos = 0;
  std::span<const uint8_t> rep;
  std::span<const uint8_t> def;
  PageSpot def_spot = spot;
  std::span<const uint8_t> stream;
  if (column_.max_repetition_level > 0) {
    VIGILO_RETURN_IF_ERROR(fail(CheckLevelEncoding(dp.repetition_level_encoding, "repetition")));
    VIGILO_RETURN_IF_ERROR(Locate(LevelStream(*data, true, &stream, &pos), spot));
    rep = data->first(pos);
  }
  if (column_.max_definition_level > 0) {
    def_spot.data_at += pos;
    Status st = fail(CheckLevelEncoding(dp.definition_level_encoding, "definition"));
    size_t used = 0;
    if (st.ok()) st = Locate(LevelStream(data->subspan(pos), true, &stream, &used), def_spot);
    if (!st.ok()) {
      // A repetition level error is reported first: they come first in the page.
      if (!rep.empty()) {
        VIGILO_ASSIGN_OR_RETURN(std::span<uint16_t> r, decode::Scratch(rep_, n, budget_));
        VIGILO_RETURN_IF_ERROR(Locate(DecodeLevels(rep, true, column_.max_repetition_level, r, &used), spot));
      }
      return st;
    }
    def = data->subspan(pos, used);
    pos += used;
  }
  int64_t started = 0;
  size_t non_null = 0;
  VIGILO_RETURN_IF_ERROR(PageLevels(n, true, rep, def, spot, def_spot, &started, &non_null));
  levels_seen_ += n;
  PageSpot at = spot;
  at.data_at += pos;
  return Locate(Values(dp.encoding, data->subspan(pos), non_null), at);
}

Status ChunkDecoder::DataPageV2(const PageHeader& header, std::span<const uint8_t> page, PageSpot spot) {
  auto fail = [&](Status st) { return Locate(std::move(st).WithOffset(0), PageSpot{spot.index, spot.header_at, spot.header_at, true}); };
  if (!header.data_page_header_v2) return fail(InvalidFormat("data page v2 without a data_page_header_v2"));
  const DataPageHeaderV2& dp = *header.data_page_header_v2;
  if (dp.num_values < 0 || dp.num_rows < 0 || dp.num_nulls < 0) {
    return fail(InvalidFormat("data page v2 has a negative count"));
  }
  auto n = static_cast<size_t>(dp.num_values);
  if (levels_seen_ + n > static_cast<uint64_t>(meta_.num_values)) {
    return fail(InvalidFormat("data pages hold more values than the column metadata's " +
                              std::to_string(meta_.num_values)));
  }
  int64_t rep_len = dp.repetition_levels_byte_length;
  int64_t def_len = dp.definition_levels_byte_length;
  if (rep_len < 0 || def_len < 0 || rep_len + def_len > static_cast<int64_t>(page.size()) ||
      rep_len + def_len > header.uncompressed_page_size) {
    return fail(InvalidFormat("data page v2 level lengths " + std::to_string(rep_len) + " + " +
                              std::to_string(def_len) + " do not fit the page"));
  }
  if ((column_.max_repetition_level == 0 && rep_len != 0) || (column_.max_definition_level == 0 && def_len != 0)) {
    return fail(InvalidFormat("data page v2 has levels the column cannot have"));
  }
  seen_data_ = true;
  auto rl = static_cast<size_t>(rep_len);
  auto dl = static_cast<size_t>(def_len);
  PageSpot def_spot = spot;
  def_spot.data_at += rl;
  int64_t started = 0;
  size_t non_null = 0;
  VIGILO_RETURN_IF_ERROR(PageLevels(n, false, page.first(rl), page.subspan(rl, dl), spot, def_spot, &started,
                                    &non_null));
  if (started != dp.num_rows) {
    return fail(InvalidFormat("data page v2 starts " + std::to_string(started) + " rows, its header says " +
                              std::to_string(dp.num_rows)));
  }
  levels_seen_ += n;
  std::span<const uint8_t> body = page.subspan(rl + dl);
  int64_t body_size = header.uncompressed_page_size - rep_len - def_len;
  PageSpot at = spot;
  at.data_at += rl + dl;
  std::span<const uint8_t> values = body;
  if (dp.is_compressed.value_or(true) && meta_.codec != CompressionCodec::kUncompressed) {
    auto data = Inflate(body, body_size);
    if (!data.ok()) return Locate(std::move(data).take_status(), at);
    values = *data;
    at.raw = false;
  } else if (static_cast<int64_t>(body.size()) != body_size) {
    return fail(InvalidFormat("uncompressed data page v2 holds " + std::to_string(body.size()) +
                              " value bytes, its header says " + std::to_string(body_size)));
  }
  return Locate(Values(dp.encoding, values, non_null), at);
}

}  // namespace decode

namespace {

using decode::ChunkDecoder;

std::string JoinPath(const std::vector<std::string>& path) {
  std::string out;
  for (const std::string& name : path) {
    if (!out.empty()) out += '.';
    out += name;
  }
  return out;
}

}  // namespace

size_t ColumnValues::size() const {
  switch (type) {
    case Type::kBoolean: return booleans.size();
    case Type::kInt32: return int32s.size();
    case Type::kInt64: return int64s.size();
    case Type::kFloat: return floats.size();
    case Type::kDouble: return doubles.size();
    case Type::kByteArray: return binary_offsets.empty() ? 0 : binary_offsets.size() - 1;
    case Type::kInt96:
    case Type::kFixedLenByteArray: {
      size_t width = decode::FixedWidth(type, type_length);
      return width == 0 ? 0 : binary.size() / width;
    }
  }
  return 0;
}

std::span<const uint8_t> ColumnValues::Binary(size_t i) const {
  if (type == Type::kByteArray) {
    return std::span(binary).subspan(binary_offsets[i], binary_offsets[i + 1] - binary_offsets[i]);
  }
  size_t width = decode::FixedWidth(type, type_length);
  return std::span(binary).subspan(i * width, width);
}

Result<ColumnDescriptor> DescribeColumn(const std::vector<SchemaElement>& schema, const SchemaTree& tree,
                                        size_t leaf) {
  if (leaf >= tree.leaves.size()) return NotFound("leaf column " + std::to_string(leaf) + " does not exist");
  const LeafColumn& lc = tree.leaves[leaf];
  std::vector<uint32_t> nodes(static_cast<size_t>(lc.depth));
  uint32_t at = lc.schema_index;
  for (size_t k = nodes.size(); k > 0; --k) {
    nodes[k - 1] = at;
    at = tree.parent[at];
  }
  ColumnDescriptor d;
  d.leaf = leaf;
  for (uint32_t node : nodes) d.path.push_back(schema[node].name);
  const SchemaElement& el = schema[lc.schema_index];
  d.type = el.type.value_or(Type::kBoolean);
  if (d.type == Type::kFixedLenByteArray) d.type_length = el.type_length.value_or(0);
  if (d.type == Type::kInt96) d.type_length = 12;
  if (static_cast<int32_t>(d.type) < 0 || static_cast<int32_t>(d.type) > 7) {
    return Unimplemented("physical type " + std::to_string(static_cast<int32_t>(d.type)) + " is not supported")
        .WithPath(JoinPath(d.path));
  }
  d.max_definition_level = lc.max_definition_level;
  d.max_repetition_level = lc.max_repetition_level;
  d.logical_type = el.logical_type;
  d.converted_type = el.converted_type;
  if (lc.max_repetition_level > 1) {
    return Unimplemented("column " + JoinPath(d.path) + " has " + std::to_string(lc.max_repetition_level) +
                         " repeated ancestors; at most one is supported");
  }
  int16_t def = 0;
  size_t repeated_at = nodes.size();
  for (size_t k = 0; k < nodes.size(); ++k) {
    auto rep = schema[nodes[k]].repetition_type.value_or(FieldRepetitionType::kRequired);
    if (rep != FieldRepetitionType::kRequired) ++def;
    if (rep == FieldRepetitionType::kRepeated) {
      repeated_at = k;
      d.repeated_definition_level = def;
    }
  }
  if (lc.max_repetition_level == 0) {
    d.shape = nodes.size() == 1 ? ColumnShape::kScalar : ColumnShape::kOther;
    return d;
  }
  const SchemaElement& top = schema[nodes[0]];
  bool bare_repeated = repeated_at == 0 && nodes.size() == 1;  // `repeated int32 a`
  bool list = repeated_at == 1 && nodes.size() <= 3 && IsListAnnotated(top) && top.num_children.value_or(0) == 1 &&
              (nodes.size() == 2 || schema[nodes[1]].num_children.value_or(0) == 1);
  d.shape = bare_repeated || list ? ColumnShape::kList : ColumnShape::kOther;
  return d;
}

Result<DecodedColumn> DecodeColumnChunkBytes(const ColumnDescriptor& column, const ColumnMetaData& meta,
                                             std::span<const uint8_t> bytes, const ColumnReadOptions& options) {
  if (column.max_repetition_level > 1) return Unimplemented("nested repeated columns are not supported");
  if (column.type == Type::kFixedLenByteArray && column.type_length <= 0) {
    return InvalidFormat("FIXED_LEN_BYTE_ARRAY needs a positive type_length");
  }
  if (meta.type != column.type) return InvalidFormat("column chunk type does not match the schema");
  ChunkDecoder decoder(column, meta, options);
  return decoder.Run(bytes);
}

Result<std::vector<ColumnChunkPlan>> PlanRowGroup(const Footer& footer, size_t row_group) {
  const FileMetaData& md = footer.metadata;
  if (row_group >= md.row_groups.size()) {
    return NotFound("row group " + std::to_string(row_group) + " does not exist (the file has " +
                    std::to_string(md.row_groups.size()) + ")");
  }
  const RowGroup& rg = md.row_groups[row_group];
  if (rg.columns.size() != footer.schema.leaves.size()) {
    return InvalidFormat("row group has " + std::to_string(rg.columns.size()) + " columns, the schema " +
                         std::to_string(footer.schema.leaves.size()))
        .WithPath("row_groups[" + std::to_string(row_group) + "]");
  }
  std::vector<ColumnChunkPlan> plan;
  plan.reserve(rg.columns.size());
  for (size_t leaf = 0; leaf < rg.columns.size(); ++leaf) {
    const ColumnChunk& chunk = rg.columns[leaf];
    auto range = ColumnChunkRange(chunk);
    if (!range.ok()) {
      return std::move(range).take_status().WithPath("row_groups[" + std::to_string(row_group) + "].columns[" +
                                                     std::to_string(leaf) + "]");
    }
    plan.push_back({leaf, JoinPath(chunk.meta_data->path_in_schema), *range, &*chunk.meta_data});
  }
  return plan;
}

Result<DecodedColumn> DecodeColumnChunk(const Footer& footer, size_t row_group, size_t leaf,
                                        std::span<const uint8_t> bytes, const ColumnReadOptions& options) {
  VIGILO_ASSIGN_OR_RETURN(std::vector<ColumnChunkPlan> plan, PlanRowGroup(footer, row_group));
  if (leaf >= plan.size()) return NotFound("leaf column " + std::to_string(leaf) + " does not exist");
  const ColumnChunkPlan& p = plan[leaf];
  if (bytes.size() != p.range.length) {
    return InvalidArgument("column chunk " + p.path + " is " + std::to_string(p.range.length) + " bytes, " +
                           std::to_string(bytes.size()) + " were given");
  }
  std::string where = "row_groups[" + std::to_string(row_group) + "].columns[" + std::to_string(leaf) + "]";
  auto fix = [&](Status st) {
    if (st.offset()) st = std::move(st).WithOffset(p.range.offset + *st.offset());
    if (st.path().empty()) return std::move(st).WithPath(where);
    return std::move(st).PrependPath(where + ".");
  };
  auto column = DescribeColumn(footer.metadata.schema, footer.schema, leaf);
  if (!column.ok()) return fix(std::move(column).take_status());
  auto decoded = DecodeColumnChunkBytes(*column, *p.meta, bytes, options);
  if (!decoded.ok()) return fix(std::move(decoded).take_status());
  int64_t rows = footer.metadata.row_groups[row_group].num_rows;
  if (decoded->num_rows != static_cast<uint64_t>(rows)) {
    return fix(InvalidFormat("column chunk holds " + std::to_string(decoded->num_rows) + " rows, the row group " +
                             std::to_string(rows)));
  }
  return decoded;
}

}  // namespace vigilo::parquet
