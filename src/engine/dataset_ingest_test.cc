// engine::IngestDataset against a memory store and a SQLite control store
// on a manual wall clock: publication, replays, resume after failures,
// abandonment and cleanup, fencing, and crashes at every store operation.
#include "vigilo/engine/dataset_ingest.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <string>

#include "vigilo/cases/case_lines.h"
#include "vigilo/cases/dataset_reader.h"
#include "vigilo/cases/dataset_stream.h"
#include "vigilo/cases/object_io.h"
#include "vigilo/control/cleanup.h"
#include "vigilo/control/cleanup.h"
#include "vigilo/common/file.h"
#include "vigilo/json/parse.h"
#include "vigilo/json/write.h"
#include "vigilo/store/fault_store.h"
#include "vigilo/store/governor.h"
#include "vigilo/store/memory_store.h"
#include "engine_test_support.h"

namespace vigilo::engine {
namespace {

using testing::kSecond;

std::string CaseJson(int i, const std::string& prompt_suffix = "") {
  char id[40];
  std::snprintf(id, sizeof id, "00000000-0000-4000-8000-%012d", i);
  return std::string(R"({"id":")") + id + R"(","input":{"prompt":"question )" + std::to_string(i) + prompt_suffix +
         R"("},"task_type":"generation"})";
}

std::string DatasetJson(int cases, const std::string& dataset_id = "demo-set", const std::string& suffix = "") {
  std::string s = R"({"dataset_id":")" + dataset_id + R"(","dataset_version":"v1","cases":[)";
  for (int i = 0; i < cases; ++i) {
    if (i > 0) s += ",";
    s += CaseJson(i, suffix);
  }
  return s + "]}";
}

class IngestTest : public testing::EngineFixture {
 protected:
  IngestOptions Options() {
    IngestOptions o;
    o.scratch_dir = scratch_ / "spool";
    o.lease_duration = 60 * kSecond;
    return o;
  }

  Result<IngestResult> Ingest(const std::string& path, store::ObjectStore& store, IngestOptions options) {
    IngestInput input;
    input.path = path;
    IngestTarget target = Target(store);
    return IngestDataset(input, options, target);
  }
  Result<IngestResult> Ingest(const std::string& path) { return Ingest(path, *memory_, Options()); }

  // Reads the published dataset back through the reader.
  void ExpectReadable(const cases::ObjectRef& root, store::ObjectStore& store) {
    auto read = cases::ReadDataset(root, cases::BudgetConfig::Defaults(), scratch_ / "spool",
                                   cases::StoreBytesFetch(cases::SingleStore(store)));
    ASSERT_TRUE(read.ok()) << read.status().ToString();
  }

  // Every key in the store lies under the prefix of the attempt that
  // published `name` (nothing else is left once cleanup is due and drained).
  void ExpectOnlyPublishedKeys(const std::string& name) {
    wall_.Advance(control::kDefaultAbandonSettle + kSecond);
    control::CleanupReport drained = control::DrainCleanup(*control_, "test-store", *memory_, *governor_);
    ASSERT_TRUE(drained.status.ok()) << drained.status.ToString();
    auto root = control_->GetRoot(control::Namespace::kDatasets, name);
    ASSERT_TRUE(root.ok() && root->has_value());
    auto attempt = control_->GetAttempt((*root)->attempt);
    ASSERT_TRUE(attempt.ok());
    for (const std::string& key : memory_->Keys()) {
      EXPECT_EQ(key.rfind(attempt->key_prefix, 0), 0u) << key << " is not under " << attempt->key_prefix;
    }
  }

  std::unique_ptr<store::MemoryStore> memory_ = std::make_unique<store::MemoryStore>();
};

