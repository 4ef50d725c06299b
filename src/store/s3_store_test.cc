// The s3 backend against a real Ceph RGW (rgw_test_support.h: one per
// process): what the conformance suite (store_conformance_test.cc, built
// into this binary with the S3 factories) does not say about S3 itself —
// the 412 path and its read-back, lost acknowledgements, exact ranges,
// signing and credential failures, a missing bucket, a server that is down,
// and that no error ever names the endpoint, bucket, prefix or a credential.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <string>

#include "http_test_support.h"
#include "rgw_test_support.h"
#include "vigilo/store/config.h"
#include "vigilo/json/parse.h"
#include "vigilo/store/fault_store.h"
#include "vigilo/store/governor.h"
#include "vigilo/store/s3_store.h"

namespace vigilo::store {
namespace {

using testing::SharedRgw;

std::span<const uint8_t> AsBytes(std::string_view s) { return {reinterpret_cast<const uint8_t*>(s.data()), s.size()}; }

class S3StoreTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    auto rgw = SharedRgw::Get();
    ASSERT_TRUE(rgw.ok()) << rgw.status().ToString();
    std::fprintf(stderr, "[ rgw      ] Ceph RGW up in %.1f s\n", (*rgw)->startup_seconds());
  }
  void SetUp() override {
    auto rgw = SharedRgw::Get();
    ASSERT_TRUE(rgw.ok()) << rgw.status().ToString();
    rgw_ = *rgw;
    prefix_ = rgw_->FreshPrefix();
  }

  std::unique_ptr<ObjectStore> Open(const StoreEntry& entry, bool writable = true) {
    auto opened = MakeS3Backend()->Open(entry, OpenOptions{.writable = writable});
    EXPECT_TRUE(opened.ok()) << opened.status().ToString();
    return opened.ok() ? std::move(opened).value() : nullptr;
  }
  std::unique_ptr<ObjectStore> Open() { return Open(rgw_->Entry("lake", prefix_)); }

  // A status that may be printed: none of the alias's secrets in it.
  void ExpectClean(const Status& s) {
    const std::string text = s.ToString();
    const std::string host = rgw_->endpoint().substr(7);  // 127.0.0.1:PORT
    for (const std::string& secret : {host, std::string("127.0.0.1"), rgw_->secret_key(), rgw_->access_key(),
                                      prefix_, rgw_->credentials_file(), std::string("s3://")}) {
      EXPECT_EQ(text.find(secret), std::string::npos) << "\"" << secret << "\" in: " << text;
    }
  }

  SharedRgw* rgw_ = nullptr;
  std::string prefix_;
};

TEST_F(S3StoreTest, ConditionalCreateReadsBackOn412) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(store->CreateIfAbsent("obj", AsBytes("first bytes"))->outcome, CreateOutcome::kCreated);
  // 412, then the read-back finds exactly these bytes: a verified replay.
  auto replay = store->CreateIfAbsent("obj", AsBytes("first bytes"));
  ASSERT_TRUE(replay.ok()) << replay.status().ToString();
  EXPECT_EQ(replay->outcome, CreateOutcome::kAlreadyIdentical);
  EXPECT_EQ(replay->size, 11u);
  // 412, then other bytes (same size, shorter, longer): AlreadyExists, untouched.
  for (std::string_view other : {"first byteS", "first byte", "first bytes!", ""}) {
    Status clash = store->CreateIfAbsent("obj", AsBytes(other)).status();
    EXPECT_EQ(clash.code(), StatusCode::kAlreadyExists) << other;
    EXPECT_EQ(clash.path(), "obj");
    EXPECT_EQ(clash.message(), "the key holds other bytes (left unchanged)");
    ExpectClean(clash);
  }
  EXPECT_EQ(store->Get("obj")->view(), "first bytes");
}

// Seed 004: conditional creation "from each adapter and configured
// endpoint". N processes (each its own store and connections, released
// together) create one new key, even-numbered ones with one body and odd ones
// with another: exactly one is `created`, and each other process reports what
// its own bytes say about the winner's: `already_identical` when its body is
// the one stored, `already_exists` otherwise. Five rounds per N.
char CreateInChild(const StoreEntry& entry, const std::string& key, const std::string& body, int start_fd) {
  char go;
  if (::read(start_fd, &go, 1) != 1) return 'R';
  auto store = MakeS3Backend()->Open(entry, OpenOptions{.writable = true});
  if (!store.ok()) return 'O';
  auto created = (*store)->CreateIfAbsent(key, AsBytes(body));
  if (created.ok()) return created->outcome == CreateOutcome::kCreated ? 'C' : 'I';
  if (created.status().code() == StatusCode::kAlreadyExists) return 'E';
  std::fprintf(stderr, "child: %s\n", created.status().ToString().c_str());
  return 'X';
}

