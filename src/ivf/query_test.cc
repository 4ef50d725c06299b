// The query core against brute force over the same publication's decoded
// postings: identical hits; plus its I/O plan (what it reads, and what it
// does not read again) through the ObjectStore seam (a MemoryStore; the
// local store for the CLI's path).
#include "vigilo/ivf/query.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "store_test_support.h"
#include "vigilo/hash/sha256.h"
#include "vigilo/ivf/builder.h"
#include "vigilo/ivf/distance.h"
#include "vigilo/ivf/kmeans_random.h"
#include "vigilo/ivf/lvq_kernels.h"
#include "vigilo/parquet/writer.h"
#include "vigilo/store/forwarding_store.h"
#include "vigilo/store/local_store.h"
#include "vigilo/store/memory_store.h"

namespace vigilo::ivf {
namespace {

constexpr size_t kN = 3000, kD = 12;

struct Row {
  float distance;
  size_t file;
  uint64_t row;
  int64_t key;
};

// n query vectors of kD values uniform in [0, 16).
std::vector<std::vector<float>> RandomQueries(uint64_t seed, int n) {
  std::vector<std::vector<float>> queries;
  Xoshiro256 rng(seed);
  for (int q = 0; q < n; ++q) {
    std::vector<float> v(kD);
    for (float& x : v) x = static_cast<float>(rng.NextDouble() * 16);
    queries.push_back(v);
  }
  return queries;
}

// The same hits, bit for bit: distances, files, rows and keys.
void ExpectSameHits(const QueryResult& a, const QueryResult& b) {
  ASSERT_EQ(a.hits.size(), b.hits.size());
  for (size_t i = 0; i < a.hits.size(); ++i) {
    EXPECT_EQ(std::bit_cast<uint32_t>(a.hits[i].distance), std::bit_cast<uint32_t>(b.hits[i].distance)) << i;
    EXPECT_EQ(a.hits[i].file, b.hits[i].file) << i;
    EXPECT_EQ(a.hits[i].row, b.hits[i].row) << i;
    EXPECT_EQ(a.keys.integers[i], b.keys.integers[i]) << i;
  }
}

// The postings layout under test: how the rows' chunks are stored decides
// whether the engine reads them in place or decodes them.
enum class Storage { kPlainPages, kManySmallPages, kZstd, kSnappy };

struct QueryCase {
  Metric metric;
  Encoding encoding;
  Storage storage = Storage::kPlainPages;
};

class QueryTest : public testing::TestWithParam<QueryCase> {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("vigilo_query_" + std::to_string(::getpid()) + "_" + std::to_string(static_cast<int>(GetParam().metric)) +
            std::to_string(static_cast<int>(GetParam().encoding)) + std::to_string(static_cast<int>(GetParam().storage)));
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
    o.metric = GetParam().metric;
    o.encoding = GetParam().encoding;
    o.nlist = 40;
    o.roots = 6;
    o.layout.max_row_group_rows = 50;  // CIDs split over row groups
    switch (GetParam().storage) {
      case Storage::kPlainPages: break;
      case Storage::kManySmallPages: o.layout.page_bytes = 64; break;  // several pages per chunk
      case Storage::kZstd: o.layout.codec = parquet::CompressionCodec::kZstd; break;
      case Storage::kSnappy: o.layout.codec = parquet::CompressionCodec::kSnappy; break;
    }
    o.scratch = dir_.string();
    auto built = BuildPublication(o, *store_);
    ASSERT_TRUE(built.ok()) << built.status().ToString();
    manifest_ = built->manifest;
    options_ = o;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // Every posting of the probed CIDs, scored with the same kernel, sorted.
  std::vector<Row> BruteForce(const std::vector<float>& query_in, const std::vector<uint32_t>& cids) {
    std::vector<float> q = query_in;
    if (manifest_.index.metric == Metric::kCosine) {
      EXPECT_TRUE(NormalizeL2(q).ok());
    }
    std::vector<float> centroids;
    auto cf = StoredParquet::Open(*store_, "centroids.parquet");
    for (size_t rg = 0; rg < cf->footer().metadata.row_groups.size(); ++rg) {
      auto o = cf->ReadColumnChunk(rg, 2), s = cf->ReadColumnChunk(rg, 3), c = cf->ReadColumnChunk(rg, 4);
      for (size_t i = 0; i < o->values.floats.size(); ++i) {
        std::vector<float> x(kD);
        EXPECT_TRUE(DecodeLvq(Encoding::kLvq8, {o->values.floats[i], s->values.floats[i]}, c->values.Binary(i), x).ok());
        centroids.insert(centroids.end(), x.begin(), x.end());
      }
    }
    std::vector<Row> rows;
    for (size_t fi = 0; fi < manifest_.postings.size(); ++fi) {
      auto file = StoredParquet::Open(*store_, manifest_.postings[fi].object.path);
      uint64_t base = 0;
      for (size_t rg = 0; rg < file->footer().metadata.row_groups.size(); ++rg) {
        auto cid = file->ReadColumnChunk(rg, 0), key = file->ReadColumnChunk(rg, 1), o = file->ReadColumnChunk(rg, 2),
             s = file->ReadColumnChunk(rg, 3), c = file->ReadColumnChunk(rg, 4);
        for (size_t i = 0; i < cid->values.int32s.size(); ++i) {
          auto k = static_cast<uint32_t>(cid->values.int32s[i]);
          if (std::find(cids.begin(), cids.end(), k) == cids.end()) continue;
          std::span<const float> centroid(centroids.data() + k * kD, kD);
          // The engine's distance is the kernel's, row by row (one row at a time here) …
          auto ctx = PrepareList(manifest_.index.metric, manifest_.index.encoding, q, centroid);
          EXPECT_TRUE(ctx.ok());
          float dist = 0;
          ScoreRows(*ctx, 1, &o->values.floats[i], &s->values.floats[i], c->values.Binary(i).data(), &dist);
          // … which is the decoded vector's distance up to float32 rounding.
          float ref = LvqDistance(manifest_.index.metric, manifest_.index.encoding, q,
                                  {o->values.floats[i], s->values.floats[i]}, c->values.Binary(i), centroid);
          EXPECT_NEAR(dist, ref, 1e-4 * std::max(1.0f, std::abs(ref)));
          rows.push_back(Row{dist, fi, base + i, key->values.int64s[i]});
        }
        base += static_cast<uint64_t>(file->footer().metadata.row_groups[rg].num_rows);
      }
    }
    std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
      return a.distance != b.distance ? a.distance < b.distance : a.file != b.file ? a.file < b.file : a.row < b.row;
    });
    return rows;
  }

