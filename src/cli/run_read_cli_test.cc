// `vigilo run list|show|verify|chunk` without a planned run: an empty or
// missing control database, unknown names and refused arguments. The
// end-to-end run (plan, then read) is the planner's CLI test.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "cli_test_support.h"

namespace vigilo::cli {
namespace {

using cli_test::CliRun;

// Runs `vigilo ARGS` with a private control database path (created by
// nothing here unless `create_control`) and an empty stdin.
CliRun Vigilo(const std::string& args, bool create_control = false) {
  std::filesystem::path dir = cli_test::ProcessDir();
  std::filesystem::path control = dir / "control.db";
  std::filesystem::remove(control);
  if (create_control) {
    // `store cleanup` opens (and creates) the control database and finds no work.
    std::string init = "VIGILO_CONTROL=" + control.string() + " " + std::string(VIGILO_BIN) +
                       " store cleanup --json >/dev/null 2>&1";
    EXPECT_EQ(std::system(init.c_str()), 0);
  }
  return cli_test::RunVigilo({dir, "VIGILO_CONTROL=" + control.string(), false}, args);
}

// An inline object reference, single-quoted for the shell.
std::string Ref(const std::string& key, const std::string& schema, const std::string& alias) {
  return "'{\"byte_count\":10,\"digest\":\"" + std::string(64, '0') +
         "\",\"hash_scheme\":\"blake3-256\",\"key\":\"" + key + "\",\"revision\":null,\"schema\":\"" + schema +
         "\",\"storage_alias\":\"" + alias + "\"}'";
}

TEST(RunReadCliTest, ListWithNoRuns) {
  for (bool created : {false, true}) {
    SCOPED_TRACE(created);
    CliRun text = Vigilo("run list", created);
    EXPECT_EQ(text.exit_code, 0) << text.err;
    EXPECT_EQ(text.out, "no runs are published\n");
    EXPECT_EQ(text.err, "");
    CliRun json = Vigilo("run list --json", created);
    EXPECT_EQ(json.exit_code, 0) << json.err;
    EXPECT_EQ(json.out, "");
  }
  EXPECT_FALSE(std::filesystem::exists(cli_test::ProcessDir() / "control.db"));  // a read never creates it
}

TEST(RunReadCliTest, AnUnknownNameIsNotFound) {
  for (bool created : {false, true}) {
    for (std::string command : {"show", "verify", "chunk --index 0"}) {
      SCOPED_TRACE(command);
      CliRun r = Vigilo("run " + command + " nightly", created);
      EXPECT_EQ(r.err, "vigilo: not_found: no run is published under nightly\n");
      EXPECT_NE(r.exit_code, 0);
      EXPECT_NE(r.exit_code, 2);
      EXPECT_EQ(r.out, "");
    }
  }
}

TEST(RunReadCliTest, BadArgumentsAreUsageErrors) {
  CliRun no_index = Vigilo("run chunk nightly");
  EXPECT_EQ(no_index.exit_code, 2);
  EXPECT_EQ(no_index.err, "vigilo: invalid_argument: run chunk: --index is required\n");
  CliRun not_a_number = Vigilo("run chunk nightly --index x");
  EXPECT_EQ(not_a_number.exit_code, 2);
  EXPECT_NE(not_a_number.err.find("vigilo: invalid_argument: run chunk: "), std::string::npos) << not_a_number.err;
  CliRun no_command = Vigilo("run");
  EXPECT_EQ(no_command.exit_code, 2);
  EXPECT_EQ(no_command.err.rfind("vigilo: invalid_argument: run: a command is required: one of ", 0), 0u)
      << no_command.err;
  CliRun bad_name = Vigilo("run show 'a b'");
  EXPECT_EQ(bad_name.exit_code, 2);
  EXPECT_EQ(bad_name.err.rfind("vigilo: invalid_argument: \"a b\" is not a run name (", 0), 0u) << bad_name.err;
  // A dataset's reference is not a run's.
  CliRun dataset_ref = Vigilo("run verify " + Ref("datasets/geo/manifest.json", "vigilo/dataset-manifest/v1", "x"));
  EXPECT_EQ(dataset_ref.exit_code, 2) << dataset_ref.err;
  EXPECT_EQ(dataset_ref.err,
            "vigilo: invalid_argument: <reference>: the reference names a vigilo/dataset-manifest/v1 object, not a "
            "vigilo/run-plan-manifest/v1 root\n");
  // A run REF whose storage alias no stores config names.
  std::filesystem::path stores = cli_test::ProcessDir() / "stores.json";
  cli_test::WriteFile(stores, R"({"version":1,"stores":{}})");
  CliRun no_store =
      Vigilo("run show " + Ref("runs/r/plan.json", "vigilo/run-plan-manifest/v1", "nowhere") + " --stores " +
             stores.string());
  EXPECT_EQ(no_store.exit_code, 2) << no_store.err;
  EXPECT_EQ(no_store.err.rfind("vigilo: invalid_argument: --store: a reference needs a store to read from: its storage "
                               "alias \"nowhere\" is not configured",
                               0),
            0u)
      << no_store.err;
  EXPECT_EQ(no_store.out, "");
}

}  // namespace
}  // namespace vigilo::cli
