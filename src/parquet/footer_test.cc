#include "vigilo/parquet/footer.h"

#include <gtest/gtest.h>

#include <functional>

#include "test_metadata.h"

namespace vigilo::parquet {
namespace {

using Bytes = std::vector<uint8_t>;
using testing::BuildFile;
using testing::FooterOffset;
using testing::RichDataSize;
using testing::RichMetaData;

std::span<const uint8_t> Tail(const Bytes& file, size_t n) { return {file.data() + file.size() - n, n}; }

Result<FooterParse> Parse(const Bytes& file, size_t tail) { return ParseFooter(Tail(file, tail), file.size()); }

TEST(ParseFooter, WholeFile) {
  FileMetaData md = RichMetaData();
  Bytes file = BuildFile(md, RichDataSize());
  auto r = Parse(file, file.size());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const Footer* footer = std::get_if<Footer>(&*r);
  ASSERT_NE(footer, nullptr);
  EXPECT_EQ(footer->metadata, md);
  EXPECT_EQ(footer->offset, FooterOffset(RichDataSize()));
  EXPECT_EQ(footer->offset + footer->length + kTrailerSize, file.size());
  EXPECT_EQ(footer->schema.leaves.size(), 9u);
}

TEST(ParseFooter, AsksForExactlyTheBytesItNeeds) {
  Bytes file = BuildFile(RichMetaData(), RichDataSize());
  uint64_t needed = file.size() - FooterOffset(RichDataSize());
  for (size_t tail : {size_t{0}, size_t{3}, size_t{7}}) {
    auto r = Parse(file, tail);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(std::get<NeedMoreBytes>(*r), NeedMoreBytes{kTrailerSize});
  }
  for (size_t tail : {size_t{8}, size_t{9}, static_cast<size_t>(needed - 1)}) {
    auto r = Parse(file, tail);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(std::get<NeedMoreBytes>(*r), NeedMoreBytes{needed}) << tail;
  }
  auto r = Parse(file, static_cast<size_t>(needed));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(std::holds_alternative<Footer>(*r));
}

TEST(ParseFooter, MagicLengthAndSizeErrors) {
  Bytes file = BuildFile(testing::SingleColumnMetaData(3, 10), 10);
  EXPECT_EQ(ParseFooter(file, file.size() - 1).status().code(), StatusCode::kInvalidArgument);
  Bytes tiny = {'P', 'A', 'R', '1', 0, 0, 0, 0, 'P', 'A', 'R'};
  EXPECT_EQ(ParseFooter(tiny, tiny.size()).status().code(), StatusCode::kParseError);

  Bytes bad_end = file;
  bad_end.back() = '2';
  auto st = Parse(bad_end, 8).status();
  EXPECT_EQ(st.code(), StatusCode::kParseError);
  EXPECT_EQ(st.offset(), file.size() - 4);

  Bytes encrypted = file;
  encrypted.back() = 'E';
  EXPECT_EQ(Parse(encrypted, 8).status().code(), StatusCode::kUnimplemented);

  Bytes bad_start = file;
  bad_start[0] = 'X';
  st = Parse(bad_start, bad_start.size()).status();
  EXPECT_EQ(st.code(), StatusCode::kParseError);
  EXPECT_EQ(st.offset(), 0u);
  EXPECT_TRUE(Parse(bad_start, bad_start.size() - 1).ok());  // only checked on the whole file

  // Footer length larger than the file allows: 4 + 10 data bytes + footer.
  Bytes too_long = file;
  uint32_t length = static_cast<uint32_t>(file.size() - 12 + 1);
  for (int i = 0; i < 4; ++i) too_long[too_long.size() - 8 + i] = static_cast<uint8_t>(length >> (8 * i));
  st = Parse(too_long, 8).status();
  EXPECT_EQ(st.code(), StatusCode::kParseError);
  EXPECT_EQ(st.offset(), file.size() - 8);

  FooterOptions small;
  small.max_footer_bytes = 10;
  EXPECT_EQ(ParseFooter(Tail(file, 8), file.size(), small).status().code(), StatusCode::kLimitExceeded);
}

TEST(ParseFooter, HugeDeclaredFooterInATinyTailAsksOrFailsWithoutAllocating) {
  // A 3 GiB file whose footer claims 2^32-1 bytes: over the limit.
  Bytes tail = {0xff, 0xff, 0xff, 0xff, 'P', 'A', 'R', '1'};
  auto st = ParseFooter(tail, uint64_t{3} << 30).status();
  EXPECT_EQ(st.code(), StatusCode::kParseError);  // larger than the file
  st = ParseFooter(tail, uint64_t{8} << 30).status();
  EXPECT_EQ(st.code(), StatusCode::kLimitExceeded);
  FooterOptions any;
  any.max_footer_bytes = UINT32_MAX;
  auto r = ParseFooter(tail, uint64_t{8} << 30, any);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(std::get<NeedMoreBytes>(*r).tail_bytes, uint64_t{UINT32_MAX} + 8);
}

TEST(ParseFooter, DecodeErrorOffsetsAreFileOffsets) {
  Bytes file = BuildFile(testing::SingleColumnMetaData(3, 10), 10);
  uint64_t footer = FooterOffset(10);
  file[footer] = 0x1f;  // invalid field type in the first header
  auto st = Parse(file, file.size()).status();
  EXPECT_EQ(st.code(), StatusCode::kParseError);
  EXPECT_EQ(st.offset(), footer);
}

// Builds a file from the rich metadata after `mutate` and expects `code`
// with a path that starts with `path`.
void ExpectRejected(const std::function<void(FileMetaData&)>& mutate, StatusCode code, std::string_view path) {
  FileMetaData md = RichMetaData();
  mutate(md);
  Bytes file = BuildFile(md, RichDataSize());
  ASSERT_FALSE(file.empty());
  auto st = Parse(file, file.size()).status();
  EXPECT_EQ(st.code(), code) << st.ToString();
  EXPECT_EQ(st.path().substr(0, path.size()), path) << st.ToString();
}

ColumnMetaData& Meta(FileMetaData& md, size_t rg, size_t col) { return *md.row_groups[rg].columns[col].meta_data; }

TEST(ValidateFileMetaData, RejectsInconsistentMetadata) {
  const StatusCode bad = StatusCode::kInvalidFormat;
  ExpectRejected([](FileMetaData& md) { md.num_rows += 1; }, bad, "num_rows");
  ExpectRejected([](FileMetaData& md) { md.num_rows = -1; }, bad, "num_rows");
  ExpectRejected(
      [](FileMetaData& md) {
        md.row_groups[1].num_rows = -50;
        md.num_rows = 50;
      },
      bad, "row_groups[1].num_rows");
  ExpectRejected([](FileMetaData& md) { md.row_groups[1].num_rows = INT64_MAX; }, bad, "row_groups[1].num_rows");
  ExpectRejected([](FileMetaData& md) { md.row_groups[0].columns.pop_back(); }, bad, "row_groups[0].columns");
  ExpectRejected([](FileMetaData& md) { md.row_groups[1].columns[2].meta_data.reset(); }, bad,
                 "row_groups[1].columns[2]");
  ExpectRejected([](FileMetaData& md) { md.row_groups[0].columns[0].file_path = "other.parquet"; },
                 StatusCode::kUnimplemented, "row_groups[0].columns[0]");
  ExpectRejected(
      [](FileMetaData& md) {
        Meta(md, 0, 1).path_in_schema = {"vector", "element"};
      },
      bad, "row_groups[0].columns[1]");
  ExpectRejected([](FileMetaData& md) { Meta(md, 0, 1).path_in_schema[2] = "item"; }, bad, "row_groups[0].columns[1]");
  ExpectRejected([](FileMetaData& md) { Meta(md, 0, 0).type = Type::kInt64; }, bad, "row_groups[0].columns[0]");
  ExpectRejected([](FileMetaData& md) { Meta(md, 1, 0).num_values = 49; }, bad, "row_groups[1].columns[0]");
  ExpectRejected([](FileMetaData& md) { Meta(md, 0, 3).total_compressed_size = -1; }, bad, "row_groups[0].columns[3]");
  ExpectRejected([](FileMetaData& md) { md.column_orders->pop_back(); }, bad, "column_orders");
  ExpectRejected([](FileMetaData& md) { md.schema[1].repetition_type.reset(); }, bad, "schema[1]");
}

TEST(ValidateFileMetaData, ChunkRangesMustLieInTheDataArea) {
  const StatusCode bad = StatusCode::kInvalidFormat;
  // The last chunk ends exactly at the footer; one more byte overlaps it.
  ExpectRejected([](FileMetaData& md) { Meta(md, 1, 8).total_compressed_size += 1; }, bad, "row_groups[1].columns[8]");
  ExpectRejected([](FileMetaData& md) { Meta(md, 0, 0).data_page_offset = 3; }, bad, "row_groups[0].columns[0]");
  ExpectRejected([](FileMetaData& md) { Meta(md, 0, 0).data_page_offset = -4; }, bad, "row_groups[0].columns[0]");
  ExpectRejected([](FileMetaData& md) { Meta(md, 0, 0).data_page_offset = INT64_MAX; }, bad,
                 "row_groups[0].columns[0]");
  ExpectRejected([](FileMetaData& md) { Meta(md, 0, 0).total_compressed_size = INT64_MAX; }, bad,
                 "row_groups[0].columns[0]");
  // name (column 2) has a dictionary page at the chunk start.
  ExpectRejected([](FileMetaData& md) { Meta(md, 0, 2).dictionary_page_offset = Meta(md, 0, 2).data_page_offset; }, bad,
                 "row_groups[0].columns[2]");
  ExpectRejected([](FileMetaData& md) { Meta(md, 0, 2).data_page_offset += 100; }, bad, "row_groups[0].columns[2]");
  ExpectRejected([](FileMetaData& md) { Meta(md, 0, 2).dictionary_page_offset = 2; }, bad, "row_groups[0].columns[2]");
}

TEST(ColumnChunkRanges, ExactRangesInTheOrderAsked) {
  FileMetaData md = RichMetaData();
  std::vector<std::string> names = {"name", "cid", "vector.list.element"};
  auto ranges = ColumnChunkRanges(md, 1, names);
  ASSERT_TRUE(ranges.ok()) << ranges.status().ToString();
  ASSERT_EQ(ranges->size(), 3u);
  const ColumnMetaData& name = Meta(md, 1, 2);
  EXPECT_EQ((*ranges)[0], (ByteRange{static_cast<uint64_t>(*name.dictionary_page_offset), 12}));
  EXPECT_EQ((*ranges)[1], (ByteRange{static_cast<uint64_t>(Meta(md, 1, 0).data_page_offset), 10}));
  EXPECT_EQ((*ranges)[2], (ByteRange{static_cast<uint64_t>(Meta(md, 1, 1).data_page_offset), 11}));
  // The ranges of row group 0 tile [4, 4 + its size) back to back.
  std::vector<std::string> all = {"cid", "vector.list.element", "name", "price", "ts", "t", "day", "nothing", "blob"};
  auto first = ColumnChunkRanges(md, 0, all);
  ASSERT_TRUE(first.ok());
  uint64_t at = 4;
  for (const ByteRange& r : *first) {
    EXPECT_EQ(r.offset, at);
    at += r.length;
  }
}

TEST(ColumnChunkRanges, UnknownNamesAndRowGroups) {
  FileMetaData md = RichMetaData();
  std::vector<std::string> missing = {"cid", "vector"};
  EXPECT_EQ(ColumnChunkRanges(md, 0, missing).status().code(), StatusCode::kNotFound);
  std::vector<std::string> cid = {"cid"};
  EXPECT_EQ(ColumnChunkRanges(md, 2, cid).status().code(), StatusCode::kNotFound);
  md.row_groups[0].columns[0].meta_data.reset();
  EXPECT_EQ(ColumnChunkRanges(md, 0, cid).status().code(), StatusCode::kNotFound);
  std::vector<std::string> empty = {""};
  EXPECT_EQ(ColumnChunkRanges(md, 0, empty).status().code(), StatusCode::kNotFound);
}

TEST(EncodeFooter, TrailerLayout) {
  FileMetaData md = testing::SingleColumnMetaData(1, 1);
  auto footer = EncodeFooter(md);
  ASSERT_TRUE(footer.ok());
  auto body = EncodeFileMetaData(md);
  ASSERT_EQ(footer->size(), body->size() + 8);
  EXPECT_TRUE(std::equal(body->begin(), body->end(), footer->begin()));
  size_t n = body->size();
  EXPECT_EQ((*footer)[n], static_cast<uint8_t>(n));
  EXPECT_EQ((*footer)[n + 1], 0);
  EXPECT_EQ(std::string(footer->end() - 4, footer->end()), "PAR1");
}

}  // namespace
}  // namespace vigilo::parquet