TEST_P(IngestTest, PublishesAVerifiedDatasetUnderItsId) {
  std::string path = WriteInput("in.json", DatasetJson(250));
  auto r = Ingest(path);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->outcome, IngestOutcome::kPublished);
  EXPECT_EQ(r->name, "demo-set");
  EXPECT_EQ(r->root_version, 1u);
  EXPECT_FALSE(r->resumed);
  EXPECT_EQ(r->manifest.case_count, 250);
  // 3 batches of ≤100 cases, 1 index page, source fields, manifest.
  EXPECT_EQ(r->objects_written, 6u);
  EXPECT_EQ(r->objects_replayed, 0u);
  EXPECT_EQ(memory_->object_count(), 6u);
  EXPECT_GT(r->verified_bytes, r->input_bytes / 2);

  auto identity = cases::ComputeDatasetIdentity(path);
  ASSERT_TRUE(identity.ok());
  EXPECT_EQ(r->manifest.dataset_hash, identity->dataset_hash);
  EXPECT_EQ(r->manifest.dataset_version_id, identity->dataset_version_id);
  EXPECT_EQ(r->root.key.rfind("datasets/demo-set/attempts/", 0), 0u) << r->root.key;

  auto root = control_->GetRoot(control::Namespace::kDatasets, "demo-set");
  ASSERT_TRUE(root.ok() && root->has_value());
  auto value = json::ToCanonical(r->root.ToJson());
  EXPECT_EQ((*root)->value, *value);
  ExpectReadable(r->root, *memory_);
  // The attempt is published and records its admission limits.
  auto attempt = control_->GetAttempt(r->attempt);
  ASSERT_TRUE(attempt.ok());
  EXPECT_EQ(attempt->state, control::AttemptState::kPublished);
  EXPECT_NE(attempt->admission_limits.find("\"case_batch_max_cases\":100"), std::string::npos);
  EXPECT_EQ(attempt->keys.size(), 6u);
}

TEST_P(IngestTest, AnotherNameAndTheSameDatasetAgainIsUnchanged) {
  std::string path = WriteInput("in.json", DatasetJson(30));
  IngestOptions o = Options();
  o.name = "my-evals";
  auto first = Ingest(path, *memory_, o);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(first->root.key.rfind("datasets/my-evals/attempts/", 0), 0u);
  size_t objects = memory_->object_count();

  auto again = Ingest(path, *memory_, o);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(again->outcome, IngestOutcome::kUnchanged);
  EXPECT_EQ(again->root_version, 1u);
  EXPECT_EQ(again->root.digest, first->root.digest);
  // The second attempt's objects were deleted at once (abandoned by its holder).
  EXPECT_EQ(memory_->object_count(), objects);
  ExpectOnlyPublishedKeys("my-evals");
}

TEST_P(IngestTest, AnotherDatasetUnderATakenNameNeedsReplaceAndReusesTheWork) {
  ASSERT_TRUE(Ingest(WriteInput("a.json", DatasetJson(20))).ok());
  std::string b = WriteInput("b.json", DatasetJson(20, "demo-set", " (revised)"));
  auto refused = Ingest(b);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kAlreadyExists);
  EXPECT_NE(refused.status().message().find("already holds another dataset (version 1)"), std::string_view::npos)
      << refused.status().ToString();
  // Honest about what a rerun does: without replace it would be refused again.
  EXPECT_EQ(refused.status().message().find("rerunning the same command resumes it"), std::string_view::npos);
  EXPECT_NE(refused.status().message().find("is kept: a rerun with the replace option resumes it and reuses its "
                                            "objects; otherwise `vigilo store cleanup` deletes them once the "
                                            "attempt has been idle for 1 hour)"),
            std::string_view::npos)
      << refused.status().ToString();

  wall_.Advance(kSecond);
  IngestOptions o = Options();
  o.replace = true;
  auto replaced = Ingest(b, *memory_, o);
  ASSERT_TRUE(replaced.ok()) << replaced.status().ToString();
  EXPECT_EQ(replaced->outcome, IngestOutcome::kReplaced);
  EXPECT_EQ(replaced->root_version, 2u);
  EXPECT_TRUE(replaced->resumed);
  EXPECT_EQ(replaced->objects_written, 0u);
  EXPECT_EQ(replaced->objects_replayed, 4u);
  auto history = control_->RootHistory(control::Namespace::kDatasets, "demo-set");
  ASSERT_TRUE(history.ok());
  EXPECT_EQ(history->size(), 2u);
}

