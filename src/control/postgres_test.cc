// What only the PostgreSQL backend has: its locator and password handling,
// its schema versions, and losing the server in the middle of a change (a
// restart before COMMIT, a COMMIT whose reply is lost, a server that stays
// down). The behaviour every backend shares is the parameterized suite's
// (ControlBackends()). Suites here are named Postgres*, so that CTest runs
// them with the other PostgreSQL cases, on one server per process.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "control_test_support.h"
#include "postgres_test_server.h"
#include "vigilo/control/postgres_control_store.h"
#include "vigilo/control/sqlite_control_store.h"
#include "vigilo/store/memory_store.h"

namespace vigilo::control {
namespace {

using testing_support::kLease;
using testing_support::kSecond;
using testing_support::kT0;
using testing_support::RootValue;
using testing_support::SharedPostgres;

TEST(PostgresLocatorTest, ThePasswordIsRemovedFromWhatIsPrinted) {
  EXPECT_EQ(RedactLocator("postgresql://alice:s3cret@db.example:5432/ctl?sslmode=require"),
            "postgresql://alice@db.example:5432/ctl?sslmode=require");
  EXPECT_EQ(RedactLocator("postgres://alice:p%40ss@h/ctl"), "postgres://alice@h/ctl");
  EXPECT_EQ(RedactLocator("postgresql://alice@h/ctl?password=s3cret&application_name=x"),
            "postgresql://alice@h/ctl?application_name=x");
  EXPECT_EQ(RedactLocator("postgresql:///ctl?host=/run/pg&password=s3cret"), "postgresql:///ctl?host=/run/pg");
  EXPECT_EQ(RedactLocator("postgresql://h"), "postgresql://h");
  EXPECT_TRUE(IsPostgresLocator("postgres://h/db"));
  EXPECT_TRUE(IsPostgresLocator("postgresql://h/db"));
  EXPECT_FALSE(IsPostgresLocator("/var/lib/vigilo/control.sqlite3"));
}

class PostgresServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Result<SharedPostgres*> server = SharedPostgres::Get();
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    server_ = *server;
    Result<std::string> schema = server_->FreshSchema();
    ASSERT_TRUE(schema.ok()) << schema.status().ToString();
    locator_ = *schema;
  }

  Result<std::unique_ptr<ControlStore>> Open(PostgresOptions options = {}) {
    options.wall_clock = &clock_;
    options.random = &random_;
    return OpenPostgresControlStore(locator_, options);
  }

  AttemptSpec Spec(const std::string& name) const {
    AttemptSpec spec;
    spec.name = name;
    spec.store = "test-store";
    spec.owner = "writer";
    spec.lease_duration = kLease;
    return spec;
  }

  std::string Query(const std::string& sql) const { return SharedPostgres::Query(locator_, sql); }

  SharedPostgres* server_ = nullptr;
  std::string locator_;
  store::ManualClock clock_{kT0};
  store::SeededRandom random_{5};
};

TEST_F(PostgresServerTest, AFreshSchemaIsVersionedAndItsTriggersHold) {
  ASSERT_TRUE(Open().ok());
  EXPECT_EQ(Query("SELECT version FROM schema_version"), std::to_string(kPostgresSchemaVersion));
  EXPECT_EQ(Query("SELECT last_epoch FROM fencing"), "0");
  Result<std::unique_ptr<ControlStore>> control = Open();  // a second open migrates nothing
  ASSERT_TRUE(control.ok());
  Result<Lease> lease = (*control)->BeginAttempt(Spec("geo"));
  ASSERT_TRUE(lease.ok()) << lease.status().ToString();
  ASSERT_TRUE((*control)->PublishRoot(*lease, RootValue("k")).ok());
  EXPECT_EQ(Query("SELECT count(*) FROM schema_version"), "1");
  EXPECT_NE(SharedPostgres::Exec(locator_, "DELETE FROM attempts").find("attempts are never deleted"),
            std::string::npos);
  EXPECT_NE(SharedPostgres::Exec(locator_, "UPDATE attempts SET state = 'active'")
                .find("a published or abandoned attempt keeps its state"),
            std::string::npos);
  EXPECT_NE(SharedPostgres::Exec(locator_, "UPDATE root_history SET value = '{}'")
                .find("the root history is append-only"),
            std::string::npos);
  EXPECT_NE(SharedPostgres::Exec(locator_, "DELETE FROM roots").find("a published name is never removed"),
            std::string::npos);
}

