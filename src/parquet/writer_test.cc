#include "vigilo/parquet/writer.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>

#include "vigilo/parquet/column_reader.h"
#include "vigilo/parquet/compression.h"
#include "vigilo/parquet/footer.h"

namespace vigilo::parquet {
namespace {

using Bytes = std::vector<uint8_t>;

Footer ParseWhole(const Bytes& file) {
  auto r = ParseFooter(file, file.size());
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  if (!r.ok()) return {};
  EXPECT_TRUE(std::holds_alternative<Footer>(*r));
  return std::get<Footer>(std::move(r).value());
}

DecodedColumn Decode(const Bytes& file, const Footer& footer, size_t rg, size_t leaf) {
  auto plan = PlanRowGroup(footer, rg);
  EXPECT_TRUE(plan.ok()) << plan.status().ToString();
  const ByteRange& range = (*plan)[leaf].range;
  auto col = DecodeColumnChunk(footer, rg, leaf, std::span<const uint8_t>(file).subspan(range.offset, range.length));
  EXPECT_TRUE(col.ok()) << col.status().ToString();
  return col.ok() ? std::move(col).value() : DecodedColumn{};
}

template <typename T>
T Load(const std::string& s) {
  T v{};
  EXPECT_EQ(s.size(), sizeof(T));
  std::memcpy(&v, s.data(), sizeof(T));
  return v;
}

std::unique_ptr<FileWriter> OpenOrDie(std::vector<ColumnSpec> cols, WriterOptions opts, ByteSink* sink) {
  auto w = FileWriter::Open(std::move(cols), std::move(opts), sink);
  EXPECT_TRUE(w.ok()) << w.status().ToString();
  return w.ok() ? std::move(w).value() : nullptr;
}

#define ASSERT_OK(expr)                              \
  do {                                               \
    ::vigilo::Status st_ = (expr);                   \
    ASSERT_TRUE(st_.ok()) << st_.ToString();         \
  } while (0)

// Page headers of a chunk, walked from its first byte.
std::vector<PageHeader> Pages(const Bytes& file, const ColumnMetaData& md) {
  std::vector<PageHeader> out;
  auto pos = static_cast<size_t>(md.dictionary_page_offset.value_or(md.data_page_offset));
  size_t end = pos + static_cast<size_t>(md.total_compressed_size);
  while (pos < end) {
    size_t header_size = 0;
    auto h = DecodePageHeader(std::span<const uint8_t>(file).subspan(pos, end - pos), &header_size);
    EXPECT_TRUE(h.ok());
    if (!h.ok()) break;
    pos += header_size + static_cast<size_t>(h->compressed_page_size);
    out.push_back(*h);
  }
  EXPECT_EQ(pos, end);
  return out;
}

TEST(FileWriter, RequiredInt32RoundTrip) {
  MemorySink sink;
  auto w = OpenOrDie({{.name = "cid", .kind = ColumnKind::kInt32}}, {}, &sink);
  std::vector<int32_t> v = {3, -7, 12};
  ASSERT_OK(w->BeginRowGroup());
  ASSERT_OK(w->WriteInt32(0, v));
  ASSERT_OK(w->EndRowGroup());
  ASSERT_OK(w->Finish());
  Footer f = ParseWhole(sink.bytes());
  EXPECT_EQ(f.metadata.num_rows, 3);
  EXPECT_EQ(f.metadata.created_by, "vigilo version 0.1.0");
  ASSERT_TRUE(f.metadata.column_orders);
  EXPECT_EQ(f.metadata.column_orders->at(0), ColumnOrder::kTypeDefinedOrder);
  EXPECT_EQ(f.metadata, w->metadata());
  const ColumnMetaData& md = *f.metadata.row_groups[0].columns[0].meta_data;
  EXPECT_EQ(md.encodings, std::vector<Encoding>{Encoding::kPlain});
  EXPECT_EQ(Load<int32_t>(*md.statistics->min_value), -7);
  EXPECT_EQ(Load<int32_t>(*md.statistics->max), 12);
  EXPECT_EQ(md.statistics->null_count, 0);
  DecodedColumn c = Decode(sink.bytes(), f, 0, 0);
  EXPECT_EQ(c.values.int32s, v);
  EXPECT_TRUE(c.row_valid.empty());
}

TEST(FileWriter, EveryTypeOptionalWithNulls) {
  std::vector<ColumnSpec> cols = {
      {.name = "b", .kind = ColumnKind::kBoolean, .optional = true},
      {.name = "d", .kind = ColumnKind::kDate, .optional = true},
      {.name = "i64", .kind = ColumnKind::kInt64, .optional = true},
      {.name = "f", .kind = ColumnKind::kFloat, .optional = true},
      {.name = "x", .kind = ColumnKind::kDouble, .optional = true},
      {.name = "bin", .kind = ColumnKind::kByteArray, .optional = true},
      {.name = "s", .kind = ColumnKind::kString, .optional = true},
      {.name = "fl", .kind = ColumnKind::kFixedLenByteArray, .optional = true, .type_length = 2},
  };
  MemorySink sink;
  auto w = OpenOrDie(cols, {}, &sink);
  std::vector<uint8_t> valid = {1, 0, 1, 1};
  std::vector<uint8_t> bools = {1, 0, 0, 1};
  std::vector<int32_t> dates = {19000, 0, -1, 5};
  std::vector<int64_t> longs = {INT64_MIN, 0, INT64_MAX, 1};
  std::vector<float> floats = {1.5f, 0, NAN, -0.0f};
  std::vector<double> doubles = {1e300, 0, -2.5, 0.0};
  std::vector<std::string_view> bin = {std::string_view("\0\xff", 2), "", "a", "\x80"};
  std::vector<std::string_view> str = {"héllo", "", "abc", ""};
  std::vector<std::string_view> fl = {"ab", "", "zz", "a\0"};
  fl[3] = std::string_view("a\0", 2);
  ASSERT_OK(w->BeginRowGroup());
  ASSERT_OK(w->WriteBoolean(0, bools, valid));
  ASSERT_OK(w->WriteInt32(1, dates, valid));
  ASSERT_OK(w->WriteInt64(2, longs, valid));
  ASSERT_OK(w->WriteFloat(3, floats, valid));
  ASSERT_OK(w->WriteDouble(4, doubles, valid));
  ASSERT_OK(w->WriteByteArray(5, bin, valid));
  ASSERT_OK(w->WriteByteArray(6, str, valid));
  ASSERT_OK(w->WriteByteArray(7, fl, valid));
  ASSERT_OK(w->EndRowGroup());
  ASSERT_OK(w->Finish());
  const Bytes& file = sink.bytes();
  Footer f = ParseWhole(file);
  ASSERT_EQ(f.metadata.schema.size(), 9u);
  EXPECT_EQ(f.metadata.schema[2].logical_type->kind, LogicalType::Kind::kDate);
  EXPECT_EQ(f.metadata.schema[7].converted_type, ConvertedType::kUtf8);
  EXPECT_EQ(f.metadata.schema[8].type_length, 2);
  const RowGroup& rg = f.metadata.row_groups[0];
  for (const ColumnChunk& c : rg.columns) {
    EXPECT_EQ(c.meta_data->statistics->null_count, 1);
    EXPECT_EQ(c.meta_data->num_values, 4);
  }
  auto stats = [&](size_t i) { return *rg.columns[i].meta_data->statistics; };
  EXPECT_EQ(*stats(0).min_value, std::string(1, '\0'));
  EXPECT_EQ(Load<int32_t>(*stats(1).min_value), -1);
  EXPECT_EQ(Load<int64_t>(*stats(2).min_value), INT64_MIN);
  EXPECT_EQ(Load<int64_t>(*stats(2).max_value), INT64_MAX);
  EXPECT_TRUE(std::signbit(Load<float>(*stats(3).min_value)));
  EXPECT_EQ(Load<float>(*stats(3).max_value), 1.5f);
  EXPECT_EQ(Load<double>(*stats(4).min_value), -2.5);
  EXPECT_EQ(*stats(5).min_value, std::string("\0\xff", 2));
  EXPECT_EQ(*stats(5).max_value, "\x80");
  EXPECT_EQ(*stats(5).min, "\x80");  // legacy: signed bytes
  EXPECT_EQ(*stats(5).max, "a");
  EXPECT_EQ(*stats(6).min_value, "");
  EXPECT_EQ(*stats(6).max_value, "héllo");
  EXPECT_EQ(*stats(7).min_value, std::string("a\0", 2));

  DecodedColumn b = Decode(file, f, 0, 0);
  EXPECT_EQ(b.row_valid, valid);
  EXPECT_EQ(b.values.booleans, (std::vector<uint8_t>{1, 0, 1}));
  EXPECT_EQ(Decode(file, f, 0, 1).values.int32s, (std::vector<int32_t>{19000, -1, 5}));
  EXPECT_EQ(Decode(file, f, 0, 2).values.int64s, (std::vector<int64_t>{INT64_MIN, INT64_MAX, 1}));
  auto fv = Decode(file, f, 0, 3).values.floats;
  ASSERT_EQ(fv.size(), 3u);
  EXPECT_TRUE(std::isnan(fv[1]));
  EXPECT_TRUE(std::signbit(fv[2]));
  DecodedColumn s = Decode(file, f, 0, 6);
  ASSERT_EQ(s.values.size(), 3u);
  auto text = [&](const DecodedColumn& c, size_t i) {
    auto sp = c.values.Binary(i);
    return std::string(reinterpret_cast<const char*>(sp.data()), sp.size());
  };
  EXPECT_EQ(text(s, 0), "héllo");
  EXPECT_EQ(text(s, 1), "abc");
  EXPECT_EQ(text(s, 2), "");
  DecodedColumn x = Decode(file, f, 0, 7);
  EXPECT_EQ(text(x, 2), std::string("a\0", 2));
}

TEST(FileWriter, FloatListsWithNullsAndEmpties) {
  for (bool optional : {false, true}) {
    for (bool element_optional : {false, true}) {
      MemorySink sink;
      auto w = OpenOrDie({{.name = "vec", .kind = ColumnKind::kFloatList, .optional = optional,
                           .element_optional = element_optional}},
                         {}, &sink);
      // Rows: [1,2] [] null(if optional) [3, null(if element_optional), 4]
      std::vector<int64_t> offsets = {0, 2, 2, 2, 5};
      std::vector<float> elements = {1, 2, 3, 99, 4};
      std::vector<uint8_t> valid = {1, 1, 0, 1};
      std::vector<uint8_t> evalid = {1, 1, 1, 0, 1};
      ASSERT_OK(w->BeginRowGroup());
      ASSERT_OK(w->WriteFloatList(0, offsets, elements, optional ? valid : std::vector<uint8_t>{},
                                  element_optional ? evalid : std::vector<uint8_t>{}));
      ASSERT_OK(w->EndRowGroup());
      ASSERT_OK(w->Finish());
      Footer f = ParseWhole(sink.bytes());
      EXPECT_EQ(f.schema.leaves[0].max_definition_level, 1 + optional + element_optional);
      const ColumnMetaData& md = *f.metadata.row_groups[0].columns[0].meta_data;
      EXPECT_EQ(md.path_in_schema, (std::vector<std::string>{"vec", "list", "element"}));
      EXPECT_EQ(md.num_values, 7);  // 5 element slots + an empty list + a null list
      EXPECT_EQ(md.statistics->null_count, 2 + element_optional);
      EXPECT_EQ(Load<float>(*md.statistics->min_value), 1.0f);
      EXPECT_EQ(Load<float>(*md.statistics->max_value), element_optional ? 4.0f : 99.0f);
      DecodedColumn c = Decode(sink.bytes(), f, 0, 0);
      EXPECT_EQ(c.num_rows, 4u);
      EXPECT_EQ(c.list_offsets, (std::vector<uint64_t>{0, 2, 2, 2, 5}));
      if (optional) {
        EXPECT_EQ(c.row_valid, valid);
      }
      if (element_optional) {
        EXPECT_EQ(c.element_valid, evalid);
        EXPECT_EQ(c.values.floats, (std::vector<float>{1, 2, 3, 4}));
      } else {
        EXPECT_EQ(c.values.floats, elements);
      }
    }
  }
}

TEST(FileWriter, RowGroupsAreExactlyAsChosen) {
  MemorySink sink;
  auto w = OpenOrDie({{.name = "a", .kind = ColumnKind::kInt64}, {.name = "s", .kind = ColumnKind::kString}}, {},
                     &sink);
  int64_t next = 0;
  for (int64_t rows : {1, 5, 2}) {
    ASSERT_OK(w->BeginRowGroup());
    std::vector<int64_t> v;
    std::vector<std::string> s;
    for (int64_t i = 0; i < rows; ++i) {
      v.push_back(next++);
      s.push_back("r" + std::to_string(v.back()));
    }
    std::vector<std::string_view> sv(s.begin(), s.end());
    // Two batches per column.
    ASSERT_OK(w->WriteInt64(0, std::span(v).first(1)));
    ASSERT_OK(w->WriteInt64(0, std::span(v).subspan(1)));
    ASSERT_OK(w->WriteByteArray(1, sv));
    ASSERT_OK(w->EndRowGroup());
  }
  ASSERT_OK(w->Finish());
  Footer f = ParseWhole(sink.bytes());
  ASSERT_EQ(f.metadata.row_groups.size(), 3u);
  EXPECT_EQ(f.metadata.row_groups[1].num_rows, 5);
  EXPECT_EQ(f.metadata.row_groups[2].ordinal, 2);
  EXPECT_EQ(Decode(sink.bytes(), f, 1, 0).values.int64s, (std::vector<int64_t>{1, 2, 3, 4, 5}));
  // Row groups are contiguous, column by column.
  auto r0 = ColumnChunkRange(f.metadata.row_groups[1].columns[0]);
  EXPECT_EQ(static_cast<int64_t>(r0->offset), *f.metadata.row_groups[1].file_offset);
}

TEST(FileWriter, PagesAreCutAtThePageSize) {
  MemorySink sink;
  WriterOptions opts;
  opts.page_size = 400;  // 100 INT32 values
  auto w = OpenOrDie({{.name = "a", .kind = ColumnKind::kInt32, .optional = true},
                      {.name = "v", .kind = ColumnKind::kFloatList}},
                     opts, &sink);
  std::vector<int32_t> v(1000);
  std::vector<uint8_t> valid(1000, 1);
  for (int i = 0; i < 1000; ++i) v[static_cast<size_t>(i)] = i;
  valid[10] = 0;
  std::vector<int64_t> offsets;
  std::vector<float> elements;
  for (int64_t r = 0; r <= 1000; ++r) offsets.push_back(r * 3);
  elements.assign(3000, 0.5f);
  ASSERT_OK(w->BeginRowGroup());
  ASSERT_OK(w->WriteInt32(0, v, valid));
  ASSERT_OK(w->WriteFloatList(1, offsets, elements));
  ASSERT_OK(w->EndRowGroup());
  ASSERT_OK(w->Finish());
  Footer f = ParseWhole(sink.bytes());
  const ColumnMetaData& md = *f.metadata.row_groups[0].columns[0].meta_data;
  auto pages = Pages(sink.bytes(), md);
  ASSERT_EQ(pages.size(), 10u);  // the null row makes the first page 101 rows, the last 99
  EXPECT_EQ(pages[0].data_page_header->num_values, 101);
  EXPECT_EQ(pages[0].data_page_header->statistics->null_count, 1);
  EXPECT_EQ(Load<int32_t>(*pages[1].data_page_header->statistics->min_value), 101);
  EXPECT_EQ((*md.encoding_stats)[0].count, 10);
  // Lists: 34 rows (102 floats, 408 bytes) per page; never split inside a row.
  const ColumnMetaData& lm = *f.metadata.row_groups[0].columns[1].meta_data;
  auto lpages = Pages(sink.bytes(), lm);
  EXPECT_EQ(lpages.size(), 30u);
  for (const PageHeader& p : lpages) EXPECT_EQ(p.data_page_header->num_values % 3, 0);
  DecodedColumn c = Decode(sink.bytes(), f, 0, 0);
  EXPECT_EQ(c.values.int32s.size(), 999u);
  EXPECT_EQ(Decode(sink.bytes(), f, 0, 1).values.floats.size(), 3000u);
}

TEST(FileWriter, CodecsCompressEveryPage) {
  for (CompressionCodec codec : {CompressionCodec::kZstd, CompressionCodec::kSnappy}) {
    MemorySink sink;
    WriterOptions opts;
    opts.codec = codec;
    opts.page_size = 1000;
    auto w = OpenOrDie({{.name = "s", .kind = ColumnKind::kString, .dictionary = true},
                        {.name = "i", .kind = ColumnKind::kInt32}},
                       opts, &sink);
    std::vector<std::string_view> s(5000, "repetitive text repetitive text");
    std::vector<int32_t> v(5000, 42);
    ASSERT_OK(w->BeginRowGroup());
    ASSERT_OK(w->WriteByteArray(0, s));
    ASSERT_OK(w->WriteInt32(1, v));
    ASSERT_OK(w->EndRowGroup());
    ASSERT_OK(w->Finish());
    Footer f = ParseWhole(sink.bytes());
    const ColumnMetaData& md = *f.metadata.row_groups[0].columns[1].meta_data;
    EXPECT_EQ(md.codec, codec);
    EXPECT_LT(md.total_compressed_size, md.total_uncompressed_size);
    EXPECT_EQ(Decode(sink.bytes(), f, 0, 1).values.int32s, v);
    EXPECT_EQ(Decode(sink.bytes(), f, 0, 0).values.size(), 5000u);
  }
}

TEST(FileWriter, DictionaryPagesAndFallback) {
  std::vector<std::string> storage;
  for (int i = 0; i < 300; ++i) storage.push_back("value-" + std::to_string(i % 7));
  std::vector<std::string_view> sv(storage.begin(), storage.end());
  std::vector<uint8_t> valid(300, 1);
  valid[3] = 0;
  {
    MemorySink sink;
    WriterOptions opts;
    opts.page_size = 500;
    auto w = OpenOrDie({{.name = "s", .kind = ColumnKind::kString, .optional = true, .dictionary = true}}, opts,
                       &sink);
    ASSERT_OK(w->BeginRowGroup());
    ASSERT_OK(w->WriteByteArray(0, sv, valid));
    ASSERT_OK(w->EndRowGroup());
    ASSERT_OK(w->Finish());
    Footer f = ParseWhole(sink.bytes());
    const ColumnMetaData& md = *f.metadata.row_groups[0].columns[0].meta_data;
    ASSERT_TRUE(md.dictionary_page_offset);
    EXPECT_EQ(md.encodings, (std::vector<Encoding>{Encoding::kPlain, Encoding::kRle, Encoding::kRleDictionary}));
    auto pages = Pages(sink.bytes(), md);
    ASSERT_GT(pages.size(), 2u);
    EXPECT_EQ(pages[0].type, PageType::kDictionaryPage);
    EXPECT_EQ(pages[0].dictionary_page_header->num_values, 7);
    EXPECT_EQ(pages[1].data_page_header->encoding, Encoding::kRleDictionary);
    DecodedColumn c = Decode(sink.bytes(), f, 0, 0);
    ASSERT_EQ(c.values.size(), 299u);
    auto sp = c.values.Binary(3);
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(sp.data()), sp.size()), "value-4");
    EXPECT_EQ(*md.statistics->max_value, "value-6");
  }
  {
    MemorySink sink;
    WriterOptions opts;
    opts.page_size = 500;
    opts.dictionary_size_limit = 40;  // 7 entries of 11 bytes do not fit
    auto w = OpenOrDie({{.name = "s", .kind = ColumnKind::kString, .optional = true, .dictionary = true}}, opts,
                       &sink);
    ASSERT_OK(w->BeginRowGroup());
    ASSERT_OK(w->WriteByteArray(0, sv, valid));
    ASSERT_OK(w->EndRowGroup());
    ASSERT_OK(w->Finish());
    Footer f = ParseWhole(sink.bytes());
    const ColumnMetaData& md = *f.metadata.row_groups[0].columns[0].meta_data;
    EXPECT_FALSE(md.dictionary_page_offset);
    for (const PageHeader& p : Pages(sink.bytes(), md)) EXPECT_EQ(p.data_page_header->encoding, Encoding::kPlain);
    DecodedColumn c = Decode(sink.bytes(), f, 0, 0);
    ASSERT_EQ(c.values.size(), 299u);
    auto sp = c.values.Binary(298);
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(sp.data()), sp.size()), "value-5");
  }
}