TEST_P(IngestTest, InvalidInputLeavesNothingBehind) {
  // Duplicate ids 150 cases apart: found after two batches were written.
  std::string text = DatasetJson(200);
  std::string dup = R"("id":"00000000-0000-4000-8000-000000000003")";
  size_t at = text.find(R"("id":"00000000-0000-4000-8000-000000000153")");
  text.replace(at, dup.size(), dup);
  auto r = Ingest(WriteInput("dup.json", text));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidFormat);
  EXPECT_EQ(r.status().path(), "$.cases[153].id");
  EXPECT_EQ(memory_->object_count(), 0u);
  auto roots = control_->ListRoots(control::Namespace::kDatasets);
  ASSERT_TRUE(roots.ok());
  EXPECT_TRUE(roots->empty());
  auto attempts = control_->ListAttempts(control::Namespace::kDatasets, "demo-set");
  ASSERT_TRUE(attempts.ok());
  ASSERT_EQ(attempts->size(), 1u);
  EXPECT_EQ((*attempts)[0].state, control::AttemptState::kAbandoned);
  // The fix goes through.
  auto fixed = Ingest(WriteInput("ok.json", DatasetJson(200)));
  ASSERT_TRUE(fixed.ok()) << fixed.status().ToString();
}

TEST_P(IngestTest, BadRequestsAreRefusedBeforeAnyIo) {
  std::string path = WriteInput("in.json", DatasetJson(3));
  IngestOptions o = Options();
  o.budget.case_batch_max_bytes = 100;  // below 256
  auto r = Ingest(path, *memory_, o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(r.status().path(), "case_batch_max_bytes");

  o = Options();
  o.name = ".hidden";
  r = Ingest(path, *memory_, o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().path(), "name");

  o = Options();
  o.scratch_dir = scratch_ / "missing";
  r = Ingest(path, *memory_, o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().path(), "scratch_dir");

  store::MemoryStore read_only(store::Capabilities{.writable = false});
  r = Ingest(path, read_only, Options());
  ASSERT_FALSE(r.ok());
  auto attempts = control_->ListAttempts(control::Namespace::kDatasets, "demo-set");
  ASSERT_TRUE(attempts.ok());
  EXPECT_TRUE(attempts->empty()) << "no attempt may begin for a refused request";
  EXPECT_EQ(memory_->object_count(), 0u);
}

TEST_P(IngestTest, AStoreThatStaysDownLeavesAResumableAttempt) {
  std::string path = WriteInput("in.json", DatasetJson(250));
  {
    // The second batch's create fails on every attempt.
    store::FaultPlan plan;
    plan.Add(store::FaultRule{.fault = store::FaultKind::kTransient,
                              .op = store::StoreOp::kCreateIfAbsent,
                              .skip = 1,
                              .times = 0});
    store::FaultInjectingStore faulty(*memory_, plan);
    auto r = Ingest(path, faulty, Options());
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), StatusCode::kUnavailable) << r.status().ToString();
    EXPECT_NE(r.status().message().find("is kept; rerunning the same command resumes it"), std::string_view::npos);
  }
  EXPECT_EQ(memory_->object_count(), 1u);
  wall_.Advance(kSecond);
  auto rerun = Ingest(path);
  ASSERT_TRUE(rerun.ok()) << rerun.status().ToString();
  EXPECT_TRUE(rerun->resumed);
  EXPECT_EQ(rerun->objects_replayed, 1u);
  EXPECT_EQ(rerun->objects_written, 5u);
  ExpectOnlyPublishedKeys("demo-set");
}

