// `vigilo index verify`: the real binary on a publication it built: the
// record of each level (what it checked and did not), the `index validate`
// alias, and for corrupted, truncated and missing objects and an
// edited manifest the exact stderr lines and exit statuses (docs/errors.md).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace {

struct CliRun {
  int exit_code;
  std::string out;
  std::string err;
};

std::filesystem::path Dir() {
  return std::filesystem::temp_directory_path() / ("vigilo_index_verify_test_" + std::to_string(::getpid()));
}

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

void WriteFile(const std::filesystem::path& path, std::string_view data) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(data.data(), static_cast<std::streamsize>(data.size()));
}

CliRun Vigilo(const std::string& args) {
  std::string out = (Dir() / "stdout").string(), err = (Dir() / "stderr").string();
  std::string cmd = std::string(VIGILO_BIN) + " " + args + " </dev/null >" + out + " 2>" + err;
  int status = std::system(cmd.c_str());
  return CliRun{WIFEXITED(status) ? WEXITSTATUS(status) : -1, ReadFile(out), ReadFile(err)};
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    out.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

class IndexVerifyTest : public testing::Test {
 protected:
  static void SetUpTestSuite() {
    std::filesystem::remove_all(Dir());
    std::filesystem::create_directories(Dir());
    std::string bytes;
    for (int i = 0; i < 400; ++i) {
      int32_t d = 6;
      bytes.append(reinterpret_cast<const char*>(&d), 4);
      for (int j = 0; j < d; ++j) {
        float v = static_cast<float>((i % 10) * 3 + j) + static_cast<float>(i % 7) * 0.01f;
        bytes.append(reinterpret_cast<const char*>(&v), 4);
      }
    }
    WriteFile(Dir() / "base.fvecs", bytes);
    CliRun r = Vigilo("index build --input " + (Dir() / "base.fvecs").string() +
                      " --metric l2_squared --encoding lvq8 --nlist 8 --roots 2 --source --source-row-group-rows 100"
                      " --out " + (Dir() / "pub").string());
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  static void TearDownTestSuite() { std::filesystem::remove_all(Dir()); }

  // A fresh copy of the built publication.
  std::filesystem::path Copy(const std::string& name) {
    std::filesystem::path to = Dir() / name;
    std::filesystem::remove_all(to);
    std::filesystem::copy(Dir() / "pub", to, std::filesystem::copy_options::recursive);
    return to;
  }
  static void Flip(const std::filesystem::path& file, size_t at, uint8_t mask) {
    std::string bytes = ReadFile(file);
    ASSERT_LT(at, bytes.size());
    bytes[at] = static_cast<char>(bytes[at] ^ mask);
    WriteFile(file, bytes);
  }
};

const char* kPostings0 = "ivf_postings/cid_bucket=000000/part-000000.parquet";
const char* kPostings1 = "ivf_postings/cid_bucket=000001/part-000000.parquet";
const char* kSource0 = "source/part-000000.parquet";

TEST_F(IndexVerifyTest, AValidPublicationPrintsOneSummary) {
  std::filesystem::path p = Copy("ok");
  CliRun r = Vigilo("index verify --json " + (p / "manifest.json").string());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  ASSERT_EQ(Lines(r.out).size(), 1u) << r.out;
  EXPECT_EQ(r.out.rfind("{\"bytes_hashed\":", 0), 0u) << r.out;
  // The full level says every check ran, and nothing says "valid".
  EXPECT_NE(r.out.find(",\"checked\":[\"manifest_rules\",\"artifact_uuid\",\"object_sizes\",\"footers\",\"schemas\","
                       "\"row_group_statistics\",\"row_counts\",\"column_chunks\",\"values\",\"sha256\"],"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find(",\"level\":\"full\","), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(",\"not_checked\":[],"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(",\"rows\":400,\"source_rows\":400}\n"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("valid"), std::string::npos) << r.out;
  // --all changes nothing for a valid publication.
  CliRun all = Vigilo("index verify --all --json " + (p / "manifest.json").string());
  EXPECT_EQ(all.exit_code, 0) << all.err;
  EXPECT_EQ(all.out, r.out);
  // The default is the key-value text, the same fields.
  CliRun text = Vigilo("index verify " + (p / "manifest.json").string());
  EXPECT_EQ(text.exit_code, 0) << text.err;
  std::vector<std::string> lines = Lines(text.out);
  ASSERT_EQ(lines.size(), 12u) << text.out;
  EXPECT_EQ(lines[0], "level           full");
  EXPECT_EQ(lines[2], "not_checked     []");
  EXPECT_EQ(lines[5], "rows            400");
  EXPECT_EQ(lines[6], "source_rows     400");
}

// --quick reads the manifest and the footers only, and says so; --manifest-only
// reads no object. Neither claims a check it did not run.
TEST_F(IndexVerifyTest, EachLevelListsWhatItChecked) {
  std::filesystem::path p = Copy("levels");
  std::string manifest = (p / "manifest.json").string();
  CliRun quick = Vigilo("index verify --quick --json " + manifest);
  EXPECT_EQ(quick.exit_code, 0) << quick.err;
  EXPECT_EQ(quick.err, "");
  EXPECT_EQ(quick.out.rfind("{\"bytes_read\":", 0), 0u) << quick.out;
  EXPECT_NE(quick.out.find(",\"checked\":[\"manifest_rules\",\"artifact_uuid\",\"object_sizes\",\"footers\","
                           "\"schemas\",\"row_group_statistics\",\"row_counts\"],"),
            std::string::npos)
      << quick.out;
  EXPECT_NE(quick.out.find(",\"level\":\"quick\","), std::string::npos) << quick.out;
  EXPECT_NE(quick.out.find(",\"not_checked\":[\"column_chunks\",\"values\",\"sha256\"],\"objects\":4,"),
            std::string::npos)
      << quick.out;
  EXPECT_NE(quick.out.find(",\"rows\":400,\"source_rows\":400}\n"), std::string::npos) << quick.out;
  // No count of what a level did not read.
  EXPECT_EQ(quick.out.find("bytes_hashed"), std::string::npos) << quick.out;
  EXPECT_EQ(quick.out.find("column_chunks\":"), std::string::npos) << quick.out;

  // --any-uuid moves the derived-UUID check to not_checked.
  CliRun any = Vigilo("index verify --quick --any-uuid --json " + manifest);
  EXPECT_NE(any.out.find(",\"checked\":[\"manifest_rules\",\"object_sizes\","), std::string::npos) << any.out;
  EXPECT_NE(any.out.find(",\"not_checked\":[\"artifact_uuid\",\"column_chunks\",\"values\",\"sha256\"],"),
            std::string::npos)
      << any.out;

  // With every object gone the manifest level still passes: it reads none,
  // and prints no object count. --quick finds the first missing one.
  std::filesystem::remove_all(p / "ivf_postings");
  std::filesystem::remove_all(p / "source");
  std::filesystem::remove(p / "centroids.parquet");
  CliRun only = Vigilo("index verify --manifest-only " + manifest);
  EXPECT_EQ(only.exit_code, 0) << only.err;
  std::vector<std::string> lines = Lines(only.out);
  ASSERT_EQ(lines.size(), 4u) << only.out;
  EXPECT_EQ(lines[0], "level           manifest");
  EXPECT_EQ(lines[1], "checked         [\"manifest_rules\",\"artifact_uuid\"]");
  EXPECT_EQ(lines[2],
            "not_checked     [\"object_sizes\",\"footers\",\"schemas\",\"row_group_statistics\",\"row_counts\","
            "\"column_chunks\",\"values\",\"sha256\"]");
  EXPECT_EQ(lines[3].rfind("manifest_bytes  ", 0), 0u) << only.out;
  CliRun missing = Vigilo("index verify --quick " + manifest);
  EXPECT_EQ(missing.exit_code, 8) << missing.err;
  EXPECT_EQ(missing.out, "");
  EXPECT_EQ(missing.err.rfind("vigilo: not_found: centroids.parquet", 0), 0u) << missing.err;
  EXPECT_EQ(Lines(missing.err).size(), 1u) << missing.err;
  CliRun both = Vigilo("index verify --quick --manifest-only " + manifest);
  EXPECT_EQ(both.exit_code, 2) << both.err;
}

// `index validate` is the older spelling: the same record as the level it
// maps to (with --any-uuid, as it never checked the derived UUID), and a note
// naming the new spelling on stderr.
TEST_F(IndexVerifyTest, ValidateIsAnAliasThatSaysItsNewSpelling) {
  std::filesystem::path p = Copy("alias");
  std::string manifest = (p / "manifest.json").string();
  struct Case {
    std::string old_flags, new_flags;
  };
  for (const Case& c : {Case{"", "--quick --any-uuid"}, Case{"--manifest-only ", "--manifest-only --any-uuid"},
                        Case{"--deep ", "--any-uuid"}}) {
    CliRun old = Vigilo("index validate " + c.old_flags + "--json " + manifest);
    CliRun now = Vigilo("index verify " + c.new_flags + " --json " + manifest);
    EXPECT_EQ(old.exit_code, 0) << old.err;
    EXPECT_EQ(now.exit_code, 0) << now.err;
    EXPECT_EQ(old.out, now.out) << c.old_flags;
    EXPECT_EQ(old.err, "vigilo: note: index validate is an older spelling of index verify " + c.new_flags + "\n");
  }
  EXPECT_EQ(Vigilo("index validate --manifest-only --deep " + manifest).exit_code, 2);
}

TEST_F(IndexVerifyTest, AFlippedByteNamesTheObjectAndExits6) {
  std::filesystem::path p = Copy("flip");
  // A byte of the footer's created_by: the footer still parses, so only the digest can catch it.
  std::string bytes = ReadFile(p / kPostings1);
  size_t at = bytes.rfind("vigilo version");
  ASSERT_NE(at, std::string::npos);
  Flip(p / kPostings1, at + 3, 0x01);
  CliRun r = Vigilo("index verify " + (p / "manifest.json").string());
  EXPECT_EQ(r.exit_code, 6);
  EXPECT_EQ(r.out, "");
  std::vector<std::string> lines = Lines(r.err);
  ASSERT_EQ(lines.size(), 1u) << r.err;
  EXPECT_EQ(lines[0].rfind(std::string("vigilo: integrity_error: ") + kPostings1 + ": SHA-256 ", 0), 0u) << r.err;
  EXPECT_NE(lines[0].find(" does not match the manifest's "), std::string::npos) << r.err;
  // --quick (and `index validate`, its older spelling) does not read those
  // bytes' digest, and its record says so: sha256 is not_checked.
  CliRun quick = Vigilo("index verify --quick --json " + (p / "manifest.json").string());
  EXPECT_EQ(quick.exit_code, 0) << quick.err;
  EXPECT_NE(quick.out.find("\"not_checked\":[\"column_chunks\",\"values\",\"sha256\"]"), std::string::npos)
      << quick.out;
  CliRun old = Vigilo("index validate " + (p / "manifest.json").string());
  EXPECT_EQ(old.exit_code, 0) << old.err;
  EXPECT_NE(old.out.find("level           quick\n"), std::string::npos) << old.out;
  EXPECT_EQ(old.out.find("valid "), std::string::npos) << old.out;

  // A page byte of the same object: a parse error naming its row group (exit 3).
  std::filesystem::path q = Copy("flip-page");
  Flip(q / kPostings1, 4, 0x80);  // the first page header, right after "PAR1"
  CliRun page = Vigilo("index verify " + (q / "manifest.json").string());
  EXPECT_EQ(page.exit_code, 3) << page.err;
  EXPECT_EQ(page.err.rfind(std::string("vigilo: parse_error: ") + kPostings1 + ": row group 0: ", 0), 0u) << page.err;
}

TEST_F(IndexVerifyTest, AllListsEveryFailureThenACount) {
  std::filesystem::path p = Copy("two");
  std::string bytes = ReadFile(p / kPostings0);
  bytes.pop_back();  // truncated: the first Get's expected size catches it (exit 6)
  WriteFile(p / kPostings0, bytes);
  std::filesystem::remove(p / kSource0);  // missing (exit 8)
  std::string manifest = (p / "manifest.json").string();

  CliRun first = Vigilo("index verify " + manifest);
  EXPECT_EQ(first.exit_code, 6);
  EXPECT_EQ(first.out, "");
  EXPECT_EQ(first.err, std::string("vigilo: integrity_error: ") + kPostings0 + ": object is " +
                           std::to_string(bytes.size()) + " bytes, expected " + std::to_string(bytes.size() + 1) +
                           "\n");

  CliRun all = Vigilo("index verify --all " + manifest);
  EXPECT_EQ(all.exit_code, 6);  // the first failure's
  EXPECT_EQ(all.out, "");
  std::vector<std::string> lines = Lines(all.err);
  ASSERT_EQ(lines.size(), 3u) << all.err;
  EXPECT_EQ(lines[0] + "\n", first.err);
  EXPECT_EQ(lines[1].rfind(std::string("vigilo: not_found: ") + kSource0 + ": ", 0), 0u) << all.err;
  EXPECT_EQ(lines[2], "vigilo: integrity_error: 2 failures in " + manifest);
}

TEST_F(IndexVerifyTest, AnEditedManifestIsCaughtByItsDerivedUuid) {
  std::filesystem::path p = Copy("edited");
  std::string text = ReadFile(p / "manifest.json");
  // "vector-field":"vector" -> "vectos": a valid manifest no object contradicts.
  size_t at = text.find("\"vector-field\":\"vector\"");
  ASSERT_NE(at, std::string::npos);
  text[at + 20] = 's';
  WriteFile(p / "manifest.json", text);
  std::string manifest = (p / "manifest.json").string();
  CliRun r = Vigilo("index verify " + manifest);
  EXPECT_EQ(r.exit_code, 6);
  EXPECT_EQ(r.err.rfind("vigilo: integrity_error: manifest.json: $.artifact-uuid: artifact-uuid ", 0), 0u) << r.err;
  EXPECT_EQ(Lines(r.err).size(), 1u) << r.err;
  // --any-uuid accepts it: nothing else records the vector field's name.
  CliRun any = Vigilo("index verify --any-uuid " + manifest);
  EXPECT_EQ(any.exit_code, 0) << any.err;

  WriteFile(p / "manifest.json", text.substr(0, text.size() / 2));
  CliRun broken = Vigilo("index verify " + manifest);
  EXPECT_EQ(broken.exit_code, 3) << broken.err;
  EXPECT_EQ(broken.err.rfind("vigilo: parse_error: manifest.json", 0), 0u) << broken.err;

  CliRun absent = Vigilo("index verify " + (p / "absent.json").string());
  EXPECT_EQ(absent.exit_code, 8);
  EXPECT_EQ(absent.err.rfind("vigilo: not_found: absent.json: ", 0), 0u) << absent.err;
}

TEST_F(IndexVerifyTest, TheBufferBoundIsAnOptionAndALimit) {
  std::filesystem::path p = Copy("bound");
  std::string manifest = (p / "manifest.json").string();
  CliRun tiny = Vigilo("index verify --max-buffer 100 " + manifest);
  EXPECT_EQ(tiny.exit_code, 7) << tiny.err;
  EXPECT_EQ(tiny.err.rfind("vigilo: limit_exceeded: centroids.parquet", 0), 0u) << tiny.err;
  EXPECT_EQ(Vigilo("index verify --max-buffer 0 " + manifest).exit_code, 2);
  EXPECT_EQ(Vigilo("index verify").exit_code, 2);
}

}  // namespace
