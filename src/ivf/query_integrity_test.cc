// The query core checks what it reads before it scores (issue 19, "The
// reader checks what it reads"): postings footers whose row-group CIDs
// disagree with the manifest — two buckets' files swapped with sizes and
// digests updated, an edited CID statistic, a missing min-cid or max-cid, a
// wrong row count — are IntegrityErrors naming the file (and row group),
// never hits; and a query whose distances overflow float32 is an
// InvalidArgument naming the query, not an error blamed on a postings object.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>

#include "store_test_support.h"
#include "vigilo/common/hex.h"
#include "vigilo/hash/sha256.h"
#include "vigilo/ivf/builder.h"
#include "vigilo/ivf/kmeans_random.h"
#include "vigilo/ivf/query.h"
#include "vigilo/store/memory_store.h"

namespace vigilo::ivf {
namespace {

constexpr size_t kN = 3000, kD = 12, kNlist = 40;

class QueryIntegrityTest : public testing::Test {
 protected:
  void SetUp() override { Build(Metric::kL2Squared); }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // 40 lists in 6 buckets, CIDs split over row groups of at most 50 rows and
  // buckets over several files (so a file's CID range is narrower than its bucket's).
  void Build(Metric metric) {
    dir_ = std::filesystem::temp_directory_path() / ("vigilo_query_integrity_" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    Xoshiro256 rng(3);
    std::ofstream f(dir_ / "base.fvecs", std::ios::binary);
    for (size_t i = 0; i < kN; ++i) {
      int32_t d = kD;
      f.write(reinterpret_cast<const char*>(&d), 4);
      for (size_t j = 0; j < kD; ++j) {
        float v = static_cast<float>((i % 30) * (j + 1) % 17) + static_cast<float>(rng.NextDouble());
        f.write(reinterpret_cast<const char*>(&v), 4);
      }
    }
    f.close();
    BuildOptions o;
    o.input = (dir_ / "base.fvecs").string();
    o.metric = metric;
    o.encoding = Encoding::kLvq8;
    o.nlist = kNlist;
    o.roots = 6;
    o.layout.max_row_group_rows = 50;
    o.layout.max_file_bytes = 12000;
    o.scratch = dir_.string();
    store_ = std::make_unique<store::MemoryStore>();
    auto built = BuildPublication(o, *store_);
    ASSERT_TRUE(built.ok()) << built.status().ToString();
    m_ = built->manifest;
  }

  // A fresh reader over the (possibly tampered) manifest and store.
  Result<QueryResult> Query(const std::vector<std::vector<float>>& queries, uint32_t nprobe,
                            store::ObjectStore* through = nullptr) {
    PublicationReader reader(m_);
    QueryOptions options;
    options.k = 10;
    options.nprobe = nprobe;
    return RunQuery(reader, through != nullptr ? *through : *store_, queries, options);
  }

  // The object's new bytes, and its manifest size and digest to match.
  void Overwrite(ObjectDescriptor& d, const std::string& bytes) {
    store_->Overwrite(d.path, bytes);
    Sha256Hasher h;
    h.Update(bytes);
    d.size = bytes.size();
    d.sha256 = HexEncode(*h.Finalize());
  }

  // Swaps two postings files' bytes, each keeping its path; the manifest's
  // sizes and digests follow the bytes (its CID ranges and rows do not).
  void SwapPostings(size_t a, size_t b) {
    std::string bytes_a = *store_->Peek(m_.postings[a].object.path),
                bytes_b = *store_->Peek(m_.postings[b].object.path);
    Overwrite(m_.postings[a].object, bytes_b);
    Overwrite(m_.postings[b].object, bytes_a);
  }

  parquet::Footer FooterOf(size_t file) {
    auto parsed = StoredParquet::Open(*store_, m_.postings[file].object.path);
    EXPECT_TRUE(parsed.ok()) << parsed.status().ToString();
    return parsed->footer();
  }

  // Rewrites a postings file's footer around the same column chunks.
  void EditFooter(size_t file, const std::function<void(parquet::FileMetaData&)>& change) {
    const std::string original = *store_->Peek(m_.postings[file].object.path);
    parquet::Footer footer = FooterOf(file);
    change(footer.metadata);
    auto tail = parquet::EncodeFooter(footer.metadata);
    ASSERT_TRUE(tail.ok()) << tail.status().ToString();
    Overwrite(m_.postings[file].object, original.substr(0, footer.offset) + std::string(tail->begin(), tail->end()));
  }

  // Sets row group g's exact cid statistics (new and legacy fields) to `cid`.
  void SetRowGroupCid(size_t file, size_t g, int32_t cid) {
    EditFooter(file, [&](parquet::FileMetaData& md) {
      std::string le(4, '\0');
      for (size_t i = 0; i < 4; ++i) le[i] = static_cast<char>((static_cast<uint32_t>(cid) >> (8 * i)) & 0xff);
      parquet::Statistics& s = *md.row_groups[g].columns[0].meta_data->statistics;
      s.min_value = s.max_value = s.min = s.max = le;
    });
  }

  // The CID statistic of every row group of a file.
  std::vector<int32_t> RowGroupCids(size_t file) {
    std::vector<int32_t> cids;
    for (const parquet::RowGroup& rg : FooterOf(file).metadata.row_groups) {
      const std::string& v = *rg.columns[0].meta_data->statistics->min_value;
      uint32_t u = 0;
      for (int i = 3; i >= 0; --i) u = (u << 8) | static_cast<uint8_t>(v[static_cast<size_t>(i)]);
      cids.push_back(static_cast<int32_t>(u));
    }
    return cids;
  }

  // The first file whose CID range lies strictly inside its bucket's, with
  // row groups of at least three CIDs.
  size_t NarrowFile() {
    for (size_t i = 0; i < m_.postings.size(); ++i) {
      const PostingsFile& f = m_.postings[i];
      if (f.max_cid + 1 < m_.hierarchy.cid_offsets[f.cid_bucket + 1] && f.max_cid >= f.min_cid + 2) return i;
    }
    ADD_FAILURE() << "no postings file narrower than its bucket";
    return 0;
  }

  std::filesystem::path dir_;
  std::unique_ptr<store::MemoryStore> store_;
  Manifest m_;
};

std::vector<float> Point(float value) { return std::vector<float>(kD, value); }

TEST_F(QueryIntegrityTest, ThePublicationIsShapedForTheseTests) {
  EXPECT_GT(m_.postings.size(), 6u);  // several files per bucket
  const PostingsFile& f = m_.postings[NarrowFile()];
  EXPECT_GT(m_.hierarchy.cid_offsets[f.cid_bucket + 1], f.max_cid + 1);
  auto all = Query({Point(3.0f)}, kNlist);
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  EXPECT_EQ(all->hits.size(), 10u);
}

// Two files of different buckets swapped (sizes and digests updated in the
// manifest): the first swapped file probed names its first row group, whose
// CID belongs to the other bucket — whether every list is probed or only one
// of the swapped file's.
TEST_F(QueryIntegrityTest, FilesOfTwoBucketsSwappedAreRefused) {
  auto before = Query({Point(3.0f)}, 1);
  ASSERT_TRUE(before.ok()) << before.status().ToString();
  ASSERT_FALSE(before->hits.empty());
  const size_t probed = before->hits[0].file;  // holds the one probed list
  size_t other = 0;
  while (m_.postings[other].cid_bucket == m_.postings[probed].cid_bucket) ++other;
  const PostingsFile swapped_in = m_.postings[other];
  SwapPostings(probed, other);
  const PostingsFile& f = m_.postings[probed];
  const std::string bucket = " [" + std::to_string(m_.hierarchy.cid_offsets[f.cid_bucket]) + ", " +
                             std::to_string(m_.hierarchy.cid_offsets[f.cid_bucket + 1]) + ")";
  auto one = Query({Point(3.0f)}, 1);
  ASSERT_FALSE(one.ok());
  EXPECT_EQ(one.status().code(), StatusCode::kIntegrityError) << one.status().ToString();
  EXPECT_EQ(one.status().path(), f.object.path + ": row group 0");
  EXPECT_EQ(one.status().message(), "row group holds CID " + std::to_string(swapped_in.min_cid) +
                                        ", outside the CIDs of the file's bucket " + std::to_string(f.cid_bucket) +
                                        bucket);
  // Probing everything: the first of the two in manifest order is named.
  const size_t first = std::min(probed, other);
  auto all = Query({Point(3.0f)}, kNlist);
  ASSERT_FALSE(all.ok());
  EXPECT_EQ(all.status().code(), StatusCode::kIntegrityError) << all.status().ToString();
  EXPECT_EQ(all.status().path(), m_.postings[first].object.path + ": row group 0");
  SwapPostings(probed, other);
  EXPECT_TRUE(Query({Point(3.0f)}, kNlist).ok());
}

// Two files of one bucket swapped: every CID is in the bucket, none in the file's range.
TEST_F(QueryIntegrityTest, FilesOfOneBucketSwappedAreRefused) {
  size_t a = 0;
  while (a + 1 < m_.postings.size() && (m_.postings[a].cid_bucket != m_.postings[a + 1].cid_bucket ||
                                        m_.postings[a].max_cid >= m_.postings[a + 1].min_cid)) {
    ++a;
  }
  ASSERT_LT(a + 1, m_.postings.size()) << "no bucket with two files of disjoint CID ranges";
  const uint64_t cid_of_b = m_.postings[a + 1].min_cid;
  SwapPostings(a, a + 1);
  const PostingsFile& f = m_.postings[a];
  auto result = Query({Point(3.0f)}, kNlist);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), StatusCode::kIntegrityError) << result.status().ToString();
  EXPECT_EQ(result.status().path(), f.object.path + ": row group 0");
  EXPECT_EQ(result.status().message(), "row group holds CID " + std::to_string(cid_of_b) +
                                           ", outside the file's [min-cid, max-cid] [" + std::to_string(f.min_cid) +
                                           ", " + std::to_string(f.max_cid) + "]");
}

// A row group's CID statistic edited: outside the file's range (inside its
// bucket), outside the bucket, or lower than the row group before it.
TEST_F(QueryIntegrityTest, RowGroupCidsMustLieInTheFileRangeInOrder) {
  const size_t file = NarrowFile();
  const PostingsFile f = m_.postings[file];
  const std::string original = *store_->Peek(f.object.path);
  const std::vector<int32_t> cids = RowGroupCids(file);
  ASSERT_GE(cids.size(), 3u);
  const size_t last = cids.size() - 1, middle = last / 2;
  auto expect_refused = [&](size_t g, const std::string& message) {
    auto result = Query({Point(3.0f)}, kNlist);
    ASSERT_FALSE(result.ok()) << "row group " << g;
    EXPECT_EQ(result.status().code(), StatusCode::kIntegrityError) << result.status().ToString();
    EXPECT_EQ(result.status().path(), f.object.path + ": row group " + std::to_string(g));
    EXPECT_EQ(result.status().message(), message);
    Overwrite(m_.postings[file].object, original);
  };
  const auto above = static_cast<int32_t>(f.max_cid + 1);
  SetRowGroupCid(file, middle, above);
  expect_refused(middle, "row group holds CID " + std::to_string(above) + ", outside the file's [min-cid, max-cid] [" +
                             std::to_string(f.min_cid) + ", " + std::to_string(f.max_cid) + "]");
  const uint64_t bucket_end = m_.hierarchy.cid_offsets[f.cid_bucket + 1];
  SetRowGroupCid(file, middle, static_cast<int32_t>(bucket_end));
  expect_refused(middle, "row group holds CID " + std::to_string(bucket_end) +
                             ", outside the CIDs of the file's bucket " + std::to_string(f.cid_bucket) + " [" +
                             std::to_string(m_.hierarchy.cid_offsets[f.cid_bucket]) + ", " +
                             std::to_string(bucket_end) + ")");
  SetRowGroupCid(file, last, static_cast<int32_t>(f.min_cid));
  ASSERT_GT(cids[last - 1], static_cast<int32_t>(f.min_cid));
  expect_refused(last, "row group holds CID " + std::to_string(f.min_cid) + " after CID " +
                           std::to_string(cids[last - 1]) + "; CIDs must not decrease within a file");
  EXPECT_TRUE(Query({Point(3.0f)}, kNlist).ok());
}

// The planned row groups hold exactly the probed CIDs: a file must hold its
// min-cid and max-cid (a CID strictly between them may be an empty leaf) and
// the manifest's row count, else rows of a probed CID could go unread.
TEST_F(QueryIntegrityTest, AFileMustHoldItsBoundaryCidsAndRows) {
  const size_t file = NarrowFile();
  const PostingsFile f = m_.postings[file];
  const std::string original = *store_->Peek(f.object.path);
  const std::vector<int32_t> cids = RowGroupCids(file);
  const size_t last = cids.size() - 1;
  ASSERT_EQ(cids[last], static_cast<int32_t>(f.max_cid));
  ASSERT_EQ(cids[0], static_cast<int32_t>(f.min_cid));
  // The max-cid's last row group relabeled as the CID before it.
  size_t g = last;
  while (cids[g - 1] == cids[last]) --g;  // the max-cid's first row group
  for (size_t i = g; i <= last; ++i) SetRowGroupCid(file, i, cids[g - 1]);
  auto result = Query({Point(3.0f)}, kNlist);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), StatusCode::kIntegrityError) << result.status().ToString();
  EXPECT_EQ(result.status().path(), f.object.path);
  EXPECT_EQ(result.status().message(), "no row group holds CID " + std::to_string(f.max_cid) +
                                           ", the file's max-cid (the last holds CID " + std::to_string(cids[g - 1]) +
                                           ")");
  Overwrite(m_.postings[file].object, original);
  // The min-cid's row groups relabeled as the next CID.
  size_t n = 0;
  while (cids[n] == cids[0]) ++n;
  for (size_t i = 0; i < n; ++i) SetRowGroupCid(file, i, cids[n]);
  result = Query({Point(3.0f)}, kNlist);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().path(), f.object.path);
  EXPECT_EQ(result.status().message(), "no row group holds CID " + std::to_string(f.min_cid) +
                                           ", the file's min-cid (the first holds CID " + std::to_string(cids[n]) +
                                           ")");
  Overwrite(m_.postings[file].object, original);
  // The manifest's row count moved from one file to the next (ntotal unchanged).
  const size_t other = file + 1 < m_.postings.size() ? file + 1 : file - 1;
  m_.postings[file].rows -= 1;
  m_.postings[other].rows += 1;
  result = Query({Point(3.0f)}, kNlist);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), StatusCode::kIntegrityError) << result.status().ToString();
  EXPECT_EQ(result.status().path(), f.object.path);
  EXPECT_EQ(result.status().message(),
            "file holds " + std::to_string(f.rows) + " rows; the manifest says " + std::to_string(f.rows - 1));
  m_.postings[file].rows += 1;
  m_.postings[other].rows -= 1;
  // No row groups at all.
  EditFooter(file, [](parquet::FileMetaData& md) {
    md.row_groups.clear();
    md.num_rows = 0;
  });
  result = Query({Point(3.0f)}, kNlist);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), StatusCode::kIntegrityError) << result.status().ToString();
  EXPECT_EQ(result.status().path(), f.object.path);
  EXPECT_EQ(result.status().message(), "postings file has no row groups");
  Overwrite(m_.postings[file].object, original);
  EXPECT_TRUE(Query({Point(3.0f)}, kNlist).ok());
}

