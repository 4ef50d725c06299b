// Runs the real `vigilo` binary: exact stdout bytes, stderr text and exit statuses.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "common/scratch_test_support.h"
#include "exit_codes.h"
#include "output.h"
#include "vigilo/parquet/writer.h"

namespace vigilo::cli {
namespace {

struct CliRun {
  int exit_code;
  std::string out;
  std::string err;
};

std::string TempPath(const std::string& name) {
  const auto dir = test_support::ProcessScratchDir("vigilo_cli_test");
  return (dir / name).string();
}

void WriteFile(const std::string& path, std::string_view data) {
  std::ofstream f(path, std::ios::binary);
  f.write(data.data(), static_cast<std::streamsize>(data.size()));
}

std::string ReadFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

// Runs `vigilo ARGS` with `input` on stdin.
CliRun Vigilo(const std::string& args, std::string_view input = "") {
  std::string in = TempPath("stdin"), out = TempPath("stdout"), err = TempPath("stderr");
  WriteFile(in, input);
  std::string cmd = std::string(VIGILO_BIN) + " " + args + " <" + in + " >" + out + " 2>" + err;
  int status = std::system(cmd.c_str());
  return CliRun{WIFEXITED(status) ? WEXITSTATUS(status) : -1, ReadFile(out), ReadFile(err)};
}

// The value on the text line "KEY  VALUE" (keys padded to one width), or
// "<absent>".
std::string TextValue(const std::string& out, const std::string& key) {
  size_t at = out.rfind(key + " ", 0) == 0 ? 0 : out.find("\n" + key + " ");
  if (at == std::string::npos) return "<absent>";
  if (at != 0) ++at;
  size_t end = out.find('\n', at);
  std::string rest = out.substr(at + key.size(), end - at - key.size());
  return rest.substr(rest.find_first_not_of(' '));
}

// The whitespace-separated cells of line `n` (0-based) of a text table.
std::vector<std::string> TableRow(const std::string& out, size_t n) {
  size_t at = 0;
  for (size_t i = 0; i < n && at != std::string::npos; ++i) at = out.find('\n', at) + 1;
  std::string line = out.substr(at, out.find('\n', at) - at);
  std::vector<std::string> cells;
  size_t i = 0;
  while ((i = line.find_first_not_of(' ', i)) != std::string::npos) {
    size_t end = line.find(' ', i);
    cells.push_back(line.substr(i, end == std::string::npos ? std::string::npos : end - i));
    i = end;
  }
  return cells;
}

// Every key of every JSON line in `out` is snake_case (docs/cli.md).
void ExpectSnakeCaseKeys(const std::string& out) {
  size_t at = 0;
  while ((at = out.find('"', at)) != std::string::npos) {
    size_t end = out.find('"', at + 1);
    ASSERT_NE(end, std::string::npos) << out;
    if (end + 1 < out.size() && out[end + 1] == ':') {
      std::string key = out.substr(at + 1, end - at - 1);
      EXPECT_TRUE(IsSnakeCase(key)) << key << " in " << out;
    }
    at = end + 1;
  }
}

TEST(CliTest, Version) {
  CliRun r = Vigilo("version");
  EXPECT_EQ(r.exit_code, 0);
  ASSERT_EQ(r.out.rfind("vigilo ", 0), 0u);
  std::string version = r.out.substr(7, r.out.size() - 8);
  EXPECT_EQ(r.out, "vigilo " + version + "\n");
  EXPECT_EQ(Vigilo("--version").out, r.out);
  EXPECT_EQ(Vigilo("-V").out, r.out);
  EXPECT_EQ(Vigilo("-V").exit_code, 0);
  EXPECT_EQ(Vigilo("version --json").out, "{\"version\":\"" + version + "\"}\n");
  EXPECT_EQ(Vigilo("version --pretty").out, "{\n  \"version\": \"" + version + "\"\n}\n");
}

TEST(CliTest, HelpPrintsTheCommandsAndEachCommandsFlags) {
  CliRun root = Vigilo("help");
  EXPECT_EQ(root.exit_code, 0) << root.err;
  EXPECT_EQ(root.err, "");
  EXPECT_EQ(root.out, Vigilo("--help").out);
  EXPECT_NE(root.out.find("\n  index "), std::string::npos) << root.out;
  CliRun build = Vigilo("help index build");
  EXPECT_EQ(build.exit_code, 0) << build.err;
  EXPECT_NE(build.out.find("Usage: vigilo index build [OPTIONS]"), std::string::npos) << build.out;
  EXPECT_NE(build.out.find("-o,--out"), std::string::npos) << build.out;
  EXPECT_EQ(build.out, Vigilo("index build --help").out);
  CliRun unknown = Vigilo("help index biuld");
  EXPECT_EQ(unknown.exit_code, kExitUsage);
  EXPECT_EQ(unknown.err, "vigilo: invalid_argument: index: unknown command 'biuld' (did you mean build?)\n");
  EXPECT_EQ(unknown.out, "");
}

TEST(CliTest, JsonCanonWritesExactBytes) {
  CliRun r = Vigilo("json canon", " {\"b\": [1E2, -0, \"\\u00e9\"], \"a\": null}\n");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "{\"a\":null,\"b\":[100.0,-0.0,\"\xc3\xa9\"]}");
  std::string file = TempPath("doc.json");
  WriteFile(file, "[1.5e300,1e-7]");
  EXPECT_EQ(Vigilo("json canon " + file).out, "[1.5e300,1e-7]");
}

TEST(CliTest, JsonCanonErrorsHaveCodeOffsetAndExitStatus) {
  CliRun dup = Vigilo("json canon", "{\"a\":1,\"a\":2}");
  EXPECT_EQ(dup.exit_code, 3);
  EXPECT_EQ(dup.out, "");
  EXPECT_EQ(dup.err, "vigilo: parse_error: duplicate object key \"a\" (at byte 7)\n");
  CliRun deep = Vigilo("json canon", std::string(200, '['));
  EXPECT_EQ(deep.exit_code, 7);
  CliRun big = Vigilo("json canon --max-bytes 3", "[1,2]");
  EXPECT_EQ(big.exit_code, 7);
  EXPECT_NE(big.err.find("limit_exceeded"), std::string::npos);
  CliRun missing = Vigilo("json canon /nonexistent/file.json");
  EXPECT_EQ(missing.exit_code, 8);
  EXPECT_NE(missing.err.find("not_found"), std::string::npos);
}

TEST(CliTest, JsonCheck) {
  EXPECT_EQ(Vigilo("json check", "{\"a\":[1,2.0]}").exit_code, 0);
  CliRun r = Vigilo("json check", "{\"a\": 1}");
  EXPECT_EQ(r.exit_code, 5);
  EXPECT_NE(r.err.find("not_canonical"), std::string::npos);
  EXPECT_NE(r.err.find("(at byte 5)"), std::string::npos);
  EXPECT_EQ(Vigilo("json check", "{\"a\":1}\n").exit_code, 5);  // trailing LF is not canonical
  EXPECT_EQ(Vigilo("json check", "{").exit_code, 3);
}

TEST(CliTest, HashMatchesReferenceTools) {
  std::string file = TempPath("abc.txt");
  WriteFile(file, "abc");
  CliRun b3 = Vigilo("hash --blake3 " + file);
  EXPECT_EQ(b3.exit_code, 0) << b3.err;
  EXPECT_EQ(b3.out, "6437b3ac38465133ffb63b75273a8db548c558465d79db03fd359c6cd5bd9d85  " + file + "\n");
  EXPECT_EQ(Vigilo("hash " + file).out, b3.out);  // BLAKE3 is the default
  CliRun sha = Vigilo("hash --sha256 " + file);
  EXPECT_EQ(sha.out, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad  " + file + "\n");
  CliRun as_json = Vigilo("hash --sha256 --json " + file);
  EXPECT_EQ(as_json.out, "{\"algorithm\":\"sha256\",\"digest\":\"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad\","
                         "\"file\":\"" + file + "\"}\n");
  CliRun stdin_hash = Vigilo("hash -", "abc");
  EXPECT_EQ(stdin_hash.out, "6437b3ac38465133ffb63b75273a8db548c558465d79db03fd359c6cd5bd9d85  -\n");
  CliRun missing = Vigilo("hash /nonexistent");
  EXPECT_EQ(missing.exit_code, 8);
}

// A DuckDB-written file from the parquet tests (200 rows, one row group).
const std::string kDuckDbFile = std::string(VIGILO_SOURCE_DIR) + "/src/parquet/testdata/duckdb_v1_snappy.parquet";

TEST(CliTest, ParquetInspectDescribesTheFile) {
  CliRun r = Vigilo("parquet inspect --json " + kDuckDbFile);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("{\"created_by\":\"DuckDB version v1.5.6", 0), 0u) << r.out.substr(0, 80);
  EXPECT_NE(r.out.find("\"num_rows\":200,\"row_groups\":[{"), std::string::npos);
  EXPECT_NE(r.out.find("{\"max_definition_level\":3,\"max_repetition_level\":1,\"path\":\"vec.list.element\","
                       "\"physical_type\":\"FLOAT\",\"shape\":\"list\"}"),
            std::string::npos);
  EXPECT_EQ(r.out.back(), '\n');
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1);
  // Text: a summary, then one row per leaf column with its bytes.
  CliRun text = Vigilo("parquet inspect " + kDuckDbFile);
  EXPECT_EQ(text.exit_code, 0) << text.err;
  EXPECT_EQ(text.out.rfind("num_rows    200\nrow_groups  1\ncolumns     12\ncreated_by  DuckDB version v1.5.6", 0), 0u)
      << text.out;
  EXPECT_NE(text.out.find("\npath              physical_type  shape   compressed_bytes  uncompressed_bytes\n"),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("\nvec.list.element  FLOAT          list                 678                1360\n"),
            std::string::npos)
      << text.out;
}