TEST_F(S3StoreTest, ConcurrentProcessesCreatingOneKeyHaveExactlyOneWinner) {
  const StoreEntry entry = rgw_->Entry("lake", prefix_);
  const std::string bodies[2] = {"the even processes' bytes", "the odd processes' bytes!"};
  for (int n : {2, 4, 8}) {
    for (int round = 0; round < 5; ++round) {
      const std::string key = "race/" + std::to_string(n) + "/" + std::to_string(round);
      int start[2], results[2];
      ASSERT_EQ(::pipe(start), 0);
      ASSERT_EQ(::pipe(results), 0);
      std::vector<pid_t> children;
      for (int i = 0; i < n; ++i) {
        const pid_t pid = ::fork();
        ASSERT_GE(pid, 0);
        if (pid == 0) {
          ::close(start[1]);
          ::close(results[0]);
          const char outcome[2] = {static_cast<char>('0' + i), CreateInChild(entry, key, bodies[i % 2], start[0])};
          (void)!::write(results[1], outcome, 2);
          ::_exit(0);  // no destructors: the parent owns the RGW
        }
        children.push_back(pid);
      }
      ::close(start[0]);
      ::close(results[1]);
      const std::string go(n, 'g');  // releases every child at once
      ASSERT_EQ(::write(start[1], go.data(), go.size()), static_cast<ssize_t>(n));
      ::close(start[1]);
      std::map<int, char> outcome_of;
      char pair[2];
      while (::read(results[0], pair, 2) == 2) outcome_of[pair[0] - '0'] = pair[1];
      ::close(results[0]);
      for (pid_t pid : children) {
        int status = 0;
        ::waitpid(pid, &status, 0);
      }
      ASSERT_EQ(outcome_of.size(), static_cast<size_t>(n)) << key;
      auto stored = Open()->Get(key);
      ASSERT_TRUE(stored.ok()) << stored.status().ToString();
      const std::string winner_body(stored->view());
      int created = 0;
      for (const auto& [i, outcome] : outcome_of) {
        const bool same_bytes = bodies[i % 2] == winner_body;
        if (outcome == 'C') {
          ++created;
          EXPECT_TRUE(same_bytes) << key << ": the winner's bytes are not the stored ones";
        } else {
          EXPECT_EQ(outcome, same_bytes ? 'I' : 'E') << key << " process " << i;
        }
      }
      EXPECT_EQ(created, 1) << key;
    }
  }
}

TEST_F(S3StoreTest, ALostAcknowledgementIsRetriedIntoAVerifiedReplay) {
  std::shared_ptr<ObjectStore> backend = Open();
  ASSERT_NE(backend, nullptr);
  FaultPlan plan;
  plan.Add(FaultRule{.fault = FaultKind::kAckLost, .op = StoreOp::kCreateIfAbsent});
  auto faulty = std::make_unique<FaultInjectingStore>(backend, std::move(plan));
  SeededRandom random(3);
  auto governor = std::move(RequestGovernor::Create(GovernorLimits{}, DefaultClock(), random)).value();
  GovernedStore governed(std::move(faulty), *governor);
  // The PUT succeeded, its answer was lost; the retry's PUT gets 412 and the
  // read-back finds these bytes.
  auto created = governed.CreateIfAbsent("acked", AsBytes("payload"));
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  EXPECT_EQ(created->outcome, CreateOutcome::kAlreadyIdentical);
  EXPECT_EQ(backend->Get("acked")->view(), "payload");
}

