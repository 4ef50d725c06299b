// Payload lookup against the values the source table was built from, its
// I/O plan, and the checks that keep a wrong byte from becoming a payload.
#include "vigilo/ivf/source_lookup.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "store_test_support.h"
#include "vigilo/hash/sha256.h"
#include "vigilo/ivf/builder.h"
#include "vigilo/ivf/kmeans_random.h"
#include "vigilo/json/value.h"
#include "vigilo/json/write.h"
#include "vigilo/parquet/writer.h"
#include "vigilo/store/memory_store.h"

namespace vigilo::ivf {
namespace {

constexpr size_t kN = 1000, kD = 4;

std::string Title(size_t i) { return "title \"" + std::to_string(i) + "\""; }
bool HasTitle(size_t i) { return i % 7 != 0; }
double Score(size_t i) { return static_cast<double>(i) / 3; }

class SourceLookupTest : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("vigilo_source_lookup_" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    using parquet::ColumnKind;
    std::vector<parquet::ColumnSpec> cols(4);
    cols[0].name = "row";
    cols[0].kind = ColumnKind::kInt64;
    cols[1].name = "emb";
    cols[1].kind = ColumnKind::kFloatList;
    cols[2].name = "title";
    cols[2].kind = ColumnKind::kString;
    cols[2].optional = true;
    cols[3].name = "score";
    cols[3].kind = ColumnKind::kDouble;
    const std::string input = (dir_ / "in.parquet").string();
    auto sink = parquet::FileSink::Create(input);
    ASSERT_TRUE(sink.ok());
    auto w = parquet::FileWriter::Open(cols, {}, sink->get());
    ASSERT_TRUE(w.ok());
    Xoshiro256 rng(7);
    std::vector<int64_t> keys, offsets{0};
    std::vector<float> elems;
    std::vector<std::string> titles;
    std::vector<uint8_t> valid;
    std::vector<double> scores;
    for (size_t i = 0; i < kN; ++i) {
      keys.push_back(static_cast<int64_t>(i));
      for (size_t j = 0; j < kD; ++j) elems.push_back(static_cast<float>(rng.NextDouble() * 10));
      offsets.push_back(static_cast<int64_t>(elems.size()));
      titles.push_back(HasTitle(i) ? Title(i) : "");
      valid.push_back(HasTitle(i) ? 1 : 0);
      scores.push_back(Score(i));
    }
    std::vector<std::string_view> views(titles.begin(), titles.end());
    ASSERT_TRUE((*w)->BeginRowGroup().ok());
    ASSERT_TRUE((*w)->WriteInt64(0, keys).ok());
    ASSERT_TRUE((*w)->WriteFloatList(1, offsets, elems).ok());
    ASSERT_TRUE((*w)->WriteByteArray(2, views, valid).ok());
    ASSERT_TRUE((*w)->WriteDouble(3, scores).ok());
    ASSERT_TRUE((*w)->EndRowGroup().ok());
    ASSERT_TRUE((*w)->Finish().ok());
    ASSERT_TRUE((*sink)->Close().ok());
    BuildOptions o;
    o.input = input;
    o.input_options.vector_field = "emb";
    o.input_options.key_field = "row";
    o.metric = Metric::kL2Squared;
    o.encoding = Encoding::kLvq8;
    o.nlist = 8;
    o.roots = 2;
    o.source = true;
    o.source_columns = {"emb", "title", "score"};  // the vector too (not copied by default)
    o.source_layout.row_group_rows = 64;
    o.source_layout.max_file_bytes = 12'000;  // several files
    o.scratch = dir_.string();
    auto built = BuildPublication(o, store_);
    ASSERT_TRUE(built.ok()) << built.status().ToString();
    manifest_ = built->manifest;
    ASSERT_GT(manifest_.source->files.size(), 2u);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  static std::string Json(json::Value v) { return *json::ToCanonical(v); }

  std::filesystem::path dir_;
  store::MemoryStore store_;
  Manifest manifest_;
};

TEST_F(SourceLookupTest, ReturnsTheBuiltValuesForAnyKeys) {
  PublicationReader reader(manifest_);
  RecordingStore objects(store_);
  std::vector<int64_t> keys{70, 5, 999, 5, 0, 128, 127, 64, 700};
  auto rows = LookupSource(reader, objects, keys, {"title", "score", "row"});
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_EQ(rows->columns, (std::vector<std::string>{"title", "score", "row"}));
  for (size_t k = 0; k < keys.size(); ++k) {
    auto i = static_cast<size_t>(keys[k]);
    EXPECT_EQ(rows->Value(k, 0), HasTitle(i) ? Json(json::Value(Title(i))) : "null") << "key " << i;
    EXPECT_EQ(rows->Value(k, 1), Json(json::Value::Double(Score(i)))) << "key " << i;
    EXPECT_EQ(rows->Value(k, 2), std::to_string(i));
  }
  // Only footers and the chunks of the row groups the keys are in.
  uint64_t source_bytes = 0;
  for (const SourceFile& f : manifest_.source->files) source_bytes += f.object.size;
  EXPECT_LT(rows->bytes_fetched, source_bytes);
  EXPECT_EQ(rows->bytes_fetched, objects.BytesRead());
  EXPECT_EQ(rows->requests, static_cast<uint64_t>(objects.gets));
  EXPECT_EQ(objects.heads, 0);
  // Footers are cached: a second lookup reads only chunks.
  int before = objects.gets;
  auto again = LookupSource(reader, objects, {5}, {"emb"});
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(objects.gets - before, 1);
  EXPECT_EQ(again->Value(0, 0).front(), '[');
}

TEST_F(SourceLookupTest, RefusesWhatItCannotAnswer) {
  PublicationReader reader(manifest_);
  auto unknown = SourceLookup::Start(reader, {1}, {"title", "nope"});
  EXPECT_EQ(unknown.status().code(), StatusCode::kNotFound);
  EXPECT_NE(unknown.status().ToString().find("no column 'nope' (its columns: row, emb, title, score)"),
            std::string::npos)
      << unknown.status().ToString();
  EXPECT_EQ(SourceLookup::Start(reader, {1000}, {"title"}).status().code(), StatusCode::kOutOfRange);
  EXPECT_EQ(SourceLookup::Start(reader, {-1}, {"title"}).status().code(), StatusCode::kOutOfRange);
  Manifest bare = manifest_;
  bare.source.reset();
  PublicationReader no_source(bare);
  EXPECT_EQ(SourceLookup::Start(no_source, {1}, {"title"}).status().code(), StatusCode::kInvalidArgument);
  auto none = SourceLookup::Start(reader, {}, {"title"});
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE((*none)->done());
}

TEST_F(SourceLookupTest, ChecksTheBytesAgainstTheManifest) {
  // A footer that does not match the declared columns.
  Manifest renamed = manifest_;
  renamed.source->columns[2].name = "name";
  PublicationReader renamed_reader(renamed);
  store::MemoryStore& objects = store_;
  auto r = LookupSource(renamed_reader, objects, {3}, {"name"});
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidFormat);
  EXPECT_NE(r.status().ToString().find("leaf 2 is 'title'; the manifest declares 'name'"), std::string::npos)
      << r.status().ToString();