// Issue 34: a centroids object with the manifest's size but other bytes —
// here the centroids of another build (another seed), as a mix-up of two
// publications' files leaves them — is refused before a hit is scored,
// locally and (through the same driver) over HTTP; as is one flipped byte.
TEST_F(QueryIntegrityTest, CentroidsOfTheRightSizeButAnotherDigestAreRefused) {
  const std::string original = *store_->Peek(m_.hierarchy.centroids.path);
  BuildOptions o;
  o.input = (dir_ / "base.fvecs").string();
  o.nlist = kNlist;
  o.roots = 6;
  o.seed = 2;
  o.scratch = dir_.string();
  store::MemoryStore other_store;
  auto other = BuildPublication(o, other_store);
  ASSERT_TRUE(other.ok()) << other.status().ToString();
  const std::string foreign = *other_store.Peek(other->manifest.hierarchy.centroids.path);
  ASSERT_NE(foreign, original);
  std::string flipped = original;
  flipped[flipped.size() / 2] = static_cast<char>(flipped[flipped.size() / 2] ^ 0x01);
  for (const std::string& bytes : {foreign, flipped}) {
    if (bytes.size() != original.size()) continue;  // another size is refused by the size check already
    store_->Overwrite(m_.hierarchy.centroids.path, bytes);
    auto refused = Query({Point(3.0f)}, kNlist);
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.status().code(), StatusCode::kIntegrityError) << refused.status().ToString();
    EXPECT_EQ(refused.status().path(), m_.hierarchy.centroids.path);
    EXPECT_EQ(refused.status().message(), "sha256 of the object is " + *Sha256Hex(bytes) + ", expected " +
                                              m_.hierarchy.centroids.sha256 +
                                              " (the manifest names another object of this size)");
  }
  EXPECT_EQ(foreign.size(), original.size()) << "the other build's centroids were not compared";
  store_->Overwrite(m_.hierarchy.centroids.path, original);
  EXPECT_TRUE(Query({Point(3.0f)}, kNlist).ok());
}

