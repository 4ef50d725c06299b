// The query core against brute force over the same publication's decoded
// postings: identical hits; plus its I/O plan (what it reads, and what it
// does not read again).
#include "vigilo/ivf/query.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "vigilo/ivf/builder.h"
#include "vigilo/ivf/distance.h"
#include "vigilo/ivf/kmeans_random.h"
#include "vigilo/ivf/lvq_kernels.h"
#include "vigilo/parquet/local_file.h"

namespace vigilo::ivf {
namespace {

constexpr size_t kN = 3000, kD = 12;

// Counts what the run asks for.
class CountingReader final : public ObjectReader {
 public:
  explicit CountingReader(std::string root) : inner_(std::move(root)) {}
  Result<uint64_t> Size(const std::string& path) override { return inner_.Size(path); }
  Result<std::vector<uint8_t>> Read(const std::string& path, uint64_t offset, uint64_t length) override {
    ++reads;
    if (path == "centroids.parquet") ++centroid_reads;
    return inner_.Read(path, offset, length);
  }
  int reads = 0, centroid_reads = 0;

 private:
  DirectoryObjectReader inner_;
};

struct Row {
  float distance;
  size_t file;
  uint64_t row;
  int64_t key;
};

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
    o.out = (dir_ / "pub").string();
    auto built = BuildPublication(o);
    ASSERT_TRUE(built.ok()) << built.status().ToString();
    manifest_ = built->manifest;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // Every posting of the probed CIDs, scored with the same kernel, sorted.
  std::vector<Row> BruteForce(const std::vector<float>& query_in, const std::vector<uint32_t>& cids) {
    std::vector<float> q = query_in;
    if (manifest_.index.metric == Metric::kCosine) {
      EXPECT_TRUE(NormalizeL2(q).ok());
    }
    std::vector<float> centroids;
    auto cf = parquet::LocalParquetFile::Open((dir_ / "pub/centroids.parquet").string());
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
      auto file = parquet::LocalParquetFile::Open((dir_ / "pub" / manifest_.postings[fi].object.path).string());
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
    auto cf = parquet::LocalParquetFile::Open((dir_ / "pub/centroids.parquet").string());
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
  Manifest manifest_;
};

TEST_P(QueryTest, ExhaustiveProbingEqualsBruteForce) {
  PublicationReader reader(manifest_);
  CountingReader objects((dir_ / "pub").string());
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
  EXPECT_EQ(objects.centroid_reads, 1);
  // Uncompressed PLAIN chunks are scored in place, compressed ones decoded.
  const bool compressed = GetParam().storage == Storage::kZstd || GetParam().storage == Storage::kSnappy;
  EXPECT_GT(compressed ? result->row_groups_decoded : result->row_groups_in_place, 0u);
  EXPECT_EQ(compressed ? result->row_groups_in_place : result->row_groups_decoded, 0u);
}

TEST_P(QueryTest, PartialProbingEqualsBruteForceOverTheNearestLists) {
  PublicationReader reader(manifest_);
  DirectoryObjectReader objects((dir_ / "pub").string());
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
  CountingReader objects((dir_ / "pub").string());
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
  int reads_first = objects.reads;
  auto again = RunQuery(reader, objects, {q}, options);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(objects.centroid_reads, 1);              // centroids decoded once per reader
  EXPECT_LT(objects.reads - reads_first, reads_first);  // footers cached: only chunks again
  for (size_t i = 0; i < 10; ++i) EXPECT_EQ(again->hits[i].distance, first->hits[i].distance);
  uint64_t postings_bytes = 0;
  for (const PostingsFile& f : manifest_.postings) postings_bytes += f.object.size;
  EXPECT_LT(again->bytes_fetched, postings_bytes / 4);  // 3 of 40 lists
}

// The mapped local driver gives the same answer as the copying one, and
// refuses what is not there.
TEST_P(QueryTest, MappedPublicationMatchesTheObjectReader) {
  std::vector<float> q(kD, 5.0f);
  QueryOptions options;
  options.k = 12;
  options.nprobe = 7;
  PublicationReader a(manifest_), b(manifest_);
  DirectoryObjectReader objects((dir_ / "pub").string());
  MappedPublication mapped((dir_ / "pub").string());
  auto copied = RunQuery(a, objects, {q}, options);
  auto viewed = RunQuery(b, mapped, {q}, options);
  ASSERT_TRUE(copied.ok() && viewed.ok());
  ASSERT_EQ(copied->hits.size(), viewed->hits.size());
  for (size_t i = 0; i < copied->hits.size(); ++i) {
    EXPECT_EQ(copied->hits[i].distance, viewed->hits[i].distance);
    EXPECT_EQ(copied->hits[i].row, viewed->hits[i].row);
  }
  EXPECT_EQ(copied->bytes_fetched, viewed->bytes_fetched);
  const uint64_t size = manifest_.hierarchy.centroids.size;
  EXPECT_EQ(mapped.View("centroids.parquet", size - 4, 4)->size(), 4u);
  EXPECT_EQ(mapped.View("centroids.parquet", size - 4, 5).status().code(), StatusCode::kOutOfRange);
  EXPECT_EQ(mapped.View("centroids.parquet", size + 1, 0).status().code(), StatusCode::kOutOfRange);
  EXPECT_EQ(mapped.View("absent.parquet", 0, 1).status().code(), StatusCode::kNotFound);
}

// Tampered rows (the query trusts no object's bytes) are refused with the
// row named, whether the rows are read in place or decoded.
TEST_P(QueryTest, RefusesWrongCodeLengthsAndNonFiniteRows) {
  if (GetParam().storage == Storage::kZstd || GetParam().storage == Storage::kSnappy) {
    GTEST_SKIP() << "patches uncompressed pages";
  }
  const std::filesystem::path file = dir_ / "pub" / manifest_.postings[0].object.path;
  std::vector<uint8_t> original;
  {
    std::ifstream in(file, std::ios::binary);
    original.assign(std::istreambuf_iterator<char>(in), {});
  }
  // Where leaf `leaf`'s values start in row group 0's first page.
  auto values_at = [&](size_t leaf) {
    auto f = parquet::LocalParquetFile::Open(file.string());
    EXPECT_TRUE(f.ok());
    const auto offset = static_cast<size_t>(f->footer().metadata.row_groups[0].columns[leaf].meta_data->data_page_offset);
    size_t header = 0;
    EXPECT_TRUE(parquet::DecodePageHeader(std::span<const uint8_t>(original).subspan(offset), &header).ok());
    return offset + header;
  };
  auto query_with = [&](const std::vector<uint8_t>& bytes) {
    std::ofstream(file, std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(bytes.data()),
                                                                  static_cast<std::streamsize>(bytes.size()));
    PublicationReader reader(manifest_);
    DirectoryObjectReader objects((dir_ / "pub").string());
    QueryOptions options;
    options.nprobe = 40;
    auto result = RunQuery(reader, objects, {std::vector<float>(kD, 1.0f)}, options);
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