TEST(FileWriter, AllNullDictionaryChunkIsPlain) {
  MemorySink sink;
  auto w = OpenOrDie({{.name = "s", .kind = ColumnKind::kString, .optional = true, .dictionary = true}}, {}, &sink);
  std::vector<std::string_view> sv(3);
  std::vector<uint8_t> valid(3, 0);
  ASSERT_OK(w->BeginRowGroup());
  ASSERT_OK(w->WriteByteArray(0, sv, valid));
  ASSERT_OK(w->EndRowGroup());
  ASSERT_OK(w->Finish());
  Footer f = ParseWhole(sink.bytes());
  const ColumnMetaData& md = *f.metadata.row_groups[0].columns[0].meta_data;
  EXPECT_FALSE(md.dictionary_page_offset);
  EXPECT_FALSE(md.statistics->min_value);
  EXPECT_EQ(md.statistics->null_count, 3);
  EXPECT_EQ(Decode(sink.bytes(), f, 0, 0).row_valid, valid);
}

TEST(FileWriter, BytesAreDeterministic) {
  auto write = [] {
    MemorySink sink;
    WriterOptions opts;
    opts.codec = CompressionCodec::kZstd;
    auto w = OpenOrDie({{.name = "s", .kind = ColumnKind::kString, .dictionary = true},
                        {.name = "f", .kind = ColumnKind::kFloat}},
                       opts, &sink);
    std::vector<std::string_view> s = {"b", "a", "b"};
    std::vector<float> v = {1, 2, 3};
    EXPECT_TRUE(w->BeginRowGroup().ok());
    EXPECT_TRUE(w->WriteByteArray(0, s).ok());
    EXPECT_TRUE(w->WriteFloat(1, v).ok());
    EXPECT_TRUE(w->EndRowGroup().ok());
    EXPECT_TRUE(w->Finish().ok());
    return sink.bytes();
  };
  EXPECT_EQ(write(), write());
}