// Issue 34: the postings are read by position, so a manifest whose
// source-key the postings do not hold (their key column is named _row) is
// refused as `index verify` refuses it, never answered with the wrong key.
TEST_F(QueryIntegrityTest, ASourceKeyThePostingsDoNotHoldIsRefused) {
  ASSERT_EQ(m_.index.source_key.size(), 1u);
  m_.index.source_key[0].name = "id";
  auto refused = Query({Point(3.0f)}, kNlist);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kInvalidFormat) << refused.status().ToString();
  EXPECT_EQ(refused.status().path(), m_.postings[0].object.path);
  EXPECT_EQ(refused.status().message(), "column 1 must be id (long, required): it is named \"_row\"");
  // Another key type is refused the same way.
  m_.index.source_key[0] = Field{"_row", ColumnType{ColumnType::Kind::kInt}};
  refused = Query({Point(3.0f)}, kNlist);
  EXPECT_EQ(refused.status().code(), StatusCode::kInvalidFormat) << refused.status().ToString();
  EXPECT_EQ(refused.status().message(), "column 1 must be _row (int, required): wrong physical type");
}

// A footer refused is not cached: the same reader refuses it on every query.
TEST_F(QueryIntegrityTest, ARefusedFooterIsRefusedAgain) {
  SwapPostings(0, m_.postings.size() - 1);
  PublicationReader reader(m_);
  QueryOptions options;
  options.nprobe = kNlist;
  for (int i = 0; i < 2; ++i) {
    auto result = RunQuery(reader, *store_, {Point(3.0f)}, options);
    EXPECT_EQ(result.status().code(), StatusCode::kIntegrityError) << result.status().ToString();
    EXPECT_EQ(result.status().path(), m_.postings[0].object.path + ": row group 0");
  }
}

