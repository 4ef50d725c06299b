// PublicationWriter: objects written through the ObjectStore seam (a
// MemoryStore), hashed and laid out as publication-v1.md §3 says, read back
// with vigilo's Parquet reader.
#include "vigilo/ivf/publication_writer.h"

#include <gtest/gtest.h>

#include "store_test_support.h"
#include "vigilo/common/hex.h"
#include "vigilo/hash/sha256.h"
#include "vigilo/store/memory_store.h"
#include "vigilo/store/owned_writes.h"

namespace vigilo::ivf {
namespace {

class PublicationWriterTest : public testing::Test {
 protected:
  store::MemoryStore store_;
  store::OwnedWrites writes_{store_};
};

std::string Sha256Of(const std::string& bytes) {
  Sha256Hasher h;
  h.Update(bytes);
  return HexEncode(*h.Finalize());
}

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
  auto w = PostingsWriter::Open(writes_, Index(5, 9), {0, 2, 5}, layout);
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
    std::optional<std::string> bytes = store_.Peek(f.object.path);
    ASSERT_TRUE(bytes.has_value()) << f.object.path;
    EXPECT_EQ(bytes->size(), f.object.size);
    EXPECT_EQ(Sha256Of(*bytes), f.object.sha256);
  }
  EXPECT_EQ(store_.object_count(), 2u);
  EXPECT_EQ(writes_.created(), (std::vector<std::string>{(*files)[0].object.path, (*files)[1].object.path}));
  auto bucket1 = StoredParquet::Open(store_, (*files)[1].object.path);
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
  auto w = PostingsWriter::Open(writes_, Index(3, 6), {0, 3}, layout);
  ASSERT_TRUE(w.ok());
  for (uint32_t cid = 0; cid < 3; ++cid) ASSERT_TRUE((*w)->AddLeaf(cid, Rows(2, cid * 2, 1)).ok());
  auto files = (*w)->Finish();
  ASSERT_TRUE(files.ok());
  ASSERT_EQ(files->size(), 3u);
  EXPECT_EQ((*files)[2].object.path, "ivf_postings/cid_bucket=000000/part-000002.parquet");
  EXPECT_EQ((*files)[2].min_cid, 2u);
}

TEST_F(PublicationWriterTest, CapsRowGroupsPerFile) {
  PostingsLayout layout;
  layout.max_row_group_rows = 2;
  layout.max_row_groups_per_file = 2;  // 5 row groups (leaves of 2, 4 and 4 rows) go 2 + 2 + 1
  auto w = PostingsWriter::Open(writes_, Index(3, 10), {0, 3}, layout);
  ASSERT_TRUE(w.ok());
  for (uint32_t cid = 0; cid < 3; ++cid) ASSERT_TRUE((*w)->AddLeaf(cid, Rows(cid == 0 ? 2 : 4, cid * 4, 1)).ok());
  auto files = (*w)->Finish();
  ASSERT_TRUE(files.ok());
  ASSERT_EQ(files->size(), 3u);
  EXPECT_EQ(((*files)[0].min_cid), 0u);
  EXPECT_EQ(((*files)[0].max_cid), 1u);
  EXPECT_EQ(((*files)[1].min_cid), 1u);  // leaf 1's second row group starts a new file
  EXPECT_EQ(((*files)[1].max_cid), 2u);
  EXPECT_EQ(((*files)[2].min_cid), 2u);  // leaf 2's second row group
  EXPECT_EQ(((*files)[2].rows), 2u);
  for (const PostingsFile& f : *files) {
    auto file = StoredParquet::Open(store_, f.object.path);
    ASSERT_TRUE(file.ok());
    EXPECT_LE(file->footer().metadata.row_groups.size(), 2u);
  }
  layout.max_row_groups_per_file = 0;
  EXPECT_EQ(PostingsWriter::Open(writes_, Index(3, 10), {0, 3}, layout).status().code(), StatusCode::kInvalidArgument);
}

TEST_F(PublicationWriterTest, LongCodesHaveNoStatisticsCidAndKeyKeepTheirs) {
  for (uint64_t d : {64u, 65u}) {  // lvq8: d-byte codes; bounds of more than 64 bytes are left out
    IndexSpec index = Index(3, 2);
    index.encoding = Encoding::kLvq8;
    index.dimension = d;
    auto w = PostingsWriter::Open(writes_, index, {0, 1, 3}, {});  // cid 0 and 1: separate buckets and files
    ASSERT_TRUE(w.ok());
    LeafRows rows = Rows(2, 0, 1);
    rows.codes.assign(2 * d, 0x41);
    ASSERT_TRUE((*w)->AddLeaf(d == 64 ? 0 : 1, rows).ok());
    auto files = (*w)->Finish();
    ASSERT_TRUE(files.ok());
    auto file = StoredParquet::Open(store_, (*files)[0].object.path);
    ASSERT_TRUE(file.ok());
    const auto& cols = file->footer().metadata.row_groups[0].columns;
    EXPECT_TRUE(cols[0].meta_data->statistics->min_value);  // cid: exact bounds, always
    EXPECT_TRUE(cols[1].meta_data->statistics->min_value);  // the key
    EXPECT_EQ(cols[4].meta_data->statistics->min_value.has_value(), d == 64) << d;
    EXPECT_EQ(cols[4].meta_data->statistics->null_count, 0);
  }
}

