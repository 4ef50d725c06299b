// BuildPublication end to end on small synthetic inputs, into a MemoryStore
// and into a local directory: a valid, exactly reconstructible,
// deterministic publication; option and output errors; a failed build
// leaves nothing behind (the fault-injection sweep is builder_fault_test.cc).
#include "vigilo/ivf/builder.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <optional>

#include "store_test_support.h"
#include "vigilo/common/byte_source.h"
#include "vigilo/ivf/kmeans.h"
#include "vigilo/ivf/kmeans_random.h"
#include "vigilo/ivf/publication_check.h"
#include "vigilo/parquet/local_file.h"
#include "vigilo/parquet/writer.h"
#include "vigilo/store/local_store.h"
#include "vigilo/store/memory_store.h"

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
  // For a build into a store: no output directory, scratch in the test's.
  BuildOptions StoreOptions() const {
    BuildOptions o = Options("");
    o.out.clear();
    o.scratch = dir_.string();
    return o;
  }
  // Every entry below the test directory, relative (scratch leftovers show).
  std::vector<std::string> Entries(const std::filesystem::path& below) const {
    std::vector<std::string> out;
    for (const auto& e : std::filesystem::recursive_directory_iterator(below)) {
      out.push_back(std::filesystem::relative(e.path(), below).generic_string());
    }
    std::sort(out.begin(), out.end());
    return out;
  }
  std::string Manifest(const std::string& out) const {
    return *ReadFileToString((dir_ / out / "manifest.json").string(), 1 << 20);
  }

  // A Parquet file of 300 rows in two row groups of 150: `key` (long,
  // key_of(i), or i + key_shift at row 200), emb (the first 300 vectors),
  // title (string, null every 7th row), score (double), day (date).
  void WriteParquet(const std::string& path, const std::string& key, int64_t key_shift,
                    const std::function<int64_t(size_t)>& key_of = nullptr) const {
    using parquet::ColumnKind;
    std::vector<parquet::ColumnSpec> cols(5);
    cols[0].name = key;
    cols[0].kind = ColumnKind::kInt64;
    cols[1].name = "emb";
    cols[1].kind = ColumnKind::kFloatList;
    cols[2].name = "title";
    cols[2].kind = ColumnKind::kString;
    cols[2].optional = true;
    cols[3].name = "score";
    cols[3].kind = ColumnKind::kDouble;
    cols[4].name = "day";
    cols[4].kind = ColumnKind::kDate;
    auto sink = parquet::FileSink::Create(path);
    ASSERT_TRUE(sink.ok());
    auto w = parquet::FileWriter::Open(cols, {}, sink->get());
    ASSERT_TRUE(w.ok());
    for (size_t g = 0; g < 2; ++g) {
      std::vector<int64_t> keys, offsets{0};
      std::vector<float> elems;
      std::vector<std::string> titles;
      std::vector<uint8_t> title_valid;
      std::vector<double> scores;
      std::vector<int32_t> days;
      for (size_t i = g * 150; i < (g + 1) * 150; ++i) {
        keys.push_back(key_of ? key_of(i) : static_cast<int64_t>(i) + (i == 200 ? key_shift : 0));
        elems.insert(elems.end(), data_.begin() + static_cast<std::ptrdiff_t>(i * kD),
                     data_.begin() + static_cast<std::ptrdiff_t>((i + 1) * kD));
        offsets.push_back(static_cast<int64_t>(elems.size()));
        titles.push_back("t" + std::to_string(i));
        title_valid.push_back(i % 7 != 0);
        scores.push_back(static_cast<double>(i) / 3);
        days.push_back(static_cast<int32_t>(19000 + i));
      }
      std::vector<std::string_view> views(titles.begin(), titles.end());
      ASSERT_TRUE((*w)->BeginRowGroup().ok());
      ASSERT_TRUE((*w)->WriteInt64(0, keys).ok());
      ASSERT_TRUE((*w)->WriteFloatList(1, offsets, elems).ok());
      ASSERT_TRUE((*w)->WriteByteArray(2, views, title_valid).ok());
      ASSERT_TRUE((*w)->WriteDouble(3, scores).ok());
      ASSERT_TRUE((*w)->WriteInt32(4, days).ok());
      ASSERT_TRUE((*w)->EndRowGroup().ok());
    }
    ASSERT_TRUE((*w)->Finish().ok());
    ASSERT_TRUE((*sink)->Close().ok());
  }
  // "name type" per source column.
  static std::vector<std::string> SourceSchema(const SourceSpec& source) {
    std::vector<std::string> out;
    for (const Field& f : source.columns) out.push_back(f.name + " " + f.type.ToString());
    return out;
  }

  std::filesystem::path dir_;
  std::vector<float> data_;
};

