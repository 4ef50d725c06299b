// `vigilo dataset pack` as a hostile user drives it (issue 20): every flag is
// checked before any input is read or any object written, with the flag
// named; a byte order mark gets the JSON parser's message; a value longer
// than the stream window packs; a case too big for a batch is named.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "cli_test_support.h"

namespace vigilo::cli {
namespace {

using cli_test::CliRun;
using cli_test::TempPath;
using cli_test::Vigilo;
using cli_test::WriteFile;

const std::string kAttempt = "0f8e5c1a-2b3d-4e5f-8a9b-0c1d2e3f4a5b";

std::string Dataset(const std::string& prompt) {
  return R"({"dataset_id":"geo","cases":[{"id":"00000000-0000-4000-8000-000000000001","input":{"prompt":")" +
         prompt + R"("}}]})";
}

// A fresh output directory that must stay absent when a flag is refused.
std::string FreshOut(const std::string& name) {
  std::string out = TempPath(name);
  std::filesystem::remove_all(out);
  return out;
}

TEST(DatasetPackCliTest, GenerationZeroIsRefusedBeforeAnythingIsRead) {
  std::string out = FreshOut("gen0");
  // The input does not exist: the flag error comes first.
  CliRun r = Vigilo("dataset pack " + TempPath("absent.json") + " --out " + out + " --attempt " + kAttempt +
                    " --generation 0");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.err, "vigilo: invalid_argument: --generation: generations start at 1, got 0\n");
  EXPECT_FALSE(std::filesystem::exists(out));
}

TEST(DatasetPackCliTest, AttemptAndAliasAreValidatedUpFrontNamingTheFlag) {
  std::string out = FreshOut("flags");
  CliRun attempt =
      Vigilo("dataset pack " + TempPath("absent.json") + " --out " + out + " --attempt not-a-uuid");
  EXPECT_EQ(attempt.exit_code, 2) << attempt.err;
  EXPECT_EQ(attempt.err.rfind("vigilo: invalid_argument: --attempt: ", 0), 0u) << attempt.err;
  CliRun alias = Vigilo("dataset pack " + TempPath("absent.json") + " --out " + out + " --attempt " + kAttempt +
                        " --alias 'bad alias'");
  EXPECT_EQ(alias.exit_code, 2) << alias.err;
  EXPECT_EQ(alias.err.rfind("vigilo: invalid_argument: --alias: ", 0), 0u) << alias.err;
  EXPECT_FALSE(std::filesystem::exists(out));
}

TEST(DatasetPackCliTest, AByteOrderMarkGetsTheParsersMessage) {
  std::string in = TempPath("bom.json");
  WriteFile(in, "\xef\xbb\xbf" + Dataset("p"));
  CliRun r = Vigilo("dataset pack " + in + " --out " + FreshOut("bom") + " --attempt " + kAttempt);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_EQ(r.err, "vigilo: parse_error: a byte order mark is not allowed (at byte 0)\n");
}

TEST(DatasetPackCliTest, A300KiBPromptPacksAndVerifies) {
  std::string in = TempPath("big.json");
  WriteFile(in, Dataset(std::string(300 << 10, 'q')));
  std::string out = FreshOut("big");
  CliRun packed = Vigilo("dataset pack " + in + " --out " + out + " --attempt " + kAttempt);
  ASSERT_EQ(packed.exit_code, 0) << packed.err;
  std::string ref = TempPath("big-ref.json");
  WriteFile(ref, packed.out);
  CliRun verified = Vigilo("dataset verify @" + ref + " --store " + out);
  EXPECT_EQ(verified.exit_code, 0) << verified.err;
}

TEST(DatasetPackCliTest, ACaseLargerThanABatchIsNamed) {
  std::string in = TempPath("nine.json");
  WriteFile(in, Dataset(std::string(9 << 20, 'q')));
  CliRun r = Vigilo("dataset pack " + in + " --out " + FreshOut("nine") + " --attempt " + kAttempt);
  EXPECT_EQ(r.err,
            "vigilo: limit_exceeded: $.cases[0]: case 00000000-0000-4000-8000-000000000001 needs 9437446 bytes with "
            "its batch header; the batch limit is 8388608\n");
}

}  // namespace
}  // namespace vigilo::cli