TEST_F(PostgresServerTest, ANewerSchemaIsRefused) {
  ASSERT_TRUE(Open().ok());
  const std::string newer = std::to_string(kPostgresSchemaVersion + 1);
  ASSERT_EQ(SharedPostgres::Exec(locator_, "UPDATE schema_version SET version = " + newer), "");
  Result<std::unique_ptr<ControlStore>> opened = Open();
  ASSERT_EQ(opened.status().code(), StatusCode::kUnimplemented);
  EXPECT_EQ(opened.status().message(), "the control database " + RedactLocator(locator_) + " has schema version " +
                                           newer + "; this vigilo knows versions up to " +
                                           std::to_string(kPostgresSchemaVersion) + ": use a newer vigilo");
  EXPECT_EQ(Query("SELECT version FROM schema_version"), newer);  // untouched
}

TEST_F(PostgresServerTest, AnotherApplicationsTablesAreRefusedAndAnEmptySchemaIsNotCreatedUnasked) {
  PostgresOptions no_create;
  no_create.create = false;
  EXPECT_EQ(Open(no_create).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(Query("SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()"), "0");
  ASSERT_EQ(SharedPostgres::Exec(locator_, "CREATE TABLE t (x integer)"), "");
  Result<std::unique_ptr<ControlStore>> opened = Open();
  EXPECT_EQ(opened.status().code(), StatusCode::kInvalidFormat);
  EXPECT_NE(opened.status().message().find("it has tables but no schema_version"), std::string::npos)
      << opened.status().ToString();
}

TEST_F(PostgresServerTest, OpenControlStoreTakesBothSchemesAndTheInjectedClock) {
  SqliteOptions options;
  options.wall_clock = &clock_;
  options.random = &random_;
  for (const std::string& locator : {locator_, "postgres://" + locator_.substr(std::string("postgresql://").size())}) {
    Result<std::unique_ptr<ControlStore>> control = OpenControlStore(locator, options);
    ASSERT_TRUE(control.ok()) << control.status().ToString();
    Result<Lease> lease = (*control)->BeginAttempt(Spec("geo"));
    ASSERT_TRUE(lease.ok()) << lease.status().ToString();
    EXPECT_EQ(lease->expires_at, kT0 + kLease);
  }
}

// A role with a password, reached over TCP (the test server asks for
// passwords there): a wrong password fails without the password in the
// error, and the right one works.
TEST_F(PostgresServerTest, APasswordIsNeverPrinted) {
  const std::string password = "Pw-9f2c1e77-Secret";
  const std::string role = "r" + locator_.substr(locator_.rfind("%3D") + 3);  // unique, as the fresh schema
  ASSERT_EQ(SharedPostgres::Exec(server_->admin_url(), "CREATE ROLE " + role + " LOGIN PASSWORD '" + password +
                                                           "'; CREATE SCHEMA " + role + " AUTHORIZATION " + role),
            "");
  const std::string host = "@127.0.0.1:" + std::to_string(server_->port()) + "/postgres";
  for (const std::string& locator : {"postgresql://" + role + ":wrong-" + password + host,
                                     "postgresql://" + role + host + "?password=wrong-" + password}) {
    PostgresOptions options;
    options.max_attempts = 1;
    options.wall_clock = &clock_;
    Result<std::unique_ptr<ControlStore>> opened = OpenPostgresControlStore(locator, options);
    ASSERT_FALSE(opened.ok());
    EXPECT_EQ(opened.status().code(), StatusCode::kIoError);
    const std::string message(opened.status().message());
    EXPECT_EQ(message.find(password), std::string::npos) << message;
    EXPECT_NE(message.find("password authentication failed"), std::string::npos) << message;
    EXPECT_TRUE(message.starts_with("cannot connect to the control database postgresql://" + role + host))
        << message;
  }
  Result<std::unique_ptr<ControlStore>> opened = OpenPostgresControlStore(
      "postgresql://" + role + ":" + password + host + "?options=-csearch_path%3D" + role);
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
}

TEST_F(PostgresServerTest, AnUnreachableServerFailsClearlyAfterBoundedRetries) {
  store::ManualClock waits(0);
  PostgresOptions options;
  options.retry_clock = &waits;
  options.max_attempts = 3;
  const std::string nowhere = "postgresql://vigilo:Pw-nowhere@/postgres?host=" + server_->base() + "/nowhere&port=1";
  Result<std::unique_ptr<ControlStore>> opened = OpenPostgresControlStore(nowhere, options);
  ASSERT_EQ(opened.status().code(), StatusCode::kUnavailable);
  const std::string message(opened.status().message());
  EXPECT_TRUE(message.starts_with("cannot connect to the control database postgresql://vigilo@/postgres?host=" +
                                  server_->base() + "/nowhere&port=1: "))
      << message;
  EXPECT_TRUE(message.ends_with(" (after 3 attempts)")) << message;
  EXPECT_EQ(message.find("Pw-nowhere"), std::string::npos);
  EXPECT_EQ(waits.total_slept(), options.backoff_base * 3);  // 100 ms, then 200 ms
}

// The connection's socket, after COMMIT went out, is replaced by one whose
// peer is closed: the server still commits (it read COMMIT) and then finds
// the connection gone; the client reads end-of-file where the reply was.
void LoseTheReply(int socket) {
  int pair[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, pair), 0);
  ASSERT_EQ(::dup2(pair[0], socket), socket);
  ::close(pair[0]);
  ::close(pair[1]);
}

