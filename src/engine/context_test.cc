// The engine's edge objects: settings read from an injected environment,
// the locator grammar, and a Context whose stores and control state live
// in memory — a dataset ingested, verified and exported, and a publication
// built, verified and searched, with no file written but the test's input.
#include "vigilo/engine/context.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <thread>

#include "vigilo/cases/dataset_reader.h"
#include "vigilo/engine/dataset_ingest.h"
#include "vigilo/engine/locator.h"
#include "vigilo/engine/publication.h"
#include "vigilo/engine/publication_publish.h"
#include "vigilo/engine/roots.h"
#include "vigilo/engine/settings.h"
#include "vigilo/ivf/builder.h"
#include "vigilo/ivf/publication_verify.h"
#include "vigilo/store/caching_store.h"
#include "vigilo/store/fault_store.h"
#include "vigilo/store/forwarding_store.h"
#include "vigilo/store/memory_store.h"
#include "vigilo/store/prefixed_store.h"

namespace vigilo::engine {
namespace {

namespace fs = std::filesystem;

EnvironmentLookup Env(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](std::string_view name) -> std::optional<std::string> {
    auto it = vars.find(std::string(name));
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

// ---- settings ----

TEST(SettingsTest, StoresConfigIsVigiloStoresElseTheXdgDataFile) {
  Settings s = SettingsFromEnvironment(Env({{"VIGILO_STORES", "/etc/s.json"}, {"XDG_DATA_HOME", "/data"}}));
  EXPECT_EQ(s.stores_file, "/etc/s.json");
  EXPECT_EQ(s.default_stores_file, "/data/vigilo/stores.json");
  // An empty variable counts as unset; a relative XDG directory is ignored.
  s = SettingsFromEnvironment(Env({{"VIGILO_STORES", ""}, {"XDG_DATA_HOME", "rel"}, {"HOME", "/home/u"}}));
  EXPECT_EQ(s.stores_file, std::nullopt);
  EXPECT_EQ(s.default_stores_file, "/home/u/.local/share/vigilo/stores.json");
  s = SettingsFromEnvironment(Env({}));
  EXPECT_EQ(s.stores_file, std::nullopt);
  EXPECT_EQ(s.default_stores_file, std::nullopt);
}

TEST(SettingsTest, ControlIsVigiloControlElseTheXdgDataDirectory) {
  EXPECT_EQ(SettingsFromEnvironment(Env({{"VIGILO_CONTROL", "/c/db"}, {"HOME", "/h"}})).control, "/c/db");
  EXPECT_EQ(SettingsFromEnvironment(Env({{"XDG_DATA_HOME", "/data"}})).control, "/data/vigilo/control.sqlite3");
  EXPECT_EQ(SettingsFromEnvironment(Env({{"VIGILO_CONTROL", ""}, {"HOME", "/home/someone"}})).control,
            "/home/someone/.local/share/vigilo/control.sqlite3");
  EXPECT_EQ(SettingsFromEnvironment(Env({})).control, "");
}

TEST(SettingsTest, CacheDirectoriesFollowXdgAndVigiloCacheTurnsOnlyTheRangeCacheOff) {
  Settings s = SettingsFromEnvironment(Env({{"XDG_CACHE_HOME", "/cache"}, {"HOME", "/h"}}));
  EXPECT_EQ(s.cache_directory, "/cache/vigilo/ranges");
  EXPECT_EQ(s.ground_truth_directory, "/cache/vigilo/ground-truth");
  s = SettingsFromEnvironment(Env({{"VIGILO_CACHE", "off"}, {"HOME", "/h"}}));
  EXPECT_EQ(s.cache_directory, "");
  EXPECT_EQ(s.ground_truth_directory, "/h/.cache/vigilo/ground-truth");
  EXPECT_EQ(CacheMaxBytes(s).value(), store::kDefaultCacheMaxBytes);
  s.cache_max_bytes = "12k";
  Status bad = CacheMaxBytes(s).status();
  EXPECT_EQ(bad.ToString(), "invalid_argument: VIGILO_CACHE_MAX_BYTES: '12k' is not a positive number of bytes");
  s.cache_max_bytes = "4096";
  EXPECT_EQ(CacheMaxBytes(s).value(), 4096u);
}

// ---- locators ----

TEST(LocatorTest, EachFormIsRecognised) {
  Result<Locator> l = ParseLocator("pubs/wink/manifest.json");
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->kind, LocatorKind::kPath);
  EXPECT_EQ(l->path, "pubs/wink/manifest.json");
  l = ParseLocator("file:///srv/pub%20one");
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->kind, LocatorKind::kPath);
  EXPECT_EQ(l->path, "/srv/pub one");
  l = ParseLocator("HTTPS://example.org/p/manifest.json");
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->kind, LocatorKind::kUrl);
  l = ParseLocator("bucket_1:pubs/wink/manifest.json");
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->kind, LocatorKind::kAliasKey);
  EXPECT_EQ(l->alias, "bucket_1");
  EXPECT_EQ(l->key, "pubs/wink/manifest.json");
  l = ParseLocator("catalog:wordnet/glosses");
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->kind, LocatorKind::kCatalog);
  EXPECT_EQ(l->key, "wordnet/glosses");
  // A colon after the first '/' is part of a path; ./ makes any name a path.
  EXPECT_EQ(ParseLocator("pubs/a:b").value().kind, LocatorKind::kPath);
  EXPECT_EQ(ParseLocator("./a:b").value().kind, LocatorKind::kPath);
}

