// The native catalog over every control backend (SQLite and PostgreSQL):
// bind, rebind, rollback, unbind and their history; concurrent binders; a
// manifest replaced behind the catalog's back; registered source tables;
// and a query through the catalog equal to one by manifest.
#include "vigilo/engine/catalog.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "common/scratch_test_support.h"
#include "control_backends_testing.h"
#include "vigilo/engine/cleanup.h"
#include "vigilo/engine/publication.h"
#include "vigilo/engine/publication_verify.h"
#include "vigilo/ivf/builder.h"
#include "vigilo/json/parse.h"
#include "vigilo/parquet/writer.h"

namespace vigilo::engine {
namespace {

namespace fs = std::filesystem;
using control::testing_support::ControlBackend;

constexpr int kRows = 600;

class CatalogTest : public ::testing::TestWithParam<ControlBackend> {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("vigilo-catalog-test-" + std::to_string(::getpid()) + "-" + test_support::CurrentTestPathName());
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "scratch");
    control_ = GetParam().create(dir_ / "control");
    context_ = NewContext();
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::unique_ptr<Context> NewContext() {
    ContextOptions options;
    options.settings.control = control_;
    options.settings.default_stores_file = (dir_ / "no-stores.json").string();
    auto context = Context::Create(std::move(options));
    EXPECT_TRUE(context.ok()) << context.status().ToString();
    return std::move(context).value();
  }

  // A JSONL input of kRows rows: a dense long "id" and an 8-dimensional
  // "vector" that `seed` varies (so each seed builds another artifact).
  fs::path WriteInput(int seed) {
    fs::path path = dir_ / ("input-" + std::to_string(seed) + ".jsonl");
    std::ofstream f(path);
    for (int i = 0; i < kRows; ++i) {
      f << "{\"id\":" << i << ",\"vector\":[";
      for (int j = 0; j < 8; ++j) {
        f << (j ? "," : "") << ((i * 7 + j * 13 + seed * 5) % 29) + 0.25 * j;
      }
      f << "]}\n";
    }
    return path;
  }

  // A publication built from WriteInput(seed), keyed by "id", without a
  // source table unless `source`.
  std::string Build(const std::string& name, int seed, bool source = false) {
    ivf::BuildOptions o;
    o.input = WriteInput(seed).string();
    o.input_options.key_field = "id";
    o.nlist = 12;
    o.roots = 3;
    o.threads = 1;
    o.source = source;
    o.scratch = (dir_ / "scratch").string();
    o.out = (dir_ / name).string();
    Result<ivf::BuildSummary> built = ivf::BuildPublication(o);
    EXPECT_TRUE(built.ok()) << built.status().ToString();
    return o.out;
  }

  // A source-table file: ids [first, first + rows) (or `ids` when given),
  // a "label" string per row, row groups of `group_rows`.
  std::string WriteSourceFile(const std::string& name, int64_t first, int64_t rows, int64_t group_rows,
                              std::vector<int64_t> ids = {}, bool optional_key = false) {
    if (ids.empty()) {
      for (int64_t i = 0; i < rows; ++i) ids.push_back(first + i);
    }
    fs::path path = dir_ / name;
    auto sink = parquet::FileSink::Create(path.string());
    EXPECT_TRUE(sink.ok()) << sink.status().ToString();
    std::vector<parquet::ColumnSpec> columns = {{.name = "id", .kind = parquet::ColumnKind::kInt64, .optional = optional_key},
                                                {.name = "label", .kind = parquet::ColumnKind::kString}};
    auto writer = parquet::FileWriter::Open(columns, {}, sink->get());
    EXPECT_TRUE(writer.ok()) << writer.status().ToString();
    for (int64_t at = 0; at < rows; at += group_rows) {
      const int64_t n = std::min(group_rows, rows - at);
      std::vector<int64_t> group(ids.begin() + at, ids.begin() + at + n);
      std::vector<std::string> labels;
      for (int64_t id : group) labels.push_back("label-" + std::to_string(id));
      std::vector<std::string_view> views(labels.begin(), labels.end());
      EXPECT_TRUE((*writer)->BeginRowGroup().ok());
      EXPECT_TRUE((*writer)->WriteInt64(0, group).ok());
      EXPECT_TRUE((*writer)->WriteByteArray(1, views).ok());
      EXPECT_TRUE((*writer)->EndRowGroup().ok());
    }
    EXPECT_TRUE((*writer)->Finish().ok());
    EXPECT_TRUE((*sink)->Close().ok());
    return path.string();
  }