// The fault wrapper's sweep over S3: a short script of every seam operation
// (a create, a streaming create, ranged and whole Gets, a replayed create, a
// delete) runs through the governor over FaultInjectingStore over the real
// RGW, with one fault at operation n, for every n and every fault kind that
// a network gives (refused, timed out, answer lost). Either the governor's
// retries carry the script through, or it fails with a transient error and a
// rerun without faults completes it; either way the bucket ends holding
// exactly what the script says, read through the bare backend.
Status RunScript(ObjectStore& store, const std::string& p) {
  const std::string a = "alpha bytes", b1(70000, 'b'), b2 = "and the tail";
  VIGILO_RETURN_IF_ERROR(store.CreateIfAbsent(p + "/a", AsBytes(a)).status());
  VIGILO_ASSIGN_OR_RETURN(std::unique_ptr<ObjectWriter> writer, store.BeginCreate(p + "/b"));
  VIGILO_RETURN_IF_ERROR(writer->Append(AsBytes(b1)));
  VIGILO_RETURN_IF_ERROR(writer->Append(AsBytes(b2)));
  Result<CreateResult> committed = writer->Commit();
  // A rerun's commit finds the object its first run committed: a replay.
  if (!committed.ok() && committed.status().code() != StatusCode::kAlreadyExists) return committed.status();
  VIGILO_ASSIGN_OR_RETURN(Bytes got, store.Get(p + "/a"));
  if (got.view() != a) return IntegrityError("a reads back other bytes");
  GetOptions tail;
  tail.range = ByteRange{b1.size(), b2.size()};
  VIGILO_ASSIGN_OR_RETURN(Bytes range, store.Get(p + "/b", tail));
  if (range.view() != b2) return IntegrityError("b's tail reads back other bytes");
  VIGILO_ASSIGN_OR_RETURN(CreateResult again, store.CreateIfAbsent(p + "/a", AsBytes(a)));
  if (again.outcome != CreateOutcome::kAlreadyIdentical) return IntegrityError("a replay was not identical");
  return store.Delete(p + "/c");  // a key never created: deleting it is not an error
}

TEST_F(S3StoreTest, AFaultAtEveryOperationThenARerunLeavesExactlyTheScriptsObjects) {
  std::shared_ptr<ObjectStore> backend = Open();
  ASSERT_NE(backend, nullptr);
  SeededRandom random(5);
  GovernorLimits limits;
  limits.retry_backoff_base_ms = std::chrono::milliseconds(1);
  auto governor = std::move(RequestGovernor::Create(limits, DefaultClock(), random)).value();
  uint64_t operations = 0;
  {
    auto counting = std::make_unique<FaultInjectingStore>(backend, FaultPlan());
    FaultInjectingStore* counter = counting.get();
    GovernedStore governed(std::move(counting), *governor);
    ASSERT_TRUE(RunScript(governed, "count").ok());
    operations = counter->operations();
  }
  ASSERT_GE(operations, 8u);
  int sweeps = 0, reruns = 0;
  for (FaultKind kind : {FaultKind::kTransient, FaultKind::kTimeout, FaultKind::kAckLost}) {
    for (uint64_t n = 0; n < operations; ++n) {
      const std::string p = "sweep-" + std::to_string(static_cast<int>(kind)) + "-" + std::to_string(n);
      {
        GovernedStore governed(std::make_unique<FaultInjectingStore>(backend, FaultPlan().At(n, kind)), *governor);
        Status first = RunScript(governed, p);
        if (!first.ok()) {
          EXPECT_TRUE(first.code() == StatusCode::kUnavailable || first.code() == StatusCode::kDeadlineExceeded)
              << p << ": " << first.ToString();
          ++reruns;
          GovernedStore clean(*backend, *governor);
          Status rerun = RunScript(clean, p);
          ASSERT_TRUE(rerun.ok()) << p << " rerun: " << rerun.ToString();
        }
      }
      EXPECT_EQ(backend->Get(p + "/a")->view(), "alpha bytes") << p;
      Result<ObjectInfo> b = backend->Head(p + "/b");
      ASSERT_TRUE(b.ok()) << p << ": " << b.status().ToString();
      EXPECT_EQ(b->size, 70000u + 12u) << p;
      EXPECT_EQ(backend->Head(p + "/c").status().code(), StatusCode::kNotFound) << p;
      ++sweeps;
    }
  }
  EXPECT_EQ(sweeps, static_cast<int>(3 * operations));
  EXPECT_GT(reruns, 0) << "a writer's commit is one attempt: a fault there needs the rerun";
}