TEST_F(BuilderTest, BuildsAValidExactlyReconstructiblePublication) {
  store::MemoryStore store;
  auto built = BuildPublication(StoreOptions(), store);
  ASSERT_TRUE(built.ok()) << built.status().ToString();
  const ivf::Manifest& m = built->manifest;
  EXPECT_EQ(m.index.ntotal, kN);
  EXPECT_EQ(m.index.nlist, 16u);
  EXPECT_EQ(m.hierarchy.roots(), 4u);
  // Roots are balanced buckets of the flat leaves (TrainPartition): 16 / 4 each.
  EXPECT_EQ(m.hierarchy.cid_offsets, (std::vector<uint64_t>{0, 4, 8, 12, 16}));
  EXPECT_EQ(m.index.vector_field, "vector");
  EXPECT_EQ(m.index.source_key, (std::vector<Field>{Field{"_row", ColumnType{ColumnType::Kind::kLong, 0}}}));
  EXPECT_EQ(built->sample_rows, 64u * 16u);  // the default: 64 points per leaf (kN is more)
  auto deep = CheckPublicationObjects(m, store, true);
  ASSERT_TRUE(deep.ok()) << deep.status().ToString();
  // The manifest as the store holds it is the one returned.
  auto stored = ParseManifest(store.Peek("manifest.json").value_or(""));
  ASSERT_TRUE(stored.ok()) << stored.status().ToString();
  EXPECT_EQ(*stored, m);
  EXPECT_EQ(store.object_count(), 2 + m.postings.size());
  // The scratch directory is gone; nothing else was put in the test directory.
  EXPECT_EQ(Entries(dir_), std::vector<std::string>{"base.fvecs"});

  // Decode the centroids, then every posting: x̂ = ĉ + r̂ is within the
  // residual's half step of x, and ĉ is x's nearest decoded centroid.
  auto cfile = StoredParquet::Open(store, "centroids.parquet");
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
    auto file = StoredParquet::Open(store, f.object.path);
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
  const std::vector<std::string> before = Entries(dir_ / "a");
  auto again = BuildPublication(Options("a"));
  EXPECT_EQ(again.status().code(), StatusCode::kAlreadyExists) << again.status().ToString();
  EXPECT_EQ(Manifest("a"), Manifest("b"));
  EXPECT_EQ(Entries(dir_ / "a"), before);  // nothing added, nothing removed
  // The same into a store: the same bytes.
  store::MemoryStore store;
  ASSERT_TRUE(BuildPublication(StoreOptions(), store).ok());
  EXPECT_EQ(store.Peek("manifest.json"), Manifest("a"));
  EXPECT_EQ(BuildPublication(StoreOptions(), store).status().code(), StatusCode::kAlreadyExists);
}

TEST_F(BuilderTest, CosineLvq4WithAStringKeyFromJsonl) {
  std::ofstream f(dir_ / "words.jsonl");
  for (size_t i = 0; i < 300; ++i) {
    f << "{\"emb\":[";
    for (size_t j = 0; j < kD; ++j) f << (j ? "," : "") << data_[i * kD + j] + 1.0f;
    f << "],\"word\":\"w" << i << "\"}\n";
  }
  f.close();
  BuildOptions o = StoreOptions();
  o.input = (dir_ / "words.jsonl").string();
  o.input_options.vector_field = "emb";
  o.input_options.key_field = "word";
  o.metric = Metric::kCosine;
  o.encoding = Encoding::kLvq4;
  o.nlist = 8;
  o.roots = 2;
  store::MemoryStore store;
  auto built = BuildPublication(o, store);
  ASSERT_TRUE(built.ok()) << built.status().ToString();
  EXPECT_EQ(built->manifest.index.ntotal, 300u);
  EXPECT_EQ(built->manifest.index.source_key[0].name, "word");
  EXPECT_EQ(built->manifest.index.source_key[0].type.kind, ColumnType::Kind::kString);
  EXPECT_EQ(built->manifest.hierarchy.cid_offsets, (std::vector<uint64_t>{0, 4, 8}));
  auto deep = CheckPublicationObjects(built->manifest, store, true);
  EXPECT_TRUE(deep.ok()) << deep.status().ToString();
}

