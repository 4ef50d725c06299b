// Issue 18, inputs of the index commands, driven through the built binary:
// where query vectors come from (inline, @FILE, stdin, Parquet/JSONL with
// the manifest's vector field), the publication directory as the argument,
// fewer than k hits, one blank-line rule, one input domain, build defaults
// and error wording.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "cli_test_support.h"

namespace {

using vigilo::cli_test::CliRun;
using vigilo::cli_test::ReadFile;
using vigilo::cli_test::TempPath;
using vigilo::cli_test::Vigilo;
using vigilo::cli_test::WriteFile;

constexpr int kExitUsage = 2;
constexpr int kExitFormat = 4;
constexpr int kExitNotFound = 8;

// 200 rows {"id": i, "emb": [i, 1, 2, 3]}: row i's nearest row is itself.
std::string Rows() {
  std::string text;
  for (int i = 0; i < 200; ++i) {
    text += "{\"id\":" + std::to_string(i) + ",\"emb\":[" + std::to_string(i) + ",1,2,3]}\n";
  }
  return text;
}

// A publication of Rows() under l2_squared (the vector field "emb" found by
// itself), built once per process.
const std::string& Publication() {
  static const std::string dir = [] {
    std::string input = TempPath("rows.jsonl");
    WriteFile(input, Rows());
    std::string out = TempPath("rows-pub");
    std::filesystem::remove_all(out);
    CliRun built = Vigilo("index build " + input + " --metric l2_squared --nlist 4 -q -o " + out);
    EXPECT_EQ(built.exit_code, 0) << built.err;
    return out;
  }();
  return dir;
}

TEST(IndexInputsCliTest, QueryVectorInlineFromFileAndFromStdinAgree) {
  const std::string& pub = Publication();
  EXPECT_NE(ReadFile(pub + "/manifest.json").find("\"vector-field\":\"emb\""), std::string::npos);
  std::string flags = " -k 2 --nprobe 4 --json";
  CliRun inline_run = Vigilo("index query " + pub + "/manifest.json --vector [33,1,2,3]" + flags);
  ASSERT_EQ(inline_run.exit_code, 0) << inline_run.err;
  EXPECT_EQ(inline_run.out.rfind("{\"_distance\":", 0), 0u) << inline_run.out;
  EXPECT_NE(inline_run.out.find("\"_row\":33,\"query\":0,\"rank\":0}\n"), std::string::npos) << inline_run.out;
  // The publication directory names it as well as its manifest.json does.
  CliRun dir_run = Vigilo("index query " + pub + " --vector [33,1,2,3]" + flags);
  EXPECT_EQ(dir_run.exit_code, 0) << dir_run.err;
  EXPECT_EQ(dir_run.out, inline_run.out);
  std::string vector_file = TempPath("v.json");
  WriteFile(vector_file, "[33, 1, 2, 3]\n");
  CliRun at_file = Vigilo("index query " + pub + " --vector @" + vector_file + flags);
  EXPECT_EQ(at_file.exit_code, 0) << at_file.err;
  EXPECT_EQ(at_file.out, inline_run.out);
  CliRun from_stdin = Vigilo("index query " + pub + " --vector -" + flags, "[33,1,2,3]");
  EXPECT_EQ(from_stdin.exit_code, 0) << from_stdin.err;
  EXPECT_EQ(from_stdin.out, inline_run.out);
  CliRun missing = Vigilo("index query " + pub + " --vector @" + TempPath("absent.json"));
  EXPECT_EQ(missing.exit_code, kExitNotFound) << missing.err;
  EXPECT_EQ(missing.err, "vigilo: not_found: " + TempPath("absent.json") + ": cannot open: No such file or directory\n");
  EXPECT_EQ(missing.out, "");
}

TEST(IndexInputsCliTest, QueryFilesUseTheManifestsVectorField) {
  const std::string& pub = Publication();
  std::string flags = " -k 1 --nprobe 4 --json";
  // Objects holding the manifest's field "emb" (other members ignored), and bare arrays.
  std::string objects = TempPath("q-objects.jsonl"), arrays = TempPath("q-arrays.jsonl");
  WriteFile(objects, "{\"text\":\"a\",\"emb\":[5,1,2,3]}\n{\"emb\":[150,1,2,3]}\n");
  WriteFile(arrays, "[5,1,2,3]\n[150,1,2,3]\n");
  CliRun by_objects = Vigilo("index query " + pub + " --queries " + objects + flags);
  ASSERT_EQ(by_objects.exit_code, 0) << by_objects.err;
  EXPECT_NE(by_objects.out.find("\"_row\":5,\"query\":0,\"rank\":0}\n"), std::string::npos) << by_objects.out;
  EXPECT_NE(by_objects.out.find("\"_row\":150,\"query\":1,\"rank\":0}\n"), std::string::npos) << by_objects.out;
  CliRun by_arrays = Vigilo("index query " + pub + " --queries " + arrays + flags);
  EXPECT_EQ(by_arrays.exit_code, 0) << by_arrays.err;
  EXPECT_EQ(by_arrays.out, by_objects.out);
  // stdin, whose format is named.
  CliRun piped = Vigilo("index query " + pub + " --queries - --format jsonl" + flags, ReadFile(objects));
  EXPECT_EQ(piped.exit_code, 0) << piped.err;
  EXPECT_EQ(piped.out, by_objects.out);
  CliRun unnamed = Vigilo("index query " + pub + " --queries -" + flags, ReadFile(objects));
  EXPECT_EQ(unnamed.exit_code, kExitUsage);
  EXPECT_EQ(unnamed.err, "vigilo: invalid_argument: --queries -: name the format of stdin with --format (jsonl, "
                         "fvecs, bvecs or npy)\n");
  CliRun parquet = Vigilo("index query " + pub + " --queries - --format parquet", "PAR1");
  EXPECT_EQ(parquet.exit_code, kExitUsage);
  EXPECT_EQ(parquet.err, "vigilo: invalid_argument: a Parquet input cannot be read from stdin (it is read from its "
                         "end); give its file\n");
  // --vector-field overrides the manifest's.
  std::string other = TempPath("q-other.jsonl");
  WriteFile(other, "{\"q\":[5,1,2,3]}\n{\"q\":[150,1,2,3]}\n");
  CliRun renamed = Vigilo("index query " + pub + " --queries " + other + " --vector-field q" + flags);
  EXPECT_EQ(renamed.exit_code, 0) << renamed.err;
  EXPECT_EQ(renamed.out, by_objects.out);
  CliRun wrong = Vigilo("index query " + pub + " --queries " + other + flags);
  EXPECT_EQ(wrong.exit_code, kExitFormat);
  EXPECT_EQ(wrong.err, "vigilo: invalid_format: " + other + ": row 0 (line 1): no member \"emb\" (at byte 0)\n");
}

TEST(IndexInputsCliTest, EveryIndexCommandTakesThePublicationDirectory) {
  const std::string& pub = Publication();
  for (const char* command : {"inspect", "validate", "verify"}) {
    CliRun by_dir = Vigilo(std::string("index ") + command + " " + pub + " --json");
    CliRun by_file = Vigilo(std::string("index ") + command + " " + pub + "/manifest.json --json");
    EXPECT_EQ(by_dir.exit_code, 0) << command << ": " << by_dir.err;
    EXPECT_EQ(by_dir.out, by_file.out) << command;
    EXPECT_NE(by_dir.out, "") << command;
  }
  // A directory without a manifest is named with the manifest's path.
  std::string empty = TempPath("empty-dir");
  std::filesystem::create_directories(empty);
  CliRun none = Vigilo("index inspect " + empty);
  EXPECT_EQ(none.exit_code, kExitNotFound) << none.err;
  EXPECT_EQ(none.err, "vigilo: not_found: " + empty + "/manifest.json: cannot open: No such file or directory\n");
}

// ALIAS:KEY names a publication inside a configured store: every index
// command answers as it does for the path (issue 33), and the key may be
// the manifest or the publication's prefix.
TEST(IndexInputsCliTest, EveryIndexCommandReadsAnAliasKeyAsItsPath) {
  const std::string& pub = Publication();
  const std::filesystem::path parent = std::filesystem::path(pub).parent_path();
  const std::string stores = TempPath("alias-stores.json");
  WriteFile(stores, R"({"version":1,"stores":{"shelf":{"url":"file://)" + parent.string() + R"("}}})");
  const std::string name = std::filesystem::path(pub).filename().string();
  const vigilo::cli_test::Invocation with_stores{vigilo::cli_test::ProcessDir(), "VIGILO_STORES=" + stores, false};
  const std::string query = " --vector [33,1,2,3] -k 3 --nprobe 4 --json";
  CliRun by_path = Vigilo("index query " + pub + "/manifest.json" + query);
  ASSERT_EQ(by_path.exit_code, 0) << by_path.err;
  for (const std::string& key : {name + "/manifest.json", name, name + "/"}) {
    CliRun by_alias = vigilo::cli_test::RunVigilo(with_stores, "index query shelf:" + key + query);
    EXPECT_EQ(by_alias.exit_code, 0) << key << ": " << by_alias.err;
    EXPECT_EQ(by_alias.out, by_path.out) << key;
  }
  for (const char* command : {"inspect", "verify"}) {
    CliRun by_file = Vigilo(std::string("index ") + command + " " + pub + "/manifest.json --json");
    CliRun by_alias =
        vigilo::cli_test::RunVigilo(with_stores, std::string("index ") + command + " shelf:" + name + " --json");
    EXPECT_EQ(by_alias.exit_code, 0) << command << ": " << by_alias.err;
    EXPECT_EQ(by_alias.out, by_file.out) << command;
  }
  // A missing publication is named as typed; an alias nobody configured says so.
  CliRun none = vigilo::cli_test::RunVigilo(with_stores, "index inspect shelf:nothing-here");
  EXPECT_EQ(none.exit_code, kExitNotFound) << none.err;
  EXPECT_EQ(none.err.rfind("vigilo: not_found: shelf:nothing-here/manifest.json: ", 0), 0u) << none.err;
  CliRun unknown = vigilo::cli_test::RunVigilo(with_stores, "index inspect attic:" + name);
  EXPECT_EQ(unknown.exit_code, kExitUsage) << unknown.err;
  EXPECT_EQ(unknown.err, "vigilo: invalid_argument: no store alias \"attic\" is configured in " + stores +
                             "; for a local path write ./attic:" + name + "\n");
}

// index build -o ALIAS:KEY writes the publication under that key of a
// writable configured store: the same bytes as a build into a directory.
TEST(IndexInputsCliTest, BuildIntoAnAliasKeyWritesWhatADirectoryBuildWrites) {
  const std::string& pub = Publication();
  const std::string root = TempPath("alias-build-root");
  std::filesystem::remove_all(root);
  std::filesystem::create_directories(root);
  const std::string stores = TempPath("alias-build-stores.json");
  WriteFile(stores, R"({"version":1,"stores":{)"
                    R"("bench":{"url":"file://)" + root + R"(","writable":true,)"
                    R"("guarantees":{"conditional_create":true,"read_after_create":true}},)"
                    R"("shelf":{"url":"file://)" + root + R"("}}})");
  const vigilo::cli_test::Invocation with_stores{vigilo::cli_test::ProcessDir(), "VIGILO_STORES=" + stores, false};
  const std::string input = TempPath("rows.jsonl");  // Publication()'s input
  CliRun built = vigilo::cli_test::RunVigilo(
      with_stores, "index build " + input + " --metric l2_squared --nlist 4 -q --json -o bench:pubs/rows");
  ASSERT_EQ(built.exit_code, 0) << built.err;
  EXPECT_NE(built.out.find("\"manifest\":\"bench:pubs/rows/manifest.json\""), std::string::npos) << built.out;
  EXPECT_EQ(ReadFile(root + "/pubs/rows/manifest.json"), ReadFile(pub + "/manifest.json"));
  // No spill directory or temporary file is left beside the objects.
  for (const auto& e : std::filesystem::recursive_directory_iterator(root)) {
    EXPECT_EQ(e.path().filename().string().rfind(".", 0), std::string::npos) << e.path();
  }
  const std::string query = " --vector [33,1,2,3] -k 3 --nprobe 4 --json";
  CliRun by_path = Vigilo("index query " + pub + query);
  CliRun by_alias = vigilo::cli_test::RunVigilo(with_stores, "index query bench:pubs/rows" + query);
  EXPECT_EQ(by_alias.exit_code, 0) << by_alias.err;
  EXPECT_EQ(by_alias.out, by_path.out);
  // Refused before the input is read: a store that is not declared writable,
  // a publication already there, a URL.
  CliRun readonly = vigilo::cli_test::RunVigilo(with_stores, "index build " + input + " -q -o shelf:pubs/other");
  EXPECT_EQ(readonly.exit_code, kExitUsage) << readonly.err;
  EXPECT_NE(readonly.err.find("store \"shelf\" does not guarantee writes"), std::string::npos) << readonly.err;
  EXPECT_FALSE(std::filesystem::exists(root + "/pubs/other"));
  CliRun again = vigilo::cli_test::RunVigilo(
      with_stores, "index build " + input + " --metric l2_squared --nlist 4 -q -o bench:pubs/rows");
  EXPECT_NE(again.exit_code, 0);
  EXPECT_NE(again.err.find("already_exists"), std::string::npos) << again.err;
  CliRun url = Vigilo("index build " + input + " -q -o http://127.0.0.1:9/pub");
  EXPECT_EQ(url.exit_code, kExitUsage) << url.err;
  EXPECT_EQ(url.err, "vigilo: invalid_argument: --out: an http(s) URL is read-only: build into a directory or "
                     "ALIAS:KEY of a writable store\n");
}

// Fewer than k hits is said on stderr, in both output modes, with the reason.
TEST(IndexInputsCliTest, FewerThanKHitsIsReported) {
  const std::string& pub = Publication();
  CliRun all = Vigilo("index query " + pub + " --vector [1,1,2,3] -k 250 --nprobe 4 --json");
  ASSERT_EQ(all.exit_code, 0) << all.err;
  EXPECT_EQ(std::count(all.out.begin(), all.out.end(), '\n'), 200);
  EXPECT_EQ(all.err, "vigilo: note: query 0 has 200 hits, fewer than k = 250 (the index holds 200 vectors)\n");
  CliRun one_list = Vigilo("index query " + pub + " --vector [1,1,2,3] -k 199 --nprobe 1");
  ASSERT_EQ(one_list.exit_code, 0) << one_list.err;
  size_t hits = static_cast<size_t>(std::count(one_list.out.begin(), one_list.out.end(), '\n')) - 1;  // header
  ASSERT_LT(hits, 199u);
  EXPECT_EQ(one_list.err, "vigilo: note: query 0 has " + std::to_string(hits) +
                              " hits, fewer than k = 199 (the 1 lists probed hold fewer rows; a larger --nprobe "
                              "finds more)\n");
  CliRun enough = Vigilo("index query " + pub + " --vector [1,1,2,3] -k 3 --nprobe 4");
  EXPECT_EQ(enough.err, "");
}

// A blank line is refused, naming it, by `index build` and by query files alike.
TEST(IndexInputsCliTest, BlankLinesAreOneRuleForBuildAndQueries) {
  const std::string& pub = Publication();
  std::string blank = TempPath("blank.jsonl");
  WriteFile(blank, "{\"emb\":[5,1,2,3]}\n\n{\"emb\":[6,1,2,3]}\n");
  std::string message = "vigilo: invalid_format: " + blank +
                        ": row 1 (line 2): empty line; every line must be a JSON object or array (at byte 18)\n";
  CliRun query = Vigilo("index query " + pub + " --queries " + blank);
  EXPECT_EQ(query.exit_code, kExitFormat);
  EXPECT_EQ(query.err, message);
  EXPECT_EQ(query.out, "");
  std::string out = TempPath("blank-pub");
  std::filesystem::remove_all(out);
  CliRun build = Vigilo("index build " + blank + " -q -o " + out);
  EXPECT_EQ(build.exit_code, kExitFormat);
  EXPECT_EQ(build.err, message);
  EXPECT_FALSE(std::filesystem::exists(out));
}

// Finite but huge vectors: refused at build time naming the row, and as
// queries by the same rule and words.
TEST(IndexInputsCliTest, OneInputDomainForBuildAndQueries) {
  std::string huge = TempPath("huge.jsonl");
  WriteFile(huge, "{\"emb\":[1,2]}\n{\"emb\":[3,4]}\n{\"emb\":[1e20,4]}\n{\"emb\":[5,6]}\n");
  std::string out = TempPath("huge-pub");
  std::filesystem::remove_all(out);
  CliRun build = Vigilo("index build " + huge + " -q -o " + out);
  EXPECT_EQ(build.exit_code, kExitFormat);
  EXPECT_EQ(build.err, "vigilo: invalid_format: " + huge + ": row 2: its squared norm 1e+40 is above 2^120 (about "
                       "1.3e36); vector components must be small enough that distances fit float32\n");
  EXPECT_FALSE(std::filesystem::exists(out));
  const std::string& pub = Publication();
  CliRun query = Vigilo("index query " + pub + " --vector [1e30,1,2,3]");
  EXPECT_EQ(query.exit_code, kExitUsage);
  EXPECT_EQ(query.err, "vigilo: invalid_argument: --vector: its squared norm 1e+60 is above 2^120 (about 1.3e36); "
                       "vector components must be small enough that distances fit float32\n");
  std::string queries = TempPath("huge-queries.jsonl");
  WriteFile(queries, "[1,1,2,3]\n[1e25,1,2,3]\n");
  CliRun file = Vigilo("index query " + pub + " --queries " + queries);
  EXPECT_EQ(file.exit_code, kExitFormat);
  EXPECT_EQ(file.err, "vigilo: invalid_format: " + queries + ": row 1: its squared norm 1e+50 is above 2^120 "
                      "(about 1.3e36); vector components must be small enough that distances fit float32\n");
  // Large but inside the domain: served.
  CliRun inside = Vigilo("index query " + pub + " --vector [1e17,1,2,3] -k 1");
  EXPECT_EQ(inside.exit_code, 0) << inside.err;
}

// Without --metric/--encoding a build is cosine, lvq8; the vector column is
// found when it is the only list of numbers; inner product is said to be
// outside the v1 format.
TEST(IndexInputsCliTest, BuildDefaults) {
  std::string input = TempPath("defaults.jsonl");
  WriteFile(input, Rows());
  std::string out = TempPath("defaults-pub");
  std::filesystem::remove_all(out);
  CliRun built = Vigilo("index build " + input + " --nlist 4 -q --json -o " + out);
  ASSERT_EQ(built.exit_code, 0) << built.err;
  EXPECT_NE(built.out.find("\"encoding\":\"lvq8\""), std::string::npos) << built.out;
  EXPECT_NE(built.out.find("\"metric\":\"cosine\""), std::string::npos) << built.out;
  std::string manifest = ReadFile(out + "/manifest.json");
  EXPECT_NE(manifest.find("\"vector-field\":\"emb\""), std::string::npos) << manifest;

  std::string two = TempPath("two-lists.jsonl");
  WriteFile(two, "{\"a\":[1,2],\"b\":[3,4]}\n");
  CliRun ambiguous = Vigilo("index build " + two + " -q -o " + TempPath("two-pub"));
  EXPECT_EQ(ambiguous.exit_code, kExitFormat);
  EXPECT_EQ(ambiguous.err, "vigilo: invalid_format: " + two + ": row 0 (line 1): several members are arrays of "
                           "numbers (\"a\", \"b\"); name the vector field (at byte 0)\n");
  std::string parquet = std::string(VIGILO_SOURCE_DIR) + "/src/parquet/testdata/duckdb_v1_snappy.parquet";
  CliRun columns = Vigilo("index build " + parquet + " -q -o " + TempPath("pq-pub"));
  EXPECT_EQ(columns.exit_code, kExitFormat);
  EXPECT_EQ(columns.err, "vigilo: invalid_format: " + parquet + ": several columns are lists of FLOAT or DOUBLE "
                         "(\"vec\", \"dv\"); choose one with --vector-field\n");

  CliRun ip = Vigilo("index build " + input + " --metric inner_product -o " + TempPath("ip-pub"));
  EXPECT_EQ(ip.exit_code, kExitUsage);
  EXPECT_EQ(ip.err, "vigilo: invalid_argument: --metric inner_product: inner product is outside the v1 publication "
                    "format, whose metrics are l2_squared and cosine (cosine ranks normalized vectors as inner "
                    "product does)\n");
  CliRun help = Vigilo("index build --help");
  EXPECT_NE(help.out.find("(default cosine;"), std::string::npos) << help.out;
  EXPECT_NE(help.out.find("lvq4 or lvq8 (default lvq8)"), std::string::npos) << help.out;
  EXPECT_NE(help.out.find("Worker threads (default: the cores available)"), std::string::npos) << help.out;
}

TEST(IndexInputsCliTest, ErrorWording) {
  // DuckDB's UINTEGER (INT32, UINT_32) as a key: said to be unsigned, with what to do.
  std::string parquet = std::string(VIGILO_SOURCE_DIR) + "/src/parquet/testdata/duckdb_v1_snappy.parquet";
  CliRun u32 = Vigilo("index build " + parquet + " --vector-field dv --key u32 -q -o " + TempPath("u32-pub"));
  EXPECT_EQ(u32.exit_code, kExitFormat);
  EXPECT_EQ(u32.err, "vigilo: invalid_format: " + parquet + ": the key column \"u32\" (INT32) is unsigned 32-bit "
                     "(UINT_32): its values may not fit an int; cast it to BIGINT; keys are boolean, int, long, "
                     "string, binary, date or fixed(L)\n");
  // The same column as a payload column is called a column, not "the key column".
  std::string payload_out = TempPath("u32-payload-pub");
  CliRun payload = Vigilo("index build " + parquet + " --vector-field dv --source --columns u32 -q -o " + payload_out);
  EXPECT_EQ(payload.exit_code, kExitUsage);
  EXPECT_EQ(payload.err, "vigilo: invalid_argument: " + parquet + ": column \"u32\" (INT32 with an annotation) "
                         "cannot be copied into a source table: source columns are boolean, int, long, float, "
                         "double, string, binary, date, fixed(L) or list<float>\n");
  EXPECT_FALSE(std::filesystem::exists(payload_out));
  // --max-buffer 0: whole bytes, not a floating-point range.
  CliRun zero = Vigilo("index verify " + Publication() + " --max-buffer 0");
  EXPECT_EQ(zero.exit_code, kExitUsage);
  EXPECT_EQ(zero.err, "vigilo: invalid_argument: index verify: --max-buffer: a whole number of bytes, at least 1 "
                      "(e.g. 268435456 = 256 MiB), not 0\n");
}

}  // namespace