TEST_F(S3StoreTest, RangesAreExactAndCheckedAgainstContentRange) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->CreateIfAbsent("r", AsBytes("0123456789")).ok());
  auto get = [&](uint64_t offset, uint64_t length) {
    GetOptions options;
    options.range = ByteRange{offset, length};
    return store->Get("r", options);
  };
  EXPECT_EQ(get(0, 1)->view(), "0");
  EXPECT_EQ(get(9, 1)->view(), "9");
  EXPECT_EQ(get(3, 4)->view(), "3456");
  EXPECT_EQ(get(10, 0)->view(), "");  // zero-length at the end: sized by HEAD
  // RGW answers 8-10 of 10 bytes with 206 "bytes 8-9/10": past the end.
  EXPECT_EQ(get(8, 3).status().code(), StatusCode::kOutOfRange);
  EXPECT_EQ(get(10, 1).status().code(), StatusCode::kOutOfRange);  // 416
  EXPECT_EQ(get(11, 0).status().code(), StatusCode::kOutOfRange);
  GetOptions wrong_size;
  wrong_size.expected_size = 11;
  wrong_size.range = ByteRange{0, 2};
  EXPECT_EQ(store->Get("r", wrong_size).status().code(), StatusCode::kIntegrityError);
  EXPECT_EQ(store->Head("r")->size, 10u);
}

TEST_F(S3StoreTest, KeysNeedingEscapesAreSignedAndStoredUnderThePrefix) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  const std::string key = "ivf_postings/cid_bucket=000001/part 0+1~x.parquet";
  ASSERT_TRUE(store->CreateIfAbsent(key, AsBytes("escaped")).ok());
  EXPECT_EQ(store->Get(key)->view(), "escaped");
  // The same object through the bucket's root: PREFIX/KEY.
  auto root = Open(rgw_->Entry("root", ""));
  ASSERT_NE(root, nullptr);
  EXPECT_EQ(root->Get(prefix_ + "/" + key)->view(), "escaped");
  EXPECT_EQ(root->Get(key).status().code(), StatusCode::kNotFound);
}

TEST_F(S3StoreTest, WrongCredentialsAreClearErrorsWithoutSecrets) {
  auto seeded = Open();
  ASSERT_TRUE(seeded->CreateIfAbsent("k", AsBytes("x")).ok());
  // Profile "default" of the test's credentials file: an unknown access key.
  StoreEntry unknown = rgw_->Entry("lake", prefix_);
  unknown.backend.as_object().Find("credentials")->as_object().Set("profile", json::Value("default"));
  auto store = Open(unknown);
  ASSERT_NE(store, nullptr);
  Status s = store->Get("k").status();
  EXPECT_EQ(s.code(), StatusCode::kIoError) << s.ToString();
  EXPECT_NE(s.message().find("HTTP 403 InvalidAccessKeyId"), std::string_view::npos) << s.ToString();
  EXPECT_NE(s.message().find("backend.credentials"), std::string_view::npos) << s.ToString();
  EXPECT_EQ(s.path(), "k");
  ExpectClean(s);

  // The right access key with a wrong secret: the signature does not match.
  const std::string file = rgw_->scratch() + "/wrong-secret";
  std::ofstream(file) << "[default]\naws_access_key_id = " << rgw_->access_key()
                      << "\naws_secret_access_key = not-" << rgw_->secret_key() << "\n";
  StoreEntry wrong = rgw_->Entry("lake", prefix_);
  wrong.backend.as_object().Find("credentials")->as_object().Set("path", json::Value(file));
  wrong.backend.as_object().Find("credentials")->as_object().Set("profile", json::Value("default"));
  store = Open(wrong);
  for (Status refused : {store->Get("k").status(), store->Head("k").status(),
                         store->CreateIfAbsent("k2", AsBytes("y")).status(), store->Delete("k")}) {
    EXPECT_EQ(refused.code(), StatusCode::kIoError) << refused.ToString();
    EXPECT_NE(refused.message().find("HTTP 403"), std::string_view::npos) << refused.ToString();
    ExpectClean(refused);
  }
  EXPECT_NE(store->Get("k").status().message().find("SignatureDoesNotMatch"), std::string_view::npos);
  EXPECT_EQ(seeded->Get("k")->view(), "x");  // nothing was deleted
  EXPECT_EQ(seeded->Get("k2").status().code(), StatusCode::kNotFound);  // nothing was written
}

