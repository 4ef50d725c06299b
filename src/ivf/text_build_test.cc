// Text builds (BuildOptions::embed_model) with the tiny fixture model, and
// JSONL payload columns (source_copy.cc): the published model and vectors,
// every refusal with its code and message and nothing left behind, the
// unembeddable-row rule, and the typing of JSONL members.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>

#include "embed_test_support.h"
#include "source_copy.h"
#include "vigilo/ivf/builder.h"
#include "vigilo/ivf/embed.h"
#include "vigilo/ivf/embed_import.h"
#include "vigilo/parquet/local_file.h"
#include "vigilo/store/forwarding_store.h"
#include "vigilo/ivf/source_lookup.h"
#include "vigilo/parquet/writer.h"
#include "vigilo/store/local_store.h"
#include "vigilo/store/memory_store.h"

namespace vigilo::ivf {
namespace {

namespace fs = std::filesystem;
namespace pq = vigilo::parquet;

const char* kRows =
    "{\"id\":0,\"text\":\"a small feline\",\"n\":1,\"x\":0.5,\"flag\":true,\"note\":null}\n"
    "{\"id\":1,\"text\":\"salt water\",\"n\":2,\"x\":2,\"flag\":false}\n"
    "{\"id\":2,\"text\":\"the capital of France\",\"n\":-3,\"x\":1e3,\"flag\":true,\"note\":\"hi\"}\n"
    "{\"id\":3,\"text\":\"well, the fox\",\"n\":4,\"x\":-0.25,\"flag\":false,\"note\":\"x\"}\n";

class TextBuildTest : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("vigilo_text_build_" + std::to_string(::getpid()) + "_" +
                                        testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "model");
    std::string tgz = embed_test::FixtureTarball(embed_test::WinkJson(embed_test::FixtureWords()));
    fs::path tarball = dir_ / "model.tgz";
    Write(tarball, tgz);
    auto model = store::OpenLocalStore((dir_ / "model").string());
    ASSERT_TRUE(model.ok());
    EmbedImportOptions options;
    options.buckets = 64;
    options.pages = 8;
    auto imported = ImportWinkEmbeddings(tarball.string(), **model, options);
    ASSERT_TRUE(imported.ok()) << imported.status().ToString();
    spec_ = imported->spec;
    Write(dir_ / "rows.jsonl", kRows);
  }
  void TearDown() override { fs::remove_all(dir_); }