// A backend for a scheme of the test's own: every alias of it opens the
// one memory store, and it records the settings it was given.
class SharedMemoryBackend final : public store::Backend {
 public:
  explicit SharedMemoryBackend(store::MemoryStore& memory) : memory_(memory) {}
  bool remote() const override { return false; }
  Status CheckEntry(const store::StoreEntry&, const std::string&) const override { return Status::Ok(); }
  Result<std::unique_ptr<store::ObjectStore>> Open(const store::StoreEntry& entry,
                                                   const store::OpenOptions&) const override {
    opened_with = entry.backend.is_object() ? entry.backend.as_object().Find("tier")->as_string() : "";
    return std::unique_ptr<store::ObjectStore>(std::make_unique<store::ForwardingStore>(memory_));
  }
  mutable std::string opened_with;

 private:
  store::MemoryStore& memory_;
};

TEST(ContextBackendTest, AConfiguredAliasOfARegisteredSchemeOpensThroughItsBackend) {
  const fs::path dir = fs::temp_directory_path() / ("vigilo-context-backend-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path stores = dir / "stores.json";
  std::ofstream(stores) << R"({"stores":{"shelf":{"backend":{"tier":"cold"},"url":"mem://shelf"}},"version":1})";
  store::MemoryStore memory;
  const std::string bytes = "published bytes";
  ASSERT_TRUE(memory.CreateIfAbsent("pubs/a/x.bin", std::span<const uint8_t>(
                                                         reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()))
                  .ok());
  ContextOptions options;
  options.settings.stores_file = stores.string();
  options.settings.control = "memory:";
  auto context = std::move(Context::Create(std::move(options))).value();
  auto backend = std::make_shared<SharedMemoryBackend>(memory);
  ASSERT_TRUE(context->RegisterBackend("mem", backend).ok());
  EXPECT_EQ(context->RegisterBackend("mem", backend).code(), StatusCode::kInvalidArgument);

  Result<store::ResolvedStore> shelf = context->OpenStore("shelf", {});
  ASSERT_TRUE(shelf.ok()) << shelf.status().ToString();
  EXPECT_EQ(backend->opened_with, "cold");
  EXPECT_EQ(shelf->alias, "shelf");
  Result<store::Bytes> got = shelf->store->Get("pubs/a/x.bin");
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->view(), bytes);
  // Read-only unless the entry declares it writable.
  EXPECT_EQ(context->OpenStore("shelf", {.writable = true}).status().code(), StatusCode::kInvalidArgument);
  // Once the config is read, its schemes are fixed.
  EXPECT_EQ(context->RegisterBackend("other", backend).code(), StatusCode::kInvalidArgument);
  fs::remove_all(dir);
}

