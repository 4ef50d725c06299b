// Rule checklist (docs/format/case-storage-checklist.md), the seed 004 rules
// that only ingestion can show: budgets validated before any I/O, admission
// limits recorded for resumable processing, published references that keep
// their owner, byte count and identity when the configuration changes, the
// full-input spool bounded by the validation quota (not the staging spool),
// one active ingestion, and the request and byte counts a run reports.
// Fixtures follow dataset_ingest_test.cc.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "input_spool.h"
#include "vigilo/cases/dataset_reader.h"
#include "vigilo/cases/object_io.h"
#include "vigilo/common/byte_source.h"
#include "vigilo/control/cleanup.h"
#include "vigilo/hash/blake3.h"
#include "vigilo/json/parse.h"
#include "vigilo/json/write.h"
#include "vigilo/engine/dataset_ingest.h"
#include "vigilo/store/fault_store.h"
#include "vigilo/store/governor.h"
#include "vigilo/store/memory_store.h"
#include "engine_test_support.h"

namespace vigilo::engine {
namespace {

using testing::kSecond;

std::string CaseJson(int i) {
  char id[40];
  std::snprintf(id, sizeof id, "00000000-0000-4000-8000-%012d", i);
  return std::string(R"({"id":")") + id + R"(","input":{"prompt":"question )" + std::to_string(i) +
         R"("},"task_type":"generation"})";
}

std::string DatasetJson(int cases) {
  std::string s = R"({"dataset_id":"demo-set","dataset_version":"v1","cases":[)";
  for (int i = 0; i < cases; ++i) s += (i > 0 ? "," : "") + CaseJson(i);
  return s + "]}";
}

::testing::AssertionResult Fails(const Status& s, StatusCode code, std::string_view path, std::string_view message) {
  if (s.code() != code || s.path() != path || s.message().find(message) == std::string_view::npos) {
    return ::testing::AssertionFailure() << "expected " << StatusCodeName(code) << " at \"" << path << "\" with \""
                                         << message << "\", got " << s.ToString() << " (path \"" << s.path()
                                         << "\")";
  }
  return ::testing::AssertionSuccess();
}

class IngestChecklistTest : public testing::EngineFixture {
 protected:
  IngestOptions Options() {
    IngestOptions o;
    o.scratch_dir = scratch_ / "spool";
    o.lease_duration = 60 * kSecond;
    return o;
  }

  Result<IngestResult> Ingest(const std::string& path, store::ObjectStore& store, const IngestOptions& options,
                              const std::string& alias = "local") {
    IngestInput input;
    input.path = path;
    IngestTarget target = Target(store, alias);
    return IngestDataset(input, options, target);
  }

  std::vector<control::AttemptRecord> Attempts() {
    auto attempts = control_->ListAttempts(control::Namespace::kDatasets, "demo-set");
    EXPECT_TRUE(attempts.ok()) << attempts.status().ToString();
    return attempts.ok() ? *attempts : std::vector<control::AttemptRecord>{};
  }

  std::string PublishedValue() {
    auto root = control_->GetRoot(control::Namespace::kDatasets, "demo-set");
    EXPECT_TRUE(root.ok() && root->has_value());
    return root.ok() && root->has_value() ? (*root)->value : std::string();
  }

  // A store whose every create fails transiently: an ingestion against it
  // stops at its first object and keeps a resumable attempt.
  static store::FaultPlan StoreDown() {
    store::FaultPlan plan;
    plan.Add(store::FaultRule{.fault = store::FaultKind::kTransient, .op = store::StoreOp::kCreateIfAbsent, .times = 0});
    return plan;
  }

  store::MemoryStore memory_;
};

// V-BUD-08: "Validate positive limits and relationships before I/O": an
// invalid budget is refused with zero store operations and no attempt.
TEST_P(IngestChecklistTest, AnInvalidBudgetCausesZeroStoreOperations) {
  std::string path = WriteInput("in.json", DatasetJson(3));
  struct Case {
    std::function<void(cases::BudgetConfig&)> edit;
    std::string path;
    std::string message;
  };
  const Case cases_[] = {
      {[](cases::BudgetConfig& b) { b.case_batch_max_bytes = 100; }, "case_batch_max_bytes", "between 256"},
      {[](cases::BudgetConfig& b) { b.case_batch_max_cases = 0; }, "case_batch_max_cases", "between 1 and 65536, got 0"},
      {[](cases::BudgetConfig& b) { b.staging_spool_bytes = b.case_batch_max_bytes - 1; }, "staging_spool_bytes",
       "at least one admitted batch"},
      {[](cases::BudgetConfig& b) { b.ingestion_validation_spool_bytes = 1u << 20; },
       "ingestion_validation_spool_bytes", "must hold one sort run plus one batch"},
  };
  for (const Case& c : cases_) {
    SCOPED_TRACE(c.path);
    store::FaultInjectingStore counting(memory_, store::FaultPlan{});
    IngestOptions o = Options();
    c.edit(o.budget);
    auto r = Ingest(path, counting, o);
    ASSERT_FALSE(r.ok()) << "accepted";
    EXPECT_TRUE(Fails(r.status(), StatusCode::kInvalidArgument, c.path, c.message));
    EXPECT_EQ(counting.operations(), 0u);
  }
  EXPECT_TRUE(Attempts().empty());
  EXPECT_EQ(memory_.object_count(), 0u);
}