TEST(FileWriter, EmptyFileHasNoRowGroups) {
  MemorySink sink;
  auto w = OpenOrDie({{.name = "a", .kind = ColumnKind::kInt32}}, {}, &sink);
  ASSERT_OK(w->Finish());
  Footer f = ParseWhole(sink.bytes());
  EXPECT_EQ(f.metadata.num_rows, 0);
  EXPECT_TRUE(f.metadata.row_groups.empty());
}

TEST(FileWriter, RejectsBadSpecs) {
  MemorySink sink;
  auto code = [&](std::vector<ColumnSpec> cols, WriterOptions opts = {}) {
    return FileWriter::Open(std::move(cols), std::move(opts), &sink).status().code();
  };
  EXPECT_EQ(code({{.name = ""}}), StatusCode::kInvalidArgument);
  EXPECT_EQ(code({{.name = "a"}, {.name = "a"}}), StatusCode::kInvalidArgument);
  EXPECT_EQ(code({{.name = "\xff"}}), StatusCode::kInvalidArgument);
  EXPECT_EQ(code({{.name = "a", .kind = ColumnKind::kFixedLenByteArray}}), StatusCode::kInvalidArgument);
  EXPECT_EQ(code({{.name = "a", .kind = ColumnKind::kInt32, .type_length = 4}}), StatusCode::kInvalidArgument);
  EXPECT_EQ(code({{.name = "a", .kind = ColumnKind::kInt32, .dictionary = true}}), StatusCode::kInvalidArgument);
  EXPECT_EQ(code({{.name = "a", .kind = ColumnKind::kInt32, .element_optional = true}}),
            StatusCode::kInvalidArgument);
  WriterOptions gzip;
  gzip.codec = CompressionCodec::kGzip;
  EXPECT_EQ(code({{.name = "a"}}, gzip), StatusCode::kInvalidArgument);
  EXPECT_EQ(FileWriter::Open({{.name = "a"}}, {}, nullptr).status().code(), StatusCode::kInvalidArgument);
}