  static void Write(const fs::path& p, const std::string& bytes) {
    std::ofstream(p, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }

  BuildOptions Options(const std::string& input = "rows.jsonl") const {
    BuildOptions o;
    o.input = (dir_ / input).string();
    o.input_options.key_field = "id";
    o.metric = Metric::kCosine;
    o.nlist = 2;
    o.roots = 1;
    o.out = (dir_ / "out").string();
    o.embed_model = (dir_ / "model").string();
    o.text_field = "text";
    return o;
  }

  // The refusal, exactly, and no output directory left.
  void ExpectRefused(const BuildOptions& o, StatusCode code, const std::string& message) {
    auto built = BuildPublication(o);
    ASSERT_FALSE(built.ok());
    EXPECT_EQ(built.status().code(), code) << built.status().ToString();
    EXPECT_EQ(built.status().message(), message);
    EXPECT_FALSE(fs::exists(dir_ / "out"));
  }

  Manifest ReadManifest() const {
    auto m = ParseManifest(embed_test::ReadWholeFile((dir_ / "out/manifest.json").string()));
    EXPECT_TRUE(m.ok()) << m.status().ToString();
    return m.ok() ? *m : Manifest{};
  }

  fs::path dir_;
  EmbeddingSpec spec_;
};

TEST_F(TextBuildTest, PublishesTheModelItsAssetsAndTheTextsVectors) {
  BuildOptions o = Options();
  o.source = true;
  o.source_columns = {"text", "vector"};
  auto built = BuildPublication(o);
  ASSERT_TRUE(built.ok()) << built.status().ToString();
  EXPECT_EQ(built->skipped_rows, 0u);
  Manifest m = ReadManifest();
  ASSERT_TRUE(m.embedding.has_value());
  auto section = ParseEmbeddingSection(embed_test::ReadWholeFile((dir_ / "model/embedding.json").string()));
  ASSERT_TRUE(section.ok());
  EXPECT_EQ(*m.embedding, *section);
  EXPECT_EQ(m.index.vector_field, "vector");
  EXPECT_EQ(m.index.metric, Metric::kCosine);
  EXPECT_EQ(m.index.dimension, 4u);
  EXPECT_EQ(m.index.ntotal, 4u);
  for (const ObjectDescriptor& asset : spec_.assets) {
    EXPECT_EQ(embed_test::ReadWholeFile((dir_ / "out" / asset.path).string()),
              embed_test::ReadWholeFile((dir_ / "model" / asset.path).string()))
        << asset.path;
  }
  // The source table's vector column is the build's vectors: each equals
  // the text's embedding, bit for bit.
  ASSERT_TRUE(m.source.has_value());
  ASSERT_EQ(m.source->columns.size(), 3u);
  EXPECT_EQ(m.source->columns[2].type.kind, ColumnType::Kind::kFloatList);
  auto file = pq::LocalParquetFile::Open((dir_ / "out" / m.source->files[0].object.path).string());
  ASSERT_TRUE(file.ok());
  auto vectors = file->ReadColumnChunk(0, 2);
  ASSERT_TRUE(vectors.ok()) << vectors.status().ToString();
  auto model = store::OpenLocalStore((dir_ / "model").string());
  ASSERT_TRUE(model.ok());
  const char* texts[] = {"a small feline", "salt water", "the capital of France", "well, the fox"};
  for (size_t r = 0; r < 4; ++r) {
    auto want = EmbedText(**model, spec_, texts[r]);
    ASSERT_TRUE(want.ok());
    ASSERT_EQ(vectors->list_offsets[r + 1] - vectors->list_offsets[r], 4u);
    EXPECT_EQ(std::memcmp(vectors->values.floats.data() + vectors->list_offsets[r], want->data(), 16), 0) << r;
  }
}

TEST_F(TextBuildTest, JsonlPayloadColumnsAreTypedOverTheWholeInput) {
  BuildOptions o = Options();
  o.source = true;
  auto built = BuildPublication(o);
  ASSERT_TRUE(built.ok()) << built.status().ToString();
  Manifest m = ReadManifest();
  ASSERT_TRUE(m.source.has_value());
  std::vector<std::string> got;
  for (const Field& f : m.source->columns) got.push_back(f.name + ":" + f.type.ToString());
  EXPECT_EQ(got, (std::vector<std::string>{"id:long", "flag:boolean", "n:long", "note:string", "text:string",
                                           "x:double"}));
  auto file = pq::LocalParquetFile::Open((dir_ / "out" / m.source->files[0].object.path).string());
  ASSERT_TRUE(file.ok());
  auto x = file->ReadColumnChunk(0, 5);
  ASSERT_TRUE(x.ok());
  EXPECT_EQ(x->values.doubles, (std::vector<double>{0.5, 2, 1000, -0.25}));
  auto note = file->ReadColumnChunk(0, 3);
  ASSERT_TRUE(note.ok());
  EXPECT_EQ(note->row_valid, (std::vector<uint8_t>{0, 0, 1, 1}));
  auto n = file->ReadColumnChunk(0, 2);
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(n->values.int64s, (std::vector<int64_t>{1, 2, -3, 4}));
  auto flag = file->ReadColumnChunk(0, 1);
  ASSERT_TRUE(flag.ok());
  EXPECT_EQ(flag->values.booleans, (std::vector<uint8_t>{1, 0, 1, 0}));
}

TEST_F(TextBuildTest, ArgumentRefusals) {
  BuildOptions o = Options();
  o.text_field.clear();
  ExpectRefused(o, StatusCode::kInvalidArgument, "`embed_model` needs `text_field` (the column to embed)");
  o = Options();
  o.embed_model.clear();
  ExpectRefused(o, StatusCode::kInvalidArgument, "`text_field` needs `embed_model` (the model that embeds it)");
  o = Options();
  o.metric = Metric::kL2Squared;
  ExpectRefused(o, StatusCode::kInvalidArgument,
                "`metric` must be cosine with `embed_model` (the model's vectors have unit length), got l2_squared");
  o = Options();
  o.skip_unembeddable = true;
  o.input_options.key_field.reset();
  ExpectRefused(o, StatusCode::kInvalidArgument,
                "`skip_unembeddable` needs `key` or `id_column`: rows left out would shift the row positions that "
                "key a publication without a key column, and only your own ids would still name the rows kept");
  o = Options();
  o.text_field = "title";
  ExpectRefused(o, StatusCode::kInvalidArgument,
                "`text_field` \"title\": the first line has no such member (members: \"flag\", \"id\", \"n\", "
                "\"note\", \"text\", \"x\")");
  o = Options();
  o.text_field = "n";
  ExpectRefused(o, StatusCode::kInvalidArgument, "`text_field` \"n\" is not a string column: row 0 holds a number");
  Write(dir_ / "vec.jsonl", "{\"id\":0,\"text\":\"cat\",\"vector\":[1,2]}\n");
  o = Options("vec.jsonl");
  ExpectRefused(o, StatusCode::kInvalidArgument,
                "the input has a column \"vector\", the name a text build gives the embeddings; rename it");
}

TEST_F(TextBuildTest, ModelRefusals) {
  BuildOptions o = Options();
  o.embed_model = (dir_ / "nomodel").string();
  fs::create_directories(o.embed_model);
  auto built = BuildPublication(o);
  ASSERT_FALSE(built.ok());
  EXPECT_EQ(built.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(built.status().message().rfind("`embed_model` " + o.embed_model + ": no readable embedding.json", 0), 0u)
      << built.status().message();
  EXPECT_FALSE(fs::exists(dir_ / "out"));

  Write(fs::path(o.embed_model) / "embedding.json", "{}");
  built = BuildPublication(o);
  ASSERT_FALSE(built.ok());
  EXPECT_EQ(built.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(built.status().message().rfind(
                "`embed_model` " + o.embed_model + ": embedding.json is not a valid embedding section", 0),
            0u)
      << built.status().message();

  o = Options();
  const std::string missing = spec_.assets[1].path;
  fs::rename(dir_ / "model" / missing, dir_ / "moved");
  built = BuildPublication(o);
  ASSERT_FALSE(built.ok());
  EXPECT_EQ(built.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(built.status().message().rfind("`embed_model` " + o.embed_model + ": the asset " + missing + " is missing",
                                           0),
            0u)
      << built.status().message();
  EXPECT_FALSE(fs::exists(dir_ / "out"));

  // A modified asset of the right size: its SHA-256 refuses it.
  fs::rename(dir_ / "moved", dir_ / "model" / missing);
  std::string bytes = embed_test::ReadWholeFile((dir_ / "model" / missing).string());
  bytes[bytes.size() / 2] ^= 1;
  Write(dir_ / "model" / missing, bytes);
  built = BuildPublication(o);
  ASSERT_FALSE(built.ok());
  EXPECT_EQ(built.status().code(), StatusCode::kIntegrityError);
  EXPECT_EQ(built.status().path(), (dir_ / "model" / missing).string());
  EXPECT_FALSE(fs::exists(dir_ / "out"));
}

TEST_F(TextBuildTest, UnembeddableRowsFailTheBuildUnlessSkipped) {
  Write(dir_ / "odd.jsonl",
        "{\"id\":0,\"text\":\"cat\"}\n{\"id\":1,\"text\":\"zzz qqq\"}\n{\"id\":2,\"text\":null}\n"
        "{\"id\":3,\"text\":\"salt water\"}\n{\"id\":4,\"text\":\"fox\"}\n");
  BuildOptions o = Options("odd.jsonl");
  auto built = BuildPublication(o);
  ASSERT_FALSE(built.ok());
  EXPECT_EQ(built.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(built.status().message(),
            "row 1: its text has no word in the model's vocabulary (2 rows of `text_field` \"text\" cannot be "
            "embedded; `skip_unembeddable` leaves them out)");
  EXPECT_EQ(built.status().path(), o.input);
  EXPECT_FALSE(fs::exists(dir_ / "out"));

  o.skip_unembeddable = true;
  built = BuildPublication(o);
  ASSERT_TRUE(built.ok()) << built.status().ToString();
  EXPECT_EQ(built->skipped_rows, 2u);
  EXPECT_EQ(built->manifest.index.ntotal, 3u);
  // Nothing but the publication in the output (the scratch file is gone).
  std::vector<std::string> top;
  for (const auto& e : fs::directory_iterator(dir_ / "out")) top.push_back(e.path().filename().string());
  std::sort(top.begin(), top.end());
  EXPECT_EQ(top, (std::vector<std::string>{"centroids.parquet", "embedding", "ivf_postings", "manifest.json"}));

  // With `id_column` instead of `key`, rows left out keep their ids: the
  // publication is keyed by the kept rows' positions and carries "id".
  fs::remove_all(dir_ / "out");
  o.input_options.key_field.reset();
  o.id_column = "id";
  built = BuildPublication(o);
  ASSERT_TRUE(built.ok()) << built.status().ToString();
  EXPECT_EQ(built->skipped_rows, 2u);
  EXPECT_EQ(built->manifest.index.source_key[0].name, "_row");
  ASSERT_TRUE(built->manifest.source.has_value());
  ASSERT_EQ(built->manifest.source->columns.size(), 2u);
  EXPECT_EQ(built->manifest.source->columns[1].name, "id");
  auto source = store::OpenLocalStore((dir_ / "out").string());
  ASSERT_TRUE(source.ok());
  PublicationReader reader(built->manifest);
  auto ids = LookupSource(reader, **source, {0, 1, 2}, {"id"});
  ASSERT_TRUE(ids.ok()) << ids.status().ToString();
  EXPECT_EQ(ids->values, (std::vector<std::string>{"0", "3", "4"}));
}

// `vigilo embed check`'s library side: every row the build would refuse,
// from JSONL and from Parquet (nulls included), and nothing written.
TEST_F(TextBuildTest, CheckListsEveryUnembeddableRowAndBuildsNothing) {
  Write(dir_ / "odd.jsonl",
        "{\"id\":0,\"text\":\"cat\"}\n{\"id\":1,\"text\":\"zzz qqq\"}\n{\"id\":2,\"text\":null}\n"
        "{\"id\":3,\"text\":\"salt water\"}\n{\"id\":4,\"text\":\"?!\"}\n");
  BuildOptions o = Options("odd.jsonl");
  auto check = CheckTextInput(o);
  ASSERT_TRUE(check.ok()) << check.status().ToString();
  EXPECT_EQ(check->rows, 5u);
  ASSERT_EQ(check->unembeddable.size(), 3u);
  EXPECT_EQ(check->unembeddable[0].row, 1u);
  EXPECT_EQ(check->unembeddable[0].why, "its text has no word in the model's vocabulary");
  EXPECT_EQ(check->unembeddable[1].row, 2u);
  EXPECT_EQ(check->unembeddable[1].why, "its text is null");
  EXPECT_EQ(check->unembeddable[2].row, 4u);
  EXPECT_EQ(check->unembeddable[2].why, "its text has no word in the model's vocabulary");
  EXPECT_FALSE(fs::exists(dir_ / "out"));

  // The same rows from Parquet (the text column optional, row 2 null).
  {
    std::vector<pq::ColumnSpec> cols(1);
    cols[0].name = "text";
    cols[0].kind = pq::ColumnKind::kString;
    cols[0].optional = true;
    auto sink = pq::FileSink::Create((dir_ / "odd.parquet").string());
    ASSERT_TRUE(sink.ok());
    auto w = pq::FileWriter::Open(cols, {}, sink->get());
    ASSERT_TRUE(w.ok());
    const std::vector<std::string_view> texts{"cat", "zzz qqq", "", "salt water", "?!"};
    const std::vector<uint8_t> valid{1, 1, 0, 1, 1};
    ASSERT_TRUE((*w)->BeginRowGroup().ok());
    ASSERT_TRUE((*w)->WriteByteArray(0, texts, valid).ok());
    ASSERT_TRUE((*w)->EndRowGroup().ok());
    ASSERT_TRUE((*w)->Finish().ok());
    ASSERT_TRUE((*sink)->Close().ok());
  }
  o = Options("odd.parquet");
  o.input_options.key_field.reset();
  auto from_parquet = CheckTextInput(o);
  ASSERT_TRUE(from_parquet.ok()) << from_parquet.status().ToString();
  EXPECT_EQ(from_parquet->rows, 5u);
  std::vector<uint64_t> rows;
  for (const UnembeddableRow& r : from_parquet->unembeddable) rows.push_back(r.row);
  EXPECT_EQ(rows, (std::vector<uint64_t>{1, 2, 4}));

  // Without a model or a text column there is nothing to check.
  o = Options();
  o.embed_model.clear();
  check = CheckTextInput(o);
  ASSERT_FALSE(check.ok());
  EXPECT_EQ(check.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(check.status().message(), "a text check needs the model directory (embed_model)");
  o = Options();
  o.text_field.clear();
  check = CheckTextInput(o);
  ASSERT_FALSE(check.ok());
  EXPECT_EQ(check.status().message(), "a text check needs the text column (text_field)");

  // A row the build accepts is not listed; a missing text column and a broken model are errors, as in a build.
  o = Options();
  check = CheckTextInput(o);
  ASSERT_TRUE(check.ok()) << check.status().ToString();
  EXPECT_EQ(check->rows, 4u);
  EXPECT_TRUE(check->unembeddable.empty());
  o.text_field = "title";
  check = CheckTextInput(o);
  ASSERT_FALSE(check.ok());
  EXPECT_EQ(check.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(check.status().message().rfind("`text_field` \"title\": the first line has no such member", 0), 0u)
      << check.status().message();
  o = Options();
  std::string bytes = embed_test::ReadWholeFile((dir_ / "model" / spec_.assets[1].path).string());
  bytes[bytes.size() / 2] ^= 1;
  Write(dir_ / "model" / spec_.assets[1].path, bytes);
  check = CheckTextInput(o);
  ASSERT_FALSE(check.ok());
  EXPECT_EQ(check.status().code(), StatusCode::kIntegrityError);
}

// A store that refuses manifest.json: the build fails after every other
// object, the model's assets included, was created — and removes them all.
class NoManifestStore final : public store::ForwardingStore {
 public:
  using ForwardingStore::ForwardingStore;
  Result<store::CreateResult> CreateIfAbsent(std::string_view key, std::span<const uint8_t> bytes, const store::AttemptContext* = nullptr) override {
    if (key == "manifest.json") return Unavailable("refused for the test");
    return inner().CreateIfAbsent(key, bytes);
  }
};

TEST_F(TextBuildTest, AFailedBuildRemovesTheAssetsItCopied) {
  auto local = store::OpenLocalStore((dir_ / "pub").string(), {.writable = true, .create_root = true});
  ASSERT_TRUE(local.ok());
  NoManifestStore failing(**local);
  BuildOptions o = Options();
  o.out.clear();
  o.scratch = dir_.string();
  o.source = true;
  auto built = BuildPublication(o, failing);
  ASSERT_FALSE(built.ok());
  EXPECT_EQ(built.status().code(), StatusCode::kUnavailable);
  size_t files = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir_ / "pub")) files += e.is_regular_file();
  EXPECT_EQ(files, 0u);
  auto retried = BuildPublication(o, **local);
  ASSERT_TRUE(retried.ok()) << retried.status().ToString();
  EXPECT_TRUE(fs::exists(dir_ / "pub" / spec_.assets[0].path));
}

// ---- JSONL payload columns of ordinary vector builds ----

class JsonlPayloadTest : public TextBuildTest {};

TEST_F(JsonlPayloadTest, MembersAreTypedFromEveryLine) {
  Write(dir_ / "t.jsonl",
        "{\"v\":[1,2],\"s\":\"a\",\"l\":1,\"d\":1,\"b\":true,\"z\":null,\"big\":1,\"mix\":1,\"arr\":[\"x\"],"
        "\"obj\":1}\n"
        "{\"v\":[3,4],\"s\":null,\"l\":-9223372036854775808,\"d\":1.5,\"b\":false,\"big\":18446744073709551615,"
        "\"mix\":\"one\",\"obj\":{\"k\":1}}\n"
        "[5,6]\n");
  auto members = ScanJsonlMembers((dir_ / "t.jsonl").string());
  ASSERT_TRUE(members.ok()) << members.status().ToString();
  std::map<std::string, std::string> got;
  for (const JsonlMember& m : *members) got[m.name] = m.type ? m.type->ToString() : "-" + m.why;
  EXPECT_EQ(got, (std::map<std::string, std::string>{
                     {"v", "-row 0 holds an array"},
                     {"s", "string"},
                     {"l", "long"},
                     {"d", "double"},
                     {"b", "boolean"},
                     {"z", "string"},
                     {"big", "double"},
                     {"mix", "-row 0 holds a number and row 1 a string"},
                     {"arr", "-row 0 holds an array"},
                     {"obj", "-row 1 holds an object"},
                 }));
}

TEST_F(JsonlPayloadTest, VectorBuildsCopyMembersOrRefuseThemByName) {
  Write(dir_ / "v.jsonl",
        "{\"emb\":[1,0],\"name\":\"a\",\"tags\":[\"x\"]}\n{\"emb\":[0,1],\"name\":\"b\",\"tags\":[]}\n"
        "{\"emb\":[1,1],\"name\":null}\n");
  BuildOptions o;
  o.input = (dir_ / "v.jsonl").string();
  o.input_options.vector_field = "emb";
  o.nlist = 1;
  o.roots = 1;
  o.out = (dir_ / "out").string();
  o.source = true;
  auto refused = BuildPublication(o);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(refused.status().message(),
            "member \"tags\" cannot be copied into a source table: row 0 holds an array; source columns from JSONL "
            "hold strings, integers, numbers or booleans (and null); leave it out with `columns`");
  EXPECT_FALSE(fs::exists(dir_ / "out"));
  o.source_columns = {"name", "emb"};
  auto built = BuildPublication(o);
  ASSERT_TRUE(built.ok()) << built.status().ToString();
  const SourceSpec& s = *built->manifest.source;
  ASSERT_EQ(s.columns.size(), 3u);
  EXPECT_EQ(s.columns[1].type.ToString(), "string");
  EXPECT_EQ(s.columns[2].type.ToString(), "list<float>");
  auto file = pq::LocalParquetFile::Open((dir_ / "out" / s.files[0].object.path).string());
  ASSERT_TRUE(file.ok());
  auto names = file->ReadColumnChunk(0, 1);
  ASSERT_TRUE(names.ok());
  EXPECT_EQ(names->row_valid, (std::vector<uint8_t>{1, 1, 0}));
  EXPECT_EQ(std::string(names->values.binary.begin(), names->values.binary.end()), "ab");
  auto vectors = file->ReadColumnChunk(0, 2);
  ASSERT_TRUE(vectors.ok());
  EXPECT_EQ(vectors->values.floats, (std::vector<float>{1, 0, 0, 1, 1, 1}));
}

}  // namespace
}  // namespace vigilo::ivf