TEST(CliTest, ParquetCatPrintsJsonLines) {
  CliRun r = Vigilo("parquet cat " + kDuckDbFile + " --columns id,name --row-group 0");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.substr(0, 49), "{\"id\":0,\"name\":null}\n{\"id\":1,\"name\":\"name-1-\xc3\xa9\"}\n");
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 200);
  CliRun all = Vigilo("parquet cat " + kDuckDbFile);
  EXPECT_NE(all.out.find("\"vec\":[1.0,null,3.0]"), std::string::npos);
}

TEST(CliTest, ParquetErrorsAreSpecific) {
  CliRun group = Vigilo("parquet cat " + kDuckDbFile + " --row-group 99");
  EXPECT_EQ(group.exit_code, 8);
  EXPECT_EQ(group.err, "vigilo: not_found: row group 99 does not exist (the file has 1)\n");
  CliRun column = Vigilo("parquet cat " + kDuckDbFile + " --columns nope");
  EXPECT_EQ(column.err, "vigilo: not_found: no top-level column \"nope\"\n");
  std::string truncated = TempPath("truncated.parquet");
  WriteFile(truncated, ReadFile(kDuckDbFile).substr(0, 1000));
  CliRun cut = Vigilo("parquet inspect " + truncated);
  EXPECT_EQ(cut.exit_code, 3);
  EXPECT_EQ(cut.err, "vigilo: parse_error: file does not end with PAR1 (at byte 996)\n");
  EXPECT_EQ(cut.out, "");
}

// Two cases with one id: `dataset pack` fails and publishes no manifest.
TEST(CliTest, DatasetPackRefusesRepeatedCaseIds) {
  std::string doc = TempPath("dup.json");
  WriteFile(doc, R"({"cases":[{"id":"00000000-0000-4000-8000-000000000001","input":{"prompt":"a"}},)"
                 R"({"id":"00000000-0000-4000-8000-000000000002","input":{"prompt":"b"}},)"
                 R"({"id":"00000000-0000-4000-8000-000000000001","input":{"prompt":"c"}}],"dataset_id":"dup"})");
  std::string out = TempPath("dup-store");
  std::filesystem::remove_all(out);
  CliRun r = Vigilo("dataset pack " + doc + " --out " + out + " --attempt 0f8e5c1a-2b3d-4e5f-8a9b-0c1d2e3f4a5b");
  EXPECT_EQ(r.exit_code, 4);
  EXPECT_EQ(r.err,
            "vigilo: invalid_format: $.cases[2].id: case id 00000000-0000-4000-8000-000000000001 at ordinal 2 "
            "repeats the id of ordinal 0 (1 case repeats an earlier id)\n");
  EXPECT_EQ(r.out, "");
  bool manifest = false;
  if (std::filesystem::exists(out)) {
    for (auto& e : std::filesystem::recursive_directory_iterator(out)) {
      manifest |= e.path().filename() == "manifest.json";
    }
  }
  EXPECT_FALSE(manifest);
}

const std::string kSmallDataset =
    std::string(VIGILO_SOURCE_DIR) + "/tests/fixtures/identity/small-dataset/dataset.json";
const std::string kAttempt = "0f8e5c1a-2b3d-4e5f-8a9b-0c1d2e3f4a5b";

// Packing again is a verified replay (the same root reference); other bytes
// at a key are refused and left as they are.
TEST(CliTest, DatasetPackReplaysAndNeverOverwrites) {
  std::string out = TempPath("replay-store");
  std::filesystem::remove_all(out);
  std::string pack = "dataset pack " + kSmallDataset + " --out " + out + " --attempt " + kAttempt + " --max-cases 3";
  CliRun first = Vigilo(pack);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  CliRun again = Vigilo(pack);
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(again.out, first.out);
  const std::string key = "datasets/capitals/attempts/" + kAttempt + "/g1/batches/0000000000-0000000003.jsonl";
  ASSERT_TRUE(std::filesystem::exists(out + "/" + key));
  WriteFile(out + "/" + key, "not the batch\n");
  CliRun conflict = Vigilo(pack);
  EXPECT_EQ(conflict.exit_code, 9);
  EXPECT_EQ(conflict.err, "vigilo: already_exists: " + key + ": object already exists with different bytes\n");
  EXPECT_EQ(conflict.out, "");
  EXPECT_EQ(ReadFile(out + "/" + key), "not the batch\n");
}