  // A source file whose second row group holds the wrong rows (its keys one off): the keys give it away.
  const SourceFile& f = manifest_.source->files[0];
  {
    using parquet::ColumnKind;
    std::vector<parquet::ColumnSpec> cols(4);
    cols[0] = {"row", ColumnKind::kInt64};
    cols[1] = {"emb", ColumnKind::kFloatList};
    cols[2] = {"title", ColumnKind::kString};
    cols[2].optional = true;
    cols[3] = {"score", ColumnKind::kDouble};
    parquet::MemorySink sink;
    auto w = parquet::FileWriter::Open(cols, {}, &sink);
    ASSERT_TRUE(w.ok());
    for (uint64_t begin = f.row_begin; begin < f.row_end; begin += 64) {
      const uint64_t end = std::min<uint64_t>(f.row_end, begin + 64);
      std::vector<int64_t> keys, offsets{0};
      std::vector<float> elems;
      std::vector<std::string_view> titles;
      std::vector<uint8_t> valid;
      std::vector<double> scores;
      for (uint64_t i = begin; i < end; ++i) {
        keys.push_back(static_cast<int64_t>(i) + (begin == f.row_begin + 64 ? 1 : 0));
        elems.insert(elems.end(), kD, 0.0f);
        offsets.push_back(static_cast<int64_t>(elems.size()));
        titles.push_back("x");
        valid.push_back(1);
        scores.push_back(0);
      }
      ASSERT_TRUE((*w)->BeginRowGroup().ok());
      ASSERT_TRUE((*w)->WriteInt64(0, keys).ok());
      ASSERT_TRUE((*w)->WriteFloatList(1, offsets, elems).ok());
      ASSERT_TRUE((*w)->WriteByteArray(2, titles, valid).ok());
      ASSERT_TRUE((*w)->WriteDouble(3, scores).ok());
      ASSERT_TRUE((*w)->EndRowGroup().ok());
    }
    ASSERT_TRUE((*w)->Finish().ok());
    store_.Overwrite(f.object.path + ".tmp", std::string(sink.bytes().begin(), sink.bytes().end()));
  }
  Manifest swapped = manifest_;
  swapped.source->files[0].object.path = f.object.path + ".tmp";
  swapped.source->files[0].object.size = store_.Peek(f.object.path + ".tmp")->size();
  // Its digest too: a whole small file is checked against it first; the key
  // check below is what guards a file read in ranges.
  swapped.source->files[0].object.sha256 = *Sha256Hex(*store_.Peek(f.object.path + ".tmp"));
  PublicationReader swapped_reader(swapped);
  auto fine = LookupSource(swapped_reader, objects, {static_cast<int64_t>(f.row_begin) + 3}, {"title"});
  ASSERT_TRUE(fine.ok()) << fine.status().ToString();  // row group 0's keys are right
  EXPECT_EQ(fine->Value(0, 0), "\"x\"");
  auto moved = LookupSource(swapped_reader, objects, {static_cast<int64_t>(f.row_begin) + 64 + 3}, {"score"});
  EXPECT_EQ(moved.status().code(), StatusCode::kIntegrityError);
  EXPECT_NE(moved.status().ToString().find("the key at row position " + std::to_string(f.row_begin + 67) + " is " +
                                           std::to_string(f.row_begin + 68)),
            std::string::npos)
      << moved.status().ToString();

  PublicationReader reader(manifest_);
  // A short read.
  auto lookup = SourceLookup::Start(reader, {2}, {"score"});
  ASSERT_TRUE(lookup.ok());
  std::vector<std::vector<uint8_t>> short_read(1, std::vector<uint8_t>(3));
  if ((*lookup)->requests().size() == 1) {
    EXPECT_EQ((*lookup)->Supply(std::move(short_read)).code(), StatusCode::kIntegrityError);
  }
}

}  // namespace
}  // namespace vigilo::ivf