TEST_P(IngestTest, AZombieWriterIsFencedAndPublishesNothing) {
  std::string path = WriteInput("in.json", DatasetJson(250));
  IngestOptions o = Options();
  bool taken_over = false;
  o.progress = [&](const IngestProgress& p) {
    // Mid-write, the writer stalls past its lease and another process
    // takes the attempt over.
    if (p.phase != "writing" || p.cases < 150 || taken_over) return;
    taken_over = true;
    wall_.Advance(o.lease_duration + kSecond);
    auto attempts = control_->ListAttempts(control::Namespace::kDatasets, "demo-set");
    ASSERT_TRUE(attempts.ok() && attempts->size() == 1);
    ASSERT_TRUE(control_->ResumeAttempt((*attempts)[0].attempt, "other-process", o.lease_duration).ok());
  };
  auto r = Ingest(path, *memory_, o);
  ASSERT_TRUE(taken_over);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kFenced) << r.status().ToString();
  auto root = control_->GetRoot(control::Namespace::kDatasets, "demo-set");
  ASSERT_TRUE(root.ok());
  EXPECT_FALSE(root->has_value());
}

// Bad inputs: each a specific error naming the place, nothing published,
// no object left.
TEST_P(IngestTest, EachBadInputIsASpecificErrorAndLeavesNothing) {
  struct Bad {
    std::string name;
    std::string text;
    StatusCode code;
    std::string path;
    std::string message_part;
  };
  std::string big_case = CaseJson(1, std::string(9 << 20, 'x'));
  std::vector<Bad> cases = {
      {"invalid UTF-8", R"({"dataset_id":"demo-set","cases":[)" + CaseJson(0, "\xff") + "]}",
       StatusCode::kParseError, "", "UTF-8"},
      {"duplicate key", R"({"dataset_id":"demo-set","dataset_id":"again","cases":[)" + CaseJson(0) + "]}",
       StatusCode::kParseError, "", "duplicate"},
      {"top level not an object", "[" + CaseJson(0) + "]", StatusCode::kInvalidFormat, "$", ""},
      {"empty cases", R"({"dataset_id":"demo-set","cases":[]})", StatusCode::kInvalidFormat, "$.cases",
       "at least one case"},
      {"typed validation", R"({"dataset_id":"demo-set","cases":[)" + CaseJson(0) +
                               R"(,{"id":"00000000-0000-4000-8000-000000000001","input":{"prompt":"p"},"task_type":"painting"}]})",
       StatusCode::kInvalidFormat, "$.cases[1]", ""},
      {"a case larger than a batch", R"({"dataset_id":"demo-set","cases":[)" + CaseJson(0) + "," + big_case + "]}",
       StatusCode::kLimitExceeded, "$.cases[1]", "00000000-0000-4000-8000-000000000001"},
  };
  for (const Bad& bad : cases) {
    SCOPED_TRACE(bad.name);
    auto r = Ingest(WriteInput("bad.json", bad.text));
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), bad.code) << r.status().ToString();
    if (!bad.path.empty()) {
      EXPECT_EQ(r.status().path().substr(0, bad.path.size()), bad.path) << r.status().ToString();
    }
    EXPECT_NE(r.status().message().find(bad.message_part), std::string_view::npos) << r.status().ToString();
    EXPECT_EQ(memory_->object_count(), 0u);
    auto roots = control_->ListRoots(control::Namespace::kDatasets);
    ASSERT_TRUE(roots.ok());
    EXPECT_TRUE(roots->empty());
  }
}

// --- issue 34 -----------------------------------------------------------------

// JSON Lines ingestion through the engine.
class LinesIngestTest : public IngestTest {
 protected:
  Result<IngestResult> IngestLines(const std::string& text, cases::CaseLinesOptions lines,
                                   IngestOptions options, store::ObjectStore* store = nullptr,
                                   const std::string& ledger_store_id = "test-store") {
    IngestInput input;
    input.path = WriteInput("in.jsonl", text);
    input.format = InputFormat::kCaseLines;
    input.lines = std::move(lines);
    IngestTarget target = Target(store != nullptr ? *store : *memory_);
    target.ledger_store_id = ledger_store_id;
    return IngestDataset(input, options, target);
  }
  static cases::CaseLinesOptions Lines(const std::string& derive = "") {
    cases::CaseLinesOptions o;
    o.dataset_id = "lines-set";
    o.derive_ids_from = derive;
    return o;
  }
  void ExpectNoAttempt(const std::string& name = "lines-set", size_t objects = 0) {
    auto attempts = control_->ListAttempts(control::Namespace::kDatasets, name);
    ASSERT_TRUE(attempts.ok());
    EXPECT_TRUE(attempts->empty()) << "no attempt may begin for input refused by the first pass";
    EXPECT_EQ(memory_->object_count(), objects);
  }
};