// A store whose fault hook runs `action` at `stage` of its `nth` commit
// (1-based, counting every transaction that reaches COMMIT).
struct CommitFault {
  std::string stage;
  int nth = 0;
  std::function<void(int socket)> action;
  int seen = 0;
};

class PostgresRestartTest : public PostgresServerTest {
 protected:
  Result<std::unique_ptr<ControlStore>> OpenWithFault(CommitFault& fault, store::Clock* retry_clock = nullptr) {
    PostgresOptions options;
    options.retry_clock = retry_clock;
    options.fault_hook = [&fault](std::string_view stage, int socket) {
      if (stage != fault.stage) return;
      if (++fault.seen == fault.nth) fault.action(socket);
    };
    Result<std::unique_ptr<ControlStore>> opened = Open(options);
    fault.seen = 0;  // the open's own commit (the schema) does not count
    return opened;
  }

  // The writer protocol (crash_test.cc): begin, record then create each
  // object, publish. Stops at the first error.
  Status Publish(ControlStore& control, store::MemoryStore& objects) {
    VIGILO_ASSIGN_OR_RETURN(Lease lease, control.BeginAttempt(Spec("geo")));
    for (const std::string name : {"fields.json", "batch-0.jsonl", "manifest.json"}) {
      VIGILO_RETURN_IF_ERROR(control.RecordKey(lease, lease.key_prefix + name));
      const std::string bytes = "{\"" + name + "\":1}";
      VIGILO_RETURN_IF_ERROR(
          objects
              .CreateIfAbsent(lease.key_prefix + name,
                              std::span(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()))
              .status());
    }
    VIGILO_ASSIGN_OR_RETURN(PublishOutcome outcome,
                            control.PublishRoot(lease, RootValue(lease.key_prefix + "manifest.json")));
    if (outcome != PublishOutcome::kPublished) {
      return Internal("published as " + std::string(PublishOutcomeName(outcome)));
    }
    return Status::Ok();
  }

