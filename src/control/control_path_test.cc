// Where the control database lives, how stores are named in the ledger,
// and the small formatting helpers errors rely on.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <optional>
#include <string>

#include "control_test_support.h"
#include "vigilo/control/cleanup.h"
#include "vigilo/control/sqlite_control_store.h"

namespace vigilo::control {
namespace {

class ControlPathTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (std::filesystem::path(::testing::TempDir()) / "vigilo_path_XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = std::filesystem::weakly_canonical(pattern);
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  std::filesystem::path dir_;
};

TEST_F(ControlPathTest, ALocatorNamesTheDatabaseFileOrItsDirectory) {
  ASSERT_TRUE(OpenControlStore((dir_ / "nested" / "c.sqlite3").string()).ok());
  EXPECT_TRUE(std::filesystem::is_regular_file(dir_ / "nested" / "c.sqlite3"));
  ASSERT_TRUE(OpenControlStore(dir_.string()).ok());
  EXPECT_TRUE(std::filesystem::is_regular_file(dir_ / "control.sqlite3"));
  // A reader that must not create one finds none.
  Status missing = OpenControlStore((dir_ / "none.sqlite3").string(), {.create = false}).status();
  EXPECT_EQ(missing.code(), StatusCode::kNotFound) << missing.ToString();
  EXPECT_EQ(OpenControlStore("").status().code(), StatusCode::kInvalidArgument);
}

TEST_F(ControlPathTest, TheMemoryLocatorIsAPrivateStateThatTouchesNoFile) {
  std::filesystem::path cwd = std::filesystem::current_path();
  std::filesystem::current_path(dir_);
  Result<std::unique_ptr<ControlStore>> a = OpenControlStore("memory:", {.create = false});
  Result<std::unique_ptr<ControlStore>> b = OpenControlStore("memory:");
  std::filesystem::current_path(cwd);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_TRUE(std::filesystem::is_empty(dir_));
  // Each opens empty, with the schema in place.
  EXPECT_TRUE((*a)->ListRoots(Namespace::kDatasets)->empty());
  EXPECT_TRUE((*b)->ListRoots(Namespace::kDatasets)->empty());
}

TEST_F(ControlPathTest, ALocalStoreIsNamedByItsAbsolutePathHoweverItWasGiven) {
  std::filesystem::create_directories(dir_ / "store one");
  const std::string expected = "local:" + (dir_ / "store one").string();
  auto id_of = [](const std::string& spec) -> std::string {
    Result<store::ResolvedStore> resolved = store::ResolveStore(store::StoreConfig(), spec, store::OpenOptions{});
    if (!resolved.ok()) return resolved.status().ToString();
    Result<std::string> id = LedgerStoreId(spec, *resolved);
    return id.ok() ? *id : id.status().ToString();
  };
  EXPECT_EQ(id_of((dir_ / "store one").string()), expected);
  EXPECT_EQ(id_of((dir_ / "store one").string() + "/"), expected);
  EXPECT_EQ(id_of((dir_ / "." / "store one" / ".." / "store one").string()), expected);
  EXPECT_EQ(id_of("file://" + dir_.string() + "/store%20one"), expected);

  std::filesystem::path cwd = std::filesystem::current_path();
  std::filesystem::current_path(dir_);
  EXPECT_EQ(id_of("./store one"), expected);
  std::filesystem::current_path(cwd);

  EXPECT_EQ(StoreSpecForLedgerId(expected), (dir_ / "store one").string());
}

TEST_F(ControlPathTest, AConfiguredStoreIsNamedByItsAlias) {
  std::filesystem::create_directories(dir_ / "primary");
  Result<store::StoreConfig> config = store::StoreConfig::Parse(
      R"({"version":1,"stores":{"primary":{"url":"file://)" + dir_.string() + R"(/primary"}}})", "test");
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  Result<store::ResolvedStore> resolved = store::ResolveStore(*config, "primary", store::OpenOptions{});
  ASSERT_TRUE(resolved.ok()) << resolved.status().ToString();
  EXPECT_EQ(LedgerStoreId("primary", *resolved).value(), "primary");
  EXPECT_EQ(StoreSpecForLedgerId("primary"), "primary");
}

TEST(ControlFormatTest, WallTimesPrintAsUtcWithMicroseconds) {
  EXPECT_EQ(FormatWallTime(testing_support::kT0), "2026-01-01T00:00:00.000000Z");
  EXPECT_EQ(FormatWallTime(testing_support::kT0 + 86'400'250'001), "2026-01-02T00:00:00.250001Z");
  EXPECT_EQ(FormatWallTime(-1), "1969-12-31T23:59:59.999999Z");
}

TEST(ControlFormatTest, TheProcessOwnerNamesHostAndPid) {
  std::string owner = ProcessOwner();
  std::string suffix = ":" + std::to_string(getpid());
  ASSERT_GT(owner.size(), suffix.size());
  EXPECT_EQ(owner.substr(owner.size() - suffix.size()), suffix);
}

TEST(ControlFormatTest, TheWallClockIsTheSystemClock) {
  Micros before = static_cast<Micros>(::time(nullptr)) * 1'000'000;
  Micros now = DefaultWallClock().Now();
  Micros after = (static_cast<Micros>(::time(nullptr)) + 1) * 1'000'000;
  EXPECT_GE(now, before);
  EXPECT_LE(now, after);
}

}  // namespace
}  // namespace vigilo::control
