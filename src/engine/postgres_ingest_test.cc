// An ingestion whose PostgreSQL control server is restarted in the middle
// (issue 37): before its first commit, one in the middle, and before the
// publication's. The cut-off transaction never committed; the control store
// reconnects and runs it again, and the ingestion publishes exactly once:
// one attempt, one root version, every object it wrote recorded and the
// dataset readable. The suite is named Postgres*, so CTest runs it in
// engine_ingest_test_postgresql, on that binary's one server.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "postgres_test_server.h"
#include "vigilo/cases/dataset_reader.h"
#include "vigilo/cases/object_io.h"
#include "vigilo/control/postgres_control_store.h"
#include "vigilo/engine/dataset_ingest.h"
#include "vigilo/store/governor.h"
#include "vigilo/store/memory_store.h"

namespace vigilo::engine {
namespace {

using control::testing_support::SharedPostgres;

constexpr store::Micros kSecond = 1'000'000;

class PostgresIngestTest : public ::testing::Test {
 protected:
  void SetUp() override {
    scratch_ = std::filesystem::temp_directory_path() / ("vigilo-pg-ingest-" + std::to_string(::getpid()));
    std::filesystem::remove_all(scratch_);
    std::filesystem::create_directories(scratch_ / "spool");
    std::string cases = R"({"dataset_id":"demo-set","dataset_version":"v1","cases":[)";
    for (int i = 0; i < 250; ++i) {
      char id[40];
      std::snprintf(id, sizeof id, "00000000-0000-4000-8000-%012d", i);
      cases += std::string(i > 0 ? "," : "") + R"({"id":")" + id + R"(","input":{"prompt":"q )" +
               std::to_string(i) + R"("},"task_type":"generation"})";
    }
    std::ofstream(scratch_ / "in.json") << cases << "]}";
    Result<SharedPostgres*> server = SharedPostgres::Get();
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    server_ = *server;
    auto governor = store::RequestGovernor::Create(store::GovernorLimits{}, steady_, random_);
    ASSERT_TRUE(governor.ok());
    governor_ = std::move(governor).value();
  }
  void TearDown() override { std::filesystem::remove_all(scratch_); }

  // An ingestion of 250 cases, the server restarted before commit `nth` of
  // the control store (0: never). Returns how many commits it made.
  int IngestRestartingAt(int nth) {
    Result<std::string> locator = server_->FreshSchema();
    EXPECT_TRUE(locator.ok()) << locator.status().ToString();
    locator_ = locator.ok() ? *locator : "";
    int commits = 0;
    control::PostgresOptions options;
    options.wall_clock = &wall_;
    options.random = &random_;
    options.fault_hook = [&](std::string_view stage, int) {
      if (stage == "commit" && ++commits == nth) {
        EXPECT_TRUE(server_->Restart().ok());
      }
    };
    auto control = control::OpenPostgresControlStore(locator_, options);
    EXPECT_TRUE(control.ok()) << control.status().ToString();
    if (!control.ok()) return 0;
    commits = 0;  // the open's own commit does not count
    store::MemoryStore memory;
    WriteTarget target{control->get(), &memory, governor_.get(), "local", "test-store", "", &wall_, &random_};
    IngestInput input;
    input.path = (scratch_ / "in.json").string();
    IngestOptions ingest;
    ingest.scratch_dir = scratch_ / "spool";
    ingest.lease_duration = 60 * kSecond;
    Result<IngestResult> r = IngestDataset(input, ingest, target);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    if (!r.ok()) return commits;
    EXPECT_EQ(r->outcome, IngestOutcome::kPublished);
    EXPECT_EQ(r->root_version, 1u);
    auto read = cases::ReadDataset(r->root, cases::BudgetConfig::Defaults(), scratch_ / "spool",
                                   cases::StoreBytesFetch(cases::SingleStore(memory)));
    EXPECT_TRUE(read.ok()) << read.status().ToString();
    // Published once, by one attempt at one epoch, with every object it
    // wrote recorded.
    EXPECT_EQ(SharedPostgres::Query(locator_, "SELECT count(*) FROM attempts"), "1");
    EXPECT_EQ(SharedPostgres::Query(locator_, "SELECT state || ' ' || epoch FROM attempts"), "published 1");
    EXPECT_EQ(SharedPostgres::Query(locator_, "SELECT count(*) FROM root_history"), "1");
    EXPECT_EQ(SharedPostgres::Query(locator_, "SELECT count(*) FROM attempt_keys"),
              std::to_string(memory.object_count()));
    return commits;
  }

  std::filesystem::path scratch_;
  SharedPostgres* server_ = nullptr;
  std::string locator_;
  store::ManualClock wall_{store::Micros{1'767'225'600} * kSecond};
  store::ManualClock steady_{0};
  store::SeededRandom random_{3};
  std::unique_ptr<store::RequestGovernor> governor_;
};

TEST_F(PostgresIngestTest, ARestartInTheMiddleOfAnIngestPublishesItExactlyOnce) {
  const int commits = IngestRestartingAt(0);
  ASSERT_GE(commits, 3);
  for (int nth : {1, (commits + 1) / 2, commits}) {
    SCOPED_TRACE("server restarted before commit " + std::to_string(nth) + " of " + std::to_string(commits));
    EXPECT_EQ(IngestRestartingAt(nth), commits + 1);  // the cut-off commit ran again
  }
}

}  // namespace
}  // namespace vigilo::engine