// V-REF-13: "Require conditional creation and read-after-completed-create
// consistency from each adapter": a store that does not declare them is
// refused before any store operation or attempt.
TEST_P(IngestChecklistTest, AStoreWithoutCreateGuaranteesIsRefusedBeforeAnyOperation) {
  std::string path = WriteInput("in.json", DatasetJson(3));
  struct Case {
    store::Capabilities caps;
    std::string missing;
  };
  const Case stores[] = {
      {store::Capabilities{.writable = false, .conditional_create = true, .read_after_create = true}, "writes"},
      {store::Capabilities{.writable = true, .conditional_create = false, .read_after_create = true},
       "conditional create"},
      {store::Capabilities{.writable = true, .conditional_create = true, .read_after_create = false},
       "read-after-create"},
  };
  for (const Case& c : stores) {
    SCOPED_TRACE(c.missing);
    store::MemoryStore weak(c.caps);
    store::FaultInjectingStore counting(weak, store::FaultPlan{});
    auto r = Ingest(path, counting, Options());
    ASSERT_FALSE(r.ok()) << "accepted";
    EXPECT_TRUE(Fails(r.status(), StatusCode::kInvalidArgument, "",
                      "store \"local\" does not guarantee " + c.missing + "; refusing to write to it"));
    EXPECT_EQ(counting.operations(), 0u);
  }
  EXPECT_TRUE(Attempts().empty());
}

// V-REF-14: "lease-fenced publication of the finalized root reference": a
// writer whose attempt was taken over is fenced at its next ledger step and
// publishes nothing.
TEST_P(IngestChecklistTest, AWriterWhoseAttemptWasTakenOverIsFenced) {
  std::string path = WriteInput("in.json", DatasetJson(250));
  IngestOptions o = Options();
  bool taken_over = false;
  o.progress = [&](const IngestProgress& p) {
    if (p.phase != "verifying" || taken_over) return;
    taken_over = true;
    wall_.Advance(o.lease_duration + kSecond);
    std::vector<control::AttemptRecord> attempts = Attempts();
    ASSERT_EQ(attempts.size(), 1u);
    ASSERT_TRUE(control_->ResumeAttempt(attempts[0].attempt, "other-process", o.lease_duration).ok());
  };
  auto r = Ingest(path, memory_, o);
  ASSERT_TRUE(taken_over);
  ASSERT_FALSE(r.ok());
  std::vector<control::AttemptRecord> attempts = Attempts();
  ASSERT_EQ(attempts.size(), 1u);
  EXPECT_TRUE(Fails(r.status(), StatusCode::kFenced, "",
                    "attempt " + control::AttemptName(attempts[0].attempt) +
                        " was taken over: its fencing epoch is now 2 and this writer holds 1"));
  auto root = control_->GetRoot(control::Namespace::kDatasets, "demo-set");
  ASSERT_TRUE(root.ok());
  EXPECT_FALSE(root->has_value());
}

// V-BUD-16, V-BATCH-13: the staging spool is reserved before an upload: an
// object that does not fit it is refused before its create, and the
// attempt's objects are cleaned up.
TEST_P(IngestChecklistTest, AnObjectLargerThanTheStagingSpoolIsRefusedBeforeItsCreate) {
  std::string path = WriteInput("in.json", DatasetJson(100));
  IngestOptions o = Options();
  o.budget.case_batch_max_bytes = 2048;
  o.budget.staging_spool_bytes = 2048;  // one batch: valid, but the index page is larger
  auto r = Ingest(path, memory_, o);
  ASSERT_FALSE(r.ok());
  std::vector<control::AttemptRecord> attempts = Attempts();
  ASSERT_EQ(attempts.size(), 1u);
  EXPECT_EQ(attempts[0].state, control::AttemptState::kAbandoned);
  EXPECT_TRUE(Fails(r.status(), StatusCode::kLimitExceeded,
                    attempts[0].key_prefix + "index/L0/0000000000-0000000100.json",
                    "an object of 4300 bytes does not fit the staging spool"));
  EXPECT_EQ(memory_.object_count(), 0u);
}