// The default output is key-value text with strings unquoted; --json is one
// canonical line with the same snake_case keys; --pretty indents it.
TEST(CliTest, DatasetIdentityTextAndJson) {
  const std::string hash = "c72eb36962365aa410aaad9987c3838eae79434d634b0d9149053c80fa6d3b26";
  const std::string version = "f6f887b1-731a-8819-a21d-23afcfc562d0";
  CliRun text = Vigilo("dataset identity " + kSmallDataset);
  EXPECT_EQ(text.exit_code, 0) << text.err;
  EXPECT_EQ(text.out, "dataset_hash        " + hash + "\ndataset_version_id  " + version + "\ncase_count          5\n");
  CliRun json = Vigilo("dataset identity --json " + kSmallDataset);
  EXPECT_EQ(json.out, "{\"case_count\":5,\"dataset_hash\":\"" + hash + "\",\"dataset_version_id\":\"" + version + "\"}\n");
  CliRun pretty = Vigilo("dataset identity --pretty " + kSmallDataset);
  EXPECT_EQ(pretty.out, "{\n  \"case_count\": 5,\n  \"dataset_hash\": \"" + hash + "\",\n  \"dataset_version_id\": \"" +
                            version + "\"\n}\n");
}

// Issue 34: `dataset identity` reads JSON Lines as `dataset ingest` does
// (the same flags, the same assembled document), and a .json file that
// holds JSON Lines is told how to read it.
TEST(CliTest, DatasetIdentityOfJsonLines) {
  const std::string a = R"({"id":"00000000-0000-4000-8000-000000000001","input":{"prompt":"a"}})";
  const std::string b = R"({"id":"00000000-0000-4000-8000-000000000002","input":{"prompt":"b"}})";
  const std::string lines = TempPath("identity-lines.jsonl");
  std::ofstream(lines, std::ios::binary) << "\xef\xbb\xbf" << a << "\r\n" << b << "\r\n\r\n";
  const std::string doc = TempPath("identity-doc.json");
  std::ofstream(doc, std::ios::binary) << R"({"cases":[)" << a << "," << b << R"(],"dataset_id":"ids"})";
  CliRun from_lines = Vigilo("dataset identity --json --dataset-id ids " + lines);
  EXPECT_EQ(from_lines.exit_code, 0) << from_lines.err;
  CliRun from_doc = Vigilo("dataset identity --json " + doc);
  EXPECT_EQ(from_doc.exit_code, 0) << from_doc.err;
  EXPECT_EQ(from_lines.out, from_doc.out);
  EXPECT_NE(from_lines.out.find("\"case_count\":2"), std::string::npos) << from_lines.out;

  CliRun no_id = Vigilo("dataset identity " + lines);
  EXPECT_EQ(no_id.exit_code, kExitUsage);
  EXPECT_EQ(no_id.err, "vigilo: invalid_argument: --dataset-id is required for JSON Lines input\n");

  const std::string misnamed = TempPath("identity-lines.json");
  std::ofstream(misnamed, std::ios::binary) << a << "\n" << b << "\n";
  CliRun wrong = Vigilo("dataset identity " + misnamed);
  EXPECT_EQ(wrong.exit_code, 3) << wrong.err;
  EXPECT_NE(wrong.err.find("it looks like JSON Lines (one case per line), which is read with --format jsonl and a "
                           "--dataset-id"),
            std::string::npos)
      << wrong.err;
  CliRun right = Vigilo("dataset identity --json --format jsonl --dataset-id ids " + misnamed);
  EXPECT_EQ(right.out, from_doc.out) << right.err;

  const std::string missing = TempPath("identity-missing.jsonl");
  std::ofstream(missing, std::ios::binary) << a << "\n" << R"({"id":"00000000-0000-4000-8000-000000000002"})" << "\n";
  CliRun field = Vigilo("dataset identity --dataset-id ids " + missing);
  EXPECT_EQ(field.exit_code, 4);
  EXPECT_EQ(field.err, "vigilo: invalid_format: line 2: $.cases[1].input: missing required field (at byte " +
                           std::to_string(a.size() + 1) + ")\n");
}

// With no control database nothing was ever recorded: a sentence in text,
// nothing at all with --json (zero records).
TEST(CliTest, StoreCleanupWithNothingRecorded) {
  std::string control = TempPath("no-control.sqlite3");
  std::filesystem::remove(control);
  ::setenv("VIGILO_CONTROL", control.c_str(), 1);
  CliRun text = Vigilo("store cleanup");
  CliRun json = Vigilo("store cleanup --json");
  ::unsetenv("VIGILO_CONTROL");
  EXPECT_EQ(text.exit_code, 0) << text.err;
  EXPECT_EQ(text.out, "no cleanup work is due\n");
  EXPECT_EQ(json.exit_code, 0) << json.err;
  EXPECT_EQ(json.out, "");
  EXPECT_FALSE(std::filesystem::exists(control));
}