TEST_F(BuilderTest, CopiesASourceTableFromVectors) {
  BuildOptions o = StoreOptions();
  o.source = true;
  o.source_layout.row_group_rows = 300;
  o.source_layout.max_file_bytes = 20'000;  // several files, each starting at a multiple of 300
  store::MemoryStore store;
  auto built = BuildPublication(o, store);
  ASSERT_TRUE(built.ok()) << built.status().ToString();
  const auto& source = built->manifest.source;
  ASSERT_TRUE(source.has_value());
  EXPECT_EQ(source->rows, kN);
  EXPECT_EQ(source->key, "_row");
  // An .fvecs file has no column but its vector: the default copies it.
  EXPECT_EQ(source->columns, (std::vector<Field>{Field{"_row", ColumnType{ColumnType::Kind::kLong, 0}},
                                                 Field{"vector", ColumnType{ColumnType::Kind::kFloatList, 0}}}));
  ASSERT_GT(source->files.size(), 1u);
  for (const SourceFile& f : source->files) EXPECT_EQ(f.row_begin % 300, 0u);
  auto deep = CheckPublicationObjects(built->manifest, store, true);
  ASSERT_TRUE(deep.ok()) << deep.status().ToString();
  // Row 1234's payload is the input vector, bit for bit.
  const SourceFile* f = nullptr;
  for (const SourceFile& s : source->files) {
    if (s.row_begin <= 1234 && 1234 < s.row_end) f = &s;
  }
  ASSERT_NE(f, nullptr);
  auto file = StoredParquet::Open(store, f->object.path);
  ASSERT_TRUE(file.ok());
  size_t rg = (1234 - f->row_begin) / 300, at = (1234 - f->row_begin) % 300;
  auto vectors = file->ReadColumnChunk(rg, 1);
  ASSERT_TRUE(vectors.ok());
  std::vector<float> got(vectors->values.floats.begin() + static_cast<std::ptrdiff_t>(vectors->list_offsets[at]),
                         vectors->values.floats.begin() + static_cast<std::ptrdiff_t>(vectors->list_offsets[at + 1]));
  EXPECT_EQ(got, std::vector<float>(data_.begin() + 1234 * kD, data_.begin() + 1235 * kD));
}

// A Parquet input with a long key and payload columns of several types.
TEST_F(BuilderTest, CopiesParquetColumnsIntoTheSourceTable) {
  WriteParquet((dir_ / "in.parquet").string(), "row", 0);
  BuildOptions o = StoreOptions();
  o.input = (dir_ / "in.parquet").string();
  o.input_options.vector_field = "emb";
  o.input_options.key_field = "row";
  o.nlist = 8;
  o.roots = 2;
  o.source = true;
  o.source_layout.row_group_rows = 64;
  store::MemoryStore store;
  auto built = BuildPublication(o, store);
  ASSERT_TRUE(built.ok()) << built.status().ToString();
  // By default: every column but the key and the vector, in file order.
  EXPECT_EQ(SourceSchema(*built->manifest.source),
            (std::vector<std::string>{"row long", "title string", "score double", "day date"}));
  auto deep = CheckPublicationObjects(built->manifest, store, true);
  ASSERT_TRUE(deep.ok()) << deep.status().ToString();
  auto file = StoredParquet::Open(store, built->manifest.source->files[0].object.path);
  ASSERT_TRUE(file.ok());
  auto titles = file->ReadColumnChunk(1, 1);  // rows 64…127; row 70 is null (70 % 7 == 0)
  ASSERT_TRUE(titles.ok());
  EXPECT_EQ(titles->row_valid[70 - 64], 0);
  EXPECT_EQ(titles->row_valid[71 - 64], 1);

  // --columns: in the order given, the vector column when named.
  o.source_columns = {"score", "emb"};
  store::MemoryStore chosen;
  built = BuildPublication(o, chosen);
  ASSERT_TRUE(built.ok()) << built.status().ToString();
  EXPECT_EQ(SourceSchema(*built->manifest.source),
            (std::vector<std::string>{"row long", "score double", "emb list<float>"}));
  EXPECT_TRUE(CheckPublicationObjects(built->manifest, chosen, true).ok());

  // Keys that are not the row positions. Where the footer's statistics show
  // it (row 200's key is 1200), refused before any pass.
  o.source_columns.clear();
  WriteParquet((dir_ / "gap.parquet").string(), "row", 1000);
  o.input = (dir_ / "gap.parquet").string();
  o.progress = [](std::string_view phase, uint64_t, uint64_t) { ADD_FAILURE() << "a pass began: " << phase; };
  store::MemoryStore gap_store;
  RecordingStore recorded(gap_store);
  auto gap = BuildPublication(o, recorded);
  EXPECT_EQ(gap.status().code(), StatusCode::kInvalidArgument) << gap.status().ToString();
  EXPECT_EQ(gap.status().message(),
            "`source` needs a long key equal to the row position (0, 1, 2, …); the key \"row\" in row group 1 "
            "(rows 150…299) ranges over 150…1200 (the file's statistics); to keep these ids, pass `id_column` row instead of `key` row: the publication is then keyed by row position (_row), and every hit returns \"row\"");
  EXPECT_EQ(gap.status().path(), o.input);
  EXPECT_EQ(gap_store.object_count(), 0u);
  EXPECT_EQ(recorded.gets, 1);  // the manifest probe; no create was even begun
  // Keys 200 and 201 swapped: the statistics cannot tell; the assign pass
  // does, before any object is written.
  WriteParquet((dir_ / "swap.parquet").string(), "row", 0, [](size_t i) {
    return static_cast<int64_t>(i == 200 ? 201 : i == 201 ? 200 : i);
  });
  o.input = (dir_ / "swap.parquet").string();
  o.progress = nullptr;
  store::MemoryStore swap_store;
  RecordingStore swap_recorded(swap_store);
  auto swapped = BuildPublication(o, swap_recorded);
  EXPECT_EQ(swapped.status().code(), StatusCode::kInvalidArgument) << swapped.status().ToString();
  EXPECT_EQ(swapped.status().message(),
            "`source` needs a long key equal to the row position (0, 1, 2, …); row 200 has another key; to keep these ids, pass `id_column` row instead of `key` row: the publication is then keyed by row position (_row), and every hit returns \"row\"");
  EXPECT_EQ(swap_store.object_count(), 0u);
  EXPECT_EQ(swap_recorded.gets, 1);
}

