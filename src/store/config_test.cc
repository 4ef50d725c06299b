#include "vigilo/store/config.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "vigilo/store/governor.h"
#include "vigilo/store/local_store.h"
#include "vigilo/store/memory_store.h"

namespace vigilo::store {
namespace {

namespace fs = std::filesystem;

std::span<const uint8_t> B(std::string_view s) { return {reinterpret_cast<const uint8_t*>(s.data()), s.size()}; }

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "vigilo-config-XXXXXX").string();
    if (::mkdtemp(tmpl.data()) != nullptr) path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

void WriteFile(const fs::path& path, std::string_view bytes) {
  fs::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary);
  out << bytes;
}

// A governor with the seed's default limits, for the remote aliases.
RequestGovernor& TestGovernor() {
  static std::unique_ptr<RequestGovernor> governor =
      std::move(RequestGovernor::Create(GovernorLimits{}, DefaultClock(), DefaultRandom())).value();
  return *governor;
}

std::string OneStore(std::string_view alias, std::string_view entry) {
  return R"({"stores":{")" + std::string(alias) + R"(":)" + std::string(entry) + R"(},"version":1})";
}

std::string FileEntry(const fs::path& dir, bool writable, bool guarantees) {
  std::string entry = R"({"url":"file://)" + dir.string() + "\"";
  if (writable) entry += R"(,"writable":true)";
  if (guarantees) entry += R"(,"guarantees":{"conditional_create":true,"read_after_create":true})";
  return entry + "}";
}

void ExpectError(const Status& s, StatusCode code, std::string_view path, std::string_view message) {
  EXPECT_EQ(s.code(), code) << s.ToString();
  EXPECT_EQ(s.path(), path) << s.ToString();
  EXPECT_EQ(s.message(), message) << s.ToString();
}

Status ParseFailure(std::string_view json) { return StoreConfig::Parse(json, "t.json").status(); }

TEST(StoreConfigTest, ParsesEntriesWithTheirDeclarations) {
  Result<StoreConfig> config = StoreConfig::Parse(
      R"({"stores":{)"
      R"("primary":{"guarantees":{"conditional_create":true,"read_after_create":true},"url":"file:///srv/vigilo%20data","writable":true},)"
      R"("mirror":{"url":"file://localhost/srv/mirror"},)"
      R"("lake":{"backend":{"credentials":{"source":"environment"},"endpoint":"http://127.0.0.1:7480","region":"us-east-1"},)"
      R"("guarantees":{"conditional_create":false,"read_after_create":true},"url":"s3://bucket/prefix","writable":true},)"
      R"("web":{"url":"https://cdn.example/pub"}},"version":1})",
      "t.json");
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  EXPECT_EQ(config->size(), 4u);
  EXPECT_EQ(config->origin(), "t.json");

  const StoreEntry* primary = config->Find("primary");
  ASSERT_NE(primary, nullptr);
  EXPECT_EQ(primary->alias, "primary");
  EXPECT_EQ(primary->scheme, "file");
  EXPECT_EQ(primary->local_root, "/srv/vigilo data");
  EXPECT_TRUE(primary->declared.writable);
  EXPECT_TRUE(primary->declared.conditional_create);
  EXPECT_TRUE(primary->declared.read_after_create);

  const StoreEntry* mirror = config->Find("mirror");
  ASSERT_NE(mirror, nullptr);
  EXPECT_EQ(mirror->local_root, "/srv/mirror");
  // Nothing declared: read-only, no guarantees.
  EXPECT_FALSE(mirror->declared.writable);
  EXPECT_FALSE(mirror->declared.conditional_create);
  EXPECT_FALSE(mirror->declared.read_after_create);

  const StoreEntry* lake = config->Find("lake");
  ASSERT_NE(lake, nullptr);
  EXPECT_EQ(lake->scheme, "s3");
  EXPECT_EQ(lake->url, "s3://bucket/prefix");
  EXPECT_FALSE(lake->declared.conditional_create);
  EXPECT_TRUE(lake->declared.read_after_create);
  ASSERT_NE(config->Find("web"), nullptr);
  EXPECT_EQ(config->Find("web")->scheme, "https");

  EXPECT_EQ(config->Find("nobody"), nullptr);
  EXPECT_EQ(config->Find("PRIMARY"), nullptr);  // aliases are case-sensitive
}

