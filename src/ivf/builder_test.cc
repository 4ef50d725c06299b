// BuildPublication end to end on small synthetic inputs: a valid, exactly
// reconstructible, deterministic publication; option and output errors.
#include "vigilo/ivf/builder.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>

#include "vigilo/common/byte_source.h"
#include "vigilo/ivf/kmeans.h"
#include "vigilo/ivf/kmeans_random.h"
#include "vigilo/ivf/publication_check.h"
#include "vigilo/parquet/local_file.h"

namespace vigilo::ivf {
namespace {

constexpr size_t kN = 2000, kD = 8;

class BuilderTest : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("vigilo_build_" + std::to_string(::getpid()) + "_" + testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    // 20 clusters of 100 points around well-separated centres.
    Xoshiro256 rng(7);
    data_.resize(kN * kD);
    for (size_t i = 0; i < kN; ++i) {
      for (size_t j = 0; j < kD; ++j) {
        float centre = static_cast<float>(((i % 20) * 37 + j * 11) % 50);
        data_[i * kD + j] = centre + static_cast<float>(rng.NextDouble() - 0.5);
      }
    }
    std::ofstream f(dir_ / "base.fvecs", std::ios::binary);
    for (size_t i = 0; i < kN; ++i) {
      int32_t d = kD;
      f.write(reinterpret_cast<const char*>(&d), 4);
      f.write(reinterpret_cast<const char*>(&data_[i * kD]), kD * 4);
    }
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  BuildOptions Options(const std::string& out) const {
    BuildOptions o;
    o.input = (dir_ / "base.fvecs").string();
    o.nlist = 16;
    o.roots = 4;
    o.out = (dir_ / out).string();
    return o;
  }
  std::string Manifest(const std::string& out) const {
    return *ReadFileToString((dir_ / out / "manifest.json").string(), 1 << 20);
  }

  std::filesystem::path dir_;
  std::vector<float> data_;
};

TEST_F(BuilderTest, BuildsAValidExactlyReconstructiblePublication) {
  auto built = BuildPublication(Options("pub"));
  ASSERT_TRUE(built.ok()) << built.status().ToString();
  const ivf::Manifest& m = built->manifest;
  EXPECT_EQ(m.index.ntotal, kN);
  EXPECT_EQ(m.index.nlist, 16u);
  EXPECT_EQ(m.hierarchy.roots(), 4u);
  EXPECT_EQ(m.index.vector_field, "vector");
  EXPECT_EQ(m.index.source_key, (std::vector<Field>{Field{"id", ColumnType{ColumnType::Kind::kLong, 0}}}));
  EXPECT_EQ(built->sample_rows, kN);
  DirectoryObjectReader reader((dir_ / "pub").string());
  auto deep = CheckPublicationObjects(m, reader, true);
  ASSERT_TRUE(deep.ok()) << deep.status().ToString();
  EXPECT_FALSE(std::filesystem::exists(dir_ / "pub" / (".vigilo-build-" + std::to_string(::getpid()))));

  // Decode the centroids, then every posting: x̂ = ĉ + r̂ is within the
  // residual's half step of x, and ĉ is x's nearest decoded centroid.
  auto cfile = parquet::LocalParquetFile::Open((dir_ / "pub/centroids.parquet").string());
  ASSERT_TRUE(cfile.ok());
  std::vector<float> centroids;
  for (size_t rg = 0; rg < cfile->footer().metadata.row_groups.size(); ++rg) {
    auto offs = cfile->ReadColumnChunk(rg, 2), scales = cfile->ReadColumnChunk(rg, 3), codes = cfile->ReadColumnChunk(rg, 4);
    ASSERT_TRUE(offs.ok() && scales.ok() && codes.ok());
    for (size_t i = 0; i < offs->values.floats.size(); ++i) {
      std::vector<float> c(kD);
      ASSERT_TRUE(DecodeLvq(Encoding::kLvq8, {offs->values.floats[i], scales->values.floats[i]}, codes->values.Binary(i), c).ok());
      centroids.insert(centroids.end(), c.begin(), c.end());
    }
  }
  ASSERT_EQ(centroids.size(), 16 * kD);
  std::map<int64_t, int> seen;
  for (const PostingsFile& f : m.postings) {
    auto file = parquet::LocalParquetFile::Open((dir_ / "pub" / f.object.path).string());
    ASSERT_TRUE(file.ok());
    for (size_t rg = 0; rg < file->footer().metadata.row_groups.size(); ++rg) {
      auto cids = file->ReadColumnChunk(rg, 0), keys = file->ReadColumnChunk(rg, 1), offs = file->ReadColumnChunk(rg, 2),
           scales = file->ReadColumnChunk(rg, 3), codes = file->ReadColumnChunk(rg, 4);
      ASSERT_TRUE(cids.ok() && keys.ok() && offs.ok() && scales.ok() && codes.ok());
      for (size_t i = 0; i < cids->values.int32s.size(); ++i) {
        int64_t key = keys->values.int64s[i];
        auto cid = static_cast<size_t>(cids->values.int32s[i]);
        seen[key]++;
        std::span<const float> c(centroids.data() + cid * kD, kD);
        std::vector<float> x(kD);
        LvqParams p{offs->values.floats[i], scales->values.floats[i]};
        ASSERT_TRUE(ReconstructResidual(Encoding::kLvq8, p, codes->values.Binary(i), c, x).ok());
        for (size_t j = 0; j < kD; ++j) {
          EXPECT_LE(std::fabs(x[j] - data_[static_cast<size_t>(key) * kD + j]), p.scale * 0.5f + 1e-5f) << key;
        }
        auto nearest = AssignNearest(std::span<const float>(data_.data() + static_cast<size_t>(key) * kD, kD), 1, kD,
                                     centroids, 16);
        ASSERT_TRUE(nearest.ok());
        EXPECT_EQ(nearest->labels[0], cid) << key;
      }
    }
  }
  ASSERT_EQ(seen.size(), kN);  // every vector exactly once
  for (const auto& [key, count] : seen) EXPECT_EQ(count, 1) << key;
}

TEST_F(BuilderTest, IsDeterministicAndNeverOverwrites) {
  ASSERT_TRUE(BuildPublication(Options("a")).ok());
  BuildOptions small_buffer = Options("b");
  small_buffer.spill_buffer_bytes = 1;  // one leaf per scan of a bucket
  small_buffer.threads = 1;
  ASSERT_TRUE(BuildPublication(small_buffer).ok());
  EXPECT_EQ(Manifest("a"), Manifest("b"));  // same objects, same digests, same artifact UUID
  BuildOptions other_seed = Options("c");
  other_seed.seed = 2;
  ASSERT_TRUE(BuildPublication(other_seed).ok());
  EXPECT_NE(Manifest("a"), Manifest("c"));
  auto again = BuildPublication(Options("a"));
  EXPECT_EQ(again.status().code(), StatusCode::kAlreadyExists) << again.status().ToString();
}

TEST_F(BuilderTest, CosineLvq4WithAStringKeyFromJsonl) {
  std::ofstream f(dir_ / "words.jsonl");
  for (size_t i = 0; i < 300; ++i) {
    f << "{\"emb\":[";
    for (size_t j = 0; j < kD; ++j) f << (j ? "," : "") << data_[i * kD + j] + 1.0f;
    f << "],\"word\":\"w" << i << "\"}\n";
  }
  f.close();
  BuildOptions o = Options("cos");
  o.input = (dir_ / "words.jsonl").string();
  o.input_options.vector_field = "emb";
  o.input_options.key_field = "word";
  o.metric = Metric::kCosine;
  o.encoding = Encoding::kLvq4;
  o.nlist = 8;
  o.roots = 2;
  auto built = BuildPublication(o);
  ASSERT_TRUE(built.ok()) << built.status().ToString();
  EXPECT_EQ(built->manifest.index.ntotal, 300u);
  EXPECT_EQ(built->manifest.index.source_key[0].name, "word");
  EXPECT_EQ(built->manifest.index.source_key[0].type.kind, ColumnType::Kind::kString);
  DirectoryObjectReader reader(o.out);
  auto deep = CheckPublicationObjects(built->manifest, reader, true);
  EXPECT_TRUE(deep.ok()) << deep.status().ToString();
}

TEST_F(BuilderTest, RefusesImpossibleOptions) {
  BuildOptions o = Options("x");
  o.nlist = kN + 1;
  EXPECT_EQ(BuildPublication(o).status().message(), "--nlist must be 1 to the number of vectors (2000), got 2001");
  o = Options("x");
  o.roots = 17;
  EXPECT_EQ(BuildPublication(o).status().message(), "--roots must be 1 to nlist (16), got 17");
  o = Options("x");
  o.sample = 15;
  EXPECT_EQ(BuildPublication(o).status().code(), StatusCode::kInvalidArgument);
  o = Options("x");
  o.input_options.vector_field = "a.b";
  EXPECT_EQ(BuildPublication(o).status().code(), StatusCode::kInvalidArgument);
  EXPECT_FALSE(std::filesystem::exists(dir_ / "x" / "manifest.json"));
}

}  // namespace
}  // namespace vigilo::ivf