TEST(ContextBackendTest, AnS3AliasTakesItsCredentialsFromTheEnvironmentTheEdgeHandsOver) {
  const fs::path dir = fs::temp_directory_path() / ("vigilo-context-s3-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path stores = dir / "stores.json";
  std::ofstream(stores) << R"({"stores":{"lake":{"url":"s3://bucket/pubs","backend":{"endpoint":"http://127.0.0.1:9",)"
                           R"("region":"default","credentials":{"source":"environment","variables":)"
                           R"({"access_key_id":"LAKE_KEY","secret_access_key":"LAKE_SECRET"}}}}},"version":1})";
  auto open_lake = [&](std::map<std::string, std::string> environment) {
    ContextOptions options;
    options.settings.stores_file = stores.string();
    options.settings.control = "memory:";
    options.environment = [environment](std::string_view name) -> std::optional<std::string> {
      auto it = environment.find(std::string(name));
      if (it == environment.end()) return std::nullopt;
      return it->second;
    };
    auto context = std::move(Context::Create(std::move(options))).value();
    return context->OpenStore("lake", {}).status();
  };
  // Opening resolves the credentials (no request is sent).
  EXPECT_TRUE(open_lake({{"LAKE_KEY", "k"}, {"LAKE_SECRET", "s"}}).ok());
  Status missing = open_lake({{"LAKE_KEY", "k"}});
  EXPECT_EQ(missing.code(), StatusCode::kInvalidArgument) << missing.ToString();
  EXPECT_NE(missing.message().find("LAKE_SECRET"), std::string_view::npos) << missing.ToString();
  EXPECT_EQ(missing.message().find("bucket"), std::string_view::npos) << missing.ToString();
  fs::remove_all(dir);
}

TEST(LocatorTest, OtherUrlsAreRefusedWithoutBeingEchoed) {
  Status s = ParseLocator("s3://secret-bucket/p?X-Amz-Signature=abc").status();
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.ToString().find("secret-bucket"), std::string::npos) << s.ToString();
  EXPECT_EQ(ParseLocator("").status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(ParseLocator("file://host/x").status().code(), StatusCode::kInvalidArgument);
}

// ---- a context in memory ----

class MemoryContextTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("vigilo-context-test-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "scratch");
    ContextOptions options;
    options.settings.control = "memory:";
    // Nothing on disk may be consulted: a stores file that does not exist
    // would be NotFound if anything read it.
    options.settings.default_stores_file = (dir_ / "no-stores.json").string();
    options.wall_clock = &wall_;
    auto context = Context::Create(std::move(options));
    ASSERT_TRUE(context.ok()) << context.status().ToString();
    context_ = std::move(context).value();
    ASSERT_TRUE(context_->RegisterStore("mem", memory_).ok());
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Every file below the test's directory (the test's own inputs included).
  std::vector<std::string> Files() {
    std::vector<std::string> out;
    for (const auto& e : fs::recursive_directory_iterator(dir_)) {
      if (!e.is_directory()) out.push_back(fs::relative(e.path(), dir_).string());
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  fs::path dir_;
  store::ManualClock wall_{store::Micros{1'767'225'600} * 1'000'000};
  store::MemoryStore memory_;
  std::unique_ptr<Context> context_;
};

TEST_F(MemoryContextTest, ADatasetIsIngestedVerifiedAndExportedInMemory) {
  // Canonical already (members in key order), so the export is these bytes.
  std::string doc = R"({"cases":[)";
  for (int i = 0; i < 120; ++i) {
    char id[40];
    std::snprintf(id, sizeof id, "00000000-0000-4000-8000-%012d", i);
    doc += std::string(i ? "," : "") + R"({"id":")" + id + R"(","input":{"prompt":"q)" + std::to_string(i) +
           R"("},"task_type":"generation"})";
  }
  doc += R"(],"dataset_id":"mem-set","dataset_version":"v1"})";
  const fs::path input = dir_ / "in.json";
  std::ofstream(input, std::ios::binary) << doc;

  Result<std::unique_ptr<WriteSession>> session = OpenWriteSession(*context_, "mem", /*create_root=*/false);
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  IngestOptions options;
  options.scratch_dir = dir_ / "scratch";
  IngestInput in;
  in.path = input.string();
  Result<IngestResult> ingested = IngestDataset(in, options, (*session)->target);
  ASSERT_TRUE(ingested.ok()) << ingested.status().ToString();
  EXPECT_EQ(ingested->root.storage_alias, "mem");
  EXPECT_GT(memory_.object_count(), 0u);

  // Listed, then read back by name through the same context.
  Result<std::vector<control::RootRecord>> names = ListPublishedRoots(*context_, control::Namespace::kDatasets);
  ASSERT_TRUE(names.ok()) << names.status().ToString();
  ASSERT_EQ(names->size(), 1u);
  EXPECT_EQ((*names)[0].name, "mem-set");
  Result<OpenedRoot> opened = OpenPublishedRoot(*context_, RootLocator{.ref = std::nullopt, .name = "mem-set"}, "",
                                                control::Namespace::kDatasets);
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  EXPECT_EQ(opened->resolved.root.key, ingested->root.key);
  Result<cases::ReadDatasetSummary> verified =
      cases::ReadDataset(opened->resolved.root, cases::BudgetConfig::Defaults(), dir_ / "scratch", opened->fetch);
  ASSERT_TRUE(verified.ok()) << verified.status().ToString();

  std::string exported;
  Result<ExportSummary> summary = ExportDataset(opened->resolved.root, cases::BudgetConfig::Defaults(), opened->fetch,
                                                [&](std::string_view bytes) {
                                                  exported.append(bytes);
                                                  return Status::Ok();
                                                });
  ASSERT_TRUE(summary.ok()) << summary.status().ToString();
  EXPECT_EQ(exported, doc);  // already canonical: the exact bytes submitted
  EXPECT_EQ(summary->case_count, 120u);
  // Nothing was written to disk: only the input is there.
  EXPECT_EQ(Files(), std::vector<std::string>{"in.json"});
}