  // The nprobe CIDs nearest q by the LVQ8 kernel over the centroid codes, ties by CID.
  std::vector<uint32_t> NearestCids(const std::vector<float>& query_in, size_t nprobe) {
    std::vector<float> q = query_in;
    if (manifest_.index.metric == Metric::kCosine) {
      EXPECT_TRUE(NormalizeL2(q).ok());
    }
    std::vector<std::pair<float, uint32_t>> order;
    auto cf = StoredParquet::Open(*store_, "centroids.parquet");
    auto ctx = PrepareList(manifest_.index.metric, Encoding::kLvq8, q, std::vector<float>(kD, 0.0f));
    EXPECT_TRUE(ctx.ok());
    for (size_t rg = 0; rg < cf->footer().metadata.row_groups.size(); ++rg) {
      auto cid = cf->ReadColumnChunk(rg, 0), o = cf->ReadColumnChunk(rg, 2), s = cf->ReadColumnChunk(rg, 3),
           c = cf->ReadColumnChunk(rg, 4);
      for (size_t i = 0; i < o->values.floats.size(); ++i) {
        float dist = 0;
        ScoreRows(*ctx, 1, &o->values.floats[i], &s->values.floats[i], c->values.Binary(i).data(), &dist);
        order.emplace_back(dist, static_cast<uint32_t>(cid->values.int32s[i]));
      }
    }
    std::sort(order.begin(), order.end());
    std::vector<uint32_t> out;
    for (size_t i = 0; i < nprobe; ++i) out.push_back(order[i].second);
    return out;
  }

  std::filesystem::path dir_;
  std::unique_ptr<store::MemoryStore> store_ = std::make_unique<store::MemoryStore>();
  BuildOptions options_;
  Manifest manifest_;
};

TEST_P(QueryTest, ExhaustiveProbingEqualsBruteForce) {
  PublicationReader reader(manifest_);
  RecordingStore objects(*store_);
  std::vector<std::vector<float>> queries;
  Xoshiro256 rng(11);
  for (int q = 0; q < 5; ++q) {
    std::vector<float> v(kD);
    for (float& x : v) x = static_cast<float>(rng.NextDouble() * 16);
    queries.push_back(v);
  }
  QueryOptions options;
  options.k = 25;
  options.nprobe = 40;  // every list: the result must be the exact top-k of the decoded postings
  auto result = RunQuery(reader, objects, queries, options);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  std::vector<uint32_t> all(40);
  for (uint32_t i = 0; i < 40; ++i) all[i] = i;
  ASSERT_EQ(result->hits.size(), 5u * 25);
  for (uint32_t q = 0; q < 5; ++q) {
    std::vector<Row> expected = BruteForce(queries[q], all);
    for (uint32_t r = 0; r < 25; ++r) {
      const QueryHit& hit = result->hits[q * 25 + r];
      EXPECT_EQ(hit.query, q);
      EXPECT_EQ(hit.rank, r);
      EXPECT_EQ(hit.distance, expected[r].distance) << q << "/" << r;
      EXPECT_EQ(hit.file, expected[r].file);
      EXPECT_EQ(hit.row, expected[r].row);
      EXPECT_EQ(result->keys.integers[q * 25 + r], expected[r].key);
    }
  }
  EXPECT_EQ(objects.GetsOf("centroids.parquet"), 1);
  EXPECT_EQ(objects.heads, 0);
  EXPECT_EQ(result->bytes_fetched, objects.BytesRead());
  EXPECT_EQ(result->requests, static_cast<uint64_t>(objects.gets));
  EXPECT_EQ(result->rows_probed, 5u * kN);  // every query scans every row
  // Uncompressed PLAIN chunks are scored in place, compressed ones decoded.
  const bool compressed = GetParam().storage == Storage::kZstd || GetParam().storage == Storage::kSnappy;
  EXPECT_GT(compressed ? result->row_groups_decoded : result->row_groups_in_place, 0u);
  EXPECT_EQ(compressed ? result->row_groups_in_place : result->row_groups_decoded, 0u);
}