// `dataset verify --store SPEC`: a configured alias (--stores FILE or
// $VIGILO_STORES) or a directory; each reference's storage_alias picks the
// store it is read from.
TEST(CliTest, DatasetVerifyResolvesTheStoreByAliasOrDirectory) {
  std::string out = TempPath("alias-store");
  std::filesystem::remove_all(out);
  std::string root = TempPath("alias-root.json");
  CliRun packed = Vigilo("dataset pack " + kSmallDataset + " --out " + out + " --attempt " + kAttempt +
                         " --alias archive --max-cases 2");
  ASSERT_EQ(packed.exit_code, 0) << packed.err;
  ASSERT_NE(packed.out.find(R"("storage_alias":"archive")"), std::string::npos) << packed.out;
  WriteFile(root, packed.out);
  std::string stores = TempPath("stores.json");
  WriteFile(stores, R"({"version":1,"stores":{"archive":{"url":"file://)" + out + R"("}}})");
  std::string empty = TempPath("no-stores.json");
  WriteFile(empty, R"({"version":1,"stores":{}})");

  CliRun by_alias = Vigilo("dataset verify " + root + " --store archive --stores " + stores + " --json");
  EXPECT_EQ(by_alias.exit_code, 0) << by_alias.err;
  EXPECT_NE(by_alias.out.find(R"("batch_count":3,"case_count":5,)"), std::string::npos) << by_alias.out;
  EXPECT_NE(by_alias.out.find(R"("verified":true)"), std::string::npos) << by_alias.out;
  ExpectSnakeCaseKeys(by_alias.out);

  ::setenv("VIGILO_STORES", stores.c_str(), 1);
  CliRun by_env = Vigilo("dataset verify " + root + " --store archive --json");
  ::unsetenv("VIGILO_STORES");
  EXPECT_EQ(by_env.exit_code, 0) << by_env.err;
  EXPECT_EQ(by_env.out, by_alias.out);
  CliRun text = Vigilo("dataset verify " + root + " --store archive --stores " + stores);
  EXPECT_EQ(text.exit_code, 0) << text.err;
  EXPECT_EQ(TextValue(text.out, "verified"), "true") << text.out;
  EXPECT_EQ(TextValue(text.out, "batch_count"), "3") << text.out;
  EXPECT_EQ(TextValue(text.out, "case_count"), "5") << text.out;

  CliRun unknown = Vigilo("dataset verify " + root + " --store archive --stores " + empty);
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_EQ(unknown.err, "vigilo: invalid_argument: no store alias \"archive\" is configured in " + empty +
                             "; for a directory write ./archive\n");

  // The directory itself is the store "local"; its references name "archive".
  CliRun by_path = Vigilo("dataset verify " + root + " --store " + out + " --stores " + empty);
  EXPECT_EQ(by_path.exit_code, 8);
  EXPECT_EQ(by_path.err, "vigilo: not_found: a reference names store alias \"archive\", which is not configured in " +
                             empty + "; the store in use is \"local\"\n");
  EXPECT_EQ(by_path.out, "");
}

// A small valid manifest (the model of ivf/manifest_test.cc, written out).
const char* const kManifest =
    R"({"artifact-uuid":"0b1c2d3e-4f50-4617-8283-94a5b6c7d8e9","format-version":1,)"
    R"("hierarchy":{"centroids":{"path":"centroids.parquet","sha256":")" "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
    R"(","size":100},"cid-offsets":[0,2]},)"
    R"("index":{"dimension":4,"encoding":"lvq8","metric":"l2_squared","nlist":2,"ntotal":3,)"
    R"("source-key":[{"name":"id","type":"long"}],"vector-field":"vector"},)"
    R"("postings":{"files":[{"cid-bucket":0,"max-cid":1,"min-cid":0,)"
    R"("path":"ivf_postings/cid_bucket=000000/part-000000.parquet","rows":3,"sha256":")"
    "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb" R"(","size":200}]}})";

TEST(CliTest, IndexVerifyManifestOnlyChecksTheManifest) {
  std::string good = TempPath("manifest.json");
  WriteFile(good, kManifest);
  // Its artifact-uuid is not the derived one: only --any-uuid accepts it.
  CliRun ok = Vigilo("index verify --manifest-only --any-uuid " + good + " --json");
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_EQ(ok.out,
            "{\"checked\":[\"manifest_rules\"],\"level\":\"manifest\",\"manifest_bytes\":" +
                std::to_string(std::string(kManifest).size()) +
                ",\"not_checked\":[\"artifact_uuid\",\"object_sizes\",\"footers\",\"schemas\","
                "\"row_group_statistics\",\"row_counts\",\"column_chunks\",\"values\",\"sha256\"]}\n");
  CliRun derived = Vigilo("index verify --manifest-only " + good);
  EXPECT_EQ(derived.exit_code, 6);
  EXPECT_EQ(derived.err.rfind("vigilo: integrity_error: manifest.json: $.artifact-uuid: artifact-uuid "
                              "0b1c2d3e-4f50-4617-8283-94a5b6c7d8e9 is not the UUID derived",
                              0),
            0u)
      << derived.err;
  // The older spelling checks the same, says so, and names the new one.
  CliRun as_text = Vigilo("index validate --manifest-only " + good);
  EXPECT_EQ(as_text.exit_code, 0) << as_text.err;
  EXPECT_EQ(as_text.err, "vigilo: note: index validate is an older spelling of index verify --manifest-only --any-uuid\n");
  EXPECT_EQ(as_text.out,
            "level           manifest\n"
            "checked         [\"manifest_rules\"]\n"
            "not_checked     [\"artifact_uuid\",\"object_sizes\",\"footers\",\"schemas\",\"row_group_statistics\","
            "\"row_counts\",\"column_chunks\",\"values\",\"sha256\"]\n"
            "manifest_bytes  " + std::to_string(std::string(kManifest).size()) + "\n");
  std::string bad = TempPath("bad-manifest.json");
  std::string text = kManifest;
  text.replace(text.find("\"rows\":3"), 8, "\"rows\":2");
  WriteFile(bad, text);
  CliRun r = Vigilo("index verify --manifest-only --any-uuid " + bad);
  EXPECT_EQ(r.exit_code, 4);
  EXPECT_EQ(r.err, "vigilo: invalid_format: bad-manifest.json: $.postings.files: postings rows sum to 2; ntotal is 3\n");
  CliRun absent = Vigilo("index verify " + TempPath("absent.json"));
  EXPECT_EQ(absent.exit_code, 8);
  EXPECT_EQ(absent.err.rfind("vigilo: not_found: absent.json: ", 0), 0u) << absent.err;
  // Without --manifest-only the objects are read: centroids.parquet is not there.
  CliRun objects = Vigilo("index verify --quick --any-uuid " + good);
  EXPECT_EQ(objects.exit_code, 8);
  EXPECT_EQ(objects.err.rfind("vigilo: not_found: centroids.parquet", 0), 0u) << objects.err;
  EXPECT_EQ(Vigilo("index verify --manifest-only --quick " + good).exit_code, kExitUsage);
}

// `index inspect` lists the source table's columns: name, manifest type,
// and the Parquet physical and logical types its first file's footer states.
TEST(CliTest, IndexInspectListsTheSourceColumns) {
  std::string base = TempPath("inspect.fvecs");
  std::string bytes;
  for (int i = 0; i < 60; ++i) {
    int32_t d = 3;
    bytes.append(reinterpret_cast<const char*>(&d), 4);
    for (int j = 0; j < 3; ++j) {
      float v = static_cast<float>(i % 6 + j);
      bytes.append(reinterpret_cast<const char*>(&v), 4);
    }
  }
  WriteFile(base, bytes);
  std::string out = TempPath("inspect-pub");
  std::filesystem::remove_all(out);
  CliRun built = Vigilo("index build " + base + " --metric l2_squared --nlist 4 --source -q -o " + out);
  ASSERT_EQ(built.exit_code, 0) << built.err;
  CliRun r = Vigilo("index inspect --json " + out);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find(",\"source_columns\":[{\"logical_type\":null,\"name\":\"_row\",\"physical_type\":\"INT64\","
                       "\"type\":\"long\"},{\"logical_type\":\"LIST\",\"name\":\"vector\",\"physical_type\":\"FLOAT\","
                       "\"type\":\"list<float>\"}],\"source_key\":\"_row\",\"source_rows\":60}"),
            std::string::npos)
      << r.out;
  CliRun text = Vigilo("index inspect " + out);
  EXPECT_EQ(TextValue(text.out, "source_key"), "_row") << text.out;
  EXPECT_EQ(TextValue(text.out, "source_columns"),
            "[{\"logical_type\":null,\"name\":\"_row\",\"physical_type\":\"INT64\",\"type\":\"long\"},"
            "{\"logical_type\":\"LIST\",\"name\":\"vector\",\"physical_type\":\"FLOAT\",\"type\":\"list<float>\"}]")
      << text.out;
}