// Everything about the source table that the input's schema decides is
// refused before the first pass: nothing is read past the footer, nothing
// is written, each with its exact message.
TEST_F(BuilderTest, RefusesSourceColumnProblemsBeforeAnyPass) {
  WriteParquet((dir_ / "in.parquet").string(), "row", 0);
  std::string path = (dir_ / "in.parquet").string();
  struct Case {
    std::optional<std::string> key;
    std::vector<std::string> columns;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"row", {"title", "nope"},
       "no source column \"nope\" (columns: \"row\", \"emb\", \"title\", \"score\", \"day\")"},
      {"row", {"row"}, "`columns` lists the key \"row\"; it is always the first source column"},
      {std::nullopt, {"_row"}, "`columns` lists the key \"_row\"; it is always the first source column"},
      {"row", {"title", "score", "title"}, "`columns` lists \"title\" twice"},
      {"day", {}, "`source` needs a long key dense from zero; the key \"day\" is date; to keep these ids, pass `id_column` day instead of `key` day: the publication is then keyed by row position (_row), and every hit returns \"day\""},
  };
  for (const Case& c : cases) {
    BuildOptions o = StoreOptions();
    o.input = path;
    o.input_options.vector_field = "emb";
    o.input_options.key_field = c.key;
    o.source = true;
    o.source_columns = c.columns;
    o.progress = [](std::string_view phase, uint64_t, uint64_t) { ADD_FAILURE() << "a pass began: " << phase; };
    store::MemoryStore store;
    RecordingStore recorded(store);
    auto built = BuildPublication(o, recorded);
    EXPECT_EQ(built.status().code(), StatusCode::kInvalidArgument) << built.status().ToString();
    EXPECT_EQ(built.status().message(), c.message);
    EXPECT_EQ(store.object_count(), 0u);
    EXPECT_EQ(recorded.gets, 1);  // the manifest probe
  }
  // A column of a type a source table cannot hold (DuckDB's UINTEGER: INT32 UINT_32).
  BuildOptions typed = StoreOptions();
  typed.input = std::string(VIGILO_SOURCE_DIR) + "/src/parquet/testdata/duckdb_v1_snappy.parquet";
  typed.input_options.vector_field = "dv";
  typed.source = true;
  typed.source_columns = {"name", "u32"};
  typed.progress = [](std::string_view phase, uint64_t, uint64_t) { ADD_FAILURE() << "a pass began: " << phase; };
  store::MemoryStore typed_store;
  auto refused = BuildPublication(typed, typed_store);
  EXPECT_EQ(refused.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(refused.status().message(),
            "column \"u32\" (INT32 with an annotation) cannot be copied into a source table: source columns are "
            "boolean, int, long, float, double, string, binary, date, fixed(L) or list<float>");
  EXPECT_EQ(refused.status().path(), typed.input);
  EXPECT_EQ(typed_store.object_count(), 0u);
  // A JSONL member that holds arrays cannot be a source column: said before
  // the vector passes (after the pass that types the members).
  std::ofstream(dir_ / "words.jsonl") << "{\"vector\":[1,2],\"tags\":\"a\"}\n{\"vector\":[3,4],\"tags\":[\"b\"]}\n";
  BuildOptions o = StoreOptions();
  o.input = (dir_ / "words.jsonl").string();
  o.nlist = o.roots = 1;
  o.source = true;
  o.source_columns = {"tags"};
  o.progress = [](std::string_view phase, uint64_t, uint64_t) { ADD_FAILURE() << "a pass began: " << phase; };
  store::MemoryStore store;
  auto jsonl = BuildPublication(o, store);
  EXPECT_EQ(jsonl.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(jsonl.status().message(),
            "member \"tags\" cannot be copied into a source table: row 1 holds an array; source columns from JSONL "
            "hold strings, integers, numbers or booleans (and null); leave it out with `columns`");
  EXPECT_EQ(jsonl.status().path(), o.input);
  EXPECT_EQ(store.object_count(), 0u);
}

// Issue 34 item 11: ids a source table cannot be keyed by (strings, longs
// that are not 0, 1, 2, …) are kept by `id_column`: the publication is keyed
// by row position, and the id column is the source table's first payload
// column (the one a query returns by default), copied unchanged.
TEST_F(BuilderTest, AnIdColumnKeysByRowPositionAndCarriesTheIdsFirst) {
  std::string path = (dir_ / "ids.parquet").string();
  WriteParquet(path, "row", 0, [](size_t i) { return static_cast<int64_t>(1000000 - 7 * i); });
  BuildOptions o = StoreOptions();
  o.input = path;
  o.input_options.vector_field = "emb";
  o.nlist = 8;
  o.roots = 2;
  // The id column alone: without `source` the table holds the key and the ids.
  o.id_column = "row";
  store::MemoryStore alone;
  auto built = BuildPublication(o, alone);
  ASSERT_TRUE(built.ok()) << built.status().ToString();
  EXPECT_EQ(built->manifest.index.source_key,
            (std::vector<Field>{Field{"_row", ColumnType{ColumnType::Kind::kLong, 0}}}));
  ASSERT_TRUE(built->manifest.source.has_value());
  EXPECT_EQ(SourceSchema(*built->manifest.source), (std::vector<std::string>{"_row long", "row long"}));
  ASSERT_TRUE(CheckPublicationObjects(built->manifest, alone, true).ok());
  auto file = StoredParquet::Open(alone, built->manifest.source->files[0].object.path);
  ASSERT_TRUE(file.ok());
  auto ids = file->ReadColumnChunk(0, 1);
  ASSERT_TRUE(ids.ok());
  EXPECT_EQ((std::vector<int64_t>(ids->values.int64s.begin(), ids->values.int64s.begin() + 3)),
            (std::vector<int64_t>{1000000, 999993, 999986}));
  // With `source`: the id column first, then the default columns; a string id works as well.
  o.source = true;
  o.id_column = "title";
  store::MemoryStore with_source;
  built = BuildPublication(o, with_source);
  ASSERT_TRUE(built.ok()) << built.status().ToString();
  EXPECT_EQ(SourceSchema(*built->manifest.source),
            (std::vector<std::string>{"_row long", "title string", "row long", "score double", "day date"}));
  // And with `columns` (the id not repeated when listed).
  o.source_columns = {"score", "title"};
  store::MemoryStore chosen;
  built = BuildPublication(o, chosen);
  ASSERT_TRUE(built.ok()) << built.status().ToString();
  EXPECT_EQ(SourceSchema(*built->manifest.source),
            (std::vector<std::string>{"_row long", "title string", "score double"}));
}

// The refusal of ids that cannot key a source table names the layout that
// keeps them, before any pass; and `id_column` itself refuses what it cannot
// do, before any pass too.
TEST_F(BuilderTest, KeysThatCannotKeyASourceTablePointToIdColumnBeforeAnyPass) {
  const std::string hint =
      "; to keep these ids, pass `id_column` id instead of `key` id: the publication is then keyed by row "
      "position (_row), and every hit returns \"id\"";
  // JSONL: a string key, and a long key that is not the row position (found by the member scan, not the assign pass).
  std::string strings, longs;
  for (size_t i = 0; i < 40; ++i) {
    std::string v = "[" + std::to_string(i % 5) + "," + std::to_string(i % 3) + "]";
    strings += "{\"id\":\"doc-" + std::to_string(i) + "\",\"vector\":" + v + "}\n";
    longs += "{\"id\":" + std::to_string(i == 17 ? 99 : i) + ",\"vector\":" + v + "}\n";
  }
  std::ofstream(dir_ / "strings.jsonl") << strings;
  std::ofstream(dir_ / "longs.jsonl") << longs;
  struct Case {
    std::string input;
    std::optional<std::string> key;
    std::string id_column;
    bool source;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"strings.jsonl", "id", "", true, "`source` needs a long key dense from zero; the key \"id\" is string" + hint},
      {"longs.jsonl", "id", "", true,
       "`source` needs a long key equal to the row position (0, 1, 2, …); row 17 has another key" + hint},
      {"strings.jsonl", "id", "id", false,
       "`id_column` keys the publication by row position and returns \"id\" with every hit; it cannot be combined "
       "with `key`"},
      {"strings.jsonl", std::nullopt, "nope", false,
       "`id_column`: no line of the input has a member \"nope\" (members: \"id\", \"vector\")"},
      {"strings.jsonl", std::nullopt, "vector", false,
       "`id_column` \"vector\" is list<float>; an id column holds strings, integers, dates or bytes"},
      {"base.fvecs", std::nullopt, "id", false,
       "`id_column` \"id\": a fvecs input has no columns but its vectors; its rows are known by position (_row)"},
  };
  for (const Case& c : cases) {
    BuildOptions o = StoreOptions();
    o.input = (dir_ / c.input).string();
    o.nlist = 2;
    o.roots = 1;
    o.input_options.key_field = c.key;
    o.id_column = c.id_column;
    o.source = c.source;
    o.progress = [](std::string_view phase, uint64_t, uint64_t) { ADD_FAILURE() << "a pass began: " << phase; };
    store::MemoryStore store;
    auto built = BuildPublication(o, store);
    EXPECT_EQ(built.status().code(), StatusCode::kInvalidArgument) << built.status().ToString();
    EXPECT_EQ(built.status().message(), c.message);
    EXPECT_EQ(store.object_count(), 0u);
  }
  // The same strings with `id_column` build, keyed by row position.
  BuildOptions o = StoreOptions();
  o.input = (dir_ / "strings.jsonl").string();
  o.nlist = 2;
  o.roots = 1;
  o.id_column = "id";
  store::MemoryStore store;
  auto built = BuildPublication(o, store);
  ASSERT_TRUE(built.ok()) << built.status().ToString();
  EXPECT_EQ(SourceSchema(*built->manifest.source), (std::vector<std::string>{"_row long", "id string"}));
}

