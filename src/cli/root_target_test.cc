// The NAME|REF argument's file and stdin forms (root_target.h): what the
// CLI reads before the engine parses names and reference text.
#include "root_target.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace vigilo::cli {
namespace {

using control::Namespace;

const std::string kDigest(64, '0');
std::string RefText(const std::string& schema) {
  return R"({"byte_count":10,"digest":")" + kDigest + R"(","hash_scheme":"blake3-256","key":"datasets/d/m.json",)"
         R"("revision":null,"schema":")" + schema + R"(","storage_alias":"local"})";
}

std::string TempFile(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() / ("vigilo-root-target-" + std::to_string(::getpid()) + name);
  std::ofstream(path, std::ios::binary) << text;
  return path.string();
}

TEST(RootTargetTest, AtFileAPathAndStdinAreReferences) {
  const std::string text = RefText("vigilo/dataset-manifest/v1");
  const std::string file = TempFile("ref.json", text + "\n");
  Result<engine::RootLocator> at = ParseRootTarget("@" + file, nullptr, Namespace::kDatasets);
  ASSERT_TRUE(at.ok()) << at.status().ToString();
  ASSERT_TRUE(at->ref.has_value());
  EXPECT_EQ(at->ref->key, "datasets/d/m.json");
  EXPECT_EQ(at->name, "");
  // A path (it holds '/', which no name does) is the older spelling of @FILE.
  Result<engine::RootLocator> path = ParseRootTarget(file, nullptr, Namespace::kDatasets);
  ASSERT_TRUE(path.ok()) << path.status().ToString();
  EXPECT_EQ(path->ref, at->ref);
  std::string stdin_text = text + "\n";
  StringByteSource in(stdin_text);
  Result<engine::RootLocator> dash = ParseRootTarget("-", &in, Namespace::kDatasets);
  ASSERT_TRUE(dash.ok()) << dash.status().ToString();
  EXPECT_EQ(dash->ref, at->ref);
  // Inline JSON and names go to the engine.
  EXPECT_EQ(ParseRootTarget(text, nullptr, Namespace::kDatasets)->ref, at->ref);
  EXPECT_EQ(ParseRootTarget("geo-2026", nullptr, Namespace::kDatasets)->name, "geo-2026");
  std::filesystem::remove(file);
}

TEST(RootTargetTest, RefusalsNameWhereTheReferenceCameFrom) {
  EXPECT_EQ(ParseRootTarget("@/nonexistent/ref.json", nullptr, Namespace::kDatasets).status().code(),
            StatusCode::kNotFound);
  Status no_file = ParseRootTarget("@", nullptr, Namespace::kDatasets).status();
  EXPECT_EQ(no_file.ToString(), "invalid_argument: @ must be followed by a file name");
  Status no_stdin = ParseRootTarget("-", nullptr, Namespace::kRuns).status();
  EXPECT_EQ(no_stdin.code(), StatusCode::kInvalidArgument);
  // A run command given a dataset's reference, from stdin.
  std::string dataset_ref = RefText("vigilo/dataset-manifest/v1");
  StringByteSource in(dataset_ref);
  EXPECT_EQ(ParseRootTarget("-", &in, Namespace::kRuns).status().ToString(),
            "invalid_argument: <stdin>: the reference names a vigilo/dataset-manifest/v1 object, not a "
            "vigilo/run-plan-manifest/v1 root");
  // Over 64 KiB (a trailing LF aside) is refused naming the source, while reading.
  std::string huge(64 * 1024 + 2, ' ');
  StringByteSource big(huge);
  Status too_big = ParseRootTarget("-", &big, Namespace::kDatasets).status();
  EXPECT_EQ(too_big.ToString(), "limit_exceeded: <stdin>: a dataset reference is at most 64 KiB");
  const std::string file = TempFile("big.json", std::string(64 * 1024, ' ') + "\n");
  Status exactly = ParseRootTarget("@" + file, nullptr, Namespace::kDatasets).status();
  EXPECT_EQ(exactly.code(), StatusCode::kParseError) << exactly.ToString();  // 64 KiB of blanks: not JSON
  std::filesystem::remove(file);
}

}  // namespace
}  // namespace vigilo::cli