TEST_P(QueryTest, PartialProbingEqualsBruteForceOverTheNearestLists) {
  PublicationReader reader(manifest_);
  store::MemoryStore& objects = *store_;
  Xoshiro256 rng(29);
  for (int trial = 0; trial < 6; ++trial) {
    std::vector<float> q(kD);
    for (float& x : q) x = static_cast<float>(rng.NextDouble() * 16);
    QueryOptions options;
    options.k = 15;
    options.nprobe = 1 + 3 * static_cast<uint32_t>(trial);
    auto result = RunQuery(reader, objects, {q}, options);
    ASSERT_TRUE(result.ok()) << result.status().ToString();
    std::vector<Row> expected = BruteForce(q, NearestCids(q, options.nprobe));
    ASSERT_EQ(result->hits.size(), std::min<size_t>(15, expected.size()));
    EXPECT_EQ(result->rows_probed, expected.size()) << "nprobe " << options.nprobe;  // the probed lists' rows
    for (size_t r = 0; r < result->hits.size(); ++r) {
      EXPECT_EQ(result->hits[r].distance, expected[r].distance) << "nprobe " << options.nprobe << " rank " << r;
      EXPECT_EQ(result->hits[r].row, expected[r].row);
      EXPECT_EQ(result->hits[r].file, expected[r].file);
      EXPECT_EQ(result->keys.integers[r], expected[r].key);
    }
  }
}

TEST_P(QueryTest, ReadsOnlyWhatItProbesAndCachesTheRest) {
  PublicationReader reader(manifest_);
  RecordingStore objects(*store_);
  std::vector<float> q(kD, 3.0f);
  QueryOptions options;
  options.k = 10;
  options.nprobe = 3;
  auto first = RunQuery(reader, objects, {q}, options);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  ASSERT_EQ(first->hits.size(), 10u);
  // The hits are the brute-force top-10 of exactly the probed lists.
  std::vector<uint32_t> probed;
  for (const QueryHit& h : first->hits) probed.push_back(h.cid);
  int reads_first = objects.gets;
  auto again = RunQuery(reader, objects, {q}, options);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(objects.GetsOf("centroids.parquet"), 1);  // centroids decoded once per reader
  EXPECT_LT(objects.gets - reads_first, reads_first);  // footers cached: only chunks again
  EXPECT_EQ(static_cast<uint64_t>(objects.gets - reads_first), again->requests);
  EXPECT_EQ(objects.heads, 0);
  for (size_t i = 0; i < 10; ++i) EXPECT_EQ(again->hits[i].distance, first->hits[i].distance);
  uint64_t postings_bytes = 0;
  for (const PostingsFile& f : manifest_.postings) postings_bytes += f.object.size;
  EXPECT_LT(again->bytes_fetched, postings_bytes / 4);  // 3 of 40 lists
}