TEST(StoreConfigTest, AnEmptyStoresObjectIsValid) {
  Result<StoreConfig> config = StoreConfig::Parse(R"({"stores":{},"version":1})", "t.json");
  ASSERT_TRUE(config.ok());
  EXPECT_EQ(config->size(), 0u);
}

TEST(StoreConfigTest, StrictTopLevel) {
  ExpectError(ParseFailure(R"({"stores":{},"version":1,"extra":0})"), StatusCode::kInvalidFormat, "$.extra",
              "unexpected field (in stores config t.json)");
  ExpectError(ParseFailure(R"({"stores":{}})"), StatusCode::kInvalidFormat, "$.version",
              "missing required field (in stores config t.json)");
  ExpectError(ParseFailure(R"({"version":1})"), StatusCode::kInvalidFormat, "$.stores",
              "missing required field (in stores config t.json)");
  ExpectError(ParseFailure(R"({"stores":{},"version":2})"), StatusCode::kInvalidFormat, "$.version",
              "unsupported stores config version (this build reads version 1) (in stores config t.json)");
  ExpectError(ParseFailure(R"({"stores":{},"version":1.0})"), StatusCode::kInvalidFormat, "$.version",
              "unsupported stores config version (this build reads version 1) (in stores config t.json)");
  ExpectError(ParseFailure(R"({"stores":[],"version":1})"), StatusCode::kInvalidFormat, "$.stores",
              "expected an object, got array (in stores config t.json)");
  ExpectError(ParseFailure("[]"), StatusCode::kInvalidFormat, "$", "expected an object, got array (in stores config t.json)");
  Status syntax = ParseFailure(R"({"stores":{},)");
  EXPECT_EQ(syntax.code(), StatusCode::kParseError);
  EXPECT_TRUE(syntax.message().ends_with(" (in stores config t.json)")) << syntax.ToString();
  EXPECT_EQ(syntax.offset(), 13u);
}