// l2_squared: a query whose distance to a centroid overflows float32 is the
// query's fault, named by its index before any postings object is read.
TEST_F(QueryIntegrityTest, AQueryWhoseDistancesOverflowIsAnInvalidArgument) {
  RecordingStore reads(*store_);
  auto result = Query({Point(3.0f), Point(1e30f)}, 8, &reads);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), StatusCode::kInvalidArgument) << result.status().ToString();
  EXPECT_EQ(result.status().message(),
            "query 1: its l2_squared distance to centroid 0 overflows float32; its values are too large");
  EXPECT_EQ(result.status().path(), "");
  EXPECT_EQ(reads.gets, 1);  // centroids.parquet only
  EXPECT_EQ(reads.GetsOf("centroids.parquet"), 1);
  // A reader that has the centroids already refuses it at Start.
  PublicationReader reader(m_);
  ASSERT_TRUE(RunQuery(reader, *store_, {Point(3.0f)}, {}).ok());
  auto started = QueryRun::Start(reader, {Point(-1e19f)}, {});
  EXPECT_EQ(started.status().code(), StatusCode::kInvalidArgument) << started.status().ToString();
  EXPECT_EQ(started.status().message(),
            "query 0: its l2_squared distance to centroid 0 overflows float32; its values are too large");
  // Large values whose distances fit are answered: 12 · (1e18)² < FLT_MAX.
  auto large = Query({Point(1e18f)}, 8);
  ASSERT_TRUE(large.ok()) << large.status().ToString();
  EXPECT_EQ(large->hits.size(), 10u);
  for (const QueryHit& hit : large->hits) EXPECT_TRUE(std::isfinite(hit.distance));
}

// cosine normalizes the query first: the same direction at any finite scale
// is the same query.
TEST_F(QueryIntegrityTest, CosineQueriesOfAnyFiniteScaleAreAnswered) {
  Build(Metric::kCosine);
  auto unit = Query({Point(1.0f)}, 8), huge = Query({Point(1e30f)}, 8);
  ASSERT_TRUE(unit.ok()) << unit.status().ToString();
  ASSERT_TRUE(huge.ok()) << huge.status().ToString();
  ASSERT_EQ(unit->hits.size(), huge->hits.size());
  for (size_t i = 0; i < unit->hits.size(); ++i) {
    EXPECT_EQ(unit->hits[i].distance, huge->hits[i].distance);
    EXPECT_EQ(unit->keys.integers[i], huge->keys.integers[i]);
  }
}

}  // namespace
}  // namespace vigilo::ivf
