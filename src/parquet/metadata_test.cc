#include "vigilo/parquet/metadata.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>

#include "test_metadata.h"

namespace vigilo::parquet {
namespace {

using Bytes = std::vector<uint8_t>;

Bytes Encode(const FileMetaData& md) {
  auto r = EncodeFileMetaData(md);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : Bytes{};
}

Bytes Finish(CompactWriter& w) {
  auto r = std::move(w).Finish();
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : Bytes{};
}

TEST(FileMetaDataCodec, RichRoundTrip) {
  FileMetaData md = testing::RichMetaData();
  Bytes bytes = Encode(md);
  auto decoded = DecodeFileMetaData(bytes);
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(*decoded, md);
  EXPECT_EQ(Encode(*decoded), bytes);
}

TEST(FileMetaDataCodec, MinimalRoundTripAndKnownBytes) {
  FileMetaData md;
  md.schema.push_back({});
  md.schema[0].name = "s";
  md.schema[0].num_children = 0;
  Bytes bytes = Encode(md);
  // version=1 | schema: list of 1 struct {name "s", num_children 0} | num_rows=0 | row_groups: []
  EXPECT_EQ(bytes, (Bytes{0x15, 0x02, 0x19, 0x1c, 0x48, 0x01, 's', 0x15, 0x00, 0x00, 0x16, 0x00, 0x19, 0x0c, 0x00}));
  auto decoded = DecodeFileMetaData(bytes);
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(*decoded, md);
}

TEST(FileMetaDataCodec, AbsentAndEmptyOptionalListsStayDistinct) {
  FileMetaData md = testing::SingleColumnMetaData(3, 10);
  md.key_value_metadata = std::vector<KeyValue>{};
  auto decoded = DecodeFileMetaData(Encode(md));
  ASSERT_TRUE(decoded.ok());
  ASSERT_TRUE(decoded->key_value_metadata.has_value());
  EXPECT_TRUE(decoded->key_value_metadata->empty());
  EXPECT_FALSE(decoded->column_orders.has_value());
}

TEST(FileMetaDataCodec, UnknownEnumValuesArePreserved) {
  FileMetaData md = testing::SingleColumnMetaData(3, 10);
  md.row_groups[0].columns[0].meta_data->encodings.push_back(static_cast<Encoding>(42));
  md.row_groups[0].columns[0].meta_data->codec = static_cast<CompressionCodec>(-5);
  Bytes bytes = Encode(md);
  auto decoded = DecodeFileMetaData(bytes);
  ASSERT_TRUE(decoded.ok());
  EXPECT_EQ(*decoded, md);
}

TEST(FileMetaDataCodec, MissingRequiredFieldNamesStructFieldAndPath) {
  // A FileMetaData with only version.
  CompactWriter w;
  w.BeginStruct();
  w.WriteFieldHeader(CompactType::kI32, 1);
  w.WriteI32(1);
  w.EndStruct();
  auto st = DecodeFileMetaData(Finish(w)).status();
  EXPECT_EQ(st.code(), StatusCode::kParseError);
  EXPECT_NE(st.message().find("FileMetaData.schema"), std::string_view::npos) << st.ToString();
  EXPECT_EQ(st.path(), "schema");

  // Drop data_page_offset (field 9) from one nested ColumnMetaData by
  // re-encoding with it as an unknown id: encode, then patch the id.
  FileMetaData md = testing::SingleColumnMetaData(3, 10);
  md.row_groups[0].columns[0].meta_data->data_page_offset = 0x55;
  Bytes bytes = Encode(md);
  // field 9 follows field 7 (delta 2, i64): header 0x26 then zigzag(0x55)=0xaa 0x01.
  bool patched = false;
  for (size_t i = 0; i + 2 < bytes.size(); ++i) {
    if (bytes[i] == 0x26 && bytes[i + 1] == 0xaa && bytes[i + 2] == 0x01) {
      bytes[i] = 0x36;  // delta 3: field 10 (index_page_offset) instead
      patched = true;
      break;
    }
  }
  ASSERT_TRUE(patched);
  st = DecodeFileMetaData(bytes).status();
  EXPECT_EQ(st.code(), StatusCode::kParseError);
  EXPECT_NE(st.message().find("ColumnMetaData.data_page_offset"), std::string_view::npos) << st.ToString();
  EXPECT_EQ(st.path(), "row_groups[0].columns[0].meta_data.data_page_offset");
}

TEST(FileMetaDataCodec, UnknownFieldsAreSkipped) {
  // KeyValue with an unknown field 9 (a nested struct) between known ones.
  CompactWriter w;
  w.BeginStruct();
  w.WriteFieldHeader(CompactType::kI32, 1);
  w.WriteI32(2);
  w.WriteFieldHeader(CompactType::kList, 2);
  w.WriteListHeader(CompactType::kStruct, 1);
  w.BeginStruct();
  w.WriteFieldHeader(CompactType::kBinary, 4);
  w.WriteString("root");
  w.WriteFieldHeader(CompactType::kI32, 5);
  w.WriteI32(0);
  w.WriteFieldHeader(CompactType::kStruct, 30);  // unknown in SchemaElement
  w.BeginStruct();
  w.WriteFieldHeader(CompactType::kMap, 1);
  w.WriteMapHeader(CompactType::kBinary, CompactType::kDouble, 1);
  w.WriteString("x");
  w.WriteDouble(1.5);
  w.EndStruct();
  w.EndStruct();
  w.WriteFieldHeader(CompactType::kI64, 3);
  w.WriteI64(0);
  w.WriteFieldHeader(CompactType::kList, 4);
  w.WriteListHeader(CompactType::kStruct, 0);
  w.WriteFieldHeader(CompactType::kBinary, 9);  // footer_signing_key_metadata: unknown here
  w.WriteString("key");
  w.WriteFieldHeader(CompactType::kI32, -3);  // negative ids are never ours
  w.WriteI32(9);
  w.EndStruct();
  auto decoded = DecodeFileMetaData(Finish(w));
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(decoded->version, 2);
  ASSERT_EQ(decoded->schema.size(), 1u);
  EXPECT_EQ(decoded->schema[0].name, "root");
}

TEST(FileMetaDataCodec, WrongWireTypeIsAnError) {
  CompactWriter w;
  w.BeginStruct();
  w.WriteFieldHeader(CompactType::kBinary, 1);  // version is i32
  w.WriteString("1");
  w.EndStruct();
  auto st = DecodeFileMetaData(Finish(w)).status();
  EXPECT_EQ(st.code(), StatusCode::kParseError);
  EXPECT_EQ(st.path(), "version");
  EXPECT_NE(st.message().find("expected an integer"), std::string_view::npos) << st.ToString();

  CompactWriter list;
  list.BeginStruct();
  list.WriteFieldHeader(CompactType::kI32, 1);
  list.WriteI32(1);
  list.WriteFieldHeader(CompactType::kList, 2);
  list.WriteListHeader(CompactType::kBinary, 1);  // schema holds structs
  list.WriteString("x");
  list.EndStruct();
  st = DecodeFileMetaData(Finish(list)).status();
  EXPECT_EQ(st.code(), StatusCode::kParseError);
  EXPECT_EQ(st.path(), "schema");
}

// What hyparquet-writer emits: integer wire types chosen by value, and
// empty lists typed i8.
TEST(FileMetaDataCodec, ToleratesOtherIntegerWidthsAndUntypedEmptyLists) {
  FileMetaData md = testing::SingleColumnMetaData(3, 10);
  md.row_groups[0].ordinal = 7;
  Bytes bytes = Encode(md);
  // RowGroup.ordinal (field 7, i16) follows num_rows (field 3): header 0x44,
  // zigzag 7 = 0x0e, then the RowGroup's stop byte.
  const uint8_t ordinal_field[] = {0x44, 0x0e, 0x00};
  auto it = std::search(bytes.begin(), bytes.end(), std::begin(ordinal_field), std::end(ordinal_field));
  ASSERT_NE(it, bytes.end());
  *it = 0x45;  // the same field as i32: the value bytes do not change
  auto decoded = DecodeFileMetaData(bytes);
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(decoded->row_groups[0].ordinal, 7);
  EXPECT_EQ(*decoded, md);

  CompactWriter w;
  w.BeginStruct();
  w.WriteFieldHeader(CompactType::kI32, 1);
  w.WriteI32(1);
  w.WriteFieldHeader(CompactType::kList, 2);
  w.WriteListHeader(CompactType::kStruct, 1);
  w.BeginStruct();
  w.WriteFieldHeader(CompactType::kBinary, 4);
  w.WriteString("root");
  w.WriteFieldHeader(CompactType::kI32, 5);
  w.WriteI32(0);
  w.EndStruct();
  w.WriteFieldHeader(CompactType::kI32, 3);  // num_rows is i64
  w.WriteI32(0);
  w.WriteFieldHeader(CompactType::kList, 4);
  w.WriteListHeader(CompactType::kI8, 0);  // row_groups: []
  w.WriteFieldHeader(CompactType::kList, 5);
  w.WriteListHeader(CompactType::kI8, 0);  // key_value_metadata: []
  w.EndStruct();
  decoded = DecodeFileMetaData(Finish(w));
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_TRUE(decoded->row_groups.empty());
  ASSERT_TRUE(decoded->key_value_metadata.has_value());
  EXPECT_TRUE(decoded->key_value_metadata->empty());
}

TEST(FileMetaDataCodec, IntegerThatDoesNotFitIsAnError) {
  CompactWriter w;
  w.BeginStruct();
  w.WriteFieldHeader(CompactType::kI64, 1);  // version is i32
  w.WriteI64(int64_t{1} << 40);
  w.EndStruct();
  auto st = DecodeFileMetaData(Finish(w)).status();
  EXPECT_EQ(st.code(), StatusCode::kParseError);
  EXPECT_EQ(st.path(), "version");
  EXPECT_EQ(st.offset(), 1u);
}

TEST(FileMetaDataCodec, DuplicateFieldIsAnError) {
  CompactWriter w;
  w.BeginStruct();
  w.WriteFieldHeader(CompactType::kI32, 1);
  w.WriteI32(1);
  w.WriteFieldHeader(CompactType::kI32, 1);
  w.WriteI32(2);
  w.EndStruct();
  auto st = DecodeFileMetaData(Finish(w)).status();
  EXPECT_EQ(st.code(), StatusCode::kParseError);
  EXPECT_NE(st.message().find("twice"), std::string_view::npos) << st.ToString();
}

TEST(FileMetaDataCodec, TrailingBytesAreAnError) {
  Bytes bytes = Encode(testing::SingleColumnMetaData(1, 1));
  bytes.push_back(0);
  EXPECT_EQ(DecodeFileMetaData(bytes).status().code(), StatusCode::kParseError);
}

TEST(FileMetaDataCodec, MemoryBudgetIsEnforced) {
  Bytes bytes = Encode(testing::RichMetaData());
  DecodeOptions tight;
  tight.max_decoded_bytes = 1000;
  EXPECT_EQ(DecodeFileMetaData(bytes, tight).status().code(), StatusCode::kLimitExceeded);
  DecodeOptions roomy;
  roomy.max_decoded_bytes = 1 << 20;
  EXPECT_TRUE(DecodeFileMetaData(bytes, roomy).ok());
}

// A SchemaElement list of one element whose logicalType field is `member`
// (already-encoded union contents, without the stop byte).
Bytes WithLogicalType(const std::function<void(CompactWriter&)>& member) {
  CompactWriter w;
  w.BeginStruct();
  w.WriteFieldHeader(CompactType::kI32, 1);
  w.WriteI32(1);
  w.WriteFieldHeader(CompactType::kList, 2);
  w.WriteListHeader(CompactType::kStruct, 1);
  w.BeginStruct();
  w.WriteFieldHeader(CompactType::kBinary, 4);
  w.WriteString("x");
  w.WriteFieldHeader(CompactType::kStruct, 10);
  w.BeginStruct();
  member(w);
  w.EndStruct();
  w.EndStruct();
  w.WriteFieldHeader(CompactType::kI64, 3);
  w.WriteI64(0);
  w.WriteFieldHeader(CompactType::kList, 4);
  w.WriteListHeader(CompactType::kStruct, 0);
  w.EndStruct();
  return Finish(w);
}

TEST(LogicalTypeCodec, UnknownMemberIsKeptVerbatim) {
  Bytes bytes = WithLogicalType([](CompactWriter& w) {
    w.WriteFieldHeader(CompactType::kStruct, 40);  // a future member with content
    w.BeginStruct();
    w.WriteFieldHeader(CompactType::kBinary, 1);
    w.WriteString("crs");
    w.EndStruct();
  });
  auto md = DecodeFileMetaData(bytes);
  ASSERT_TRUE(md.ok()) << md.status().ToString();
  const LogicalType& t = *md->schema[0].logical_type;
  EXPECT_EQ(t.kind, LogicalType::Kind::kOther);
  EXPECT_EQ(t.other_field_id, 40);
  EXPECT_EQ(t.other_value, std::string("\x18\x03"
                                       "crs\x00",
                                       6));
  EXPECT_EQ(Encode(*md), bytes);
}

TEST(LogicalTypeCodec, UnknownTimeUnitFallsBackToOther) {
  Bytes bytes = WithLogicalType([](CompactWriter& w) {
    w.WriteFieldHeader(CompactType::kStruct, 8);  // TIMESTAMP
    w.BeginStruct();
    w.WriteBoolField(1, true);
    w.WriteFieldHeader(CompactType::kStruct, 2);
    w.BeginStruct();
    w.WriteFieldHeader(CompactType::kStruct, 9);  // a TimeUnit we do not know
    w.BeginStruct();
    w.EndStruct();
    w.EndStruct();
    w.EndStruct();
  });
  auto md = DecodeFileMetaData(bytes);
  ASSERT_TRUE(md.ok()) << md.status().ToString();
  const LogicalType& t = *md->schema[0].logical_type;
  EXPECT_EQ(t.kind, LogicalType::Kind::kOther);
  EXPECT_EQ(t.other_field_id, 8);
  EXPECT_EQ(Encode(*md), bytes);
}

TEST(LogicalTypeCodec, UnionNeedsExactlyOneMember) {
  Bytes none = WithLogicalType([](CompactWriter&) {});
  EXPECT_NE(DecodeFileMetaData(none).status().message().find("no member"), std::string_view::npos);
  Bytes two = WithLogicalType([](CompactWriter& w) {
    for (int16_t id : {int16_t{1}, int16_t{6}}) {
      w.WriteFieldHeader(CompactType::kStruct, id);
      w.BeginStruct();
      w.EndStruct();
    }
  });
  auto st = DecodeFileMetaData(two).status();
  EXPECT_NE(st.message().find("more than one"), std::string_view::npos) << st.ToString();
  EXPECT_EQ(st.path(), "schema[0].logicalType");
}

TEST(LogicalTypeCodec, DecimalRequiresItsFields) {
  Bytes bytes = WithLogicalType([](CompactWriter& w) {
    w.WriteFieldHeader(CompactType::kStruct, 5);
    w.BeginStruct();
    w.WriteFieldHeader(CompactType::kI32, 1);
    w.WriteI32(2);
    w.EndStruct();
  });
  auto st = DecodeFileMetaData(bytes).status();
  EXPECT_NE(st.message().find("DecimalType.precision"), std::string_view::npos) << st.ToString();
}

PageHeader DataPageV1() {
  PageHeader h;
  h.type = PageType::kDataPage;
  h.uncompressed_page_size = 4096;
  h.compressed_page_size = 1024;
  h.crc = -12345;
  DataPageHeader d;
  d.num_values = 100;
  d.encoding = Encoding::kPlain;
  d.definition_level_encoding = Encoding::kRle;
  d.repetition_level_encoding = Encoding::kBitPacked;
  Statistics st;
  st.null_count = 3;
  st.min_value = "a";
  st.max_value = std::string("z\0z", 3);
  d.statistics = st;
  h.data_page_header = d;
  return h;
}

// A hand-written PageHeader up to its required fields (type, both page
// sizes), the struct left open for the field under test.
void BeginPageHeader(CompactWriter& w, PageType type, int32_t page_size) {
  w.BeginStruct();
  w.WriteFieldHeader(CompactType::kI32, 1);
  w.WriteI32(static_cast<int32_t>(type));
  w.WriteFieldHeader(CompactType::kI32, 2);
  w.WriteI32(page_size);
  w.WriteFieldHeader(CompactType::kI32, 3);
  w.WriteI32(page_size);
}

TEST(PageHeaderCodec, RoundTripsEveryKind) {
  PageHeader dict;
  dict.type = PageType::kDictionaryPage;
  dict.uncompressed_page_size = 10;
  dict.compressed_page_size = 10;
  dict.dictionary_page_header = DictionaryPageHeader{7, Encoding::kPlain, false};
  PageHeader v2;
  v2.type = PageType::kDataPageV2;
  v2.uncompressed_page_size = 300;
  v2.compressed_page_size = 200;
  DataPageHeaderV2 d2;
  d2.num_values = 50;
  d2.num_nulls = 5;
  d2.num_rows = 50;
  d2.encoding = Encoding::kDeltaBinaryPacked;
  d2.definition_levels_byte_length = 12;
  d2.repetition_levels_byte_length = 0;
  d2.is_compressed = false;
  d2.statistics = Statistics{};
  v2.data_page_header_v2 = d2;
  for (const PageHeader& h : {DataPageV1(), dict, v2}) {
    auto bytes = EncodePageHeader(h);
    ASSERT_TRUE(bytes.ok());
    Bytes with_data = *bytes;
    with_data.insert(with_data.end(), {1, 2, 3, 4});  // page data follows the header
    size_t size = 0;
    auto decoded = DecodePageHeader(with_data, &size);
    ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
    EXPECT_EQ(*decoded, h);
    EXPECT_EQ(size, bytes->size());
    EXPECT_EQ(*EncodePageHeader(*decoded), *bytes);
  }
}

TEST(PageHeaderCodec, StatisticsCanBeSkipped) {
  PageHeader v1 = DataPageV1();
  ASSERT_TRUE(v1.data_page_header->statistics.has_value());
  PageHeader v2;
  v2.type = PageType::kDataPageV2;
  v2.uncompressed_page_size = 8;
  v2.compressed_page_size = 8;
  DataPageHeaderV2 d2;
  d2.num_values = 2;
  d2.num_rows = 2;
  d2.statistics = Statistics{};
  d2.statistics->min_value = std::string(800, 'x');
  v2.data_page_header_v2 = d2;
  DecodeOptions skip;
  skip.page_statistics = false;
  for (const PageHeader& h : {v1, v2}) {
    Bytes bytes = *EncodePageHeader(h);
    size_t size = 0;
    auto decoded = DecodePageHeader(bytes, &size, skip);
    ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
    EXPECT_EQ(size, bytes.size());
    PageHeader want = h;
    if (want.data_page_header) want.data_page_header->statistics.reset();
    if (want.data_page_header_v2) want.data_page_header_v2->statistics.reset();
    EXPECT_EQ(*decoded, want);
  }
  // Skipped is still checked: a statistics field that is not a struct, or a
  // second one, is the same error either way.
  for (bool twice : {false, true}) {
    CompactWriter w;
    BeginPageHeader(w, PageType::kDataPage, 8);
    w.WriteFieldHeader(CompactType::kStruct, 5);
    w.BeginStruct();
    for (int16_t id = 1; id <= 4; ++id) {
      w.WriteFieldHeader(CompactType::kI32, id);
      w.WriteI32(id == 1 ? 2 : 0);
    }
    if (twice) {
      for (int k = 0; k < 2; ++k) {
        w.WriteFieldHeader(CompactType::kStruct, 5);
        w.BeginStruct();
        w.EndStruct();
      }
    } else {
      w.WriteFieldHeader(CompactType::kI32, 5);
      w.WriteI32(7);
    }
    w.EndStruct();
    w.EndStruct();
    Bytes bytes = Finish(w);
    size_t size = 0;
    for (const DecodeOptions& o : {DecodeOptions{}, skip}) {
      auto st = DecodePageHeader(bytes, &size, o).status();
      EXPECT_EQ(st.code(), StatusCode::kParseError) << twice << " " << st.ToString();
    }
  }
}

TEST(PageHeaderCodec, IndexPageHeaderIsSkipped) {
  CompactWriter w;
  BeginPageHeader(w, PageType::kIndexPage, 8);
  w.WriteFieldHeader(CompactType::kStruct, 6);
  w.BeginStruct();
  w.EndStruct();
  w.EndStruct();
  Bytes bytes = Finish(w);
  size_t size = 0;
  auto decoded = DecodePageHeader(bytes, &size);
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(decoded->type, PageType::kIndexPage);
  EXPECT_EQ(size, bytes.size());
}

TEST(PageHeaderCodec, MissingNestedRequiredField) {
  PageHeader h = DataPageV1();
  h.data_page_header->statistics.reset();
  auto bytes = *EncodePageHeader(h);
  // DataPageHeader {1: num_values=100 ...}: turn its first header (0x15) into field 9.
  const uint8_t num_values_field[] = {0x15, 0xc8, 0x01};
  auto it = std::search(bytes.begin(), bytes.end(), std::begin(num_values_field), std::end(num_values_field));
  ASSERT_NE(it, bytes.end());
  *it = 0x95;
  size_t size = 0;
  auto st = DecodePageHeader(bytes, &size).status();
  EXPECT_EQ(st.code(), StatusCode::kParseError);
  EXPECT_EQ(st.path(), "data_page_header.num_values") << st.ToString();
}

TEST(PageHeaderCodec, EveryTruncationFails) {
  auto bytes = *EncodePageHeader(DataPageV1());
  for (size_t n = 0; n < bytes.size(); ++n) {
    size_t size = 0;
    auto r = DecodePageHeader(std::span<const uint8_t>(bytes.data(), n), &size);
    EXPECT_FALSE(r.ok()) << n;
  }
}

}  // namespace
}  // namespace vigilo::parquet