// Held postings (PublicationReader::HoldPostings; docs/format/ivf-query.md,
// "Held postings"): the probed row groups of a held file are read in place
// from the held bytes, with no request for them, and the answers are bit for
// bit those of a reader that fetches them; holding some files, a reader
// fetches only the others' row groups.
TEST_P(QueryTest, HeldPostingsAnswerAsFetchedOnes) {
  const std::vector<std::vector<float>> queries = RandomQueries(43, 4);
  QueryOptions options;
  options.k = 10;
  options.nprobe = 12;
  PublicationReader fetching(manifest_);
  auto fetched = RunQuery(fetching, *store_, queries, options);
  ASSERT_TRUE(fetched.ok()) << fetched.status().ToString();
  EXPECT_EQ(fetched->bytes_held, 0u);

  uint64_t all = 0;
  for (const PostingsFile& f : manifest_.postings) all += f.object.size;
  PublicationReader holding(manifest_);
  auto held = HoldPostings(holding, *store_, all);
  ASSERT_TRUE(held.ok()) << held.status().ToString();
  EXPECT_EQ(*held, all);
  for (const PostingsFile& f : manifest_.postings) EXPECT_TRUE(holding.HoldsPostings(f.object.path));
  RecordingStore objects(*store_);
  auto cold = RunQuery(holding, objects, queries, options);
  ASSERT_TRUE(cold.ok()) << cold.status().ToString();
  ExpectSameHits(*fetched, *cold);
  // Footers too are read from the held bytes: nothing but the centroids is fetched.
  for (const PostingsFile& f : manifest_.postings) EXPECT_EQ(objects.GetsOf(f.object.path), 0) << f.object.path;
  EXPECT_EQ(cold->requests, 1u);
  auto warm = RunQuery(holding, objects, queries, options);
  ASSERT_TRUE(warm.ok()) << warm.status().ToString();
  ExpectSameHits(*fetched, *warm);
  EXPECT_EQ(warm->requests, 0u);
  EXPECT_EQ(warm->bytes_fetched, 0u);
  EXPECT_GT(warm->bytes_held, 0u);
  EXPECT_LE(warm->bytes_held, fetched->bytes_fetched);  // the groups' spans, without the footers and gaps
  EXPECT_EQ(warm->rows_probed, fetched->rows_probed);

  // Only the first file held (the bound leaves room for nothing else).
  const std::string& first = manifest_.postings[0].object.path;
  PublicationReader some(manifest_);
  auto one = HoldPostings(some, *store_, manifest_.postings[0].object.size);
  ASSERT_TRUE(one.ok()) << one.status().ToString();
  EXPECT_EQ(*one, manifest_.postings[0].object.size);
  EXPECT_TRUE(some.HoldsPostings(first));
  for (size_t i = 1; i < manifest_.postings.size(); ++i) EXPECT_FALSE(some.HoldsPostings(manifest_.postings[i].object.path));
  RecordingStore some_objects(*store_);
  auto mixed = RunQuery(some, some_objects, queries, options);
  ASSERT_TRUE(mixed.ok()) << mixed.status().ToString();
  auto mixed_warm = RunQuery(some, some_objects, queries, options);
  ASSERT_TRUE(mixed_warm.ok()) << mixed_warm.status().ToString();
  ExpectSameHits(*fetched, *mixed);
  ExpectSameHits(*fetched, *mixed_warm);
  EXPECT_EQ(some_objects.GetsOf(first), 0);  // neither its footer nor its row groups
  EXPECT_GT(mixed_warm->requests, 0u);
}

// Only a postings file of the manifest, whole, can be held; the host's
// HoldPostings checks its digest first and keeps to its bound.
TEST_P(QueryTest, HoldsOnlyWholeCheckedPostingsFiles) {
  PublicationReader reader(manifest_);
  const std::string& path = manifest_.postings[0].object.path;
  const std::string original = *store_->Peek(path);
  auto owner = std::make_shared<std::string>(original);
  const std::span<const uint8_t> whole(reinterpret_cast<const uint8_t*>(owner->data()), owner->size());
  Status s = reader.HoldPostings("centroids.parquet", owner, whole);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.ToString();
  EXPECT_EQ(s.message(), "only a postings file of the manifest can be held");
  EXPECT_EQ(s.path(), "centroids.parquet");
  s = reader.HoldPostings(path, owner, whole.first(whole.size() - 1));
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.ToString();
  EXPECT_EQ(s.message(), "cannot hold " + std::to_string(original.size() - 1) + " bytes: the manifest's object has " +
                             std::to_string(original.size()));
  EXPECT_EQ(s.path(), path);
  EXPECT_FALSE(reader.HoldsPostings(path));
  {
    // The core checks what a host holds as it checks what it fetches: bytes
    // of the right size that are no Parquet file are refused, naming it.
    PublicationReader lied_to(manifest_);
    auto zeros = std::make_shared<std::vector<uint8_t>>(original.size(), 0);
    ASSERT_TRUE(lied_to.HoldPostings(path, zeros, *zeros).ok());
    QueryOptions every;
    every.nprobe = 40;
    auto refused = RunQuery(lied_to, *store_, {std::vector<float>(kD, 1.0f)}, every);
    EXPECT_EQ(refused.status().code(), StatusCode::kParseError) << refused.status().ToString();
    EXPECT_NE(refused.status().ToString().find(path + ": file does not end with PAR1"), std::string::npos)
        << refused.status().ToString();
  }

  std::string tampered = original;
  tampered[tampered.size() / 2] = static_cast<char>(tampered[tampered.size() / 2] ^ 1);
  store_->Overwrite(path, tampered);
  auto held = HoldPostings(reader, *store_, UINT64_MAX);
  EXPECT_EQ(held.status().code(), StatusCode::kIntegrityError) << held.status().ToString();
  EXPECT_EQ(held.status().path(), path);
  EXPECT_FALSE(reader.HoldsPostings(path));
  store_->Overwrite(path, original);

  uint64_t smallest = UINT64_MAX;
  for (const PostingsFile& f : manifest_.postings) smallest = std::min(smallest, f.object.size);
  held = HoldPostings(reader, *store_, smallest - 1);
  ASSERT_TRUE(held.ok()) << held.status().ToString();
  EXPECT_EQ(*held, 0u);
  for (const PostingsFile& f : manifest_.postings) EXPECT_FALSE(reader.HoldsPostings(f.object.path));
  QueryOptions options;
  options.nprobe = 40;
  auto answered = RunQuery(reader, *store_, {std::vector<float>(kD, 1.0f)}, options);
  ASSERT_TRUE(answered.ok()) << answered.status().ToString();
  EXPECT_EQ(answered->bytes_held, 0u);
}