// A case as submitted on one line, nesting `depth` levels.
std::string DeepCase(int i, int depth) {
  std::string open;
  std::string close;
  for (int d = 2; d < depth; ++d) {  // the case and `metadata` are two levels
    open += "[";
    close += "]";
  }
  std::string c = CaseJson(i);
  c.pop_back();  // the final }
  return c + R"(,"metadata":{"deep":)" + (depth > 2 ? open + close : std::string("0")) + "}}";
}

TEST_P(LinesIngestTest, ALineDeeperThanItsStoredRecordIsRefusedBeforeAnyWrite) {
  // Stored one level deeper (inside its batch record): 126 is the most a
  // line may nest, and 127 used to be written, then refused at read-back.
  ASSERT_TRUE(json::Parse(DeepCase(2, 127)).ok());
  std::string text = CaseJson(0) + "\n" + CaseJson(1) + "\n" + DeepCase(2, 127) + "\n";
  auto r = IngestLines(text, Lines(), Options());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kLimitExceeded) << r.status().ToString();
  EXPECT_EQ(r.status().path(), "line 3");
  EXPECT_NE(r.status().message().find("deeper than 126 levels"), std::string_view::npos) << r.status().ToString();
  ExpectNoAttempt();

  auto fits = IngestLines(CaseJson(0) + "\n" + DeepCase(1, 126) + "\n", Lines(), Options());
  ASSERT_TRUE(fits.ok()) << fits.status().ToString();
  ExpectReadable(fits->root, *memory_);
}

TEST_P(LinesIngestTest, ABadCaseNamesItsLineBeforeAnyWrite) {
  std::string text = CaseJson(0) + "\n" + R"({"id":"00000000-0000-4000-8000-000000000001"})" + "\n";
  auto r = IngestLines(text, Lines(), Options());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidFormat);
  EXPECT_EQ(r.status().path(), "line 2: $.cases[1].input") << r.status().ToString();
  EXPECT_EQ(r.status().message(), "missing required field");
  ExpectNoAttempt();
}

TEST_P(LinesIngestTest, TrailingBlankLinesCrLfAndALeadingBomStoreTheSameDataset) {
  const std::string plain = CaseJson(0) + "\n" + CaseJson(1) + "\n";
  auto a = IngestLines(plain, Lines(), Options());
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  const std::string lenient = "\xef\xbb\xbf" + CaseJson(0) + "\r\n" + CaseJson(1) + "\r\n\r\n";
  auto b = IngestLines(lenient, Lines(), Options());
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ(b->outcome, IngestOutcome::kUnchanged);
  EXPECT_EQ(b->manifest.dataset_hash, a->manifest.dataset_hash);
}

TEST_P(LinesIngestTest, DuplicateDerivedIdsNameTheUsersValues) {
  auto line = [](const std::string& prompt, const std::string& key) {
    return R"({"input":{"prompt":")" + prompt + R"("},"metadata":{"key":")" + key + R"("}})" + "\n";
  };
  std::string text = line("a", "evalset-00000") + line("b", "evalset-00001") + line("c", "evalset-00000");
  auto r = IngestLines(text, Lines("metadata.key"), Options());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidFormat);
  EXPECT_EQ(r.status().path(), "line 3: $.cases[2].id");
  EXPECT_EQ(std::string(r.status().message()).rfind("metadata.key \"evalset-00000\" repeats the value on line 1", 0),
            0u)
      << r.status().ToString();
  EXPECT_EQ(memory_->object_count(), 0u);
}