// `index build` on a small .fvecs file, then `index verify`; a
// second build into the same directory fails and changes nothing.
TEST(CliTest, IndexBuildThenValidate) {
  std::string base = TempPath("base.fvecs");
  std::string bytes;
  for (int i = 0; i < 200; ++i) {
    int32_t d = 4;
    bytes.append(reinterpret_cast<const char*>(&d), 4);
    for (int j = 0; j < 4; ++j) {
      float v = static_cast<float>((i % 10) * 3 + j) + static_cast<float>(i % 7) * 0.01f;
      bytes.append(reinterpret_cast<const char*>(&v), 4);
    }
  }
  WriteFile(base, bytes);
  std::string out = TempPath("pub");
  std::filesystem::remove_all(out);
  std::string build = "index build " + base + " --metric l2_squared --encoding lvq4 --nlist 10 --roots 3 --json -o " + out;
  CliRun r = Vigilo(build);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\"nlist\":10,\"ntotal\":200,"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"roots\":3,\"sample\":200,"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"empty_leaves\":"), std::string::npos) << r.out;
  ExpectSnakeCaseKeys(r.out);
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1);
  EXPECT_EQ(r.err, "");  // stderr is not a terminal: no progress drawn
  CliRun v = Vigilo("index verify " + out + "/manifest.json --json");
  EXPECT_EQ(v.exit_code, 0) << v.err;
  EXPECT_NE(v.out.find("\"level\":\"full\""), std::string::npos);
  EXPECT_NE(v.out.find("\"not_checked\":[]"), std::string::npos);
  CliRun inspect = Vigilo("index inspect " + out + "/manifest.json --json");
  EXPECT_EQ(inspect.exit_code, 0) << inspect.err;
  EXPECT_NE(inspect.out.find("\"lists\":{\"count\":10,"), std::string::npos) << inspect.out;
  EXPECT_NE(inspect.out.find("\"postings_files\":3,"), std::string::npos) << inspect.out;
  ExpectSnakeCaseKeys(inspect.out);
  ExpectSnakeCaseKeys(v.out);
  CliRun inspect_text = Vigilo("index inspect " + out + "/manifest.json");
  EXPECT_EQ(inspect_text.exit_code, 0) << inspect_text.err;
  EXPECT_EQ(TextValue(inspect_text.out, "lists.count"), "10") << inspect_text.out;
  EXPECT_EQ(TextValue(inspect_text.out, "postings_files"), "3") << inspect_text.out;
  EXPECT_EQ(TextValue(inspect_text.out, "source_rows"), "-") << inspect_text.out;
  EXPECT_EQ(TextValue(inspect_text.out, "source_columns"), "[]") << inspect_text.out;
  EXPECT_EQ(TextValue(inspect_text.out, "encoding"), "lvq4") << inspect_text.out;  // not JSON-quoted
  // Row 33 is its own nearest neighbour at distance 0 with every list probed.
  CliRun query = Vigilo("index query " + out + "/manifest.json --vector [9.05,10.05,11.05,12.05] -k 2 --nprobe 10 --json");
  EXPECT_EQ(query.exit_code, 0) << query.err;
  EXPECT_EQ(query.out.substr(0, query.out.find('\n')), "{\"_distance\":0,\"_row\":33,\"query\":0,\"rank\":0}")
      << query.out;
  EXPECT_EQ(std::count(query.out.begin(), query.out.end(), '\n'), 2);
  CliRun query_text = Vigilo("index query " + out + "/manifest.json --vector [9.05,10.05,11.05,12.05] -k 2 --nprobe 10");
  EXPECT_EQ(TableRow(query_text.out, 0), (std::vector<std::string>{"query", "rank", "_row", "_distance"}))
      << query_text.out;
  EXPECT_EQ(TableRow(query_text.out, 1), (std::vector<std::string>{"0", "0", "33", "0"})) << query_text.out;
  CliRun wrong = Vigilo("index query " + out + "/manifest.json --vector [1,2,3]");
  EXPECT_EQ(wrong.exit_code, kExitUsage);
  EXPECT_NE(wrong.err.find("the index dimension is 4"), std::string::npos) << wrong.err;
  std::string manifest = ReadFile(out + "/manifest.json");
  CliRun again = Vigilo(build);
  EXPECT_EQ(again.exit_code, 9);
  EXPECT_NE(again.err.find("already_exists"), std::string::npos) << again.err;
  EXPECT_EQ(ReadFile(out + "/manifest.json"), manifest);
  EXPECT_EQ(Vigilo("index build --input " + base + " --metric dot --encoding lvq4 --out " + out + "2").exit_code,
            kExitUsage);
  CliRun none = Vigilo("index build --metric l2_squared --encoding lvq4 --out " + out + "2");
  EXPECT_EQ(none.exit_code, kExitUsage);
  EXPECT_EQ(none.err, "vigilo: invalid_argument: the input file is required: vigilo index build FILE …\n");
  CliRun twice = Vigilo("index build " + base + " --input " + base + " --metric l2_squared --encoding lvq4 --out " + out + "2");
  EXPECT_EQ(twice.exit_code, kExitUsage);
  EXPECT_EQ(twice.err, "vigilo: invalid_argument: give the input once: as FILE or as --input, not both\n");
  EXPECT_FALSE(std::filesystem::exists(out + "2"));
  // The default output is the key-value text, and --quiet is accepted.
  std::string out3 = TempPath("pub3");
  std::filesystem::remove_all(out3);
  CliRun quiet = Vigilo("index build --input " + base + " --metric l2_squared --encoding lvq4 --nlist 10 -q -o " + out3);
  ASSERT_EQ(quiet.exit_code, 0) << quiet.err;
  EXPECT_EQ(quiet.err, "");
  EXPECT_EQ(TextValue(quiet.out, "manifest"), out3 + "/manifest.json") << quiet.out;
  EXPECT_EQ(TextValue(quiet.out, "ntotal"), "200") << quiet.out;
  EXPECT_NE(TextValue(quiet.out, "seconds.train"), "<absent>") << quiet.out;
}