// The range planner's cost model (range_plan.h, CoalesceRound) changes the
// requests, never the answer: with every gap worth a wave (one request in
// flight, a latency worth more than any gap, an unbounded budget) a round's
// runs of one file become one request, and the hits are the exact runs'.
TEST_P(QueryTest, CoalescedRoundsAnswerAsExactRuns) {
  const std::vector<std::vector<float>> queries = RandomQueries(41, 4);
  QueryOptions exact;
  exact.k = 10;
  exact.nprobe = 12;
  exact.ranges.round_width = 0;
  QueryOptions merged = exact;
  merged.ranges = RangeLimits{.round_width = 1, .latency_bytes = uint64_t{1} << 40, .max_gap_per_mille = 1000,
                              .gap_bytes_per_object = uint64_t{1} << 40};
  PublicationReader exact_reader(manifest_), merged_reader(manifest_);
  RecordingStore exact_objects(*store_), merged_objects(*store_);
  auto a = RunQuery(exact_reader, exact_objects, queries, exact);
  auto b = RunQuery(merged_reader, merged_objects, queries, merged);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  ExpectSameHits(*a, *b);
  // Merged: a footer and at most one row-group request per postings file;
  // exact: more in some file (the probed lists are not all adjacent), and
  // fewer bytes.
  int most_exact = 0;
  for (const PostingsFile& f : manifest_.postings) {
    EXPECT_LE(merged_objects.GetsOf(f.object.path), 2) << f.object.path;
    most_exact = std::max(most_exact, exact_objects.GetsOf(f.object.path));
  }
  EXPECT_GT(most_exact, 2);
  EXPECT_GT(a->requests, b->requests);
  EXPECT_LT(a->bytes_fetched, b->bytes_fetched);
  EXPECT_EQ(b->requests, static_cast<uint64_t>(merged_objects.gets));
  EXPECT_EQ(b->bytes_fetched, merged_objects.BytesRead());
}

// A store whose GetMany says every answer came from a cache (a CachingStore
// hit), as a warm process sees it.
class AllCachedStore final : public store::ForwardingStore {
 public:
  using ForwardingStore::ForwardingStore;
  std::vector<store::GetResponse> GetMany(std::span<const store::GetRequest> requests) override {
    std::vector<store::GetResponse> out = inner().GetMany(requests);
    for (store::GetResponse& r : out) r.cached = true;
    return out;
  }
};

// --stats' counts (docs/format/http-reading.md, "Counting"): cold, the
// centroids, the footers and the row groups are 3 dependent rounds; warm in
// the same process, only the row groups: 1; answers a cache directory gave
// are hits, and a round they fully answered is no round trip.
TEST_P(QueryTest, CountsRoundTripsColdWarmAndCached) {
  PublicationReader reader(manifest_);
  RecordingStore objects(*store_);
  std::vector<float> q(kD, 3.0f);
  QueryOptions options;
  options.k = 10;
  options.nprobe = 4;
  FetchStats cold;
  auto first = RunQuery(reader, objects, {q}, options, &cold);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(cold.round_trips, 3u);
  EXPECT_EQ(cold.requests, static_cast<uint64_t>(objects.gets));
  EXPECT_EQ(cold.bytes, objects.BytesRead());
  EXPECT_EQ(cold.cache_hits, 0u);
  FetchStats warm;
  const int gets_before = objects.gets;
  auto again = RunQuery(reader, objects, {q}, options, &warm);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(warm.round_trips, 1u);
  EXPECT_EQ(warm.requests, static_cast<uint64_t>(objects.gets - gets_before));
  EXPECT_GT(warm.cache_hits, 1u);  // the centroids and every touched footer, held by the reader
  PublicationReader fresh(manifest_);
  AllCachedStore cached(*store_);
  FetchStats from_directory;
  auto third = RunQuery(fresh, cached, {q}, options, &from_directory);
  ASSERT_TRUE(third.ok());
  EXPECT_EQ(from_directory.round_trips, 0u);
  EXPECT_EQ(from_directory.requests, 0u);
  EXPECT_EQ(from_directory.bytes, 0u);
  EXPECT_EQ(from_directory.cache_hits, cold.requests);
  for (size_t i = 0; i < 10; ++i) EXPECT_EQ(third->hits[i].distance, first->hits[i].distance);
}