  // Exactly one attempt, published once at epoch 1, every object recorded.
  void ExpectPublishedOnce(const store::MemoryStore& objects) {
    EXPECT_EQ(Query("SELECT count(*) FROM attempts"), "1");
    EXPECT_EQ(Query("SELECT state || ' ' || epoch FROM attempts"), "published 1");
    EXPECT_EQ(Query("SELECT last_epoch FROM fencing"), "1");
    EXPECT_EQ(Query("SELECT count(*) FROM root_history"), "1");
    EXPECT_EQ(Query("SELECT count(*) FROM attempt_keys"), "3");
    EXPECT_EQ(objects.object_count(), 3u);
  }
};

// The writer's 5 commits (begin, three records, publish): the server is
// restarted just before each one in turn. The transaction it cut off never
// committed, so it runs again on a new connection, and the publication
// completes exactly once.
TEST_F(PostgresRestartTest, ARestartBeforeAnyCommitIsRetriedAndPublishesOnce) {
  for (int nth = 1; nth <= 5; ++nth) {
    SCOPED_TRACE("restart before commit " + std::to_string(nth));
    SetUp();  // a fresh schema per round
    CommitFault fault{"commit", nth, [this](int) { ASSERT_TRUE(server_->Restart().ok()); }};
    Result<std::unique_ptr<ControlStore>> control = OpenWithFault(fault);
    ASSERT_TRUE(control.ok()) << control.status().ToString();
    store::MemoryStore objects;
    Status published = Publish(**control, objects);
    ASSERT_TRUE(published.ok()) << published.ToString();
    EXPECT_EQ(fault.seen, 6);  // the cut-off commit ran twice
    ExpectPublishedOnce(objects);
  }
}

// The connection drops right after COMMIT was sent, before its reply: the
// transaction committed, and the store must say so (read back with
// pg_xact_status), not run it again. Running BeginAttempt again would fail
// (the attempt exists) and PublishRoot again would say already_identical.
TEST_F(PostgresRestartTest, ALostCommitReplyIsResolvedByReadingTheTransactionBack) {
  for (int nth = 1; nth <= 5; ++nth) {
    SCOPED_TRACE("reply of commit " + std::to_string(nth) + " lost");
    SetUp();
    CommitFault fault{"commit_sent", nth, [](int socket) { LoseTheReply(socket); }};
    Result<std::unique_ptr<ControlStore>> control = OpenWithFault(fault);
    ASSERT_TRUE(control.ok()) << control.status().ToString();
    store::MemoryStore objects;
    Status published = Publish(**control, objects);
    ASSERT_TRUE(published.ok()) << published.ToString();
    EXPECT_EQ(fault.seen, 5);  // no commit ran twice
    ExpectPublishedOnce(objects);
  }
}

// The server goes down just before the publication's COMMIT and stays
// down: a bounded number of reconnects to learn the outcome, then a clear
// Unavailable error, and nothing was published. Once the server is back, the writer resumes and publishes.
TEST_F(PostgresRestartTest, AServerThatStaysDownFailsClearlyAndTheWriterResumesLater) {
  store::ManualClock waits(0);
  CommitFault fault{"commit", 5, [this](int) { ASSERT_TRUE(server_->Stop().ok()); }};
  Result<std::unique_ptr<ControlStore>> control = OpenWithFault(fault, &waits);
  ASSERT_TRUE(control.ok()) << control.status().ToString();
  store::MemoryStore objects;
  Status published = Publish(**control, objects);
  ASSERT_TRUE(server_->Start().ok());
  ASSERT_EQ(published.code(), StatusCode::kUnavailable) << published.ToString();
  // COMMIT may or may not have reached the server before it went away: the
  // error says the outcome could not be read back, never a guess.
  EXPECT_TRUE(published.message().starts_with("the connection to the control database " + RedactLocator(locator_) +
                                              " was lost during COMMIT, and whether it committed cannot be read "
                                              "back: cannot connect to the control database "))
      << published.ToString();
  EXPECT_TRUE(published.message().ends_with("(after 5 attempts)")) << published.ToString();
  EXPECT_GT(waits.total_slept(), 0);
  EXPECT_EQ(Query("SELECT count(*) FROM root_history"), "0");
  EXPECT_EQ(Query("SELECT state FROM attempts"), "active");

  // The same store object reconnects on its next call; the lease has
  // expired by then, so the writer resumes (a new epoch) and publishes.
  clock_.Advance(kLease);
  Result<std::vector<AttemptRecord>> attempts = (*control)->ListAttempts(Namespace::kDatasets, "geo");
  ASSERT_TRUE(attempts.ok()) << attempts.status().ToString();
  ASSERT_EQ(attempts->size(), 1u);
  Result<Lease> resumed = (*control)->ResumeAttempt(attempts->front().attempt, "writer", kLease);
  ASSERT_TRUE(resumed.ok()) << resumed.status().ToString();
  Result<PublishOutcome> outcome = (*control)->PublishRoot(*resumed, RootValue(resumed->key_prefix + "manifest.json"));
  ASSERT_TRUE(outcome.ok()) << outcome.status().ToString();
  EXPECT_EQ(*outcome, PublishOutcome::kPublished);
  EXPECT_EQ(Query("SELECT count(*) FROM root_history"), "1");
  EXPECT_EQ(Query("SELECT count(*) FROM attempt_keys"), "3");
}