// `index query --columns` reads payload columns from the source table;
// `index eval` scores recall against ground truth (here: the exhaustive answer).
TEST(CliTest, IndexQueryColumnsAndEval) {
  std::string base = TempPath("payload.fvecs"), queries = TempPath("payload-queries.fvecs");
  std::string bytes, query_bytes;
  for (int i = 0; i < 200; ++i) {
    std::string row;
    int32_t d = 4;
    row.append(reinterpret_cast<const char*>(&d), 4);
    for (int j = 0; j < 4; ++j) {
      float v = static_cast<float>((i % 10) * 3 + j) + static_cast<float>(i % 7) * 0.01f;
      row.append(reinterpret_cast<const char*>(&v), 4);
    }
    bytes += row;
    if (i == 33 || i == 34) query_bytes += row;
  }
  WriteFile(base, bytes);
  WriteFile(queries, query_bytes);
  std::string out = TempPath("payload-pub");
  std::filesystem::remove_all(out);
  CliRun built = Vigilo("index build --input " + base + " --metric l2_squared --encoding lvq8 --nlist 10 --source --out " + out);
  ASSERT_EQ(built.exit_code, 0) << built.err;
  const std::string manifest = out + "/manifest.json";
  CliRun q = Vigilo("index query " + manifest + " --queries " + queries + " --k 1 --nprobe 10 --columns vector --json");
  ASSERT_EQ(q.exit_code, 0) << q.err;
  std::string want = "{\"_distance\":0,\"_row\":33,\"query\":0,\"rank\":0,\"vector\":[";
  for (int j = 0; j < 4; ++j) {
    char buf[32];
    double v = static_cast<float>(9 + j) + static_cast<float>(5) * 0.01f;  // row 33, as float, widened
    auto r = std::to_chars(buf, buf + sizeof buf, v);
    want += (j ? "," : "") + std::string(buf, r.ptr);
  }
  EXPECT_EQ(q.out.substr(0, q.out.find('\n')), want + "]}") << q.out;
  CliRun table = Vigilo("index query " + manifest + " --queries " + queries + " --k 1 --nprobe 10 --columns vector");
  EXPECT_EQ(TableRow(table.out, 0), (std::vector<std::string>{"query", "rank", "_row", "_distance", "vector"}));
  EXPECT_EQ(Vigilo("index query " + manifest + " --queries " + queries + " --columns nope").exit_code, 8);
  EXPECT_EQ(Vigilo("index query " + manifest + " --queries " + queries + " --columns _row").exit_code, kExitUsage);
  EXPECT_EQ(Vigilo("index query " + manifest + " --queries " + queries + " --columns id").exit_code, 8);

  // Ground truth: each query's exhaustive top-2 ids.
  CliRun exact = Vigilo("index query " + manifest + " --queries " + queries + " --k 2 --nprobe 10");
  ASSERT_EQ(exact.exit_code, 0) << exact.err;
  // The screen only decides which rows are scored exactly: the same answer without it.
  CliRun unscreened = Vigilo("index query " + manifest + " --queries " + queries + " --k 2 --nprobe 10 --no-screen");
  ASSERT_EQ(unscreened.exit_code, 0) << unscreened.err;
  EXPECT_EQ(unscreened.out, exact.out);
  std::string gt;
  size_t line = 1;  // past the header
  for (int row = 0; row < 2; ++row) {
    int32_t k = 2;
    gt.append(reinterpret_cast<const char*>(&k), 4);
    for (int r = 0; r < 2; ++r) {
      auto id = static_cast<int32_t>(std::stoi(TableRow(exact.out, line++).at(2)));
      gt.append(reinterpret_cast<const char*>(&id), 4);
    }
  }
  std::string gt_path = TempPath("payload-gt.ivecs");
  WriteFile(gt_path, gt);
  CliRun eval = Vigilo("index eval " + manifest + " --queries " + queries + " --ground-truth " + gt_path +
                       " --k 2 --nprobe 1,10 --warmup 0 --json");
  ASSERT_EQ(eval.exit_code, 0) << eval.err;
  std::string second = eval.out.substr(eval.out.find('\n') + 1);
  EXPECT_NE(second.find("\"nprobe\":10,"), std::string::npos) << eval.out;
  EXPECT_NE(second.find("\"recall\":1.0,"), std::string::npos) << eval.out;
  EXPECT_NE(second.find("\"queries\":2,"), std::string::npos) << eval.out;
  EXPECT_NE(second.find("\"rows_per_query\":200.0,"), std::string::npos) << eval.out;  // nlist 10: all 200 rows
  // nprobe = nlist: every centroid is scored; the screen rules some rows out.
  EXPECT_NE(second.find("\"centroids_scored_per_query\":10.0,"), std::string::npos) << eval.out;
  const size_t scored_at = second.find("\"rows_scored_per_query\":");
  ASSERT_NE(scored_at, std::string::npos) << eval.out;
  const double rows_scored = std::stod(second.substr(scored_at + std::string("\"rows_scored_per_query\":").size()));
  EXPECT_GE(rows_scored, 2.0) << eval.out;  // at least k
  EXPECT_LT(rows_scored, 200.0) << eval.out;
  ExpectSnakeCaseKeys(eval.out);
  CliRun eval_text = Vigilo("index eval " + manifest + " --queries " + queries + " --ground-truth " + gt_path +
                            " -k 2 --nprobe 1,10 --warmup 0");
  ASSERT_EQ(eval_text.exit_code, 0) << eval_text.err;
  EXPECT_EQ(TableRow(eval_text.out, 0),
            (std::vector<std::string>{"nprobe", "recall", "list_recall", "qps", "bytes_per_query", "requests_per_query"}));
  EXPECT_EQ(TableRow(eval_text.out, 2).at(0), "10");
  EXPECT_EQ(TableRow(eval_text.out, 2).at(1), "1.0");
  // Objects read in place (0, and a budget too small for any file) or held
  // in memory (the default): the same measurements but for time, and but
  // for what is fetched: held postings are read in place, with no request.
  auto without = [](std::string text, std::vector<const char*> fields) {
    for (const char* field : fields) {
      for (size_t at = text.find(field); at != std::string::npos; at = text.find(field, at + 1)) {
        const size_t end = text.find_first_of(",}", at);
        text.erase(at, end - at);
      }
    }
    return text;
  };
  const std::vector<const char*> time = {"\"seconds\":", "\"cpu_seconds\":", "\"qps\":"};
  std::vector<const char*> fetched = time;
  fetched.insert(fetched.end(), {"\"bytes_per_query\":", "\"requests_per_query\":"});
  std::map<std::string, std::string> by_budget;
  for (const char* resident : {" --resident-max-bytes 0", " --resident-max-bytes 100", " --resident-max-bytes 1GiB"}) {
    CliRun held = Vigilo("index eval " + manifest + " --queries " + queries + " --ground-truth " + gt_path +
                         " --k 2 --nprobe 1,10 --warmup 0 --json" + resident);
    ASSERT_EQ(held.exit_code, 0) << held.err;
    EXPECT_EQ(without(held.out, fetched), without(eval.out, fetched)) << resident;
    by_budget[resident] = held.out;
  }
  EXPECT_EQ(without(by_budget[" --resident-max-bytes 100"], time), without(by_budget[" --resident-max-bytes 0"], time));
  EXPECT_EQ(without(by_budget[" --resident-max-bytes 1GiB"], time), without(eval.out, time));
  // At nprobe 1 (the first pass: the centroids and footers are read there),
  // in place 5 requests for the 2 queries, held only the centroids'.
  EXPECT_NE(by_budget[" --resident-max-bytes 0"].find("\"requests_per_query\":2.5,"), std::string::npos)
      << by_budget[" --resident-max-bytes 0"];
  EXPECT_NE(eval.out.find("\"requests_per_query\":0.5,"), std::string::npos) << eval.out;
  CliRun bad_resident = Vigilo("index eval " + manifest + " --queries " + queries + " --ground-truth " + gt_path +
                               " --resident-max-bytes lots");
  EXPECT_NE(bad_resident.exit_code, 0);
  EXPECT_NE(bad_resident.err.find("--resident-max-bytes"), std::string::npos) << bad_resident.err;
  EXPECT_EQ(Vigilo("index eval " + manifest + " --queries " + queries + " --ground-truth " + gt_path + " --k 3").exit_code,
            kExitUsage);
  EXPECT_EQ(Vigilo("index eval " + manifest + " --queries " + queries + " --ground-truth " + base).exit_code, kExitUsage);
}

