// Where the control database lives, how stores are named in the ledger,
// and the small formatting helpers errors rely on.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

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

TEST_F(ControlPathTest, ALocalStoreIsNamedByItsHostAndAbsolutePathHoweverItWasGiven) {
  std::filesystem::create_directories(dir_ / "store one");
  const std::string expected = "local://box-1" + (dir_ / "store one").string();
  auto id_of = [](const std::string& spec, const std::string& host = "box-1") -> std::string {
    Result<store::ResolvedStore> resolved = store::ResolveStore(store::StoreConfig(), spec, store::OpenOptions{});
    if (!resolved.ok()) return resolved.status().ToString();
    Result<std::string> id = LedgerStoreId(spec, *resolved, host);
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

  // The same path on another host is another store.
  EXPECT_EQ(id_of((dir_ / "store one").string(), "box-2"), "local://box-2" + (dir_ / "store one").string());
  // A directory's id needs this host's name; a bad one is refused naming the setting.
  std::string unnamed = id_of((dir_ / "store one").string(), "");
  EXPECT_NE(unnamed.find("invalid_argument"), std::string::npos) << unnamed;
  EXPECT_NE(unnamed.find("`host` is empty"), std::string::npos) << unnamed;
  EXPECT_NE(id_of((dir_ / "store one").string(), "a/b").find("`host`"), std::string::npos);
  EXPECT_NE(id_of((dir_ / "store one").string(), std::string(254, 'h')).find("at most 253"), std::string::npos);

  EXPECT_EQ(StoreSpecForLedgerId(expected, "box-1").value(), (dir_ / "store one").string());
}

TEST_F(ControlPathTest, AConfiguredStoreIsNamedByItsAliasOnEveryHost) {
  std::filesystem::create_directories(dir_ / "primary");
  Result<store::StoreConfig> config = store::StoreConfig::Parse(
      R"({"version":1,"stores":{"primary":{"url":"file://)" + dir_.string() + R"(/primary"}}})", "test");
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  Result<store::ResolvedStore> resolved = store::ResolveStore(*config, "primary", store::OpenOptions{});
  ASSERT_TRUE(resolved.ok()) << resolved.status().ToString();
  EXPECT_EQ(LedgerStoreId("primary", *resolved, "box-1").value(), "primary");
  EXPECT_EQ(LedgerStoreId("primary", *resolved, "box-2").value(), "primary");
  EXPECT_EQ(LedgerStoreId("primary", *resolved, "").value(), "primary");  // an alias needs no host name
  EXPECT_EQ(StoreSpecForLedgerId("primary", "box-1").value(), "primary");
  EXPECT_EQ(StoreSpecForLedgerId("primary", "box-2").value(), "primary");
}

TEST(LedgerStoreIdTest, ParsesTheThreeFormsAndRefusesOthers) {
  Result<LedgerStore> alias = ParseLedgerStoreId("primary");
  ASSERT_TRUE(alias.ok()) << alias.status().ToString();
  EXPECT_EQ(alias->kind, LedgerStore::Kind::kAlias);
  EXPECT_EQ(alias->alias, "primary");
  EXPECT_FALSE(alias->IsDirectoryOf("box-1"));
  EXPECT_FALSE(alias->IsAnotherHostsDirectory("box-1"));

  Result<LedgerStore> dir = ParseLedgerStoreId("local://box-2/srv/a b");
  ASSERT_TRUE(dir.ok()) << dir.status().ToString();
  EXPECT_EQ(dir->kind, LedgerStore::Kind::kLocalDirectory);
  EXPECT_EQ(dir->host, "box-2");
  EXPECT_EQ(dir->path, "/srv/a b");
  EXPECT_FALSE(dir->legacy());
  EXPECT_TRUE(dir->IsDirectoryOf("box-2"));
  EXPECT_FALSE(dir->IsDirectoryOf("box-1"));
  EXPECT_TRUE(dir->IsAnotherHostsDirectory("box-1"));

  // The form before host qualification: this host's, whichever host reads it.
  Result<LedgerStore> legacy = ParseLedgerStoreId("local:/srv/vigilo");
  ASSERT_TRUE(legacy.ok()) << legacy.status().ToString();
  EXPECT_TRUE(legacy->legacy());
  EXPECT_EQ(legacy->path, "/srv/vigilo");
  EXPECT_TRUE(legacy->IsDirectoryOf("box-1"));
  EXPECT_TRUE(legacy->IsDirectoryOf("box-2"));
  EXPECT_FALSE(legacy->IsAnotherHostsDirectory("box-1"));

  for (const char* bad : {"local://box-1", "local:///srv", "local://bad host/srv", "local:relative", "local:",
                          "two words", "", "s3://bucket/x"}) {
    Result<LedgerStore> parsed = ParseLedgerStoreId(bad);
    EXPECT_EQ(parsed.status().code(), StatusCode::kInvalidFormat) << bad;
  }
}

TEST(LedgerStoreIdTest, AnotherHostsDirectoryIsNeverOpenedHere) {
  // This host's directory and a legacy id open as the path; an alias as itself.
  EXPECT_EQ(StoreSpecForLedgerId("local://box-1/srv/v", "box-1").value(), "/srv/v");
  EXPECT_EQ(StoreSpecForLedgerId("local:/srv/v", "box-1").value(), "/srv/v");
  EXPECT_EQ(LocalDirectoryOfLedgerId("local://box-1/srv/v", "box-1"), std::optional<std::string>("/srv/v"));
  EXPECT_EQ(LocalDirectoryOfLedgerId("local:/srv/v", "box-1"), std::optional<std::string>("/srv/v"));

  Result<std::string> other = StoreSpecForLedgerId("local://box-2/srv/v", "box-1");
  ASSERT_EQ(other.status().code(), StatusCode::kInvalidArgument) << other.status().ToString();
  EXPECT_EQ(other.status().path(), "store");
  const std::string message(other.status().message());
  EXPECT_NE(message.find("/srv/v on the host box-2, not on this host (box-1)"), std::string::npos) << message;
  EXPECT_NE(message.find("`store`"), std::string::npos) << message;
  EXPECT_EQ(LocalDirectoryOfLedgerId("local://box-2/srv/v", "box-1"), std::nullopt);
  EXPECT_EQ(LocalDirectoryOfLedgerId("primary", "box-1"), std::nullopt);
  EXPECT_EQ(LocalDirectoryOfLedgerId("local:relative", "box-1"), std::nullopt);
  EXPECT_EQ(StoreSpecForLedgerId("local:relative", "box-1").status().code(), StatusCode::kInvalidFormat);

  EXPECT_EQ(DescribeLedgerStore("local://box-2/srv/v", "box-1"), "/srv/v on host box-2");
  EXPECT_EQ(DescribeLedgerStore("local://box-1/srv/v", "box-1"), "/srv/v");
  EXPECT_EQ(DescribeLedgerStore("primary", "box-1"), "primary");
}

TEST(LedgerStoreIdTest, ALegacyIdIsTheSameStoreAsThisHostsIdOfItsDirectory) {
  EXPECT_TRUE(SameLedgerStore("local://box-1/srv/v", "local://box-1/srv/v"));
  EXPECT_TRUE(SameLedgerStore("local:/srv/v", "local://box-1/srv/v"));
  EXPECT_FALSE(SameLedgerStore("local:/srv/w", "local://box-1/srv/v"));
  EXPECT_FALSE(SameLedgerStore("local://box-2/srv/v", "local://box-1/srv/v"));
  EXPECT_FALSE(SameLedgerStore("local://box-1/srv/v", "primary"));
  EXPECT_FALSE(SameLedgerStore("local", "local://box-1/srv/v"));
  EXPECT_TRUE(SameLedgerStore("primary", "primary"));

  EXPECT_EQ(LedgerStoreIdForms("local://box-1/srv/v"),
            (std::vector<std::string>{"local://box-1/srv/v", "local:/srv/v"}));
  EXPECT_EQ(LedgerStoreIdForms("primary"), (std::vector<std::string>{"primary"}));
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