  // The search's hits as text: query/rank/key/distance[/payload…];.
  static std::string Answer(Publication& p, std::vector<std::string> columns = {}) {
    SearchRequest request;
    request.vectors = {{1, 2, 3, 4, 5, 6, 7, 8}, {20, 3, 9, 0, 14, 2, 8, 27}};
    request.k = 5;
    request.nprobe = 4;
    request.columns = std::move(columns);
    Result<SearchResult> found = p.Search(request);
    EXPECT_TRUE(found.ok()) << found.status().ToString();
    if (!found.ok()) return "";
    std::string text;
    for (size_t i = 0; i < found->result.hits.size(); ++i) {
      const ivf::QueryHit& h = found->result.hits[i];
      text += std::to_string(h.query) + "/" + std::to_string(h.rank) + "/" +
              std::to_string(found->result.keys.integers[i]) + "/" + std::to_string(h.distance);
      for (size_t c = 0; c < found->payload_columns.size(); ++c) text += "/" + found->payload.Value(i, c);
      text += ";";
    }
    return text;
  }

  std::string AnswerAt(const std::string& locator, std::vector<std::string> columns = {}) {
    auto opened = Publication::Open(*context_, locator);
    EXPECT_TRUE(opened.ok()) << locator << ": " << opened.status().ToString();
    return opened.ok() ? Answer(**opened, std::move(columns)) : "";
  }

  fs::path dir_;
  std::string control_;
  std::unique_ptr<Context> context_;
  const CatalogName name_{"vectors", "small"};
};

TEST_P(CatalogTest, BindRebindRollbackUnbindKeepEveryEntryInTheHistory) {
  const std::string a = Build("a", 1), b = Build("b", 2);
  // Nothing bound yet (and no control state was created by asking).
  EXPECT_EQ(GetBinding(*context_, name_).status().code(), StatusCode::kNotFound);
  Result<std::vector<CatalogBinding>> none = ListBindings(*context_);
  ASSERT_TRUE(none.ok()) << none.status().ToString();
  EXPECT_TRUE(none->empty());

  Result<BindResult> first = Bind(*context_, name_, a);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(first->outcome, BindOutcome::kBound);
  EXPECT_EQ(first->binding.version, 1u);
  EXPECT_EQ(first->binding.location, a);
  EXPECT_EQ(first->binding.manifest_bytes, fs::file_size(fs::path(a) / "manifest.json"));
  EXPECT_FALSE(first->binding.bound_by.empty());
  const Uuid artifact_a = first->binding.artifact_uuid;

  // The same bind again changes nothing.
  Result<BindResult> again = Bind(*context_, name_, a);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(again->outcome, BindOutcome::kUnchanged);
  EXPECT_EQ(again->binding.version, 1u);

  // A stale expected version is fenced and binds nothing.
  Result<BindResult> stale = Bind(*context_, name_, b, BindOptions{.expected_version = 0});
  EXPECT_EQ(stale.status().code(), StatusCode::kFenced) << stale.status().ToString();

  Result<BindResult> rebound = Bind(*context_, name_, b, BindOptions{.expected_version = 1});
  ASSERT_TRUE(rebound.ok()) << rebound.status().ToString();
  EXPECT_EQ(rebound->outcome, BindOutcome::kRebound);
  EXPECT_EQ(rebound->binding.version, 2u);
  ASSERT_TRUE(rebound->previous.has_value());
  EXPECT_EQ(rebound->previous->artifact_uuid, artifact_a);
  EXPECT_EQ(AnswerAt("catalog:vectors/small"), AnswerAt(b));

  Result<BindResult> back = Rollback(*context_, name_, artifact_a);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->outcome, BindOutcome::kRebound);
  EXPECT_EQ(back->binding.version, 3u);
  EXPECT_EQ(back->binding.artifact_uuid, artifact_a);
  EXPECT_EQ(AnswerAt("catalog:vectors/small"), AnswerAt(a));
  EXPECT_EQ(Rollback(*context_, name_, Uuid()).status().code(), StatusCode::kNotFound);