// A small fvecs file: 600 rows of dimension 8.
void WriteVectors(const fs::path& path) {
  std::ofstream f(path, std::ios::binary);
  for (int i = 0; i < 600; ++i) {
    int32_t d = 8;
    f.write(reinterpret_cast<const char*>(&d), 4);
    for (int j = 0; j < 8; ++j) {
      float v = static_cast<float>((i * 7 + j * 13) % 29) + 0.25f * static_cast<float>(j);
      f.write(reinterpret_cast<const char*>(&v), 4);
    }
  }
}

ivf::BuildOptions SmallBuild(const fs::path& input, const fs::path& scratch) {
  ivf::BuildOptions o;
  o.input = input.string();
  o.nlist = 12;
  o.roots = 3;
  o.threads = 1;
  o.source = true;
  o.scratch = scratch.string();
  return o;
}

// WriteVectors' rows in `dir`/base.fvecs, built small into `dir`/pub.
Result<ivf::BuildSummary> BuildSmallPublicationIn(const fs::path& dir) {
  WriteVectors(dir / "base.fvecs");
  ivf::BuildOptions local = SmallBuild(dir / "base.fvecs", dir / "scratch");
  local.out = (dir / "pub").string();
  return ivf::BuildPublication(local);
}

TEST_F(MemoryContextTest, APublicationIsBuiltVerifiedAndSearchedInMemoryAsItIsOnDisk) {
  const fs::path input = dir_ / "base.fvecs";
  WriteVectors(input);
  // Built under a key prefix of the registered memory store.
  auto prefixed = store::MakePrefixedStore(std::make_unique<store::ForwardingStore>(memory_), "pubs/small");
  ASSERT_TRUE(prefixed.ok());
  Result<ivf::BuildSummary> built = ivf::BuildPublication(SmallBuild(input, dir_ / "scratch"), **prefixed);
  ASSERT_TRUE(built.ok()) << built.status().ToString();
  // The build left nothing on disk (its spill directory is gone).
  EXPECT_EQ(Files(), std::vector<std::string>{"base.fvecs"});
  Result<ivf::VerifyReport> verified = ivf::VerifyPublicationFrom(**prefixed, "manifest.json", ivf::VerifyOptions{});
  ASSERT_TRUE(verified.ok()) << verified.status().ToString();
  EXPECT_TRUE(verified->ok());

  // The same build into a directory gives the same bytes (same seed).
  ivf::BuildOptions local = SmallBuild(input, dir_ / "scratch");
  local.out = (dir_ / "pub").string();
  ASSERT_TRUE(ivf::BuildPublication(local).ok());

  SearchRequest request;
  request.vectors = {{1, 2, 3, 4, 5, 6, 7, 8}, {20, 3, 9, 0, 14, 2, 8, 27}};
  request.k = 5;
  request.nprobe = 4;
  request.columns = {"vector"};
  std::vector<std::string> answers;
  for (std::string locator : {(dir_ / "pub").string(), (dir_ / "pub" / "manifest.json").string(),
                              std::string("mem:pubs/small"), std::string("mem:pubs/small/"),
                              std::string("mem:pubs/small/manifest.json")}) {
    auto publication = Publication::Open(*context_, locator);
    ASSERT_TRUE(publication.ok()) << locator << ": " << publication.status().ToString();
    EXPECT_EQ((*publication)->manifest().artifact_uuid, built->manifest.artifact_uuid) << locator;
    Result<SearchResult> found = (*publication)->Search(request);
    ASSERT_TRUE(found.ok()) << locator << ": " << found.status().ToString();
    ASSERT_EQ(found->result.hits.size(), 10u) << locator;
    std::string text;
    for (size_t i = 0; i < found->result.hits.size(); ++i) {
      const ivf::QueryHit& h = found->result.hits[i];
      text += std::to_string(h.query) + "/" + std::to_string(h.rank) + "/" +
              std::to_string(found->result.keys.integers[i]) + "/" + std::to_string(h.distance) + "/" +
              found->payload.Value(i, 0) + ";";
    }
    answers.push_back(text);
  }
  for (size_t i = 1; i < answers.size(); ++i) EXPECT_EQ(answers[i], answers[0]) << i;

  // A search asks for vectors or texts, and refuses a column returned
  // already under the setting's name, before anything is fetched.
  auto publication = Publication::Open(*context_, "mem:pubs/small");
  ASSERT_TRUE(publication.ok());
  EXPECT_EQ((*publication)->Search(SearchRequest{}).status().code(), StatusCode::kInvalidArgument);
  SearchRequest twice = request;
  twice.columns = {"_row"};
  Status refused = (*publication)->Search(twice).status();
  EXPECT_EQ(refused.ToString(), "invalid_argument: columns: '_row' is printed already");
}

