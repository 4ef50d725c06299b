// PublicationWriter: objects written, hashed and laid out as publication-v1.md
// §3 says, read back with vigilo's Parquet reader.
#include "vigilo/ivf/publication_writer.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "vigilo/common/byte_source.h"
#include "vigilo/common/hex.h"
#include "vigilo/hash/file_digest.h"
#include "vigilo/parquet/local_file.h"

namespace vigilo::ivf {
namespace {

class PublicationWriterTest : public testing::Test {
 protected:
  void SetUp() override {
    root_ = (std::filesystem::temp_directory_path() /
             ("vigilo_publish_" + std::to_string(::getpid()) + "_" +
              testing::UnitTest::GetInstance()->current_test_info()->name()))
                .string();
    std::filesystem::remove_all(root_);
    std::filesystem::create_directories(root_);
  }
  void TearDown() override { std::filesystem::remove_all(root_); }
  std::string root_;
};

IndexSpec Index(uint64_t nlist, uint64_t ntotal) {
  return IndexSpec{"vector", Metric::kL2Squared, Encoding::kLvq4, 3, nlist, ntotal,
                   {Field{"id", ColumnType{ColumnType::Kind::kLong, 0}}}};
}

// n rows with keys first_key…, codes filled with `fill`.
LeafRows Rows(size_t n, int64_t first_key, uint8_t fill) {
  LeafRows r;
  r.keys.Clear(ColumnType{ColumnType::Kind::kLong, 0});
  for (size_t i = 0; i < n; ++i) {
    r.keys.integers.push_back(first_key + static_cast<int64_t>(i));
    r.params.push_back(LvqParams{static_cast<float>(i), 0.5f});
  }
  r.codes.assign(n * 2, fill);  // lvq4, d = 3: 2 bytes per code
  return r;
}

TEST_F(PublicationWriterTest, LaysOutBucketsRowGroupsAndFiles) {
  // Roots [0,2) and [2,5); leaf 3 has 5 rows with a 2-row row-group cap.
  PostingsLayout layout;
  layout.max_row_group_rows = 2;
  auto w = PostingsWriter::Open(root_, Index(5, 9), {0, 2, 5}, layout);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  ASSERT_TRUE((*w)->AddLeaf(0, Rows(1, 0, 0x11)).ok());
  ASSERT_TRUE((*w)->AddLeaf(1, Rows(2, 1, 0x22)).ok());
  ASSERT_TRUE((*w)->AddLeaf(3, Rows(5, 3, 0x33)).ok());
  EXPECT_EQ((*w)->AddLeaf(2, Rows(1, 8, 0)).code(), StatusCode::kInternal);  // out of order
  auto files = (*w)->Finish();
  ASSERT_TRUE(files.ok()) << files.status().ToString();
  ASSERT_EQ(files->size(), 2u);
  EXPECT_EQ((*files)[0].object.path, "ivf_postings/cid_bucket=000000/part-000000.parquet");
  EXPECT_EQ((*files)[0].cid_bucket, 0u);
  EXPECT_EQ((*files)[0].min_cid, 0u);
  EXPECT_EQ((*files)[0].max_cid, 1u);
  EXPECT_EQ((*files)[0].rows, 3u);
  EXPECT_EQ((*files)[1].object.path, "ivf_postings/cid_bucket=000001/part-000000.parquet");
  EXPECT_EQ((*files)[1].min_cid, 3u);
  EXPECT_EQ((*files)[1].max_cid, 3u);
  EXPECT_EQ((*files)[1].rows, 5u);

  for (const PostingsFile& f : *files) {
    std::string path = root_ + "/" + f.object.path;
    EXPECT_EQ(std::filesystem::file_size(path), f.object.size);
    auto digest = DigestFile(path, false, true);
    ASSERT_TRUE(digest.ok());
    EXPECT_EQ(HexEncode(*digest->sha256), f.object.sha256);
  }
  auto bucket1 = parquet::LocalParquetFile::Open(root_ + "/" + (*files)[1].object.path);
  ASSERT_TRUE(bucket1.ok()) << bucket1.status().ToString();
  const auto& md = bucket1->footer().metadata;
  ASSERT_EQ(md.row_groups.size(), 3u);  // 5 rows of one CID in 2 + 2 + 1
  EXPECT_EQ(md.row_groups[2].num_rows, 1);
  for (const auto& rg : md.row_groups) {
    const auto& stats = *rg.columns[0].meta_data->statistics;
    std::string three("\x03\0\0\0", 4);
    EXPECT_EQ(stats.min_value, three);
    EXPECT_EQ(stats.max_value, three);
    EXPECT_EQ(stats.min, three);  // legacy fields too
    EXPECT_EQ(stats.null_count, 0);
  }
  std::vector<std::string> names;
  for (size_t i = 1; i < md.schema.size(); ++i) names.push_back(md.schema[i].name);
  EXPECT_EQ(names, (std::vector<std::string>{"cid", "id", "offset", "scale", "code"}));
  auto keys = bucket1->ReadColumnChunk(1, 1);
  ASSERT_TRUE(keys.ok());
  EXPECT_EQ(keys->values.int64s, (std::vector<int64_t>{5, 6}));
  auto codes = bucket1->ReadColumnChunk(0, 4);
  ASSERT_TRUE(codes.ok());
  EXPECT_EQ(codes->values.Binary(0).size(), 2u);
  EXPECT_EQ(codes->values.Binary(0)[0], 0x33);
}

TEST_F(PublicationWriterTest, CapsFileBytes) {
  PostingsLayout layout;
  layout.max_file_bytes = 1;  // every row group after the first starts a new file
  auto w = PostingsWriter::Open(root_, Index(3, 6), {0, 3}, layout);
  ASSERT_TRUE(w.ok());
  for (uint32_t cid = 0; cid < 3; ++cid) ASSERT_TRUE((*w)->AddLeaf(cid, Rows(2, cid * 2, 1)).ok());
  auto files = (*w)->Finish();
  ASSERT_TRUE(files.ok());
  ASSERT_EQ(files->size(), 3u);
  EXPECT_EQ((*files)[2].object.path, "ivf_postings/cid_bucket=000000/part-000002.parquet");
  EXPECT_EQ((*files)[2].min_cid, 2u);
}

TEST_F(PublicationWriterTest, CentroidsAndManifestComplete) {
  std::vector<float> leaves = {0, 1, 2, 3, 4, 5, -1, 0, 1, 9, 9, 9, 1, 1, 0};  // 5 leaves, d = 3
  auto lvq = EncodeLvqRows(Encoding::kLvq8, leaves, 3);
  ASSERT_TRUE(lvq.ok());
  auto centroids = WriteCentroids(root_, {0, 2, 5}, *lvq, 3, parquet::CompressionCodec::kUncompressed);
  ASSERT_TRUE(centroids.ok()) << centroids.status().ToString();
  EXPECT_EQ(centroids->path, "centroids.parquet");
  auto file = parquet::LocalParquetFile::Open(root_ + "/centroids.parquet");
  ASSERT_TRUE(file.ok());
  ASSERT_EQ(file->footer().metadata.row_groups.size(), 2u);  // one per root
  EXPECT_EQ(file->footer().metadata.row_groups[1].num_rows, 3);
  auto buckets = file->ReadColumnChunk(1, 1);
  ASSERT_TRUE(buckets.ok());
  EXPECT_EQ(buckets->values.int32s, (std::vector<int32_t>{1, 1, 1}));

  auto w = PostingsWriter::Open(root_, Index(5, 3), {0, 2, 5}, {});
  ASSERT_TRUE(w.ok());
  ASSERT_TRUE((*w)->AddLeaf(4, Rows(3, 0, 7)).ok());
  auto files = (*w)->Finish();
  ASSERT_TRUE(files.ok());
  Manifest m;
  m.index = Index(5, 3);
  m.hierarchy = Hierarchy{{0, 2, 5}, *centroids};
  m.postings = *files;
  auto published = PublishManifest(root_, m);
  ASSERT_TRUE(published.ok()) << published.status().ToString();
  EXPECT_EQ(published->artifact_uuid.version(), 8);
  auto bytes = ReadFileToString(root_ + "/manifest.json", 1 << 20);
  ASSERT_TRUE(bytes.ok());
  auto parsed = ParseManifest(*bytes);
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(*parsed, *published);
  // The same content publishes again as a verified replay; other content cannot replace it.
  EXPECT_TRUE(PublishManifest(root_, m).ok());
  m.index.vector_field = "other";
  EXPECT_EQ(PublishManifest(root_, m).status().code(), StatusCode::kAlreadyExists);
  // A second build into the same directory fails at its first object.
  EXPECT_EQ(WriteCentroids(root_, {0, 2, 5}, *lvq, 3, parquet::CompressionCodec::kUncompressed).status().code(),
            StatusCode::kAlreadyExists);
}

}  // namespace
}  // namespace vigilo::ivf