// V-RES-01: "Uploads record their admission limits for resumable processing":
// the attempt's ledger record holds every limit that decides its bytes, and a
// rerun with the same limits resumes it without changing the record.
TEST_P(IngestChecklistTest, AnAttemptRecordsItsAdmissionLimitsAndARerunResumesUnderThem) {
  std::string text = DatasetJson(120);
  std::string path = WriteInput("in.json", text);
  IngestOptions o = Options();
  o.budget.case_batch_max_cases = 50;
  {
    store::FaultInjectingStore down(memory_, StoreDown());
    auto r = Ingest(path, down, o);
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(Fails(r.status(), StatusCode::kUnavailable, "",
                      "is kept; rerunning the same command resumes it"));
  }
  std::vector<control::AttemptRecord> kept = Attempts();
  ASSERT_EQ(kept.size(), 1u);
  const std::string recorded = kept[0].admission_limits;
  EXPECT_EQ(recorded,
            std::string(R"({"case_batch_max_bytes":8388608,"case_batch_max_cases":50,"index_max_height":8,)") +
                R"("input_blake3":")" + Blake3Hex(text) + R"(","input_bytes":)" + std::to_string(text.size()) +
                R"(,"input_format":"dataset-json","logical_key_max_bytes":1024,"page_max_bytes":1048576,)" +
                R"("page_max_entries":256,"root_manifest_max_bytes":262144,"source_fields_max_bytes":8388608,)" +
                R"("storage_alias":"local"})");

  wall_.Advance(kSecond);
  auto rerun = Ingest(path, memory_, o);
  ASSERT_TRUE(rerun.ok()) << rerun.status().ToString();
  EXPECT_TRUE(rerun->resumed);
  EXPECT_EQ(rerun->attempt, kept[0].attempt);
  EXPECT_EQ(rerun->manifest.batch_limits, (cases::BatchLimits{50, 8u << 20}));
  auto after = control_->GetAttempt(kept[0].attempt);
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after->state, control::AttemptState::kPublished);
  EXPECT_EQ(after->admission_limits, recorded);
}

// V-RES-01: a rerun under other defaults neither resumes the attempt of
// other limits nor rewrites its record; it writes under its own limits.
TEST_P(IngestChecklistTest, ARerunWithOtherDefaultsLeavesTheRecordedLimitsAlone) {
  std::string path = WriteInput("in.json", DatasetJson(120));
  IngestOptions fifty = Options();
  fifty.budget.case_batch_max_cases = 50;
  {
    store::FaultInjectingStore down(memory_, StoreDown());
    ASSERT_FALSE(Ingest(path, down, fifty).ok());
  }
  std::vector<control::AttemptRecord> kept = Attempts();
  ASSERT_EQ(kept.size(), 1u);
  const std::string recorded = kept[0].admission_limits;

  wall_.Advance(kSecond);
  auto defaults = Ingest(path, memory_, Options());
  ASSERT_TRUE(defaults.ok()) << defaults.status().ToString();
  EXPECT_FALSE(defaults->resumed);
  EXPECT_NE(defaults->attempt, kept[0].attempt);
  EXPECT_EQ(defaults->manifest.batch_limits, (cases::BatchLimits{100, 8u << 20}));
  auto old = control_->GetAttempt(kept[0].attempt);
  ASSERT_TRUE(old.ok());
  EXPECT_EQ(old->admission_limits, recorded);
  EXPECT_NE(old->admission_limits.find(R"("case_batch_max_cases":50,)"), std::string::npos);
  auto published = control_->GetAttempt(defaults->attempt);
  ASSERT_TRUE(published.ok());
  EXPECT_NE(published->admission_limits.find(R"("case_batch_max_cases":100,)"), std::string::npos);
}