TEST_F(PublicationWriterTest, CentroidsAndManifestComplete) {
  std::vector<float> leaves = {0, 1, 2, 3, 4, 5, -1, 0, 1, 9, 9, 9, 1, 1, 0};  // 5 leaves, d = 3
  auto lvq = EncodeLvqRows(Encoding::kLvq8, leaves, 3);
  ASSERT_TRUE(lvq.ok());
  auto centroids = WriteCentroids(writes_, {0, 2, 5}, *lvq, 3, parquet::CompressionCodec::kUncompressed);
  ASSERT_TRUE(centroids.ok()) << centroids.status().ToString();
  EXPECT_EQ(centroids->path, "centroids.parquet");
  EXPECT_EQ(centroids->sha256, Sha256Of(*store_.Peek("centroids.parquet")));
  auto file = StoredParquet::Open(store_, "centroids.parquet");
  ASSERT_TRUE(file.ok());
  ASSERT_EQ(file->footer().metadata.row_groups.size(), 2u);  // one per root
  EXPECT_EQ(file->footer().metadata.row_groups[1].num_rows, 3);
  auto buckets = file->ReadColumnChunk(1, 1);
  ASSERT_TRUE(buckets.ok());
  EXPECT_EQ(buckets->values.int32s, (std::vector<int32_t>{1, 1, 1}));

  auto w = PostingsWriter::Open(writes_, Index(5, 3), {0, 2, 5}, {});
  ASSERT_TRUE(w.ok());
  ASSERT_TRUE((*w)->AddLeaf(4, Rows(3, 0, 7)).ok());
  auto files = (*w)->Finish();
  ASSERT_TRUE(files.ok());
  Manifest m;
  m.index = Index(5, 3);
  m.hierarchy = Hierarchy{{0, 2, 5}, *centroids};
  m.postings = *files;
  auto sealed = SealManifest(m);
  ASSERT_TRUE(sealed.ok()) << sealed.status().ToString();
  EXPECT_FALSE(store_.Peek("manifest.json").has_value());  // sealing writes nothing
  auto published = PublishManifest(writes_, m);
  ASSERT_TRUE(published.ok()) << published.status().ToString();
  EXPECT_EQ(*published, *sealed);
  EXPECT_EQ(published->artifact_uuid.version(), 8);
  std::optional<std::string> bytes = store_.Peek("manifest.json");
  ASSERT_TRUE(bytes.has_value());
  auto parsed = ParseManifest(*bytes);
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(*parsed, *published);
  EXPECT_EQ(writes_.created().back(), "manifest.json");
  // The same content publishes again as a verified replay (not this write's
  // to remove again); other content cannot replace it.
  store::OwnedWrites again(store_);
  EXPECT_TRUE(PublishManifest(again, m).ok());
  EXPECT_TRUE(again.created().empty());
  m.index.vector_field = "other";
  EXPECT_EQ(PublishManifest(again, m).status().code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(*store_.Peek("manifest.json"), *bytes);
  // A second build into the same store with other bytes fails at its first
  // object; identical bytes are a replay.
  std::vector<float> other = leaves;
  other[0] = 7;
  auto other_lvq = EncodeLvqRows(Encoding::kLvq8, other, 3);
  ASSERT_TRUE(other_lvq.ok());
  EXPECT_EQ(WriteCentroids(again, {0, 2, 5}, *other_lvq, 3, parquet::CompressionCodec::kUncompressed).status().code(),
            StatusCode::kAlreadyExists);
  auto replay = WriteCentroids(again, {0, 2, 5}, *lvq, 3, parquet::CompressionCodec::kUncompressed);
  ASSERT_TRUE(replay.ok()) << replay.status().ToString();
  EXPECT_EQ(*replay, *centroids);
  EXPECT_TRUE(again.created().empty());
  // Rolling the first write back removes exactly what it created.
  ASSERT_TRUE(writes_.RollBack().ok());
  EXPECT_EQ(store_.object_count(), 0u);
}

}  // namespace
}  // namespace vigilo::ivf