  Result<UnbindResult> unbound = Unbind(*context_, name_, std::nullopt);
  ASSERT_TRUE(unbound.ok()) << unbound.status().ToString();
  EXPECT_FALSE(unbound->already);
  EXPECT_TRUE(unbound->binding.unbound_at.has_value());
  EXPECT_TRUE(Unbind(*context_, name_, std::nullopt)->already);
  EXPECT_EQ(GetBinding(*context_, name_).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(Publication::Open(*context_, "catalog:vectors/small").status().code(), StatusCode::kNotFound);
  EXPECT_TRUE(ListBindings(*context_)->empty());

  // Bound again after the unbind: the next version; the history has all.
  Result<BindResult> after = Bind(*context_, name_, b);
  ASSERT_TRUE(after.ok()) << after.status().ToString();
  EXPECT_EQ(after->outcome, BindOutcome::kBound);
  EXPECT_EQ(after->binding.version, 4u);
  Result<std::vector<CatalogBinding>> history = BindingHistory(*context_, name_);
  ASSERT_TRUE(history.ok()) << history.status().ToString();
  ASSERT_EQ(history->size(), 4u);
  const std::vector<std::string> locations = {a, b, a, b};
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ((*history)[i].version, i + 1);
    EXPECT_EQ((*history)[i].location, locations[i]);
  }
  EXPECT_TRUE((*history)[2].unbound_at.has_value());
  EXPECT_FALSE((*history)[3].unbound_at.has_value());
}

TEST_P(CatalogTest, ABindingHoldsTheManifestsDigestAndNoObjectList) {
  const std::string a = Build("a", 1);
  ASSERT_TRUE(Bind(*context_, name_, a).ok());
  auto control = context_->ExistingControl();
  ASSERT_TRUE(control.ok());
  auto root = (*control)->GetRoot(CatalogNamespace(), "vectors.small");
  ASSERT_TRUE(root.ok() && root->has_value());
  // Exactly where the manifest is and what it was: no object inventory.
  auto value = json::Parse((*root)->value);
  ASSERT_TRUE(value.ok());
  std::set<std::string> members;
  for (const auto& [k, v] : value->as_object()) members.insert(k);
  EXPECT_EQ(members, (std::set<std::string>{"artifact_uuid", "location", "manifest_bytes", "manifest_sha256"}));
  // The binding's attempt recorded no key: no per-object row anywhere.
  auto attempt = (*control)->GetAttempt((*root)->attempt);
  ASSERT_TRUE(attempt.ok());
  EXPECT_TRUE(attempt->keys.empty());
  EXPECT_EQ(attempt->store, control::kNoObjectsStoreId);
}