// A Parquet table of 300 rows as a user has it: `key_name` (long, 1000000 −
// 7i: not the row positions), text ("doc-i") and emb (4 floats, row i's
// first one i²/16, so each row's nearest other row is the one before it).
void WriteIdTable(const std::string& path, const std::string& key_name) {
  std::vector<parquet::ColumnSpec> cols(3);
  cols[0].name = key_name;
  cols[0].kind = parquet::ColumnKind::kInt64;
  cols[1].name = "text";
  cols[1].kind = parquet::ColumnKind::kString;
  cols[2].name = "emb";
  cols[2].kind = parquet::ColumnKind::kFloatList;
  auto sink = parquet::FileSink::Create(path);
  ASSERT_TRUE(sink.ok());
  auto w = parquet::FileWriter::Open(cols, {}, sink->get());
  ASSERT_TRUE(w.ok());
  std::vector<int64_t> ids, offsets{0};
  std::vector<std::string> texts;
  std::vector<float> elems;
  for (int i = 0; i < 300; ++i) {
    ids.push_back(1000000 - 7 * i);
    texts.push_back("doc-" + std::to_string(i));
    for (int j = 0; j < 4; ++j) elems.push_back(static_cast<float>(i * i) / 16 + static_cast<float>(j));
    offsets.push_back(static_cast<int64_t>(elems.size()));
  }
  std::vector<std::string_view> views(texts.begin(), texts.end());
  ASSERT_TRUE((*w)->BeginRowGroup().ok());
  ASSERT_TRUE((*w)->WriteInt64(0, ids).ok());
  ASSERT_TRUE((*w)->WriteByteArray(1, views).ok());
  ASSERT_TRUE((*w)->WriteFloatList(2, offsets, elems).ok());
  ASSERT_TRUE((*w)->EndRowGroup().ok());
  ASSERT_TRUE((*w)->Finish().ok());
  ASSERT_TRUE((*sink)->Close().ok());
}

// A JSONL input's source table holds the key and the vector only: the build
// says so instead of dropping the other members silently.
// A JSONL input's members are copied into its source table (typed over the
// whole input, docs/format/ivf-inputs.md), and a hit carries them.
TEST(CliTest, JsonlSourceCopiesItsMembers) {
  std::string input = TempPath("members.jsonl");
  std::string lines;
  for (int i = 0; i < 40; ++i) {
    lines += "{\"id\":\"doc-" + std::to_string(i) + "\",\"vec\":[" + std::to_string(i) + ".5,1]}\n";
  }
  WriteFile(input, lines);
  std::string out = TempPath("members-pub");
  std::filesystem::remove_all(out);
  CliRun built = Vigilo("index build " + input + " --metric l2_squared --nlist 2 --source -q -o " + out);
  ASSERT_EQ(built.exit_code, 0) << built.err;
  EXPECT_EQ(built.err, "");
  CliRun hit = Vigilo("index query " + out + " --vector [7.5,1] -k 1 --nprobe 2 --columns id --json");
  ASSERT_EQ(hit.exit_code, 0) << hit.err;
  EXPECT_NE(hit.out.find("\"_row\":7,\"id\":\"doc-7\",\"query\":0,\"rank\":0}"), std::string::npos) << hit.out;
}

// Issue 18's first trap: built without --key, the key is the row position
// `_row`; the user's own `id` column is a payload column, unchanged, that
// `--columns id` returns; the vector column is not copied by default.
TEST(CliTest, IndexBuildKeepsTheUsersIdColumn) {
  std::string input = TempPath("ids.parquet");
  WriteIdTable(input, "id");
  std::string out = TempPath("ids-pub");
  std::filesystem::remove_all(out);
  CliRun built = Vigilo("index build " + input + " --vector-field emb --metric l2_squared --encoding lvq8 --nlist 8 "
                        "--source -q -o " + out);
  ASSERT_EQ(built.exit_code, 0) << built.err;
  std::string manifest = ReadFile(out + "/manifest.json");
  EXPECT_NE(manifest.find("\"source-key\":[{\"name\":\"_row\",\"type\":\"long\"}]"), std::string::npos) << manifest;
  EXPECT_NE(manifest.find("\"source\":{\"columns\":[{\"name\":\"_row\",\"type\":\"long\"},{\"name\":\"id\",\"type\":"
                          "\"long\"},{\"name\":\"text\",\"type\":\"string\"}],"),
            std::string::npos)
      << manifest;
  // Row 33's vector: itself first, then row 32 (rows 1000000 − 7·33 and − 7·32 in the user's ids).
  std::string query = "index query " + out + "/manifest.json --vector [68.0625,69.0625,70.0625,71.0625] -k 2 "
                      "--nprobe 8 --columns id,text";
  CliRun q = Vigilo(query);
  ASSERT_EQ(q.exit_code, 0) << q.err;
  EXPECT_EQ(TableRow(q.out, 0), (std::vector<std::string>{"query", "rank", "_row", "_distance", "id", "text"}));
  std::vector<std::string> first = TableRow(q.out, 1), second = TableRow(q.out, 2);
  ASSERT_EQ(first.size(), 6u) << q.out;
  ASSERT_EQ(second.size(), 6u) << q.out;
  EXPECT_EQ((std::vector<std::string>{first[2], first[4], first[5]}),
            (std::vector<std::string>{"33", "999769", "doc-33"}));
  EXPECT_EQ((std::vector<std::string>{second[2], second[4], second[5]}),
            (std::vector<std::string>{"32", "999776", "doc-32"}));
  CliRun json = Vigilo(query + " --json");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_NE(json.out.find(",\"_row\":33,\"id\":999769,\"query\":0,\"rank\":0,\"text\":\"doc-33\"}\n"),
            std::string::npos)
      << json.out;
  // Without --columns, a generated key's hits carry the first payload
  // column (the user's id), so nobody has to know about _row.
  CliRun plain = Vigilo("index query " + out + " --vector [68.0625,69.0625,70.0625,71.0625] -k 1 --nprobe 8");
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_EQ(TableRow(plain.out, 0), (std::vector<std::string>{"query", "rank", "_row", "_distance", "id"}));
  EXPECT_EQ(TableRow(plain.out, 1)[4], "999769") << plain.out;
  // The vector column was not copied: asking for it names the columns there are.
  CliRun emb = Vigilo("index query " + out + "/manifest.json --vector [0,1,2,3] --columns emb");
  EXPECT_EQ(emb.exit_code, 8) << emb.err;
  EXPECT_EQ(emb.out, "");
}