// The CLI's path: the same publication built into a local directory and read
// through the local store (views of its mappings) answers exactly as the
// MemoryStore does, reading the same bytes.
TEST_P(QueryTest, TheLocalStoreAnswersAsTheMemoryStore) {
  std::vector<float> q(kD, 5.0f);
  QueryOptions options;
  options.k = 12;
  options.nprobe = 7;
  BuildOptions o = options_;
  o.out = (dir_ / "pub").string();
  auto built = BuildPublication(o);
  ASSERT_TRUE(built.ok()) << built.status().ToString();
  ASSERT_EQ(built->manifest, manifest_);
  auto local = store::OpenLocalStore(o.out, {.writable = false});
  ASSERT_TRUE(local.ok()) << local.status().ToString();
  PublicationReader a(manifest_), b(manifest_);
  auto in_memory = RunQuery(a, *store_, {q}, options);
  auto mapped = RunQuery(b, **local, {q}, options);
  ASSERT_TRUE(in_memory.ok() && mapped.ok());
  ASSERT_EQ(in_memory->hits.size(), mapped->hits.size());
  for (size_t i = 0; i < in_memory->hits.size(); ++i) {
    EXPECT_EQ(in_memory->hits[i].distance, mapped->hits[i].distance);
    EXPECT_EQ(in_memory->hits[i].row, mapped->hits[i].row);
  }
  EXPECT_EQ(in_memory->bytes_fetched, mapped->bytes_fetched);
}

// Every Get's expected size is the manifest's: an object of another size is
// the store's IntegrityError naming it, a missing one NotFound.
TEST_P(QueryTest, ObjectsMustHaveTheirManifestSizes) {
  QueryOptions options;
  options.nprobe = 40;
  const std::string& path = manifest_.postings[0].object.path;
  const std::string original = *store_->Peek(path);
  store_->Overwrite(path, original + "x");
  PublicationReader longer(manifest_);
  auto result = RunQuery(longer, *store_, {std::vector<float>(kD, 1.0f)}, options);
  EXPECT_EQ(result.status().code(), StatusCode::kIntegrityError) << result.status().ToString();
  EXPECT_EQ(result.status().path(), path);
  EXPECT_EQ(result.status().message(), "object is " + std::to_string(original.size() + 1) + " bytes, expected " +
                                           std::to_string(original.size()));
  ASSERT_TRUE(store_->Delete(path).ok());
  PublicationReader missing(manifest_);
  result = RunQuery(missing, *store_, {std::vector<float>(kD, 1.0f)}, options);
  EXPECT_EQ(result.status().code(), StatusCode::kNotFound) << result.status().ToString();
  EXPECT_EQ(result.status().path(), path);
  store_->Overwrite(path, original);
  PublicationReader restored(manifest_);
  EXPECT_TRUE(RunQuery(restored, *store_, {std::vector<float>(kD, 1.0f)}, options).ok());
  // The driver fetches only what the manifest names.
  std::vector<store::Bytes> bytes;
  std::vector<std::span<const uint8_t>> views;
  Status unnamed = FetchRequests(*store_, restored, {ObjectRange{"other.parquet", 0, 1}}, bytes, views);
  EXPECT_EQ(unnamed.code(), StatusCode::kInternal) << unnamed.ToString();
}

// Tampered rows (the query trusts no object's bytes) are refused with the
// row named, whether the rows are read in place or decoded.
TEST_P(QueryTest, RefusesWrongCodeLengthsAndNonFiniteRows) {
  if (GetParam().storage == Storage::kZstd || GetParam().storage == Storage::kSnappy) {
    GTEST_SKIP() << "patches uncompressed pages";
  }
  const std::string& path = manifest_.postings[0].object.path;
  const std::string stored = *store_->Peek(path);
  const std::vector<uint8_t> original(stored.begin(), stored.end());
  // Where leaf `leaf`'s values start in row group 0's first page.
  auto values_at = [&](size_t leaf) {
    auto f = StoredParquet::Open(*store_, path);
    EXPECT_TRUE(f.ok());
    const auto offset = static_cast<size_t>(f->footer().metadata.row_groups[0].columns[leaf].meta_data->data_page_offset);
    size_t header = 0;
    EXPECT_TRUE(parquet::DecodePageHeader(std::span<const uint8_t>(original).subspan(offset), &header).ok());
    return offset + header;
  };
  auto query_with = [&](const std::vector<uint8_t>& bytes) {
    std::string patched(bytes.begin(), bytes.end());
    store_->Overwrite(path, patched);
    // The digest follows the bytes: a small file read whole is refused by it
    // first; these are the checks that guard a file read in ranges.
    Manifest m = manifest_;
    m.postings[0].object.sha256 = *Sha256Hex(patched);
    PublicationReader reader(m);
    QueryOptions options;
    options.nprobe = 40;
    auto result = RunQuery(reader, *store_, {std::vector<float>(kD, 1.0f)}, options);
    return result.ok() ? Status::Ok() : result.status();
  };
  const auto code_bytes = static_cast<uint32_t>(CodeBytes(manifest_.index.encoding, kD));
  // Row 0's code one byte longer, row 1's one shorter: the page's size still adds up.
  std::vector<uint8_t> lengths = original;
  const size_t codes = values_at(4);
  const uint32_t longer = code_bytes + 1, shorter = code_bytes - 1;
  std::memcpy(&lengths[codes], &longer, 4);
  std::memcpy(&lengths[codes + 4 + longer], &shorter, 4);
  Status st = query_with(lengths);
  EXPECT_EQ(st.code(), StatusCode::kInvalidFormat) << st.ToString();
  EXPECT_EQ(st.message(), "postings row 0 has a " + std::to_string(longer) + "-byte code; " + std::to_string(code_bytes) +
                              " expected");
  EXPECT_EQ(st.path(), manifest_.postings[0].object.path);
  // Row 0's offset not a number.
  std::vector<uint8_t> nan = original;
  const float not_a_number = std::nanf("");
  std::memcpy(&nan[values_at(2)], &not_a_number, 4);
  st = query_with(nan);
  EXPECT_EQ(st.code(), StatusCode::kInvalidFormat) << st.ToString();
  EXPECT_EQ(st.message(), "postings row 0 scores a non-finite distance (offset or scale not finite)");
  EXPECT_EQ(st.path(), path);
  // Row 0's offset finite but so large that its distance overflows: the row
  // is at fault, not the query (whose distances to the centroids are finite).
  std::vector<uint8_t> huge = original;
  const float too_large = 3e38f;
  std::memcpy(&huge[values_at(2)], &too_large, 4);
  st = query_with(huge);
  EXPECT_EQ(st.code(), StatusCode::kInvalidFormat) << st.ToString();
  EXPECT_EQ(st.message(), "postings row 0 scores a non-finite distance (offset or scale too large)");
  EXPECT_EQ(st.path(), path);
  EXPECT_TRUE(query_with(original).ok());
}

