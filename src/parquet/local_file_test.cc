// The local-file adapters' ways to get chunk bytes agree: Read, ReadInto a
// reused buffer, and MappedFile slices; and each decodes the same.
#include <gtest/gtest.h>

#include <algorithm>

#include "vigilo/parquet/local_file.h"

namespace vigilo::parquet {
namespace {

std::string Fixture() { return std::string(VIGILO_SOURCE_DIR) + "/src/parquet/testdata/duckdb_v1_snappy.parquet"; }

TEST(LocalFile, ReadReadIntoAndMappedSlicesAgree) {
  auto file = LocalParquetFile::Open(Fixture());
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  auto mapped = MappedFile::Open(Fixture());
  ASSERT_TRUE(mapped.ok()) << mapped.status().ToString();
  EXPECT_EQ(mapped->bytes().size(), file->size());
  std::vector<uint8_t> buffer;
  size_t largest = 0;
  const Footer& footer = file->footer();
  for (size_t g = 0; g < footer.metadata.row_groups.size(); ++g) {
    auto plan = PlanRowGroup(footer, g);
    ASSERT_TRUE(plan.ok());
    for (const ColumnChunkPlan& p : *plan) {
      auto owned = file->Read(p.range);
      auto into = file->ReadInto(p.range, buffer);
      auto slice = mapped->Slice(p.range);
      ASSERT_TRUE(owned.ok() && into.ok() && slice.ok());
      largest = std::max<size_t>(largest, p.range.length);
      EXPECT_EQ(buffer.size(), largest);  // grows, never shrinks
      EXPECT_TRUE(std::equal(owned->begin(), owned->end(), into->begin(), into->end()));
      EXPECT_TRUE(std::equal(owned->begin(), owned->end(), slice->begin(), slice->end()));
      auto a = DecodeColumnChunk(footer, g, p.leaf, *owned);
      auto b = DecodeColumnChunk(footer, g, p.leaf, *slice);
      ASSERT_TRUE(a.ok() && b.ok());
      EXPECT_EQ(a->num_rows, b->num_rows);
      EXPECT_EQ(a->values.size(), b->values.size());
    }
  }
}

TEST(LocalFile, RangesOutsideTheFileAreOutOfRange) {
  auto file = LocalParquetFile::Open(Fixture());
  auto mapped = MappedFile::Open(Fixture());
  ASSERT_TRUE(file.ok() && mapped.ok());
  std::vector<uint8_t> buffer;
  ByteRange past{file->size() - 3, 4};
  EXPECT_EQ(file->ReadInto(past, buffer).status().code(), StatusCode::kOutOfRange);
  EXPECT_EQ(mapped->Slice(past).status().code(), StatusCode::kOutOfRange);
  EXPECT_TRUE(buffer.empty());
  EXPECT_EQ(MappedFile::Open(Fixture() + ".missing").status().code(), StatusCode::kNotFound);
  // A moved mapping keeps its bytes.
  MappedFile moved = std::move(mapped).value();
  EXPECT_EQ(moved.bytes().size(), file->size());
}

}  // namespace
}  // namespace vigilo::parquet
