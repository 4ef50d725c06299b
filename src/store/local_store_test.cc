// Local-directory specifics beyond the conformance suite: the layout on
// disk, temp-file hygiene, non-regular files at a key, the mapping cache and
// errno mapping.
#include "vigilo/store/local_store.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>
#include <sstream>
#include <vector>

namespace vigilo::store {
namespace {

namespace fs = std::filesystem;

std::span<const uint8_t> AsBytes(std::string_view s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

class LocalStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("vigilo-local-store-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    root_ = (dir_ / "root").string();
    auto opened = OpenLocalStore(root_, {.writable = true, .create_root = true});
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    store_ = std::move(opened).value();
  }
  void TearDown() override {
    store_.reset();
    fs::remove_all(dir_);
  }

  // Every file below the root, relative and sorted: objects and leftovers.
  std::vector<std::string> Files() const {
    std::vector<std::string> out;
    for (const auto& e : fs::recursive_directory_iterator(root_)) {
      if (!e.is_directory()) out.push_back(fs::relative(e.path(), root_).string());
    }
    std::sort(out.begin(), out.end());
    return out;
  }
  std::string ReadFile(const std::string& key) const {
    std::ifstream in(root_ + "/" + key, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }

  fs::path dir_;
  std::string root_;
  std::unique_ptr<ObjectStore> store_;
};

TEST_F(LocalStoreTest, EachKeyIsAFileBelowTheRootAndNoTempFilesRemain) {
  ASSERT_EQ(store_->CreateIfAbsent("a/b/c.json", AsBytes("{}"))->outcome, CreateOutcome::kCreated);
  ASSERT_EQ(store_->CreateIfAbsent("a/b/c.json", AsBytes("{}"))->outcome, CreateOutcome::kAlreadyIdentical);
  EXPECT_EQ(store_->CreateIfAbsent("a/b/c.json", AsBytes("[]")).status().code(), StatusCode::kAlreadyExists);
  auto writer = std::move(store_->BeginCreate("a/d")).value();
  ASSERT_TRUE(writer->Append(AsBytes("streamed")).ok());
  ASSERT_EQ(writer->Commit()->outcome, CreateOutcome::kCreated);
  auto clash = std::move(store_->BeginCreate("a/d")).value();
  ASSERT_TRUE(clash->Append(AsBytes("other")).ok());
  EXPECT_EQ(clash->Commit().status().code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(Files(), (std::vector<std::string>{"a/b/c.json", "a/d"}));
  EXPECT_EQ(ReadFile("a/b/c.json"), "{}");
  EXPECT_EQ(ReadFile("a/d"), "streamed");
  struct stat st;
  ASSERT_EQ(::stat((root_ + "/a/d").c_str(), &st), 0);
  EXPECT_EQ(st.st_nlink, 1u);  // the temp name was unlinked after the link
}

TEST_F(LocalStoreTest, AnOpenWriterHasOneHiddenTempFileBesideTheTarget) {
  auto writer = std::move(store_->BeginCreate("dir/object.bin")).value();
  ASSERT_TRUE(writer->Append(AsBytes("partial")).ok());
  std::vector<std::string> files = Files();
  ASSERT_EQ(files.size(), 1u);
  std::string prefix = "dir/.object.bin.tmp-" + std::to_string(::getpid()) + "-";
  EXPECT_EQ(files[0].substr(0, prefix.size()), prefix);
  EXPECT_EQ(files[0].size(), prefix.size() + 16);
  writer.reset();  // abandoned
  EXPECT_TRUE(Files().empty());
}

TEST_F(LocalStoreTest, OpeningTheRoot) {
  std::string missing = (dir_ / "missing").string();
  auto absent = OpenLocalStore(missing, {});
  EXPECT_EQ(absent.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(absent.status().path(), missing);
  ASSERT_TRUE(OpenLocalStore(missing + "/deeper/", {.writable = true, .create_root = true}).ok());
  EXPECT_TRUE(fs::is_directory(missing + "/deeper"));
  ASSERT_TRUE(store_->CreateIfAbsent("file", AsBytes("x")).ok());
  auto not_dir = OpenLocalStore(root_ + "/file", {});
  EXPECT_EQ(not_dir.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(not_dir.status().message(), "the store's root is not a directory");
  EXPECT_EQ(OpenLocalStore("", {}).status().code(), StatusCode::kInvalidArgument);
  // A root given with a trailing slash names the same objects.
  auto same = OpenLocalStore(root_ + "/", {.writable = false});
  ASSERT_TRUE(same.ok());
  EXPECT_EQ((*same)->Get("file")->view(), "x");
}

TEST_F(LocalStoreTest, ReadOnlyStoreReadsWhatAWritableOneWrote) {
  ASSERT_TRUE(store_->CreateIfAbsent("k", AsBytes("bytes")).ok());
  auto ro = std::move(OpenLocalStore(root_, {.writable = false})).value();
  EXPECT_EQ(ro->Get("k")->view(), "bytes");
  EXPECT_EQ(ro->Head("k")->size, 5u);
  Status refused = ro->Delete("k");
  EXPECT_EQ(refused.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(refused.message(), "the store is read-only");
  EXPECT_EQ(refused.path(), "k");
  EXPECT_EQ(ro->CreateIfAbsent("new", AsBytes("x")).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(ro->BeginCreate("new").status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(Files(), std::vector<std::string>{"k"});
}

TEST_F(LocalStoreTest, AFifoAtAKeyIsRefusedWithoutBlocking) {
  fs::create_directories(root_ + "/p");
  std::string fifo = root_ + "/p/fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  auto attempt = std::async(std::launch::async, [&] {
    return std::make_tuple(store_->Get("p/fifo").status(), store_->Head("p/fifo").status(),
                           store_->CreateIfAbsent("p/fifo", AsBytes("x")).status());
  });
  if (attempt.wait_for(std::chrono::seconds(10)) != std::future_status::ready) {
    // Release the blocked open(s) so that the test fails instead of hanging.
    for (int i = 0; i < 3 && attempt.wait_for(std::chrono::milliseconds(100)) != std::future_status::ready; ++i) {
      int w = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
      if (w >= 0) ::close(w);
    }
    attempt.wait();
    FAIL() << "the local store blocked on a FIFO";
  }
  auto [get, head, create] = attempt.get();
  for (const Status& s : {get, head, create}) {
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(s.message(), "not a regular file: it is a FIFO");
    EXPECT_EQ(s.path(), "p/fifo");
  }
}

TEST_F(LocalStoreTest, ADirectoryAtAKeyIsRefused) {
  ASSERT_TRUE(store_->CreateIfAbsent("d/inner", AsBytes("x")).ok());
  Status get = store_->Get("d").status();
  EXPECT_EQ(get.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(get.message(), "not a regular file: it is a directory");
  EXPECT_EQ(get.path(), "d");
  EXPECT_FALSE(store_->CreateIfAbsent("d", AsBytes("x")).ok());
  auto writer = std::move(store_->BeginCreate("d")).value();
  ASSERT_TRUE(writer->Append(AsBytes("x")).ok());
  EXPECT_FALSE(writer->Commit().ok());
  EXPECT_FALSE(store_->Delete("d").ok());  // not an object: left alone
  EXPECT_EQ(Files(), std::vector<std::string>{"d/inner"});
}

TEST_F(LocalStoreTest, AFileWhereADirectoryIsNeeded) {
  ASSERT_TRUE(store_->CreateIfAbsent("obj", AsBytes("x")).ok());
  EXPECT_EQ(store_->Get("obj/child").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(store_->Head("obj/child/deeper").status().code(), StatusCode::kNotFound);
  for (std::string_view key : {"obj/child", "obj/child/deeper"}) {
    Status create = store_->CreateIfAbsent(key, AsBytes("y")).status();
    EXPECT_EQ(create.code(), StatusCode::kIoError) << key;
    EXPECT_EQ(create.message(), "cannot create the object: one of its parent directories is a file");
    EXPECT_EQ(create.path(), key);
    EXPECT_EQ(store_->BeginCreate(key).status().code(), StatusCode::kIoError);
  }
  EXPECT_TRUE(store_->Delete("obj/child").ok());  // nothing there to delete
  EXPECT_EQ(Files(), std::vector<std::string>{"obj"});
}

TEST_F(LocalStoreTest, RangedReadsShareOneCachedMapping) {
  std::string payload(100000, '\0');
  for (size_t i = 0; i < payload.size(); ++i) payload[i] = static_cast<char>(i * 7);
  ASSERT_TRUE(store_->CreateIfAbsent("m", AsBytes(payload)).ok());
  GetOptions options;
  options.range = ByteRange{1000, 10};
  Bytes first = std::move(store_->Get("m", options)).value();
  options.range = ByteRange{90000, 10};
  Bytes second = std::move(store_->Get("m", options)).value();
  Bytes whole = std::move(store_->Get("m")).value();
  EXPECT_EQ(first.view(), payload.substr(1000, 10));
  EXPECT_EQ(second.view(), payload.substr(90000, 10));
  EXPECT_EQ(whole.view(), payload);
  EXPECT_EQ(second.data() - first.data(), 89000);  // one mapping
  EXPECT_EQ(whole.data() + 1000, first.data());
  EXPECT_EQ(store_->Head("m")->size, payload.size());
}

TEST_F(LocalStoreTest, DeleteDropsTheCachedMapping) {
  ASSERT_TRUE(store_->CreateIfAbsent("k", AsBytes("first")).ok());
  Bytes old = std::move(store_->Get("k")).value();
  ASSERT_TRUE(store_->Delete("k").ok());
  EXPECT_EQ(store_->Get("k").status().code(), StatusCode::kNotFound);
  ASSERT_EQ(store_->CreateIfAbsent("k", AsBytes("second!"))->outcome, CreateOutcome::kCreated);
  EXPECT_EQ(store_->Get("k")->view(), "second!");
  EXPECT_EQ(store_->Head("k")->size, 7u);
  EXPECT_EQ(old.view(), "first");  // the old mapping outlives its file
}

TEST_F(LocalStoreTest, ManyObjectsReadBackThroughTheBoundedCache) {
  // More objects than the cache holds; created as files directly (an fsync
  // per object would make this slow) and each read twice.
  constexpr int kObjects = 1100;
  for (int i = 0; i < kObjects; ++i) {
    fs::create_directories(root_ + "/many/" + std::to_string(i % 10));
    std::ofstream(root_ + "/many/" + std::to_string(i % 10) + "/" + std::to_string(i)) << "object " << i;
  }
  std::vector<Bytes> held;
  for (int pass = 0; pass < 2; ++pass) {
    for (int i = 0; i < kObjects; ++i) {
      auto got = store_->Get("many/" + std::to_string(i % 10) + "/" + std::to_string(i));
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      ASSERT_EQ(got->view(), "object " + std::to_string(i));
      if (pass == 0 && i % 100 == 0) held.push_back(std::move(got).value());
    }
  }
  for (size_t j = 0; j < held.size(); ++j) EXPECT_EQ(held[j].view(), "object " + std::to_string(j * 100));
}

// Restores a resource limit (and SIGXFSZ) when a test ends, pass or fail.
class ScopedLimit {
 public:
  ScopedLimit(int resource, rlim_t soft) : resource_(resource) {
    ::getrlimit(resource_, &saved_);
    struct rlimit low = saved_;
    low.rlim_cur = std::min(saved_.rlim_cur, soft);
    ok_ = ::setrlimit(resource_, &low) == 0;
  }
  ~ScopedLimit() { ::setrlimit(resource_, &saved_); }
  bool ok() const { return ok_; }

 private:
  int resource_;
  struct rlimit saved_;
  bool ok_ = false;
};

TEST_F(LocalStoreTest, AFailedWriteLeavesNoTempFile) {
  // RLIMIT_FSIZE makes write(2) fail with EFBIG (SIGXFSZ ignored): a disk
  // filling up, on demand.
  auto old_handler = ::signal(SIGXFSZ, SIG_IGN);
  std::string big(10000, 'b');
  Status create;
  Status append;
  Status commit;
  {
    ScopedLimit limit(RLIMIT_FSIZE, 4096);
    ASSERT_TRUE(limit.ok());
    create = store_->CreateIfAbsent("big", AsBytes(big)).status();
    auto writer = std::move(store_->BeginCreate("streamed")).value();
    append = writer->Append(AsBytes(big));
    commit = writer->Commit().status();
  }
  ::signal(SIGXFSZ, old_handler);
  EXPECT_EQ(create.code(), StatusCode::kLimitExceeded);
  EXPECT_EQ(create.message(), std::string("cannot write: ") + std::strerror(EFBIG));
  EXPECT_EQ(create.path(), "big");
  EXPECT_EQ(append.code(), StatusCode::kLimitExceeded);
  EXPECT_EQ(commit.code(), StatusCode::kLimitExceeded);  // the Append's failure again
  EXPECT_TRUE(Files().empty());
  EXPECT_EQ(store_->Get("big").status().code(), StatusCode::kNotFound);
}

TEST_F(LocalStoreTest, OutOfDescriptorsIsIoErrorNeverNotFound) {
  ASSERT_TRUE(store_->CreateIfAbsent("k", AsBytes("x")).ok());
  Status get;
  Status missing;
  {
    ScopedLimit limit(RLIMIT_NOFILE, 64);
    ASSERT_TRUE(limit.ok());
    std::vector<int> held;
    for (int fd; (fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0;) held.push_back(fd);
    get = store_->Get("k").status();
    // open(2) needs a descriptor before it looks the path up, so even a
    // missing key is EMFILE: the store must not guess NotFound.
    missing = store_->Head("absent").status();
    for (int fd : held) ::close(fd);
  }
  EXPECT_EQ(get.code(), StatusCode::kIoError);
  EXPECT_EQ(get.message(), std::string("cannot open: ") + std::strerror(EMFILE));
  EXPECT_EQ(get.path(), "k");
  EXPECT_EQ(missing.code(), StatusCode::kIoError);
  EXPECT_EQ(store_->Get("k")->view(), "x");
}

TEST_F(LocalStoreTest, UnreadableObjectIsIoError) {
  if (::geteuid() == 0) GTEST_SKIP() << "root reads mode-000 files (ErrnoStatus(EACCES) is covered in file_test)";
  ASSERT_TRUE(store_->CreateIfAbsent("secret", AsBytes("x")).ok());
  ASSERT_EQ(::chmod((root_ + "/secret").c_str(), 0), 0);
  EXPECT_EQ(store_->Get("secret").status().code(), StatusCode::kIoError);
  EXPECT_EQ(store_->CreateIfAbsent("secret", AsBytes("x")).status().code(), StatusCode::kIoError);
}

}  // namespace
}  // namespace vigilo::store