// The requests of the concurrency test: one vector each, k 7, nprobe 1–6.
SearchRequest VariedRequest(int i) {
  SearchRequest r;
  r.vectors = {std::vector<float>(8, static_cast<float>(i % 29))};
  r.vectors[0][i % 8] += 3.5f;
  r.k = 7;
  r.nprobe = 1 + i % 6;
  r.columns = {"vector"};
  return r;
}

// A search's keys, distances and first payload column, hit by hit.
std::string KeysDistancesPayload(const SearchResult& found) {
  std::string text;
  for (size_t i = 0; i < found.result.hits.size(); ++i) {
    text += std::to_string(found.result.keys.integers[i]) + "/" + std::to_string(found.result.hits[i].distance) + "/" +
            found.payload.Value(i, 0) + ";";
  }
  return text;
}

// Several threads searching one open publication get, query for query,
// the answers a lone thread gets (each call borrows its own reader), read
// in place or resident (then every reader holds the postings, read and
// checked once for all of them).
TEST_F(MemoryContextTest, ConcurrentSearchesOfOnePublicationAnswerAsALoneSearch) {
  const fs::path input = dir_ / "base.fvecs";
  WriteVectors(input);
  auto prefixed = store::MakePrefixedStore(std::make_unique<store::ForwardingStore>(memory_), "pubs/shared");
  ASSERT_TRUE(prefixed.ok());
  ASSERT_TRUE(ivf::BuildPublication(SmallBuild(input, dir_ / "scratch"), **prefixed).ok());
  constexpr int kRequests = 48;
  std::vector<std::string> lone(kRequests);
  {
    auto publication = Publication::Open(*context_, "mem:pubs/shared");
    ASSERT_TRUE(publication.ok()) << publication.status().ToString();
    for (int i = 0; i < kRequests; ++i) {
      Result<SearchResult> found = (*publication)->Search(VariedRequest(i));
      ASSERT_TRUE(found.ok()) << found.status().ToString();
      EXPECT_EQ(found->result.bytes_held, 0u);
      lone[i] = KeysDistancesPayload(*found);
    }
  }
  for (uint64_t resident : {uint64_t{0}, uint64_t{1} << 30}) {
    SCOPED_TRACE(resident);
    auto publication = Publication::Open(*context_, "mem:pubs/shared", PublicationOpenOptions{.resident_max_bytes = resident});
    ASSERT_TRUE(publication.ok());
    constexpr int kThreads = 4;
    std::vector<std::string> shared(kRequests);
    std::vector<std::string> errors(kThreads);
    std::vector<uint64_t> held(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        for (int round = 0; round < 3; ++round) {
          for (int i = t; i < kRequests; i += kThreads) {
            Result<SearchResult> found = (*publication)->Search(VariedRequest(i));
            if (!found.ok()) {
              errors[t] = found.status().ToString();
              return;
            }
            std::string text = KeysDistancesPayload(*found);
            if (round > 0 && text != shared[i]) errors[t] = "request " + std::to_string(i) + " changed between rounds";
            shared[i] = text;
            held[t] += found->result.bytes_held;
          }
        }
      });
    }
    for (std::thread& t : threads) t.join();
    for (const std::string& e : errors) EXPECT_EQ(e, "");
    for (int i = 0; i < kRequests; ++i) EXPECT_EQ(shared[i], lone[i]) << i;
    for (int t = 0; t < kThreads; ++t) EXPECT_EQ(held[t] > 0, resident > 0) << t;
  }
}