TEST(StoreConfigTest, StrictEntries) {
  ExpectError(ParseFailure(OneStore("a", R"({"url":"file:///d","color":"red"})")), StatusCode::kInvalidFormat,
              "$.stores.a.color", "unexpected field (in stores config t.json)");
  ExpectError(ParseFailure(OneStore("a", R"({"writable":true})")), StatusCode::kInvalidFormat, "$.stores.a.url",
              "missing required field (in stores config t.json)");
  ExpectError(ParseFailure(OneStore("a", R"({"url":7})")), StatusCode::kInvalidFormat, "$.stores.a.url",
              "expected a string, got number (in stores config t.json)");
  ExpectError(ParseFailure(OneStore("a", R"({"url":"file:///d","writable":"yes"})")), StatusCode::kInvalidFormat,
              "$.stores.a.writable", "expected a boolean, got string (in stores config t.json)");
  ExpectError(ParseFailure(OneStore("a", R"({"guarantees":{"conditional_create":true},"url":"file:///d"})")),
              StatusCode::kInvalidFormat, "$.stores.a.guarantees.read_after_create",
              "missing required field (in stores config t.json)");
  ExpectError(ParseFailure(OneStore("a", R"({"guarantees":{"conditional_create":true,"read_after_create":1},"url":"file:///d"})")),
              StatusCode::kInvalidFormat, "$.stores.a.guarantees.read_after_create",
              "expected a boolean, got number (in stores config t.json)");
  ExpectError(ParseFailure(OneStore("a", R"({"guarantees":{"conditional_create":true,"read_after_create":true,"atomic":true},"url":"file:///d"})")),
              StatusCode::kInvalidFormat, "$.stores.a.guarantees.atomic",
              "unexpected field (in stores config t.json)");
  ExpectError(ParseFailure(OneStore("a", "null")), StatusCode::kInvalidFormat, "$.stores.a",
              "expected an object, got null (in stores config t.json)");
}

TEST(StoreConfigTest, InvalidAndReservedAliasesAreRefused) {
  const std::string expect_len = "member #0 (in key order) is not a valid storage alias: storage alias must be 1-128 characters, got ";
  ExpectError(ParseFailure(OneStore(std::string(129, 'a'), R"({"url":"file:///d"})")), StatusCode::kInvalidFormat,
              "$.stores", expect_len + "129 (in stores config t.json)");
  ExpectError(ParseFailure(OneStore("", R"({"url":"file:///d"})")), StatusCode::kInvalidFormat, "$.stores",
              expect_len + "0 (in stores config t.json)");
  ExpectError(ParseFailure(OneStore("a.b", R"({"url":"file:///d"})")), StatusCode::kInvalidFormat, "$.stores",
              "member #0 (in key order) is not a valid storage alias: storage alias may contain only ASCII letters, "
              "digits, '_' and '-'; bad byte at 1 (in stores config t.json)");
  ExpectError(ParseFailure(OneStore("local", R"({"url":"file:///d"})")), StatusCode::kInvalidFormat, "$.stores.local",
              "the alias \"local\" is reserved for stores named by a path (in stores config t.json)");
  // 128 characters is the longest alias.
  EXPECT_TRUE(StoreConfig::Parse(OneStore(std::string(128, 'a'), R"({"url":"file:///d"})"), "t.json").ok());
}

TEST(StoreConfigTest, UrlsAreChecked) {
  auto url_error = [](std::string_view url) {
    return ParseFailure(OneStore("a", R"({"url":")" + std::string(url) + R"("})"));
  };
  const std::string tail = " (in stores config t.json)";
  ExpectError(url_error("/srv/data"), StatusCode::kInvalidFormat, "$.stores.a.url",
              "not a URL (expected file://, http://, https:// or s3://)" + tail);
  ExpectError(url_error("ftp://h/d"), StatusCode::kInvalidFormat, "$.stores.a.url",
              "unsupported URL scheme (expected file://, http://, https:// or s3://)" + tail);
  ExpectError(url_error("FILE:///d"), StatusCode::kInvalidFormat, "$.stores.a.url",
              "unsupported URL scheme (expected file://, http://, https:// or s3://)" + tail);
  ExpectError(url_error("file://dir"), StatusCode::kInvalidFormat, "$.stores.a.url",
              "a file:// URL needs an absolute path (file:///dir)" + tail);
  ExpectError(url_error("file://server/d"), StatusCode::kInvalidFormat, "$.stores.a.url",
              "a file:// URL may name no host but localhost (file:///dir)" + tail);
  ExpectError(url_error("file:///d?x=1"), StatusCode::kInvalidFormat, "$.stores.a.url",
              "a file:// URL may have no query or fragment" + tail);
  ExpectError(url_error("file:///d#f"), StatusCode::kInvalidFormat, "$.stores.a.url",
              "a file:// URL may have no query or fragment" + tail);
  ExpectError(url_error("file:///d%2"), StatusCode::kInvalidFormat, "$.stores.a.url",
              "a file:// URL has a '%' not followed by two hex digits" + tail);
  ExpectError(url_error("file:///d%zz"), StatusCode::kInvalidFormat, "$.stores.a.url",
              "a file:// URL has a '%' not followed by two hex digits" + tail);
  ExpectError(url_error("file:///d%00"), StatusCode::kInvalidFormat, "$.stores.a.url",
              "a file:// URL may not contain %00" + tail);
}

// An http(s) alias opens the read-only HTTP backend (opening sends no
// request) and is refused for write use whatever the entry declares.
TEST(StoreConfigTest, HttpAliasesAreReadOnly) {
  Result<StoreConfig> config = StoreConfig::Parse(
      OneStore("web", R"({"guarantees":{"conditional_create":true,"read_after_create":true},"url":"http://127.0.0.1:9/pub","writable":true})"),
      "t.json");
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  // Every request of a remote store is governed: none opens without a governor.
  ExpectError(ResolveStore(*config, "web", {}).status(), StatusCode::kInvalidArgument, "",
              "store alias \"web\": a remote store is opened with a request governor");
  Result<ResolvedStore> read = ResolveStore(*config, "web", {.governor = &TestGovernor()});
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(read->alias, "web");
  EXPECT_FALSE(read->store->capabilities().writable);
  Result<ResolvedStore> write = ResolveStore(*config, "web", {.writable = true, .governor = &TestGovernor()});
  ASSERT_FALSE(write.ok());
  EXPECT_EQ(write.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(write.status().message().find("store \"web\" does not guarantee writes"), std::string_view::npos)
      << write.status().ToString();
}

// Buckets, endpoints, credentials and signed URLs appear in no error.
TEST(StoreConfigTest, ErrorsNeverQuoteSecrets) {
  const std::string secret_url = "https://user:secret@host.example/bucket-name/p?X-Amz-Signature=abc";
  auto expect_clean = [](const Status& s) {
    ASSERT_FALSE(s.ok());
    std::string text = s.ToString();
    for (std::string_view leak : {"secret", "user:", "host.example", "bucket-name", "X-Amz", "Signature"}) {
      EXPECT_EQ(text.find(leak), std::string::npos) << leak << " in " << text;
    }
  };
  // An unknown field beside the URL.
  expect_clean(ParseFailure(OneStore("a", R"({"url":")" + secret_url + R"(","region":"x"})")));
  // An unsupported scheme, an invalid file URL, a missing "://".
  expect_clean(ParseFailure(OneStore("a", R"({"url":"ftp://user:secret@host.example/bucket-name?X-Amz-Signature=abc"})")));
  expect_clean(ParseFailure(OneStore("a", R"({"url":"file://user:secret@host.example/bucket-name?X-Amz-Signature=abc"})")));
  expect_clean(ParseFailure(OneStore("a", R"({"url":"user:secret@host.example/bucket-name"})")));
  // A URL typed where an alias belongs, as a key and as a field name, and duplicated.
  expect_clean(ParseFailure(OneStore(secret_url, R"({"url":"file:///d"})")));
  expect_clean(ParseFailure(OneStore("a", R"({"url":"file:///d",")" + secret_url + R"(":1})")));
  expect_clean(ParseFailure(R"({"stores":{")" + secret_url + R"(":{},")" + secret_url + R"(":{}},"version":1})"));
  // A wrong type for the URL of an entry that has one.
  expect_clean(ParseFailure(OneStore("a", R"({"url":")" + secret_url + R"(","writable":"no"})")));

  // Opening a configured remote store whose URL carries credentials: refused,
  // and still nothing quoted.
  Result<StoreConfig> config = StoreConfig::Parse(OneStore("remote", R"({"url":")" + secret_url + R"("})"), "t.json");
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  Result<ResolvedStore> opened = ResolveStore(*config, "remote", {.governor = &TestGovernor()});
  ExpectError(opened.status(), StatusCode::kInvalidArgument, "",
              "store alias \"remote\": an http store's base URL may not hold a query, fragment, space or control "
              "character");
  expect_clean(opened.status());
  StoreSet set(*std::move(config), ResolvedStore{"local", nullptr, "./x"}, &TestGovernor());
  expect_clean(set.ForAlias("remote").status());
  // A remote URL given directly as --store.
  expect_clean(ResolveStore(StoreConfig(), secret_url, {}).status());
  expect_clean(ResolveStore(StoreConfig(), "s3://bucket-name/x?X-Amz-Signature=abc", {}).status());
  expect_clean(ResolveStore(StoreConfig(), "user:secret@host.example", {}).status());
}

// Which file is in force is the edge's decision (engine::Settings, tested
// there); the store layer reads the one it is given.
TEST(StoreConfigTest, LoadFileReadsTheFileItIsGiven) {
  TempDir tmp;
  const fs::path file = tmp.path() / "stores.json";
  WriteFile(file, OneStore("given", R"({"url":"file:///g"})"));
  Result<StoreConfig> c = StoreConfig::LoadFile(file.string(), /*missing_is_empty=*/false);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_NE(c->Find("given"), nullptr);
  EXPECT_EQ(c->size(), 1u);
  EXPECT_EQ(c->origin(), file.string());
}

TEST(StoreConfigTest, MissingFiles) {
  TempDir tmp;
  const std::string missing = (tmp.path() / "none.json").string();
  // A missing default file is an empty config that still says where it looked.
  Result<StoreConfig> c = StoreConfig::LoadFile(missing, /*missing_is_empty=*/true);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->size(), 0u);
  EXPECT_EQ(c->origin(), missing);
  // A missing file someone named is NotFound, naming it.
  Status s = StoreConfig::LoadFile(missing, /*missing_is_empty=*/false).status();
  EXPECT_EQ(s.code(), StatusCode::kNotFound) << s.ToString();
  EXPECT_EQ(s.path(), missing);
  // A directory where the file should be is an error, not an empty config.
  fs::create_directories(tmp.path() / "dir" / "stores.json");
  EXPECT_EQ(StoreConfig::LoadFile((tmp.path() / "dir" / "stores.json").string(), true).status().code(),
            StatusCode::kInvalidArgument);
  // An oversized file is refused before parsing.
  const fs::path big = tmp.path() / "big.json";
  WriteFile(big, std::string(kMaxStoresConfigBytes + 1, ' '));
  EXPECT_EQ(StoreConfig::LoadFile(big.string(), false).status().code(), StatusCode::kLimitExceeded);
}

class ResolveStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(tmp_.path().empty());
    data_ = tmp_.path() / "data";
    fs::create_directories(data_);
    Result<std::unique_ptr<ObjectStore>> writer = OpenLocalStore(data_.string(), {.writable = true});
    ASSERT_TRUE(writer.ok()) << writer.status().ToString();
    ASSERT_TRUE((*writer)->CreateIfAbsent("obj", B("payload")).ok());
  }

  StoreConfig Config(std::string_view alias, std::string_view entry) {
    Result<StoreConfig> c = StoreConfig::Parse(OneStore(alias, entry), "cfg.json");
    EXPECT_TRUE(c.ok()) << c.status().ToString();
    return c.ok() ? *std::move(c) : StoreConfig();
  }

  static std::string Read(ObjectStore& store) {
    Result<Bytes> b = store.Get("obj");
    return b.ok() ? std::string(b->view()) : b.status().ToString();
  }

  TempDir tmp_;
  fs::path data_;
};

TEST_F(ResolveStoreTest, PathsAndFileUrlsAreTheLocalAlias) {
  const std::string relative = fs::relative(data_, fs::current_path()).string();
  for (const std::string& spec : {data_.string(), "file://" + data_.string(), "file://localhost" + data_.string(),
                                  relative.find('/') != std::string::npos ? relative : "./" + relative}) {
    Result<ResolvedStore> r = ResolveStore(StoreConfig(), spec, {});
    ASSERT_TRUE(r.ok()) << spec << ": " << r.status().ToString();
    EXPECT_EQ(r->alias, "local");
    EXPECT_EQ(r->display, spec);
    EXPECT_EQ(Read(*r->store), "payload");
    // Opened for reading only.
    EXPECT_FALSE(r->store->capabilities().writable);
  }
}

TEST_F(ResolveStoreTest, AConfiguredAliasWinsOverADirectoryOfTheSameName) {
  const fs::path other = tmp_.path() / "other";
  fs::create_directories(other);
  StoreConfig config = Config("data", FileEntry(other, false, false));
  // ./data (relative to tmp) would be the directory with "obj"; the alias is another one.
  Result<ResolvedStore> r = ResolveStore(config, "data", {});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->alias, "data");
  EXPECT_EQ(r->display, "data");
  EXPECT_EQ(r->store->Get("obj").status().code(), StatusCode::kNotFound);
  // With a slash it is the directory.
  Result<ResolvedStore> dir = ResolveStore(config, data_.string(), {});
  ASSERT_TRUE(dir.ok());
  EXPECT_EQ(dir->alias, "local");
  EXPECT_EQ(Read(*dir->store), "payload");
}

TEST_F(ResolveStoreTest, UnknownNamesAreErrorsSuggestingAPath) {
  StoreConfig config = Config("primary", FileEntry(data_, false, false));
  ExpectError(ResolveStore(config, "foo", {}).status(), StatusCode::kInvalidArgument, "",
              "no store alias \"foo\" is configured in cfg.json; for a directory write ./foo");
  ExpectError(ResolveStore(StoreConfig(), "foo", {}).status(), StatusCode::kInvalidArgument, "",
              "no store alias \"foo\" is configured; for a directory write ./foo");
  // "local" is reserved, never configured: an error, too.
  ExpectError(ResolveStore(config, "local", {}).status(), StatusCode::kInvalidArgument, "",
              "no store alias \"local\" is configured in cfg.json; for a directory write ./local");
  ExpectError(ResolveStore(config, "my.dir", {}).status(), StatusCode::kInvalidArgument, "",
              "the store is neither a configured alias nor a path containing '/'; for a directory in the current "
              "one, put ./ before its name");
  ExpectError(ResolveStore(config, "", {}).status(), StatusCode::kInvalidArgument, "",
              "the store is empty: give a configured alias or a directory");
  ExpectError(ResolveStore(config, "s3://b/k", {}).status(), StatusCode::kInvalidArgument, "",
              "a store URL other than file:// is not accepted here: configure it under an alias in the stores config "
              "and name the alias");
  ExpectError(ResolveStore(config, "file://host/d", {}).status(), StatusCode::kInvalidArgument, "",
              "a file:// URL may name no host but localhost (file:///dir)");
}

TEST_F(ResolveStoreTest, WriteUseNeedsDeclaredGuarantees) {
  // Declared writable, but no guarantees: readable, refused for writing.
  StoreConfig undeclared = Config("nog", FileEntry(data_, true, false));
  Result<ResolvedStore> read = ResolveStore(undeclared, "nog", {});
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(Read(*read->store), "payload");
  EXPECT_FALSE(read->store->capabilities().conditional_create);
  ExpectError(ResolveStore(undeclared, "nog", {.writable = true}).status(), StatusCode::kInvalidArgument, "",
              "store \"nog\" does not guarantee conditional create; refusing to write to it");

  // Guarantees declared, but not writable.
  StoreConfig readonly = Config("ro", FileEntry(data_, false, true));
  ExpectError(ResolveStore(readonly, "ro", {.writable = true}).status(), StatusCode::kInvalidArgument, "",
              "store \"ro\" does not guarantee writes; refusing to write to it");

  // Only read-after-create missing.
  StoreConfig half = Config("half", R"({"guarantees":{"conditional_create":true,"read_after_create":false},"url":"file://)" +
                                        data_.string() + R"(","writable":true})");
  ExpectError(ResolveStore(half, "half", {.writable = true}).status(), StatusCode::kInvalidArgument, "",
              "store \"half\" does not guarantee read-after-create; refusing to write to it");

  // Everything declared: writes land in the directory.
  StoreConfig full = Config("full", FileEntry(data_, true, true));
  Result<ResolvedStore> w = ResolveStore(full, "full", {.writable = true});
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  EXPECT_EQ(w->alias, "full");
  EXPECT_TRUE(w->store->capabilities().writable);
  EXPECT_TRUE(w->store->capabilities().conditional_create);
  EXPECT_TRUE(w->store->capabilities().read_after_create);
  ASSERT_TRUE(w->store->CreateIfAbsent("new", B("bytes")).ok());
  EXPECT_TRUE(fs::exists(data_ / "new"));
  // Opened for reading, the same alias refuses writes.
  Result<ResolvedStore> r = ResolveStore(full, "full", {});
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->store->capabilities().writable);
  EXPECT_FALSE(r->store->CreateIfAbsent("other", B("x")).ok());
  EXPECT_FALSE(fs::exists(data_ / "other"));
}

TEST_F(ResolveStoreTest, PlainPathsUseTheLocalBackendsGuaranteesAndCreateTheRoot) {
  const fs::path fresh = tmp_.path() / "fresh" / "root";
  EXPECT_EQ(ResolveStore(StoreConfig(), fresh.string(), {.writable = true}).status().code(), StatusCode::kNotFound);
  Result<ResolvedStore> w = ResolveStore(StoreConfig(), fresh.string(), {.writable = true, .create_root = true});
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  EXPECT_EQ(w->alias, "local");
  EXPECT_TRUE(w->store->capabilities().conditional_create);
  EXPECT_TRUE(w->store->capabilities().read_after_create);
  ASSERT_TRUE(w->store->CreateIfAbsent("k", B("v")).ok());
  EXPECT_TRUE(fs::exists(fresh / "k"));
}

TEST_F(ResolveStoreTest, AConfiguredDirectoryThatIsMissingNamesTheAlias) {
  StoreConfig config = Config("gone", FileEntry(tmp_.path() / "gone", false, false));
  Status s = ResolveStore(config, "gone", {}).status();
  EXPECT_EQ(s.code(), StatusCode::kNotFound) << s.ToString();
  EXPECT_TRUE(s.message().starts_with("store alias \"gone\": ")) << s.ToString();
}

TEST_F(ResolveStoreTest, StoreSetResolvesReferenceAliases) {
  const fs::path other = tmp_.path() / "other";
  fs::create_directories(other);
  ASSERT_TRUE(OpenLocalStore(other.string(), {}).value()->CreateIfAbsent("obj", B("elsewhere")).ok());
  StoreConfig config = Config("remote", FileEntry(other, false, false));
  Result<ResolvedStore> primary = ResolveStore(config, data_.string(), {});
  ASSERT_TRUE(primary.ok());
  ObjectStore* primary_store = primary->store.get();
  StoreSet set(config, std::move(primary).value());

  Result<ObjectStore*> local = set.ForAlias("local");
  ASSERT_TRUE(local.ok());
  EXPECT_EQ(*local, primary_store);
  EXPECT_EQ(Read(**local), "payload");

  Result<ObjectStore*> remote = set.ForAlias("remote");
  ASSERT_TRUE(remote.ok()) << remote.status().ToString();
  EXPECT_EQ(Read(**remote), "elsewhere");
  EXPECT_FALSE((*remote)->capabilities().writable);  // opened for reading
  Result<ObjectStore*> again = set.ForAlias("remote");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *remote);  // opened once

  ExpectError(set.ForAlias("nobody").status(), StatusCode::kNotFound, "",
              "a reference names store alias \"nobody\", which is not configured in cfg.json; the store in use is "
              "\"local\"");
  EXPECT_EQ(set.ForAlias("a.b").status().code(), StatusCode::kInvalidFormat);
  EXPECT_EQ(set.ForAlias(std::string(129, 'a')).status().code(), StatusCode::kInvalidFormat);
  EXPECT_EQ(&set.primary().store->capabilities(), &primary_store->capabilities());
}

// A backend for a scheme the core does not know: it reads its own settings
// from the entry's "backend" object and opens a memory store.
class MemoryBackend final : public Backend {
 public:
  bool remote() const override { return false; }
  Status CheckEntry(const StoreEntry& entry, const std::string& path) const override {
    if (!entry.backend.is_object() || !entry.backend.as_object().Contains("region")) {
      return InvalidFormat("missing required field").WithPath(path + ".backend.region");
    }
    return Status::Ok();
  }
  Result<std::unique_ptr<ObjectStore>> Open(const StoreEntry& entry, const OpenOptions&) const override {
    last_region = entry.backend.as_object().Find("region")->as_string();
    return std::unique_ptr<ObjectStore>(std::make_unique<MemoryStore>());
  }
  mutable std::string last_region;
};

TEST(BackendRegistryTest, ARegisteredSchemeGetsItsOwnSettingsAndTheDeclaredCapabilities) {
  BackendRegistry backends;
  auto memory = std::make_shared<MemoryBackend>();
  ASSERT_TRUE(backends.Register("mem", memory).ok());
  Result<StoreConfig> config = StoreConfig::Parse(
      R"({"stores":{"m":{"backend":{"region":"eu-1"},"url":"mem://bucket","writable":true,)"
      R"("guarantees":{"conditional_create":true,"read_after_create":true}}},"version":1})",
      "cfg.json", backends);
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  EXPECT_EQ(config->Find("m")->scheme, "mem");
  Result<ResolvedStore> opened = ResolveStore(*config, "m", {.writable = true});
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  EXPECT_EQ(memory->last_region, "eu-1");
  EXPECT_EQ(opened->alias, "m");
  EXPECT_TRUE(opened->store->capabilities().conditional_create);

  // The builtin registry does not know the scheme; the custom one checks its settings.
  ExpectError(StoreConfig::Parse(R"({"stores":{"m":{"url":"mem://b"}},"version":1})", "cfg.json").status(),
              StatusCode::kInvalidFormat, "$.stores.m.url",
              "unsupported URL scheme (expected file://, http://, https:// or s3://) (in stores config cfg.json)");
  ExpectError(StoreConfig::Parse(R"({"stores":{"m":{"url":"mem://b"}},"version":1})", "cfg.json", backends).status(),
              StatusCode::kInvalidFormat, "$.stores.m.backend.region",
              "missing required field (in stores config cfg.json)");
  ExpectError(StoreConfig::Parse(R"({"stores":{"m":{"url":"ftp://b"}},"version":1})", "cfg.json", backends).status(),
              StatusCode::kInvalidFormat, "$.stores.m.url",
              "unsupported URL scheme (expected mem://) (in stores config cfg.json)");
}

TEST(BackendRegistryTest, BuiltinSchemesTakeNoBackendSettingsAndS3ChecksItsOwn) {
  ExpectError(StoreConfig::Parse(R"({"stores":{"d":{"backend":{},"url":"file:///srv/d"}},"version":1})", "c.json")
                  .status(),
              StatusCode::kInvalidFormat, "$.stores.d.backend",
              "file:// stores take no backend settings (in stores config c.json)");
  ExpectError(StoreConfig::Parse(R"({"stores":{"w":{"backend":[],"url":"https://h/p"}},"version":1})", "c.json")
                  .status(),
              StatusCode::kInvalidFormat, "$.stores.w.backend", "expected an object, got array (in stores config c.json)");
  // The s3 backend checks its settings when the config is read…
  ExpectError(StoreConfig::Parse(R"({"stores":{"lake":{"backend":{"region":"x"},"url":"s3://bkt/p"}},"version":1})",
                                 "c.json")
                  .status(),
              StatusCode::kInvalidFormat, "$.stores.lake.backend.endpoint",
              "missing required field (in stores config c.json)");
  Result<StoreConfig> config = StoreConfig::Parse(
      R"({"stores":{"lake":{"backend":{"credentials":{"source":"environment"},"endpoint":"http://127.0.0.1:1",)"
      R"("region":"x"},"url":"s3://bkt/p"},"web":{"url":"https://h/p"}},"version":1})",
      "c.json");
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  SeededRandom random(1);
  auto governor = std::move(RequestGovernor::Create(GovernorLimits{}, DefaultClock(), random)).value();
  // …and the builtin one has no environment to take credentials from (the
  // edge registers one that has: s3_store.h).
  Status no_environment = ResolveStore(*config, "lake", {.governor = governor.get()}).status();
  EXPECT_EQ(no_environment.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(no_environment.message().find("store alias \"lake\": credentials from the environment"),
            std::string::npos)
      << no_environment.ToString();
  ExpectError(ResolveStore(*config, "web", {}).status(), StatusCode::kInvalidArgument, "",
              "store alias \"web\": a remote store is opened with a request governor");
}

TEST(BackendRegistryTest, SchemesAreLowercaseAndRegisteredOnce) {
  BackendRegistry backends;
  EXPECT_TRUE(backends.Register("s3", std::make_shared<MemoryBackend>()).ok());
  EXPECT_EQ(backends.Register("s3", std::make_shared<MemoryBackend>()).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(backends.Register("S3", std::make_shared<MemoryBackend>()).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(backends.Register("", std::make_shared<MemoryBackend>()).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(backends.SchemeList(), "s3://");
  EXPECT_EQ(BackendRegistry::Builtin().SchemeList(), "file://, http://, https:// or s3://");
}

}  // namespace
}  // namespace vigilo::store