// The issue-18 trap: a build without --key publishes the row position as
// `_row`, and the input's own `id` column (values that are not the row
// positions) is carried into the source table unchanged; the vector column
// is not copied by default.
TEST_F(BuilderTest, NeverShadowsTheInputsOwnIdColumn) {
  std::string path = (dir_ / "ids.parquet").string();
  WriteParquet(path, "id", 0, [](size_t i) { return static_cast<int64_t>(77353 + 11 * i); });
  BuildOptions o = StoreOptions();
  o.input = path;
  o.input_options.vector_field = "emb";
  o.nlist = 8;
  o.roots = 2;
  o.source = true;
  store::MemoryStore store;
  auto built = BuildPublication(o, store);
  ASSERT_TRUE(built.ok()) << built.status().ToString();
  const ivf::Manifest& m = built->manifest;
  EXPECT_EQ(m.index.source_key, (std::vector<Field>{Field{"_row", ColumnType{ColumnType::Kind::kLong, 0}}}));
  EXPECT_EQ(m.source->key, "_row");
  EXPECT_EQ(SourceSchema(*m.source),
            (std::vector<std::string>{"_row long", "id long", "title string", "score double", "day date"}));
  ASSERT_TRUE(CheckPublicationObjects(m, store, true).ok());
  auto file = StoredParquet::Open(store, m.source->files[0].object.path);
  ASSERT_TRUE(file.ok());
  auto rows = file->ReadColumnChunk(0, 0), ids = file->ReadColumnChunk(0, 1);
  ASSERT_TRUE(rows.ok() && ids.ok());
  ASSERT_GE(ids->values.int64s.size(), 3u);
  EXPECT_EQ((std::vector<int64_t>(rows->values.int64s.begin(), rows->values.int64s.begin() + 3)),
            (std::vector<int64_t>{0, 1, 2}));
  EXPECT_EQ((std::vector<int64_t>(ids->values.int64s.begin(), ids->values.int64s.begin() + 3)),
            (std::vector<int64_t>{77353, 77364, 77375}));
}