// An input column named like the generated key is refused before anything
// is made, saying what to do; --key names the key and the build goes ahead.
TEST(CliTest, IndexBuildRefusesAColumnNamedLikeTheGeneratedKey) {
  std::string input = TempPath("rows.parquet");
  WriteIdTable(input, "_row");
  std::string out = TempPath("rows-pub");
  std::filesystem::remove_all(out);
  std::string build = "index build " + input + " --vector-field emb --metric l2_squared --encoding lvq8 --nlist 8 "
                      "--source -q -o " + out;
  CliRun refused = Vigilo(build);
  EXPECT_EQ(refused.exit_code, kExitUsage);
  EXPECT_EQ(refused.err, "vigilo: invalid_argument: " + input + ": the input has a column named \"_row\", the name "
                         "of the row-position key a build without --key publishes; pass --key COLUMN to key the "
                         "publication by a column of yours, or rename \"_row\"\n");
  EXPECT_EQ(refused.out, "");
  EXPECT_FALSE(std::filesystem::exists(out));
  CliRun keyed = Vigilo(build + " --key _row");  // 1000000 − 7i is not dense from zero: refused too
  EXPECT_EQ(keyed.exit_code, kExitUsage);
  EXPECT_EQ(keyed.err, "vigilo: invalid_argument: " + input + ": --source needs a long key equal to the row "
                       "position (0, 1, 2, …); the key \"_row\" in row group 0 (rows 0…299) ranges over "
                       "997907…1000000 (the file's statistics); to keep these ids, rename the column \"_row\" and "
                       "pass --id-column with its new name instead of --key: the publication is then keyed by row "
                       "position (_row), and every hit returns your ids\n");
  EXPECT_FALSE(std::filesystem::exists(out));
  CliRun no_source = Vigilo("index build " + input + " --vector-field emb --key _row --metric l2_squared "
                            "--encoding lvq8 --nlist 8 -q --json -o " + out);
  ASSERT_EQ(no_source.exit_code, 0) << no_source.err;
  EXPECT_NE(ReadFile(out + "/manifest.json").find("\"source-key\":[{\"name\":\"_row\",\"type\":\"long\"}]"),
            std::string::npos);
}

// Usage errors: one stderr line with the documented prefix, the command the
// parser reached and a suggestion when one is close; exit 2, nothing on stdout.
TEST(CliTest, UsageErrors) {
  auto expect_usage = [](const std::string& args, const std::string& err) {
    CliRun r = Vigilo(args);
    EXPECT_EQ(r.exit_code, kExitUsage) << args;
    EXPECT_EQ(r.err, err) << args;
    EXPECT_EQ(r.out, "") << args;
  };
  expect_usage("", "vigilo: invalid_argument: a command is required: one of help, version, hash, json, dataset, "
                   "run, parquet, index, catalog, embed, store (see vigilo help)\n");
  expect_usage("frobnicate", "vigilo: invalid_argument: unknown command 'frobnicate'\n");
  expect_usage("indx inspect m.json", "vigilo: invalid_argument: unknown command 'indx' (did you mean index?)\n");
  expect_usage("index biuld --input x", "vigilo: invalid_argument: index: unknown command 'biuld' (did you mean build?)\n");
  expect_usage("index query m.json --nprobes 3",
               "vigilo: invalid_argument: index query: unknown flag --nprobes (did you mean --nprobe?)\n");
  expect_usage("index query m.json --nprobes=3",
               "vigilo: invalid_argument: index query: unknown flag --nprobes (did you mean --nprobe?)\n");
  expect_usage("index query m.json --frobnicate", "vigilo: invalid_argument: index query: unknown flag --frobnicate\n");
  expect_usage("index inspect", "vigilo: invalid_argument: index inspect: manifest is required\n");
  expect_usage("hash --sha256 --blake3 x", "vigilo: invalid_argument: hash: --blake3 excludes --sha256\n");
  expect_usage("json", "vigilo: invalid_argument: json: a command is required: one of canon, check (see vigilo help "
                       "json)\n");
  // Issue 34: --help after a word that names no command is the same usage
  // error, not a parent's help with exit 0.
  expect_usage("index nosuchcommand --help", "vigilo: invalid_argument: index: unknown command 'nosuchcommand'\n");
  expect_usage("catalog nosuchcommand --help", "vigilo: invalid_argument: catalog: unknown command 'nosuchcommand'\n");
  expect_usage("index biuld -h", "vigilo: invalid_argument: index: unknown command 'biuld' (did you mean build?)\n");
  expect_usage("index --frobnicate --help", "vigilo: invalid_argument: index: unknown flag --frobnicate\n");
  // Help of a real command, with or without its arguments, is still help.
  for (const char* help : {"index --help", "index build --help", "dataset ingest x.json --help", "--help"}) {
    CliRun r = Vigilo(help);
    EXPECT_EQ(r.exit_code, 0) << help;
    EXPECT_NE(r.out.find("Usage: "), std::string::npos) << help;
  }
}

TEST(ExitCodeTest, TableIsStable) {
  EXPECT_EQ(ExitCodeFor(Status::Ok()), 0);
  EXPECT_EQ(ExitCodeFor(InvalidArgument("")), 2);
  EXPECT_EQ(ExitCodeFor(ParseError("")), 3);
  EXPECT_EQ(ExitCodeFor(InvalidFormat("")), 4);
  EXPECT_EQ(ExitCodeFor(NotCanonical("")), 5);
  EXPECT_EQ(ExitCodeFor(IntegrityError("")), 6);
  EXPECT_EQ(ExitCodeFor(LimitExceeded("")), 7);
  EXPECT_EQ(ExitCodeFor(OutOfRange("")), 7);
  EXPECT_EQ(ExitCodeFor(NotFound("")), 8);
  EXPECT_EQ(ExitCodeFor(AlreadyExists("")), 9);
  EXPECT_EQ(ExitCodeFor(IoError("")), 10);
  EXPECT_EQ(ExitCodeFor(Fenced("")), 11);
  EXPECT_EQ(ExitCodeFor(Unimplemented("")), 12);
  EXPECT_EQ(ExitCodeFor(Internal("")), 1);
}

}  // namespace
}  // namespace vigilo::cli
