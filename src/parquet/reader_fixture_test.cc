// DuckDB-written files (testdata/README.md) through the local-file adapter,
// the column reader and the JSON mapping; expected rows are in X.jsonl.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "vigilo/parquet/local_file.h"
#include "vigilo/parquet/value_json.h"

namespace vigilo::parquet {
namespace {

std::string Dir() { return std::string(VIGILO_SOURCE_DIR) + "/src/parquet/testdata/"; }

std::string ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Every row group, every top-level column, as `vigilo parquet cat` prints them.
Result<std::string> CatAll(const LocalParquetFile& file) {
  const Footer& footer = file.footer();
  std::vector<ColumnDescriptor> columns;
  for (size_t leaf = 0; leaf < footer.schema.leaves.size(); ++leaf) {
    VIGILO_ASSIGN_OR_RETURN(ColumnDescriptor d, DescribeColumn(footer.metadata.schema, footer.schema, leaf));
    columns.push_back(std::move(d));
  }
  std::string out;
  for (size_t g = 0; g < footer.metadata.row_groups.size(); ++g) {
    std::vector<DecodedColumn> decoded;
    for (const ColumnDescriptor& c : columns) {
      VIGILO_ASSIGN_OR_RETURN(DecodedColumn d, file.ReadColumnChunk(g, c.leaf));
      decoded.push_back(std::move(d));
    }
    VIGILO_ASSIGN_OR_RETURN(RowObjectWriter rows, RowObjectWriter::Make(columns, decoded));
    while (rows.rows_left() > 0) VIGILO_RETURN_IF_ERROR(rows.AppendNext(&out));
  }
  return out;
}

class FixtureTest : public ::testing::TestWithParam<std::string> {};

TEST_P(FixtureTest, RowsMatchTheExpectedJsonLines) {
  auto file = LocalParquetFile::Open(Dir() + GetParam() + ".parquet");
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  EXPECT_EQ(file->footer_reads(), 1);  // small footers fit the speculative tail
  auto text = CatAll(*file);
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  EXPECT_EQ(*text, ReadText(Dir() + GetParam() + ".jsonl"));
}

INSTANTIATE_TEST_SUITE_P(DuckDB, FixtureTest,
                         ::testing::Values("duckdb_v1_snappy", "duckdb_v2_zstd", "duckdb_v1_gzip",
                                           "duckdb_special_floats"));

TEST(Fixture, V2PagesUseTheNewerEncodings) {
  auto file = LocalParquetFile::Open(Dir() + "duckdb_v2_zstd.parquet");
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  auto plan = PlanRowGroup(file->footer(), 0);
  ASSERT_TRUE(plan.ok());
  std::vector<std::string> seen;
  for (const ColumnChunkPlan& p : *plan) {
    for (Encoding e : p.meta->encodings) {
      if (e == Encoding::kDeltaBinaryPacked) seen.push_back(p.path + ":DBP");
      if (e == Encoding::kByteStreamSplit) seen.push_back(p.path + ":BSS");
      if (e == Encoding::kDeltaLengthByteArray) seen.push_back(p.path + ":DLBA");
    }
  }
  EXPECT_NE(std::find(seen.begin(), seen.end(), "id:DBP"), seen.end());
  EXPECT_NE(std::find(seen.begin(), seen.end(), "f:BSS"), seen.end());
  EXPECT_NE(std::find(seen.begin(), seen.end(), "vec.list.element:BSS"), seen.end());
  EXPECT_NE(std::find(seen.begin(), seen.end(), "b:DLBA"), seen.end());
}

TEST(Fixture, ListColumnShape) {
  auto file = LocalParquetFile::Open(Dir() + "duckdb_v1_snappy.parquet");
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  auto plan = PlanRowGroup(file->footer(), 0);
  ASSERT_TRUE(plan.ok());
  size_t vec = 0;
  while ((*plan)[vec].path != "vec.list.element") ++vec;
  auto d = file->ReadColumnChunk(0, vec);
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  // Rows 0..3: null, [], [1, null, 3], [1.5, null, 3].
  EXPECT_EQ(d->num_rows, 200u);  // DuckDB rounds ROW_GROUP_SIZE up to its 2048-row vectors
  EXPECT_EQ(std::vector<uint8_t>(d->row_valid.begin(), d->row_valid.begin() + 4), (std::vector<uint8_t>{0, 1, 1, 1}));
  EXPECT_EQ(std::vector<uint64_t>(d->list_offsets.begin(), d->list_offsets.begin() + 5),
            (std::vector<uint64_t>{0, 0, 0, 3, 6}));
  EXPECT_EQ(std::vector<float>(d->values.floats.begin(), d->values.floats.begin() + 4),
            (std::vector<float>{1.0f, 3.0f, 1.5f, 3.0f}));
}

TEST(Fixture, MissingFileIsNotFound) {
  auto file = LocalParquetFile::Open(Dir() + "nope.parquet");
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace vigilo::parquet