TEST_P(LinesIngestTest, ALongDatasetVersionIsHeldToTheSourceFieldsBudget) {
  // 70 KiB: more than the control store's 64 KiB ledger record, far less
  // than the 8 MiB source-fields budget a dataset document is held to.
  cases::CaseLinesOptions lines = Lines();
  lines.dataset_version = std::string(70 << 10, 'v');
  auto r = IngestLines(CaseJson(0) + "\n", lines, Options());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_TRUE(r->manifest.dataset_version.has_value());
  EXPECT_EQ(r->manifest.dataset_version->size(), size_t{70} << 10);
  auto attempt = control_->GetAttempt(r->attempt);
  ASSERT_TRUE(attempt.ok());
  EXPECT_LT(attempt->admission_limits.size(), size_t{2048}) << "the version is recorded by its digest";

  // Over the budget: refused naming the setting, before an attempt.
  IngestOptions small = Options();
  small.budget.source_fields_max_bytes = 64 << 10;
  lines.dataset_id = "lines-set-2";
  auto over = IngestLines(CaseJson(0) + "\n", lines, small);
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(over.status().code(), StatusCode::kLimitExceeded) << over.status().ToString();
  EXPECT_EQ(over.status().path(), "dataset_version");
  ExpectNoAttempt("lines-set-2", r->objects_written);
}

TEST_P(LinesIngestTest, TheSameDatasetFromAnotherStoreIsNotCalledAnother) {
  auto first = IngestLines(CaseJson(0) + "\n", Lines(), Options());
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  store::MemoryStore elsewhere;
  auto second = IngestLines(CaseJson(0) + "\n", Lines(), Options(), &elsewhere, "other-store");
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), StatusCode::kAlreadyExists);
  EXPECT_NE(second.status().message().find("already holds a dataset published from another store (test-store), "
                                            "whose objects are not compared with these"),
            std::string_view::npos)
      << second.status().ToString();
  EXPECT_EQ(second.status().message().find("another dataset"), std::string_view::npos);
}

// A store that refuses every create as a read-only directory would.
class DeniedStore final : public store::ObjectStore {
 public:
  explicit DeniedStore(store::ObjectStore& inner) : inner_(inner) {}
  const store::Capabilities& capabilities() const override { return inner_.capabilities(); }
  Result<store::Bytes> Get(std::string_view key, const store::GetOptions& options) override {
    return inner_.Get(key, options);
  }
  Result<store::ObjectInfo> Head(std::string_view key, const store::AttemptContext* attempt) override {
    return inner_.Head(key, attempt);
  }
  Result<store::CreateResult> CreateIfAbsent(std::string_view key, std::span<const uint8_t>,
                                             const store::AttemptContext*) override {
    return ErrnoStatus(EACCES, "cannot create a temporary file", "/srv/store/" + std::string(key));
  }
  Result<std::unique_ptr<store::ObjectWriter>> BeginCreate(std::string_view key,
                                                           const store::AttemptContext*) override {
    return ErrnoStatus(EACCES, "cannot create a temporary file", "/srv/store/" + std::string(key));
  }
  Status Delete(std::string_view key, const store::AttemptContext* attempt) override {
    return inner_.Delete(key, attempt);
  }

 private:
  store::ObjectStore& inner_;
};

TEST_P(IngestTest, APermissionErrorSaysWhatToFixNotJustRerun) {
  DeniedStore denied(*memory_);
  auto r = Ingest(WriteInput("in.json", DatasetJson(3)), denied, Options());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kIoError) << r.status().ToString();
  const std::string_view m = r.status().message();
  EXPECT_NE(m.find("a rerun alone cannot cure this: make that path writable for this user"),
            std::string_view::npos)
      << r.status().ToString();
  EXPECT_EQ(m.find("rerunning the same command resumes it"), std::string_view::npos);
}