TEST_P(CatalogTest, BindRefusesBadNamesLocationsAndPublicationsBeforeRecordingAnything) {
  EXPECT_EQ(ParseCatalogName("novector").status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(ParseCatalogName("a.b/c").status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(ParseCatalogName("a/b/c").status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(ParseCatalogName("-a/b").status().code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(ParseCatalogName("wordnet/glosses-v2_1").ok());
  EXPECT_EQ(Bind(*context_, name_, "catalog:vectors/other").status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(Bind(*context_, name_, (dir_ / "missing").string()).status().code(), StatusCode::kNotFound);
  // A publication whose object was damaged fails its quick check.
  const std::string a = Build("a", 1);
  fs::path centroids = fs::path(a) / "centroids.parquet";
  fs::resize_file(centroids, fs::file_size(centroids) - 1);
  Result<BindResult> broken = Bind(*context_, name_, a);
  EXPECT_EQ(broken.status().code(), StatusCode::kIntegrityError) << broken.status().ToString();
  EXPECT_EQ(GetBinding(*context_, name_).status().code(), StatusCode::kNotFound);
}

TEST_P(CatalogTest, AManifestReplacedBehindTheCatalogIsRefused) {
  const std::string a = Build("a", 1);
  ASSERT_TRUE(Bind(*context_, name_, a).ok());
  const std::string by_manifest = AnswerAt(a);
  EXPECT_EQ(AnswerAt("catalog:vectors/small"), by_manifest);
  // Another artifact's manifest copied over it: a valid publication, but
  // not the one bound.
  const std::string b = Build("b", 2);
  ASSERT_TRUE(Bind(*context_, CatalogName{"vectors", "other"}, b).ok());
  fs::copy_file(fs::path(b) / "manifest.json", fs::path(a) / "manifest.json", fs::copy_options::overwrite_existing);
  auto opened = Publication::Open(*context_, "catalog:vectors/small");
  ASSERT_EQ(opened.status().code(), StatusCode::kIntegrityError) << opened.status().ToString();
  EXPECT_NE(opened.status().message().find("changed behind the catalog"), std::string_view::npos);
  // Rolling back to it is refused the same way; the binding stays.
  Result<std::vector<CatalogBinding>> history = BindingHistory(*context_, name_);
  ASSERT_TRUE(history.ok());
  Result<BindResult> back = Rollback(*context_, name_, (*history)[0].artifact_uuid);
  EXPECT_EQ(back.status().code(), StatusCode::kIntegrityError) << back.status().ToString();
  EXPECT_EQ(GetBinding(*context_, name_)->version, 1u);
}

TEST_P(CatalogTest, FourConcurrentBindersLoseCleanlyAndTheHistoryLosesNoEntry) {
  std::vector<std::string> publications;
  for (int i = 0; i < 4; ++i) publications.push_back(Build("p" + std::to_string(i), i + 1));
  ASSERT_TRUE(Bind(*context_, name_, publications[0]).ok());  // version 1
  constexpr int kRounds = 3;
  std::atomic<int> won{0}, lost{0}, other{0};
  std::vector<std::thread> binders;
  for (int t = 0; t < 4; ++t) {
    binders.emplace_back([&, t] {
      std::unique_ptr<Context> context = NewContext();  // each its own connection
      for (int r = 0; r < kRounds; ++r) {
        Result<BindResult> bound = Bind(*context, name_, publications[(t + r + 1) % 4]);
        if (bound.ok() && bound->outcome != BindOutcome::kUnchanged) {
          ++won;
        } else if (!bound.ok() && bound.status().code() == StatusCode::kFenced) {
          ++lost;
        } else if (!bound.ok() || bound->outcome != BindOutcome::kUnchanged) {
          ++other;
          ADD_FAILURE() << bound.status().ToString();
        }
      }
    });
  }
  for (std::thread& t : binders) t.join();
  EXPECT_EQ(other.load(), 0);
  RecordProperty("binds_won", won.load());
  RecordProperty("binds_lost", lost.load());
  Result<std::vector<CatalogBinding>> history = BindingHistory(*context_, name_);
  ASSERT_TRUE(history.ok()) << history.status().ToString();
  // Every winning bind is one entry, versions 1, 2, … without a gap, and
  // the current binding is the last entry.
  EXPECT_EQ(history->size(), 1u + static_cast<size_t>(won.load()));
  for (size_t i = 0; i < history->size(); ++i) EXPECT_EQ((*history)[i].version, i + 1);
  EXPECT_GE(won.load(), 1);
  EXPECT_EQ(GetBinding(*context_, name_)->version, history->size());
}

TEST_P(CatalogTest, ARegisteredSourceServesPayloadsThroughTheCatalog) {
  const std::string a = Build("a", 1);  // no source table
  const std::string first = WriteSourceFile("part-0.parquet", 0, 400, 128);
  const std::string second = WriteSourceFile("part-1.parquet", 400, 200, 128);
  Result<RegisterSourceResult> registered = RegisterSource(*context_, "vectors", {first, second});
  ASSERT_TRUE(registered.ok()) << registered.status().ToString();
  EXPECT_FALSE(registered->unchanged);
  EXPECT_EQ(registered->source.rows, 600u);
  EXPECT_EQ(registered->source.row_group_rows, 128u);
  EXPECT_EQ(registered->source.key, "id");
  EXPECT_EQ(registered->source.version, 1u);
  EXPECT_TRUE(RegisterSource(*context_, "vectors", {first, second})->unchanged);

  // By manifest: no payload column exists. Through the catalog: the
  // registered table's labels, each the label of its own key.
  auto direct = Publication::Open(*context_, a);
  ASSERT_TRUE(direct.ok());
  SearchRequest r;
  r.vectors = {{1, 2, 3, 4, 5, 6, 7, 8}};
  r.columns = {"label"};
  EXPECT_FALSE((*direct)->Search(r).ok());

  Result<BindResult> bound = Bind(*context_, name_, a);
  ASSERT_TRUE(bound.ok()) << bound.status().ToString();
  ASSERT_TRUE(bound->binding.source.has_value());
  EXPECT_EQ(bound->binding.source->version, 1u);
  auto through = Publication::Open(*context_, "catalog:vectors/small");
  ASSERT_TRUE(through.ok()) << through.status().ToString();
  r.k = 20;
  r.nprobe = 12;
  Result<SearchResult> found = (*through)->Search(r);
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  ASSERT_EQ(found->result.hits.size(), 20u);
  for (size_t i = 0; i < found->result.hits.size(); ++i) {
    const int64_t key = found->result.keys.integers[i];
    EXPECT_EQ(found->payload.Value(i, 0), "\"label-" + std::to_string(key) + "\"");
  }
  // The neighbours without the payload are the manifest's own.
  EXPECT_EQ(Answer(**through), Answer(**direct));

  // Verifying through the catalog checks the registered table too: every
  // byte at the full level, so a changed byte in a label is found.
  VerifyRequest full;
  Result<VerifyOutcome> verified = VerifyPublication(*context_, "catalog:vectors/small", full);
  ASSERT_TRUE(verified.ok()) << verified.status().ToString();
  EXPECT_TRUE(verified->report.ok()) << verified->report.failures.front().ToString();
  EXPECT_EQ(verified->report.source_rows, 600u);
  EXPECT_EQ(verified->checked.back(), "registered_source");
  {
    std::fstream f(second, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(40);
    f.put('#');
  }
  verified = VerifyPublication(*context_, "catalog:vectors/small", full);
  ASSERT_TRUE(verified.ok()) << verified.status().ToString();
  ASSERT_FALSE(verified->report.ok());
  const Status& failure = verified->report.failures.front();
  EXPECT_NE(failure.path().find("part-1.parquet"), std::string_view::npos) << failure.ToString();
}

TEST_P(CatalogTest, ASourceTableIsRefusedWhenItsKeyIsNotDenseOrItsRowsAreNotNtotal) {
  const std::string a = Build("a", 1);
  // Register-time checks: a gap in the key, a nullable key, a missing key column.
  std::vector<int64_t> gap;
  for (int64_t i = 0; i < 600; ++i) gap.push_back(i < 300 ? i : i + 1);
  const std::string sparse = WriteSourceFile("sparse.parquet", 0, 600, 100, gap);
  Result<RegisterSourceResult> refused = RegisterSource(*context_, "vectors", {sparse});
  ASSERT_EQ(refused.status().code(), StatusCode::kInvalidFormat) << refused.status().ToString();
  EXPECT_NE(refused.status().message().find("the key at row 300 is 301"), std::string_view::npos)
      << refused.status().ToString();
  EXPECT_NE(refused.status().path().find("sparse.parquet"), std::string_view::npos) << refused.status().ToString();
  const std::string nullable = WriteSourceFile("nullable.parquet", 0, 600, 100, {}, /*optional_key=*/true);
  EXPECT_EQ(RegisterSource(*context_, "vectors", {nullable}).status().code(), StatusCode::kInvalidFormat);
  EXPECT_EQ(RegisterSource(*context_, "vectors", {sparse}, RegisterSourceOptions{.key = "label"}).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(RegisterSource(*context_, "vectors", {"http://127.0.0.1:1/x.parquet"}).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(GetRegisteredSource(*context_, "vectors").status().code(), StatusCode::kNotFound);

  // Bind-time check: 400 rows against ntotal 600.
  const std::string short_table = WriteSourceFile("short.parquet", 0, 400, 100);
  ASSERT_TRUE(RegisterSource(*context_, "vectors", {short_table}).ok());
  Result<BindResult> bound = Bind(*context_, name_, a);
  ASSERT_EQ(bound.status().code(), StatusCode::kInvalidArgument) << bound.status().ToString();
  EXPECT_NE(bound.status().message().find("holds 400 rows; the publication's ntotal is 600"), std::string_view::npos);
  EXPECT_EQ(GetBinding(*context_, name_).status().code(), StatusCode::kNotFound);
}

TEST_P(CatalogTest, ABinderKilledBeforeItsPublishLeavesAnAttemptCleanupAbandons) {
  auto control = context_->Control();
  ASSERT_TRUE(control.ok());
  control::AttemptSpec spec;
  spec.ns = CatalogNamespace();
  spec.name = "vectors.small";
  spec.store = std::string(control::kNoObjectsStoreId);
  spec.owner = "dead:1";
  spec.lease_duration = 1;  // expired at once
  auto lease = (*control)->BeginAttempt(spec);
  ASSERT_TRUE(lease.ok()) << lease.status().ToString();
  ::usleep(2000);
  Result<std::vector<StoreCleanupReport>> cleaned = CleanStores(*context_, CleanupOptions{});
  ASSERT_TRUE(cleaned.ok()) << cleaned.status().ToString();
  for (const StoreCleanupReport& r : *cleaned) EXPECT_TRUE(r.drain.status.ok()) << r.drain.status.ToString();
  auto attempt = (*control)->GetAttempt(lease->attempt);
  ASSERT_TRUE(attempt.ok());
  EXPECT_EQ(attempt->state, control::AttemptState::kAbandoned);
}

INSTANTIATE_TEST_SUITE_P(ControlBackends, CatalogTest,
                         ::testing::ValuesIn(control::testing_support::ControlBackends()),
                         control::testing_support::BackendName);

}  // namespace
}  // namespace vigilo::engine