TEST_F(S3StoreTest, MissingCredentialsNameTheSetting) {
  StoreEntry env = rgw_->Entry("lake", prefix_);
  env.backend.as_object().Set("credentials", std::move(json::Parse(R"({"source":"environment"})")).value());
  // The builtin backend was given no environment.
  Status none = MakeS3Backend()->Open(env, {}).status();
  EXPECT_EQ(none.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(none.message().find("(backend.credentials.source)"), std::string_view::npos) << none.ToString();
  // An environment without the secret.
  std::map<std::string, std::string, std::less<>> vars = {{"AWS_ACCESS_KEY_ID", rgw_->access_key()}};
  S3BackendOptions options{.environment = [&](std::string_view name) -> std::optional<std::string> {
    auto it = vars.find(name);
    return it == vars.end() ? std::nullopt : std::optional<std::string>(it->second);
  }};
  SeededRandom random(5);
  auto governor = std::move(RequestGovernor::Create(GovernorLimits{}, DefaultClock(), random)).value();
  BackendRegistry registry;
  ASSERT_TRUE(registry.Register("s3", MakeS3Backend(options)).ok());
  Status missing = OpenConfiguredStore(env, {.governor = governor.get(), .backends = &registry}).status();
  EXPECT_EQ(missing.message(),
            "store alias \"lake\": the environment variable AWS_SECRET_ACCESS_KEY is unset or empty "
            "(backend.credentials.source)");
  ExpectClean(missing);
  // With both variables it works, under the governor.
  vars["AWS_SECRET_ACCESS_KEY"] = rgw_->secret_key();
  auto store = OpenConfiguredStore(env, {.writable = true, .governor = governor.get(), .backends = &registry});
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  EXPECT_EQ((*store)->CreateIfAbsent("env", AsBytes("from the environment"))->outcome, CreateOutcome::kCreated);
  EXPECT_EQ((*store)->Get("env")->view(), "from the environment");
  // A credentials file that is not there names its setting, not its path.
  StoreEntry file = rgw_->Entry("lake", prefix_);
  file.backend.as_object().Find("credentials")->as_object().Set("path", json::Value(rgw_->scratch() + "/none"));
  Status no_file = MakeS3Backend()->Open(file, {}).status();
  EXPECT_EQ(no_file.code(), StatusCode::kNotFound);
  EXPECT_NE(no_file.message().find("(backend.credentials.path)"), std::string_view::npos) << no_file.ToString();
  ExpectClean(no_file);
}

TEST_F(S3StoreTest, AMissingBucketIsAConfigurationErrorNotAMissingObject) {
  StoreEntry entry = rgw_->Entry("lake", prefix_);
  entry.url = "s3://no-such-bucket-" + prefix_ + "/p";
  auto store = Open(entry);
  ASSERT_NE(store, nullptr);
  for (Status s : {store->Get("k").status(), store->CreateIfAbsent("k", AsBytes("x")).status(), store->Delete("k")}) {
    EXPECT_EQ(s.code(), StatusCode::kIoError) << s.ToString();
    EXPECT_NE(s.message().find("NoSuchBucket"), std::string_view::npos) << s.ToString();
    EXPECT_EQ(s.message().find("no-such-bucket"), std::string_view::npos) << s.ToString();
    ExpectClean(s);
  }
}

TEST_F(S3StoreTest, AServerThatIsDownIsUnavailableAndRetriedByTheGovernor) {
  StoreEntry entry = rgw_->Entry("lake", prefix_);
  entry.backend.as_object().Set("endpoint", json::Value("http://127.0.0.1:1"));
  auto bare = Open(entry);
  ASSERT_NE(bare, nullptr);
  Status refused = bare->Get("k").status();
  EXPECT_EQ(refused.code(), StatusCode::kUnavailable) << refused.ToString();
  EXPECT_EQ(refused.message(), "connection refused");
  SeededRandom random(9);
  GovernorLimits limits;
  limits.retry_backoff_base_ms = std::chrono::milliseconds(1);
  auto governor = std::move(RequestGovernor::Create(limits, DefaultClock(), random)).value();
  auto governed = OpenConfiguredStore(entry, {.governor = governor.get()});
  ASSERT_TRUE(governed.ok()) << governed.status().ToString();
  Status retried = (*governed)->Get("k").status();
  EXPECT_EQ(retried.code(), StatusCode::kUnavailable);
  EXPECT_EQ(retried.message(), "connection refused (after 3 attempts)");
  ExpectClean(retried);
}

TEST_F(S3StoreTest, StreamingCreateSpoolsAndPutsOnceAtCommit) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  auto writer = std::move(store->BeginCreate("spooled")).value();
  std::string expected;
  for (int i = 0; i < 64; ++i) {
    std::string part(40000, static_cast<char>('a' + i % 26));
    ASSERT_TRUE(writer->Append(AsBytes(part)).ok());
    expected += part;
  }
  EXPECT_EQ(store->Head("spooled").status().code(), StatusCode::kNotFound);  // nothing before Commit
  EXPECT_EQ(writer->Commit()->outcome, CreateOutcome::kCreated);
  EXPECT_EQ(store->Get("spooled")->view(), expected);
  EXPECT_EQ(writer->Commit().status().code(), StatusCode::kInvalidArgument);
  // A read-only store refuses writes before any request.
  auto read_only = Open(rgw_->Entry("lake", prefix_, false), false);
  EXPECT_EQ(read_only->BeginCreate("x").status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(read_only->Get("spooled")->size(), expected.size());
}

// Answers RGW will not give on demand, from a scripted server: each is
// classified for the governor by its status and S3 code, and the request
// went out path-style under the prefix.
TEST_F(S3StoreTest, ScriptedErrorAnswersAreClassified) {
  using testing::Answer;
  auto xml = [](std::string_view code) {
    return "<?xml version=\"1.0\"?><Error><Code>" + std::string(code) +
           "</Code><Message>secret-bucket at http://secret.example</Message></Error>";
  };
  testing::FakeHttpServer server({Answer(503, "Slow Down", xml("SlowDown")),
                                  Answer(409, "Conflict", xml("ConditionalRequestConflict")),
                                  Answer(500, "Internal Server Error", xml("InternalError")),
                                  Answer(301, "Moved Permanently", xml("PermanentRedirect"),
                                         {"Location: http://secret.example/"}),
                                  Answer(403, "Forbidden", xml("RequestTimeTooSkewed")),
                                  Answer(400, "Bad Request", xml("EntityTooLarge"))});
  StoreEntry entry = rgw_->Entry("lake", prefix_);
  entry.backend.as_object().Set("endpoint", json::Value(server.base_url()));
  auto store = Open(entry);
  ASSERT_NE(store, nullptr);
  Status slow = store->Get("a/k").status();
  EXPECT_EQ(slow.code(), StatusCode::kUnavailable);
  EXPECT_EQ(slow.message(), "HTTP 503 SlowDown");
  Status conflict = store->CreateIfAbsent("a/k", AsBytes("x")).status();
  EXPECT_EQ(conflict.code(), StatusCode::kUnavailable);
  EXPECT_EQ(conflict.message(), "HTTP 409 ConditionalRequestConflict: a concurrent conflicting request");
  EXPECT_EQ(store->Head("a/k").status().code(), StatusCode::kUnavailable);  // 500, no body on HEAD
  Status moved = store->Get("a/k").status();
  EXPECT_EQ(moved.code(), StatusCode::kIoError);
  EXPECT_NE(moved.message().find("redirects are not followed"), std::string_view::npos);
  Status skewed = store->Get("a/k").status();
  EXPECT_NE(skewed.message().find("clock"), std::string_view::npos) << skewed.ToString();
  EXPECT_EQ(store->CreateIfAbsent("a/k", AsBytes("x")).status().code(), StatusCode::kLimitExceeded);
  for (const Status& s : {slow, conflict, moved, skewed}) {
    EXPECT_EQ(s.message().find("secret"), std::string_view::npos) << s.ToString();
    EXPECT_EQ(s.path(), "a/k");
  }
  auto requests = server.requests();
  ASSERT_GE(requests.size(), 2u);
  EXPECT_EQ(requests[0].request_line, "GET /" + rgw_->bucket() + "/" + prefix_ + "/a/k HTTP/1.1");
  EXPECT_EQ(requests[1].request_line, "PUT /" + rgw_->bucket() + "/" + prefix_ + "/a/k HTTP/1.1");
}

}  // namespace
}  // namespace vigilo::store