// A resident publication's searches read the probed lists from the held
// postings: after the first search (the centroids), nothing is fetched; the
// answers are those read in place. A postings file whose bytes differ from
// the manifest's digest fails the search that would hold it, and is read
// and checked again by the next one.
TEST_F(MemoryContextTest, ResidentSearchesReadHeldPostingsCheckedAgainstTheManifest) {
  Result<ivf::BuildSummary> built = BuildSmallPublicationIn(dir_);
  ASSERT_TRUE(built.ok()) << built.status().ToString();
  const std::string locator = (dir_ / "pub").string();
  auto in_place = Publication::Open(*context_, locator);
  ASSERT_TRUE(in_place.ok());
  Result<SearchResult> mapped = (*in_place)->Search(VariedRequest(5));
  ASSERT_TRUE(mapped.ok()) << mapped.status().ToString();
  EXPECT_GT(mapped->result.requests, 1u);

  const fs::path postings = dir_ / "pub" / built->manifest.postings[0].object.path;
  auto write = [&postings](const std::string& bytes) { std::ofstream(postings, std::ios::binary) << bytes; };
  std::ifstream in(postings, std::ios::binary);
  const std::string original((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_EQ(original.size(), built->manifest.postings[0].object.size);
  std::string tampered = original;
  tampered[tampered.size() / 2] = static_cast<char>(tampered[tampered.size() / 2] ^ 1);
  write(tampered);
  auto resident = Publication::Open(*context_, locator, PublicationOpenOptions{.resident_max_bytes = uint64_t{1} << 30});
  ASSERT_TRUE(resident.ok());
  Status refused = (*resident)->Search(VariedRequest(5)).status();
  EXPECT_EQ(refused.code(), StatusCode::kIntegrityError) << refused.ToString();
  EXPECT_EQ(refused.path(), built->manifest.postings[0].object.path);
  write(original);
  // (The resident store read the tampered bytes once and keeps them: a new
  // publication reads the file again.)
  resident = Publication::Open(*context_, locator, PublicationOpenOptions{.resident_max_bytes = uint64_t{1} << 30});
  ASSERT_TRUE(resident.ok());
  for (int search = 0; search < 2; ++search) {
    Result<SearchResult> found = (*resident)->Search(VariedRequest(5));
    ASSERT_TRUE(found.ok()) << found.status().ToString();
    EXPECT_EQ(KeysDistancesPayload(*found), KeysDistancesPayload(*mapped)) << search;
    EXPECT_GT(found->result.bytes_held, 0u);
    // The first search fetches the centroids only; the second nothing.
    EXPECT_EQ(found->result.requests, search == 0 ? 1u : 0u) << search;
  }
}

// The hits of one search, as text (query/rank/key/distance per hit).
std::string SearchText(Context& context, const std::string& locator) {
  auto publication = Publication::Open(context, locator);
  EXPECT_TRUE(publication.ok()) << locator << ": " << publication.status().ToString();
  if (!publication.ok()) return "";
  SearchRequest request;
  request.vectors = {{1, 2, 3, 4, 5, 6, 7, 8}, {20, 3, 9, 0, 14, 2, 8, 27}};
  request.k = 5;
  request.nprobe = 4;
  Result<SearchResult> found = (*publication)->Search(request);
  EXPECT_TRUE(found.ok()) << locator << ": " << found.status().ToString();
  if (!found.ok()) return "";
  std::string text;
  for (size_t i = 0; i < found->result.hits.size(); ++i) {
    const ivf::QueryHit& h = found->result.hits[i];
    text += std::to_string(h.query) + "/" + std::to_string(h.rank) + "/" + std::to_string(found->result.keys.integers[i]) +
            "/" + std::to_string(h.distance) + ";";
  }
  return text;
}

TEST_F(MemoryContextTest, APublishCopiesEveryObjectVerifiedThenTheManifestAndResumes) {
  Result<ivf::BuildSummary> built = BuildSmallPublicationIn(dir_);
  const fs::path input = dir_ / "base.fvecs";
  ASSERT_TRUE(built.ok()) << built.status().ToString();
  const std::string source = (dir_ / "pub").string();

  // Interrupted after the second object: DEST has objects, no manifest.
  store::MemoryStore bucket;
  store::FaultInjectingStore crashing(bucket, store::FaultPlan().On(store::StoreOp::kBeginCreate, store::FaultKind::kCrash,
                                                                    /*skip=*/2));
  ASSERT_TRUE(context_->RegisterStore("crashing", crashing).ok());
  ASSERT_TRUE(context_->RegisterStore("bucket", bucket).ok());
  Result<PublishReport> interrupted = PublishPublication(*context_, source, "crashing:pubs/a");
  ASSERT_FALSE(interrupted.ok());
  EXPECT_FALSE(bucket.Head("pubs/a/manifest.json").ok());
  EXPECT_TRUE(bucket.Head("pubs/a/" + built->manifest.hierarchy.centroids.path).ok());

  // The rerun skips what is there and publishes.
  std::vector<PublishProgress> seen;
  PublishOptions options;
  options.progress = [&](const PublishProgress& p) { seen.push_back(p); };
  options.piece_bytes = 1000;  // several pieces per object
  Result<PublishReport> resumed = PublishPublication(*context_, source, "bucket:pubs/a", options);
  ASSERT_TRUE(resumed.ok()) << resumed.status().ToString();
  EXPECT_EQ(resumed->outcome, PublishOutcome::kPublished);
  EXPECT_EQ(resumed->already_present, 2u);
  EXPECT_EQ(resumed->copied + resumed->already_present, resumed->objects);
  EXPECT_EQ(resumed->manifest, "bucket:pubs/a/manifest.json");
  EXPECT_EQ(resumed->artifact_uuid, built->manifest.artifact_uuid.ToString());
  ASSERT_EQ(seen.size(), resumed->objects);
  EXPECT_EQ(seen.back().bytes_done, resumed->bytes_total);
  // The manifest is the source's bytes, and the copy answers as the source.
  std::ifstream in(dir_ / "pub" / "manifest.json", std::ios::binary);
  const std::string manifest((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(bucket.Get("pubs/a/manifest.json")->view(), manifest);
  EXPECT_EQ(SearchText(*context_, "bucket:pubs/a"), SearchText(*context_, source));
  Result<ivf::VerifyReport> verified =
      ivf::VerifyPublicationFrom(**store::MakePrefixedStore(std::make_unique<store::ForwardingStore>(bucket), "pubs/a"),
                                 "manifest.json", ivf::VerifyOptions{});
  ASSERT_TRUE(verified.ok()) << verified.status().ToString();
  EXPECT_TRUE(verified->ok());

  // Again: unchanged. Into a directory: the same files.
  Result<PublishReport> again = PublishPublication(*context_, "bucket:pubs/a", "bucket:pubs/a");
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(again->outcome, PublishOutcome::kUnchanged);
  Result<PublishReport> to_dir = PublishPublication(*context_, "bucket:pubs/a", (dir_ / "copy").string());
  ASSERT_TRUE(to_dir.ok()) << to_dir.status().ToString();
  EXPECT_EQ(SearchText(*context_, (dir_ / "copy").string()), SearchText(*context_, source));

  // Another publication at DEST is refused naming both artifacts; nothing changes.
  ivf::BuildOptions other = SmallBuild(input, dir_ / "scratch");
  other.out = (dir_ / "other").string();
  other.seed += 1;  // (another artifact than the small build's)
  Result<ivf::BuildSummary> built_other = ivf::BuildPublication(other);
  ASSERT_TRUE(built_other.ok());
  Result<PublishReport> clash = PublishPublication(*context_, (dir_ / "other").string(), "bucket:pubs/a");
  ASSERT_FALSE(clash.ok());
  EXPECT_EQ(clash.status().code(), StatusCode::kAlreadyExists);
  EXPECT_NE(clash.status().message().find(built->manifest.artifact_uuid.ToString()), std::string_view::npos);
  EXPECT_NE(clash.status().message().find(built_other->manifest.artifact_uuid.ToString()), std::string_view::npos);
  EXPECT_EQ(bucket.Get("pubs/a/manifest.json")->view(), manifest);

  // A source object that is not the manifest's is never committed at DEST.
  const std::string centroids = (dir_ / "pub" / built->manifest.hierarchy.centroids.path).string();
  {
    std::fstream f(centroids, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(10);
    f.put('\x7f');
  }
  Result<PublishReport> corrupt = PublishPublication(*context_, source, "bucket:pubs/b");
  ASSERT_FALSE(corrupt.ok());
  EXPECT_EQ(corrupt.status().code(), StatusCode::kIntegrityError) << corrupt.status().ToString();
  EXPECT_FALSE(bucket.Head("pubs/b/" + built->manifest.hierarchy.centroids.path).ok());
  EXPECT_FALSE(bucket.Head("pubs/b/manifest.json").ok());

  // A URL is no destination.
  EXPECT_EQ(PublishPublication(*context_, source, "http://127.0.0.1:9/x").status().path(), "destination");
}

TEST_F(MemoryContextTest, LocatorsThatNameNothingUsableAreRefused) {
  Status s = Publication::Open(*context_, "nosuch:pubs/x").status();
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.ToString();
  EXPECT_EQ(s.message(), "no store alias \"nosuch\" is configured in " + (dir_ / "no-stores.json").string() +
                             "; for a local path write ./nosuch:pubs/x");
  // A catalog name nothing is bound to (no control state is created).
  s = Publication::Open(*context_, "catalog:wordnet/glosses").status();
  EXPECT_EQ(s.code(), StatusCode::kNotFound) << s.ToString();
  EXPECT_EQ(s.message(), "nothing is bound to wordnet/glosses in the catalog") << s.ToString();
  s = Publication::Open(*context_, "catalog:wordnet").status();
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.ToString();
  s = Publication::Open(*context_, "mem:pubs/none").status();
  EXPECT_EQ(s.code(), StatusCode::kNotFound) << s.ToString();
  EXPECT_EQ(s.path(), "mem:pubs/none/manifest.json") << s.ToString();
  s = Publication::Open(*context_, "mem:../x").status();
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.ToString();
  // "local" always means a directory named by path.
  EXPECT_EQ(context_->RegisterStore("local", memory_).code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace vigilo::engine