TEST_P(IngestTest, AFullValidationSpoolIsRefusedBeforeTheDiskFills) {
  // 100,000 ids spill more than the quota once the 1 MiB sort buffer fills
  // (the smallest quota Validate allows: one sort run plus one batch).
  std::string path = WriteInput("in.json", DatasetJson(100000));
  IngestOptions o = Options();
  o.budget.case_batch_max_bytes = 64 << 10;
  o.budget.external_sort_buffer_bytes = 1 << 20;
  o.budget.ingestion_validation_spool_bytes = (1 << 20) + (64 << 10);
  auto r = Ingest(path, *memory_, o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kLimitExceeded) << r.status().ToString();
  EXPECT_EQ(memory_->object_count(), 0u);
  size_t left = 0;
  for (const auto& e : std::filesystem::directory_iterator(scratch_ / "spool")) left += e.exists() ? 1 : 0;
  EXPECT_EQ(left, 0u) << "every spill file is removed";
}

#ifdef NDEBUG
// Seed 004: "At 100,000 small cases the case batches number 1,000 with the
// default record cap; 256-way index pages require four leaves and one parent."
TEST_P(IngestTest, OneHundredThousandCasesMakeTheSeedsLayout) {
  auto r = Ingest(WriteInput("100k.json", DatasetJson(100000)));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->manifest.case_count, 100000);
  EXPECT_EQ(r->objects_written, 1000u + 5u + 2u);  // batches, index pages, source fields + manifest
  EXPECT_EQ(r->manifest.batches.level, 1);
  ExpectReadable(r->root, *memory_);
}
#endif

// Seed 004: a crash or fault at any point leaves either nothing published or
// a complete verified dataset; a rerun then succeeds and cleanup drains the
// rest. Every store operation of a small ingestion, under every fault kind
// the wrapper injects (a kind that does not apply to an operation is a
// clean run).
TEST_P(IngestTest, AFaultAtEveryStoreOperationThenARerunPublishes) {
  std::string path = WriteInput("in.json", DatasetJson(5));
  IngestOptions o = Options();
  o.budget.case_batch_max_cases = 2;  // 3 batches
  uint64_t operations = 0;
  {
    store::MemoryStore probe;
    store::FaultInjectingStore counting(probe, store::FaultPlan{});
    ASSERT_TRUE(Ingest(path, counting, o).ok());
    operations = counting.operations();
  }
  ASSERT_GT(operations, 10u);
  for (store::FaultKind kind :
       {store::FaultKind::kCrash, store::FaultKind::kCrashAfterEffect, store::FaultKind::kAckLost,
        store::FaultKind::kTransient, store::FaultKind::kShortRead, store::FaultKind::kCorruptStored,
        store::FaultKind::kTornWrite, store::FaultKind::kExistsRaceIdentical, store::FaultKind::kExistsRaceDifferent}) {
    for (uint64_t at = 0; at < operations; ++at) {
      SCOPED_TRACE(std::string(store::FaultKindName(kind)) + " at operation " + std::to_string(at));
      memory_ = std::make_unique<store::MemoryStore>();
      OpenControl("control-" + std::to_string(at) + "-" + std::string(store::FaultKindName(kind)));
      {
        store::FaultInjectingStore crashing(*memory_, store::FaultPlan().At(at, kind));
        auto r = Ingest(path, crashing, o);
        if (r.ok()) {
          // A crash after the last store operation: the dataset is out.
          ExpectReadable(r->root, *memory_);
        }
      }
      auto published = control_->GetRoot(control::Namespace::kDatasets, "demo-set");
      ASSERT_TRUE(published.ok());
      // The process died: its lease runs out before anyone reruns.
      wall_.Advance(o.lease_duration + kSecond);
      auto rerun = Ingest(path, *memory_, o);
      ASSERT_TRUE(rerun.ok()) << rerun.status().ToString();
      ExpectReadable(rerun->root, *memory_);
      ExpectOnlyPublishedKeys("demo-set");
    }
  }
}

VIGILO_OVER_CONTROL_BACKENDS(IngestTest);
VIGILO_OVER_CONTROL_BACKENDS(LinesIngestTest);

}  // namespace
}  // namespace vigilo::engine