TEST_P(QueryTest, RefusesBadQueriesAndShortReads) {
  PublicationReader reader(manifest_);
  EXPECT_EQ(QueryRun::Start(reader, {std::vector<float>(kD - 1)}, {}).status().code(), StatusCode::kInvalidArgument);
  QueryOptions zero;
  zero.k = 0;
  EXPECT_EQ(QueryRun::Start(reader, {std::vector<float>(kD, 1)}, zero).status().code(), StatusCode::kInvalidArgument);
  auto run = QueryRun::Start(reader, {std::vector<float>(kD, 1)}, {});
  ASSERT_TRUE(run.ok());
  ASSERT_EQ((*run)->requests().size(), 1u);
  EXPECT_EQ((*run)->requests()[0].path, "centroids.parquet");
  std::vector<std::vector<uint8_t>> short_read{std::vector<uint8_t>(10)};
  EXPECT_EQ((*run)->Supply(std::move(short_read)).code(), StatusCode::kIntegrityError);
}

std::string CaseName(const testing::TestParamInfo<QueryCase>& param) {
  const QueryCase& c = param.param;
  static const char* const kStorage[] = {"Plain", "ManyPages", "Zstd", "Snappy"};
  return std::string(c.metric == Metric::kCosine ? "Cosine" : "L2") + (c.encoding == Encoding::kLvq4 ? "Lvq4" : "Lvq8") +
         kStorage[static_cast<int>(c.storage)];
}

// Every key type comes back as the postings file holds it, whether the key
// chunk is read in place (INT32 and INT64 PLAIN: int, date, long) or decoded
// (strings), and again from the same reader once it has recorded where each
// chunk's values lie.
class QueryKeysTest : public testing::TestWithParam<parquet::ColumnKind> {};

