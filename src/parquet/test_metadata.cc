#include "test_metadata.h"

#include "vigilo/parquet/footer.h"

namespace vigilo::parquet::testing {
namespace {

SchemaElement Leaf(std::string name, Type type, FieldRepetitionType rep) {
  SchemaElement e;
  e.name = std::move(name);
  e.type = type;
  e.repetition_type = rep;
  return e;
}

SchemaElement Group(std::string name, int32_t children, std::optional<FieldRepetitionType> rep) {
  SchemaElement e;
  e.name = std::move(name);
  e.num_children = children;
  e.repetition_type = rep;
  return e;
}

std::vector<SchemaElement> RichSchema() {
  using R = FieldRepetitionType;
  std::vector<SchemaElement> s;
  s.push_back(Group("schema", 9, std::nullopt));
  SchemaElement cid = Leaf("cid", Type::kInt32, R::kRequired);
  cid.converted_type = ConvertedType::kInt32;
  cid.logical_type = LogicalType::Integer(32, true);
  cid.field_id = 1;
  s.push_back(cid);
  SchemaElement vec = Group("vector", 1, R::kOptional);
  vec.converted_type = ConvertedType::kList;
  vec.logical_type = LogicalType::Simple(LogicalType::Kind::kList);
  s.push_back(vec);
  s.push_back(Group("list", 1, R::kRepeated));
  s.push_back(Leaf("element", Type::kFloat, R::kRequired));
  SchemaElement name = Leaf("name", Type::kByteArray, R::kOptional);
  name.converted_type = ConvertedType::kUtf8;
  name.logical_type = LogicalType::Simple(LogicalType::Kind::kString);
  s.push_back(name);
  SchemaElement price = Leaf("price", Type::kFixedLenByteArray, R::kOptional);
  price.type_length = 16;
  price.converted_type = ConvertedType::kDecimal;
  price.scale = 2;
  price.precision = 30;
  price.logical_type = LogicalType::Decimal(2, 30);
  s.push_back(price);
  SchemaElement ts = Leaf("ts", Type::kInt64, R::kOptional);
  ts.converted_type = ConvertedType::kTimestampMicros;
  ts.logical_type = LogicalType::Timestamp(true, TimeUnit::kMicros);
  s.push_back(ts);
  SchemaElement t = Leaf("t", Type::kInt32, R::kOptional);
  t.converted_type = ConvertedType::kTimeMillis;
  t.logical_type = LogicalType::Time(false, TimeUnit::kMillis);
  s.push_back(t);
  SchemaElement day = Leaf("day", Type::kInt32, R::kOptional);
  day.converted_type = ConvertedType::kDate;
  day.logical_type = LogicalType::Simple(LogicalType::Kind::kDate);
  s.push_back(day);
  SchemaElement nothing = Leaf("nothing", Type::kInt32, R::kOptional);
  nothing.logical_type = LogicalType::Simple(LogicalType::Kind::kUnknown);
  s.push_back(nothing);
  // VARIANT (member 16) is not modelled: kept verbatim as {1: i8 = 1}.
  SchemaElement blob = Leaf("blob", Type::kByteArray, R::kOptional);
  LogicalType other;
  other.kind = LogicalType::Kind::kOther;
  other.other_field_id = 16;
  other.other_type = CompactType::kStruct;
  other.other_value = std::string("\x13\x01\x00", 3);
  blob.logical_type = other;
  s.push_back(blob);
  return s;
}

struct LeafInfo {
  std::vector<std::string> path;
  Type type;
  bool repeated;
};

const std::vector<LeafInfo>& RichLeaves() {
  static const std::vector<LeafInfo> leaves = {
      {{"cid"}, Type::kInt32, false},      {{"vector", "list", "element"}, Type::kFloat, true},
      {{"name"}, Type::kByteArray, false}, {{"price"}, Type::kFixedLenByteArray, false},
      {{"ts"}, Type::kInt64, false},       {{"t"}, Type::kInt32, false},
      {{"day"}, Type::kInt32, false},      {{"nothing"}, Type::kInt32, false},
      {{"blob"}, Type::kByteArray, false},
  };
  return leaves;
}

constexpr int64_t kRows[] = {100, 50};

int64_t ChunkSize(size_t column) { return 10 + static_cast<int64_t>(column); }

}  // namespace

uint64_t RichDataSize() {
  uint64_t total = 0;
  for (size_t g = 0; g < 2; ++g) {
    for (size_t c = 0; c < RichLeaves().size(); ++c) total += static_cast<uint64_t>(ChunkSize(c));
  }
  return total;
}

FileMetaData RichMetaData() {
  FileMetaData md;
  md.version = 2;
  md.schema = RichSchema();
  md.num_rows = kRows[0] + kRows[1];
  md.created_by = "vigilo test (build 0)";
  md.key_value_metadata = std::vector<KeyValue>{{"vigilo.kind", "postings"}, {"empty", std::nullopt}};
  md.column_orders = std::vector<ColumnOrder>(RichLeaves().size(), ColumnOrder::kTypeDefinedOrder);
  (*md.column_orders)[1] = ColumnOrder::kIeee754TotalOrder;
  int64_t offset = 4;
  for (size_t g = 0; g < 2; ++g) {
    RowGroup rg;
    rg.num_rows = kRows[g];
    rg.file_offset = offset;
    rg.ordinal = static_cast<int16_t>(g);
    int64_t group_bytes = 0;
    for (size_t c = 0; c < RichLeaves().size(); ++c) {
      const LeafInfo& leaf = RichLeaves()[c];
      ColumnChunk chunk;
      chunk.file_offset = 0;
      ColumnMetaData cm;
      cm.type = leaf.type;
      cm.encodings = {Encoding::kPlain, Encoding::kRle};
      cm.path_in_schema = leaf.path;
      cm.codec = c % 2 == 0 ? CompressionCodec::kUncompressed : CompressionCodec::kZstd;
      cm.num_values = leaf.repeated ? kRows[g] * 768 : kRows[g];
      cm.total_compressed_size = ChunkSize(c);
      cm.total_uncompressed_size = ChunkSize(c) * 3;
      cm.data_page_offset = offset;
      if (leaf.path[0] == "name") {
        cm.dictionary_page_offset = offset;
        cm.data_page_offset = offset + 5;
        cm.encodings = {Encoding::kPlain, Encoding::kRleDictionary, Encoding::kRle};
        cm.encoding_stats = std::vector<PageEncodingStats>{{PageType::kDictionaryPage, Encoding::kPlain, 1},
                                                           {PageType::kDataPage, Encoding::kRleDictionary, 2}};
      }
      if (leaf.path[0] == "cid") {
        Statistics st;
        st.min_value = std::string("\x07\x00\x00\x00", 4);
        st.max_value = std::string("\x07\x00\x00\x00", 4);
        st.min = st.min_value;
        st.max = st.max_value;
        st.null_count = 0;
        st.distinct_count = 1;
        st.is_min_value_exact = true;
        st.is_max_value_exact = false;
        cm.statistics = st;
        cm.key_value_metadata = std::vector<KeyValue>{{"k", "v"}};
        cm.index_page_offset = offset;  // unusual but representable
      }
      chunk.meta_data = cm;
      offset += ChunkSize(c);
      group_bytes += ChunkSize(c);
      rg.columns.push_back(chunk);
    }
    rg.total_byte_size = group_bytes * 3;
    rg.total_compressed_size = group_bytes;
    md.row_groups.push_back(rg);
  }
  return md;
}

FileMetaData SingleColumnMetaData(int64_t rows, int64_t chunk_size) {
  FileMetaData md;
  SchemaElement root;
  root.name = "schema";
  root.num_children = 1;
  SchemaElement cid;
  cid.name = "cid";
  cid.type = Type::kInt32;
  cid.repetition_type = FieldRepetitionType::kRequired;
  md.schema = {root, cid};
  md.num_rows = rows;
  RowGroup rg;
  rg.num_rows = rows;
  rg.total_byte_size = chunk_size;
  ColumnChunk chunk;
  ColumnMetaData cm;
  cm.type = Type::kInt32;
  cm.encodings = {Encoding::kPlain};
  cm.path_in_schema = {"cid"};
  cm.num_values = rows;
  cm.total_compressed_size = chunk_size;
  cm.total_uncompressed_size = chunk_size;
  cm.data_page_offset = 4;
  chunk.meta_data = cm;
  rg.columns.push_back(chunk);
  md.row_groups.push_back(rg);
  return md;
}

std::vector<uint8_t> BuildFile(const FileMetaData& metadata, uint64_t data_size) {
  std::vector<uint8_t> file(kMagic, kMagic + 4);
  file.resize(4 + data_size, 0);
  auto footer = EncodeFooter(metadata);
  if (!footer.ok()) return {};
  file.insert(file.end(), footer->begin(), footer->end());
  return file;
}

}  // namespace vigilo::parquet::testing