// scripts/postgres itself, on a server of its own: `up` on a running BASE
// prints the same lines and starts nothing; `down` stops it by PID and
// removes BASE, and is a no-op the second time; with OWNER_PID, the
// watchdog stops the server once the owner is gone.
std::string Sh(const std::string& command) {
  std::string out;
  if (std::FILE* pipe = ::popen((command + " 2>&1").c_str(), "r")) {
    char buffer[512];
    for (size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) out.append(buffer, n);
    out += "status=" + std::to_string(::pclose(pipe));
  }
  return out;
}

// A zombie (stopped, not yet reaped by whoever inherited it) is not alive.
bool Alive(const std::string& pid) {
  std::FILE* f = std::fopen(("/proc/" + pid + "/status").c_str(), "r");
  if (f == nullptr) return false;
  char line[256];
  bool zombie = false;
  while (std::fgets(line, sizeof line, f) != nullptr) {
    const std::string_view text(line);
    if (text.starts_with("State:")) zombie = text.find('Z') != std::string_view::npos;
  }
  std::fclose(f);
  return !zombie;
}

std::string Field(const std::string& lines, const std::string& name) {
  const size_t at = lines.find(name + "=");
  return at == std::string::npos ? "" : lines.substr(at + name.size() + 1, lines.find('\n', at) - at - name.size() - 1);
}

TEST(PostgresScriptTest, UpIsIdempotentDownStopsByPidAndTheWatchdogFollowsItsOwner) {
  const std::string script = "bash " + std::string(VIGILO_SOURCE_DIR) + "/scripts/postgres";
  const std::string base =
      (std::filesystem::temp_directory_path() / ("vigilo-pg-script-" + std::to_string(::getpid()))).string();
  const std::string first = Sh(script + " up " + base);
  ASSERT_TRUE(first.ends_with("status=0")) << first;
  const std::string pid = Field(first, "pid");
  ASSERT_FALSE(pid.empty()) << first;
  EXPECT_TRUE(Alive(pid));
  EXPECT_EQ(Sh(script + " up " + base), first);  // the same server, the same lines
  EXPECT_EQ(Sh(script + " down " + base), "status=0");
  EXPECT_FALSE(Alive(pid));
  EXPECT_FALSE(std::filesystem::exists(base));
  EXPECT_EQ(Sh(script + " down " + base), "status=0");

  // An owner that ends at once: the watchdog (polling each second) stops
  // the server and removes BASE.
  const std::string owned = Sh("sleep 0.2 & " + script + " up " + base + " $!");
  ASSERT_TRUE(owned.ends_with("status=0")) << owned;
  const std::string owned_pid = Field(owned, "pid");
  for (int i = 0; i < 100 && std::filesystem::exists(base); ++i) ::usleep(50'000);
  EXPECT_FALSE(std::filesystem::exists(base));
  EXPECT_FALSE(Alive(owned_pid));
  Sh(script + " down " + base);
}

}  // namespace
}  // namespace vigilo::control