TEST_P(QueryKeysTest, KeysAreThePostingsKeysColdAndWarm) {
  using parquet::ColumnKind;
  const ColumnKind kind = GetParam();
  const auto dir = std::filesystem::temp_directory_path() /
                   ("vigilo_query_keys_" + std::to_string(::getpid()) + "_" + std::to_string(static_cast<int>(kind)));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  constexpr size_t kRows = 400, kDim = 8;
  std::vector<parquet::ColumnSpec> cols(2);
  cols[0].name = "id";
  cols[0].kind = kind;
  cols[1].name = "emb";
  cols[1].kind = ColumnKind::kFloatList;
  {
    auto sink = parquet::FileSink::Create((dir / "in.parquet").string());
    ASSERT_TRUE(sink.ok());
    auto w = parquet::FileWriter::Open(cols, {}, sink->get());
    ASSERT_TRUE(w.ok());
    std::vector<int32_t> ints;
    std::vector<int64_t> longs, offsets{0};
    std::vector<std::string> strings;
    std::vector<float> elems;
    Xoshiro256 rng(5);
    for (size_t i = 0; i < kRows; ++i) {
      ints.push_back(static_cast<int32_t>(kind == ColumnKind::kDate ? 19000 + i : 1000 + 3 * i));
      longs.push_back(static_cast<int64_t>(i) * 7 - 900);
      strings.push_back("k" + std::to_string(i));
      for (size_t j = 0; j < kDim; ++j) elems.push_back(static_cast<float>((i % 9) * (j + 2) % 5) + static_cast<float>(rng.NextDouble()));
      offsets.push_back(static_cast<int64_t>(elems.size()));
    }
    std::vector<std::string_view> views(strings.begin(), strings.end());
    ASSERT_TRUE((*w)->BeginRowGroup().ok());
    if (kind == ColumnKind::kInt64) {
      ASSERT_TRUE((*w)->WriteInt64(0, longs).ok());
    } else if (kind == ColumnKind::kString) {
      ASSERT_TRUE((*w)->WriteByteArray(0, views).ok());
    } else {
      ASSERT_TRUE((*w)->WriteInt32(0, ints).ok());
    }
    ASSERT_TRUE((*w)->WriteFloatList(1, offsets, elems).ok());
    ASSERT_TRUE((*w)->EndRowGroup().ok());
    ASSERT_TRUE((*w)->Finish().ok());
    ASSERT_TRUE((*sink)->Close().ok());
  }
  BuildOptions o;
  o.input = (dir / "in.parquet").string();
  o.input_options.vector_field = "emb";
  o.input_options.key_field = "id";
  o.metric = Metric::kL2Squared;
  o.encoding = Encoding::kLvq8;
  o.nlist = 8;
  o.roots = 2;
  o.layout.max_row_group_rows = 30;
  o.scratch = dir.string();
  store::MemoryStore store;
  auto built = BuildPublication(o, store);
  ASSERT_TRUE(built.ok()) << built.status().ToString();
  const Manifest& m = built->manifest;
  // Each postings row's key as the query reports it (i64 little-endian for integer keys).
  std::vector<std::vector<std::string>> keys(m.postings.size());
  for (size_t f = 0; f < m.postings.size(); ++f) {
    auto file = StoredParquet::Open(store, m.postings[f].object.path);
    ASSERT_TRUE(file.ok());
    for (size_t rg = 0; rg < file->footer().metadata.row_groups.size(); ++rg) {
      auto key = file->ReadColumnChunk(rg, 1);
      ASSERT_TRUE(key.ok());
      for (size_t i = 0; i < key->values.size(); ++i) {
        if (kind == ColumnKind::kString) {
          auto b = key->values.Binary(i);
          keys[f].emplace_back(reinterpret_cast<const char*>(b.data()), b.size());
        } else {
          const int64_t x = kind == ColumnKind::kInt64 ? key->values.int64s[i] : key->values.int32s[i];
          keys[f].emplace_back(reinterpret_cast<const char*>(&x), 8);
        }
      }
    }
  }
  PublicationReader reader(m);
  QueryOptions options;
  options.k = 40;
  options.nprobe = 8;  // every list: every row group is read, cold then warm
  const std::vector<std::vector<float>> queries{std::vector<float>(kDim, 1.0f), std::vector<float>(kDim, 3.5f)};
  std::vector<std::string> first_keys;
  for (int pass = 0; pass < 2; ++pass) {
    auto result = RunQuery(reader, store, queries, options);
    ASSERT_TRUE(result.ok()) << result.status().ToString();
    ASSERT_EQ(result->hits.size(), 2u * 40);
    std::vector<std::string> got;
    for (size_t h = 0; h < result->hits.size(); ++h) {
      const QueryHit& hit = result->hits[h];
      std::string key;
      if (kind == ColumnKind::kString) {
        key = std::string(result->keys.Bytes(h));
      } else {
        const int64_t x = result->keys.integers[h];
        key.assign(reinterpret_cast<const char*>(&x), 8);
      }
      ASSERT_LT(hit.row, keys[hit.file].size());
      EXPECT_EQ(key, keys[hit.file][hit.row]) << "pass " << pass << " hit " << h;
      got.push_back(key);
    }
    if (pass == 0) first_keys = got;
    else EXPECT_EQ(got, first_keys);
    EXPECT_GT(result->row_groups_in_place, 0u);
  }
  std::filesystem::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(Kinds, QueryKeysTest,
                         testing::Values(parquet::ColumnKind::kInt32, parquet::ColumnKind::kDate,
                                         parquet::ColumnKind::kInt64, parquet::ColumnKind::kString));

INSTANTIATE_TEST_SUITE_P(Metrics, QueryTest,
                         testing::Values(QueryCase{Metric::kL2Squared, Encoding::kLvq8},
                                         QueryCase{Metric::kL2Squared, Encoding::kLvq4},
                                         QueryCase{Metric::kCosine, Encoding::kLvq8},
                                         QueryCase{Metric::kCosine, Encoding::kLvq4},
                                         QueryCase{Metric::kL2Squared, Encoding::kLvq8, Storage::kManySmallPages},
                                         QueryCase{Metric::kCosine, Encoding::kLvq4, Storage::kManySmallPages},
                                         QueryCase{Metric::kL2Squared, Encoding::kLvq8, Storage::kZstd},
                                         QueryCase{Metric::kCosine, Encoding::kLvq4, Storage::kSnappy}),
                         CaseName);

}  // namespace
}  // namespace vigilo::ivf