// V-RES-02: "Published references retain their owner, byte count, and
// identity independently of configuration changes".
TEST_P(IngestChecklistTest, APublishedReferenceKeepsOwnerByteCountAndIdentityAcrossConfigurationChanges) {
  std::string path = WriteInput("in.json", DatasetJson(30));
  auto first = Ingest(path, memory_, Options());
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  const cases::ObjectRef root = first->root;
  const std::string value = PublishedValue();
  ASSERT_EQ(root.storage_alias, "local");

  // Another alias for the same store: the same dataset, left as published.
  wall_.Advance(kSecond);
  auto renamed = Ingest(path, memory_, Options(), "archive");
  ASSERT_TRUE(renamed.ok()) << renamed.status().ToString();
  EXPECT_EQ(renamed->outcome, IngestOutcome::kUnchanged);
  EXPECT_EQ(renamed->root, root);
  EXPECT_EQ(renamed->root.storage_alias, "local");
  EXPECT_EQ(renamed->root_version, 1u);

  // Other batching defaults: not the recorded policy, so not silently
  // repacked over the published root.
  wall_.Advance(kSecond);
  IngestOptions smaller = Options();
  smaller.budget.case_batch_max_cases = 10;
  auto repacked = Ingest(path, memory_, smaller);
  ASSERT_FALSE(repacked.ok());
  EXPECT_TRUE(Fails(repacked.status(), StatusCode::kAlreadyExists, "demo-set",
                    "the name 'demo-set' already holds this dataset with another batch policy (max_cases 100, "
                    "max_bytes 8388608); a published dataset is never repacked (version 1)"));
  EXPECT_EQ(PublishedValue(), value);

  // A reader configured otherwise reads the same bytes, owner and identity.
  cases::BudgetConfig reader = cases::BudgetConfig::Defaults();
  reader.case_batch_max_cases = 10;
  reader.case_batch_max_bytes = 4096;
  reader.root_manifest_max_bytes = 128 * 1024;
  auto read = cases::ReadDataset(root, reader, scratch_ / "spool", cases::StoreBytesFetch(cases::SingleStore(memory_)));
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(read->manifest.dataset_hash, first->manifest.dataset_hash);
  EXPECT_EQ(read->manifest.dataset_version_id, first->manifest.dataset_version_id);
  EXPECT_EQ(read->manifest.batch_limits, (cases::BatchLimits{100, 8u << 20}));
  EXPECT_EQ(read->manifest.source_fields.storage_alias, "local");
  auto head = memory_.Head(root.key);
  ASSERT_TRUE(head.ok());
  EXPECT_EQ(head->size, root.byte_count);
}

// V-BUD-22: "The 256 MiB batch spool does not authorize an unlimited
// full-input spool": a copy of standard input is charged to the validation
// quota and refused when it would pass it, leaving no file behind.
TEST_P(IngestChecklistTest, TheFullInputSpoolIsBoundedByTheValidationQuota) {
  const uint64_t quota = 1u << 20;
  std::string input = DatasetJson(1) + std::string(quota, ' ');  // one byte per quota byte, and more
  StringByteSource over(input);
  auto refused = InputSpool::Open("-", scratch_ / "spool", quota, &over);
  ASSERT_FALSE(refused.ok());
  EXPECT_TRUE(Fails(refused.status(), StatusCode::kLimitExceeded, "ingestion_validation_spool_bytes",
                    "standard input is larger than the validation spool (1048576 bytes)"));
  EXPECT_TRUE(std::filesystem::is_empty(scratch_ / "spool"));

  std::string fits = DatasetJson(3);
  StringByteSource small(fits);
  auto spooled = InputSpool::Open("-", scratch_ / "spool", quota, &small);
  ASSERT_TRUE(spooled.ok()) << spooled.status().ToString();
  EXPECT_EQ(spooled->spooled_bytes(), fits.size());
}

// V-BUD-17: "one active ingestion": a second ingestion in the same process
// while one runs is refused before it reads anything.
TEST_P(IngestChecklistTest, OneActiveIngestionPerProcess) {
  std::string path = WriteInput("in.json", DatasetJson(5));
  IngestOptions o = Options();
  std::optional<Status> nested;
  store::MemoryStore other;
  o.progress = [&](const IngestProgress&) {
    if (nested) return;
    nested = Ingest(path, other, Options()).status();
  };
  auto r = Ingest(path, memory_, o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_TRUE(nested.has_value());
  EXPECT_TRUE(Fails(*nested, StatusCode::kUnavailable, "", "another ingestion is running in this process"));
  EXPECT_EQ(other.object_count(), 0u);
}

// V-OBS-01: "Record requests and bytes before claiming an improvement": an
// ingestion reports what it wrote and read, and the numbers are the store's.
TEST_P(IngestChecklistTest, AnIngestionReportsItsObjectsAndBytes) {
  std::string text = DatasetJson(250);
  std::string path = WriteInput("in.json", text);
  store::FaultInjectingStore counting(memory_, store::FaultPlan{});
  auto r = Ingest(path, counting, Options());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->input_bytes, text.size());
  EXPECT_EQ(r->objects_written, memory_.object_count());
  uint64_t stored = 0;
  for (const std::string& key : memory_.Keys()) {
    auto head = memory_.Head(key);
    ASSERT_TRUE(head.ok());
    stored += head->size;
  }
  EXPECT_EQ(r->bytes_written, stored);
  EXPECT_EQ(r->verified_bytes, stored);  // the final verification read every object once
  EXPECT_GT(counting.operations(), r->objects_written);  // creates plus read-backs and verification
}

VIGILO_OVER_CONTROL_BACKENDS(IngestChecklistTest);

}  // namespace
}  // namespace vigilo::engine