TEST(FileWriter, RejectsBadBatchesWithoutDamage) {
  MemorySink sink;
  auto w = OpenOrDie({{.name = "i", .kind = ColumnKind::kInt32},
                      {.name = "fl", .kind = ColumnKind::kFixedLenByteArray, .type_length = 3},
                      {.name = "s", .kind = ColumnKind::kString},
                      {.name = "v", .kind = ColumnKind::kFloatList, .optional = true},
                      {.name = "b", .kind = ColumnKind::kBoolean}},
                     {}, &sink);
  std::vector<int32_t> one = {1};
  EXPECT_EQ(w->WriteInt32(0, one).code(), StatusCode::kInvalidArgument);  // no row group
  ASSERT_OK(w->BeginRowGroup());
  EXPECT_EQ(w->BeginRowGroup().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(w->WriteInt32(9, one).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(w->WriteInt64(0, std::vector<int64_t>{1}).code(), StatusCode::kInvalidArgument);  // wrong kind
  Status st = w->WriteInt32(0, one, std::vector<uint8_t>{0});
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(st.path(), "i");
  EXPECT_EQ(w->WriteInt32(0, one, std::vector<uint8_t>{1, 1}).code(), StatusCode::kInvalidArgument);
  std::vector<std::string_view> bad_len = {"ab"};
  EXPECT_EQ(w->WriteByteArray(1, bad_len).code(), StatusCode::kInvalidArgument);
  std::vector<std::string_view> bad_utf8 = {"\xc3"};
  EXPECT_EQ(w->WriteByteArray(2, bad_utf8).code(), StatusCode::kInvalidArgument);
  std::vector<float> el = {1, 2};
  EXPECT_EQ(w->WriteFloatList(3, std::vector<int64_t>{}, el).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(w->WriteFloatList(3, std::vector<int64_t>{0, 2, 1}, el).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(w->WriteFloatList(3, std::vector<int64_t>{0, 3}, el).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(w->WriteFloatList(3, std::vector<int64_t>{-1, 0}, el).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(w->WriteFloatList(3, std::vector<int64_t>{0, 2}, el, std::vector<uint8_t>{0}).code(),
            StatusCode::kInvalidArgument);  // a null list with elements
  EXPECT_EQ(w->WriteFloatList(3, std::vector<int64_t>{0, 2}, el, {}, std::vector<uint8_t>{1, 0}).code(),
            StatusCode::kInvalidArgument);  // required elements
  EXPECT_EQ(w->WriteBoolean(4, std::vector<uint8_t>{2}).code(), StatusCode::kInvalidArgument);
  // None of that changed anything: columns still have 0 rows.
  ASSERT_OK(w->WriteInt32(0, one));
  EXPECT_EQ(w->EndRowGroup().code(), StatusCode::kInvalidArgument);  // columns disagree
  std::vector<std::string_view> abc = {"abc"};
  ASSERT_OK(w->WriteByteArray(1, abc));
  ASSERT_OK(w->WriteByteArray(2, abc));
  ASSERT_OK(w->WriteFloatList(3, std::vector<int64_t>{0, 2}, el));
  ASSERT_OK(w->WriteBoolean(4, std::vector<uint8_t>{1}));
  EXPECT_EQ(w->Finish().code(), StatusCode::kInvalidArgument);  // open row group
  ASSERT_OK(w->EndRowGroup());
  EXPECT_EQ(w->EndRowGroup().code(), StatusCode::kInvalidArgument);
  ASSERT_OK(w->BeginRowGroup());
  EXPECT_EQ(w->EndRowGroup().code(), StatusCode::kInvalidArgument);  // empty row group
}

class FailingSink final : public ByteSink {
 public:
  explicit FailingSink(size_t ok_calls) : ok_calls_(ok_calls) {}
  Status Append(std::span<const uint8_t>) override {
    if (ok_calls_ == 0) return IoError("disk full");
    --ok_calls_;
    return Status::Ok();
  }

 private:
  size_t ok_calls_;
};

TEST(FileWriter, SinkErrorsAreSticky) {
  FailingSink sink(1);  // the magic goes through, the first chunk does not
  auto w = OpenOrDie({{.name = "a", .kind = ColumnKind::kInt32}}, {}, &sink);
  std::vector<int32_t> v = {1};
  ASSERT_OK(w->BeginRowGroup());
  ASSERT_OK(w->WriteInt32(0, v));
  EXPECT_EQ(w->EndRowGroup().code(), StatusCode::kIoError);
  EXPECT_EQ(w->Finish().code(), StatusCode::kIoError);
  EXPECT_EQ(w->BeginRowGroup().code(), StatusCode::kIoError);
}

TEST(FileSink, WritesAFile) {
  std::string path = ::testing::TempDir() + "vigilo_writer_test_" + std::to_string(::getpid()) + ".parquet";
  auto sink = FileSink::Create(path);
  ASSERT_TRUE(sink.ok()) << sink.status().ToString();
  auto w = OpenOrDie({{.name = "a", .kind = ColumnKind::kDouble}}, {}, sink->get());
  std::vector<double> v = {0.25};
  ASSERT_OK(w->BeginRowGroup());
  ASSERT_OK(w->WriteDouble(0, v));
  ASSERT_OK(w->EndRowGroup());
  ASSERT_OK(w->Finish());
  ASSERT_OK((*sink)->Close());
  std::ifstream in(path, std::ios::binary);
  Bytes file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  Footer f = ParseWhole(file);
  EXPECT_EQ(Decode(file, f, 0, 0).values.doubles, v);
  std::remove(path.c_str());
  EXPECT_EQ(FileSink::Create("/nonexistent-dir/x.parquet").status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace vigilo::parquet
