// `vigilo index verify`: the real binary on a publication it built: the
// summary line, and for corrupted, truncated and missing objects and an
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
  EXPECT_NE(r.out.find(",\"level\":\"verify\","), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(",\"rows\":400,\"source_rows\":400,\"valid\":true}\n"), std::string::npos) << r.out;
  // --all changes nothing for a valid publication.
  CliRun all = Vigilo("index verify --all --json " + (p / "manifest.json").string());
  EXPECT_EQ(all.exit_code, 0) << all.err;
  EXPECT_EQ(all.out, r.out);
  // The default is the key-value text, the same fields.
  CliRun text = Vigilo("index verify " + (p / "manifest.json").string());
  EXPECT_EQ(text.exit_code, 0) << text.err;
  std::vector<std::string> lines = Lines(text.out);
  ASSERT_EQ(lines.size(), 11u) << text.out;
  EXPECT_EQ(lines[0], "valid           true");
  EXPECT_EQ(lines[1], "level           verify");
  EXPECT_EQ(lines[3], "rows            400");
  EXPECT_EQ(lines[4], "source_rows     400");
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
  // `index validate` (footers) does not read those bytes' digest; verify is the level that does.
  EXPECT_EQ(Vigilo("index validate " + (p / "manifest.json").string()).exit_code, 0);

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