// An input column named like the generated key is refused, saying what to
// do, before any pass; --key names a key and the build goes ahead.
TEST_F(BuilderTest, RefusesAnInputColumnNamedLikeTheGeneratedKey) {
  std::string path = (dir_ / "rows.parquet").string();
  WriteParquet(path, "_row", 0);
  BuildOptions o = StoreOptions();
  o.input = path;
  o.input_options.vector_field = "emb";
  o.nlist = 8;
  o.roots = 2;
  store::MemoryStore store;
  auto refused = BuildPublication(o, store);
  EXPECT_EQ(refused.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(refused.status().message(),
            "the input has a column named \"_row\", the name of the row-position key a build without `key` "
            "publishes; pass `key` COLUMN to key the publication by a column of yours, or rename \"_row\"");
  EXPECT_EQ(refused.status().path(), path);
  EXPECT_EQ(store.object_count(), 0u);
  // The same for a vector field of that name (any format).
  BuildOptions v = StoreOptions();
  v.input_options.vector_field = "_row";
  EXPECT_EQ(BuildPublication(v, store).status().code(), StatusCode::kInvalidArgument);
  o.input_options.key_field = "_row";
  o.source = true;
  auto keyed = BuildPublication(o, store);
  ASSERT_TRUE(keyed.ok()) << keyed.status().ToString();
  EXPECT_EQ(SourceSchema(*keyed->manifest.source),
            (std::vector<std::string>{"_row long", "title string", "score double", "day date"}));
}

// The local entry point: a failed build removes the objects and the
// directories it created (the output directory too when it made it), never
// what was there; a retry into the same directory works.
TEST_F(BuilderTest, AFailedLocalBuildLeavesTheDirectoryAsItWas) {
  // The first data page of `title` in row group 1 is damaged: only the
  // source pass reads it, after the centroids and postings were written.
  std::string damaged = (dir_ / "damaged.parquet").string();
  WriteParquet(damaged, "row", 0);
  int64_t at = 0;
  {
    auto file = parquet::LocalParquetFile::Open(damaged);
    ASSERT_TRUE(file.ok());
    at = file->footer().metadata.row_groups[1].columns[2].meta_data->data_page_offset;
    std::fstream f(damaged, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(at);
    f.write("\xff\xff\xff\xff\xff\xff\xff\xff", 8);
  }
  BuildOptions o = Options("deep/new/pub");
  o.input = damaged;
  o.input_options.vector_field = "emb";
  o.input_options.key_field = "row";
  o.nlist = 8;
  o.roots = 2;
  o.source = true;
  std::vector<std::string> phases;
  o.progress = [&](std::string_view phase, uint64_t, uint64_t) {
    if (phases.empty() || phases.back() != phase) phases.emplace_back(phase);
  };
  auto failed = BuildPublication(o);
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.status().ToString(),
            "parse_error: " + damaged + ": row_groups[1].columns[2].pages[0]: thrift: invalid field type 15 (at byte " +
                std::to_string(at) + ")");
  EXPECT_EQ(phases, (std::vector<std::string>{"sample", "train", "assign", "write", "source"}));
  EXPECT_FALSE(std::filesystem::exists(dir_ / "deep"));  // every directory it made, the parents too
  EXPECT_EQ(Entries(dir_), (std::vector<std::string>{"base.fvecs", "damaged.parquet"}));

  std::filesystem::create_directories(dir_ / "kept");
  std::ofstream(dir_ / "kept" / "notes.txt") << "mine";
  o.out = (dir_ / "kept").string();
  o.scratch = (dir_ / "scratch" / "sub").string();
  o.progress = nullptr;
  EXPECT_EQ(BuildPublication(o).status().ToString(), failed.status().ToString());
  EXPECT_EQ(Entries(dir_), (std::vector<std::string>{"base.fvecs", "damaged.parquet", "kept", "kept/notes.txt"}));

  o.source_columns = {"score"};  // not the damaged column
  auto built = BuildPublication(o);
  ASSERT_TRUE(built.ok()) << built.status().ToString();
  std::vector<std::string> entries = Entries(dir_ / "kept");
  EXPECT_EQ(std::count(entries.begin(), entries.end(), "manifest.json"), 1);
  EXPECT_EQ(std::count(entries.begin(), entries.end(), "notes.txt"), 1);
  EXPECT_FALSE(std::filesystem::exists(dir_ / "scratch"));  // scratch parents it made go too
  auto store = store::OpenLocalStore(o.out);
  ASSERT_TRUE(store.ok());
  EXPECT_TRUE(CheckPublicationObjects(built->manifest, **store, true).ok());
}

// The same vectors as .fvecs, .npy and .bvecs-compatible bytes build the
// same publication, byte for byte (same artifact UUID).
TEST_F(BuilderTest, EveryInputFormatBuildsTheSamePublication) {
  // .npy: version 1.0, '<f4', C order.
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + std::to_string(kN) + ", " +
                       std::to_string(kD) + "), }";
  header.append(128 - 10 - header.size() - 1, ' ');  // magic + header: a multiple of 64
  header.push_back('\n');
  std::ofstream npy(dir_ / "base.npy", std::ios::binary);
  npy.write("\x93NUMPY\x01\x00", 8);
  uint16_t len = static_cast<uint16_t>(header.size());
  npy.write(reinterpret_cast<const char*>(&len), 2);
  npy << header;
  npy.write(reinterpret_cast<const char*>(data_.data()), static_cast<std::streamsize>(data_.size() * 4));
  npy.close();
  // JSONL with exact float text (max_digits10) parses back to the same floats.
  std::ofstream jsonl(dir_ / "base.jsonl");
  jsonl.precision(9);
  for (size_t i = 0; i < kN; ++i) {
    jsonl << "{\"vector\":[";
    for (size_t j = 0; j < kD; ++j) jsonl << (j ? "," : "") << data_[i * kD + j];
    jsonl << "]}\n";
  }
  jsonl.close();
  ASSERT_TRUE(BuildPublication(Options("from-fvecs")).ok());
  for (const char* name : {"npy", "jsonl"}) {
    BuildOptions o = Options(std::string("from-") + name);
    o.input = (dir_ / (std::string("base.") + name)).string();
    auto built = BuildPublication(o);
    ASSERT_TRUE(built.ok()) << name << ": " << built.status().ToString();
    EXPECT_EQ(Manifest(std::string("from-") + name), Manifest("from-fvecs")) << name;
  }
}

TEST_F(BuilderTest, RefusesImpossibleOptions) {
  BuildOptions o = Options("x");
  o.nlist = kN + 1;
  EXPECT_EQ(BuildPublication(o).status().message(), "`nlist` must be 1 to the number of vectors (2000), got 2001");
  o = Options("x");
  o.roots = 17;
  EXPECT_EQ(BuildPublication(o).status().message(), "`roots` must be 1 to nlist (16), got 17");
  o = Options("x");
  o.sample = 15;
  EXPECT_EQ(BuildPublication(o).status().code(), StatusCode::kInvalidArgument);
  o = Options("x");
  o.source = true;
  o.source_layout.row_group_rows = 0;
  EXPECT_EQ(BuildPublication(o).status().message(), "`source_row_group_rows` must be 1 to 2147483647, got 0");
  o.source_layout.row_group_rows = uint64_t{1} << 31;
  EXPECT_EQ(BuildPublication(o).status().message(),
            "`source_row_group_rows` must be 1 to 2147483647, got 2147483648");
  o = Options("x");
  o.input_options.vector_field = "a.b";
  EXPECT_EQ(BuildPublication(o).status().code(), StatusCode::kInvalidArgument);
  EXPECT_FALSE(std::filesystem::exists(dir_ / "x"));  // the build made it and left it empty: removed
}

// BuildOptions::cancel stops a build at its next progress point, in every
// pass after training, and the build then removes what it created: a local
// directory it made is gone with its scratch, a store holds nothing.
TEST_F(BuilderTest, ACancelledBuildFailsCancelledAndLeavesNothing) {
  for (std::string phase : {"sample", "train", "assign", "write"}) {
    SCOPED_TRACE(phase);
    store::CancelToken cancel;
    BuildOptions o = Options("cancelled-" + phase);
    o.cancel = &cancel;
    o.progress = [&](std::string_view p, uint64_t, uint64_t) {
      if (p == phase) cancel.Cancel();
    };
    auto built = BuildPublication(o);
    EXPECT_EQ(built.status().code(), StatusCode::kCancelled) << built.status().ToString();
    EXPECT_FALSE(std::filesystem::exists(o.out));
    EXPECT_EQ(Entries(dir_), (std::vector<std::string>{"base.fvecs"}));  // no scratch left

    store::CancelToken cancel_store;
    BuildOptions s = StoreOptions();
    s.cancel = &cancel_store;
    s.progress = [&](std::string_view p, uint64_t, uint64_t) {
      if (p == phase) cancel_store.Cancel();
    };
    store::MemoryStore store;
    EXPECT_EQ(BuildPublication(s, store).status().code(), StatusCode::kCancelled);
    EXPECT_FALSE(store.Peek("manifest.json").has_value());
    EXPECT_FALSE(store.Peek("centroids.parquet").has_value());
  }
}

// k-means training checks the token itself (issue 34): cancelled when
// training reports its first step, the build reports no further training
// step — 50 Lloyd iterations are not run to their end first.
TEST_F(BuilderTest, ACancelStopsKMeansTrainingAtItsNextIteration) {
  store::CancelToken cancel;
  BuildOptions o = Options("cancelled-in-training");
  o.iterations = 50;
  o.cancel = &cancel;
  std::vector<uint64_t> train_steps;
  o.progress = [&](std::string_view phase, uint64_t done, uint64_t) {
    if (phase != "train") return;
    train_steps.push_back(done);
    if (done == 1) cancel.Cancel();
  };
  auto built = BuildPublication(o);
  EXPECT_EQ(built.status().code(), StatusCode::kCancelled) << built.status().ToString();
  EXPECT_EQ(train_steps, (std::vector<uint64_t>{0, 1}));
  EXPECT_FALSE(std::filesystem::exists(o.out));
  EXPECT_EQ(Entries(dir_), (std::vector<std::string>{"base.fvecs"}));
}

}  // namespace
}  // namespace vigilo::ivf
