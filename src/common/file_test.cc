#include "vigilo/common/file.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>
#include <vector>

namespace vigilo {
namespace {

// A fresh directory per test, removed afterwards.
class FileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("vigilo-file-test-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string Write(const std::string& name, const std::string& bytes) {
    std::string path = (dir_ / name).string();
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
  }

  std::filesystem::path dir_;
};

TEST(ErrnoStatusTest, MapsErrnoToCodes) {
  struct Case {
    int err;
    StatusCode code;
  };
  const Case cases[] = {
      {ENOENT, StatusCode::kNotFound},      {ENOTDIR, StatusCode::kNotFound},
      {EEXIST, StatusCode::kAlreadyExists}, {ENOSPC, StatusCode::kLimitExceeded},
      {EDQUOT, StatusCode::kLimitExceeded}, {EFBIG, StatusCode::kLimitExceeded},
      {EINTR, StatusCode::kUnavailable},    {EAGAIN, StatusCode::kUnavailable},
      {EACCES, StatusCode::kIoError},       {EPERM, StatusCode::kIoError},
      {EMFILE, StatusCode::kIoError},       {ENFILE, StatusCode::kIoError},
      {EIO, StatusCode::kIoError},          {ELOOP, StatusCode::kIoError},
  };
  for (const Case& c : cases) {
    Status s = ErrnoStatus(c.err, "cannot open", "dir/file");
    EXPECT_EQ(s.code(), c.code) << std::strerror(c.err);
    EXPECT_EQ(s.message(), std::string("cannot open: ") + std::strerror(c.err));
    EXPECT_EQ(s.path(), "dir/file");
  }
}

TEST(UniqueFdTest, ClosesOnDestructionAndMoves) {
  int raw = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  ASSERT_GE(raw, 0);
  {
    UniqueFd a(raw);
    UniqueFd b(std::move(a));
    EXPECT_FALSE(a.valid());
    EXPECT_EQ(b.get(), raw);
    UniqueFd c;
    c = std::move(b);
    EXPECT_EQ(c.get(), raw);
    EXPECT_NE(::fcntl(raw, F_GETFD), -1);
  }
  errno = 0;
  EXPECT_EQ(::fcntl(raw, F_GETFD), -1);
  EXPECT_EQ(errno, EBADF);
}

TEST_F(FileTest, OpensARegularFileBlockingWithItsSize) {
  std::string path = Write("data.bin", "hello");
  auto file = OpenRegularFile(path);
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  EXPECT_EQ(file->size, 5u);
  EXPECT_EQ(::fcntl(file->fd.get(), F_GETFL) & O_NONBLOCK, 0);  // cleared after the check
  EXPECT_NE(::fcntl(file->fd.get(), F_GETFD) & FD_CLOEXEC, 0);
  char buf[8];
  EXPECT_EQ(::read(file->fd.get(), buf, sizeof buf), 5);
  EXPECT_EQ(std::string(buf, 5), "hello");
}

TEST_F(FileTest, FollowsASymlinkToARegularFile) {
  std::string target = Write("target", "abc");
  std::filesystem::create_symlink(target, dir_ / "link");
  auto file = OpenRegularFile((dir_ / "link").string());
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  EXPECT_EQ(file->size, 3u);
}

// OpenRegularFile run aside, so that a regression that blocks on a FIFO
// fails the test instead of hanging it: after a timeout, a writer opens the
// FIFO to release the blocked open.
Result<RegularFile> OpenWithoutHanging(const std::string& path) {
  auto opened = std::async(std::launch::async, [&] { return OpenRegularFile(path); });
  if (opened.wait_for(std::chrono::seconds(10)) != std::future_status::ready) {
    int writer = ::open(path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    opened.wait();
    if (writer >= 0) ::close(writer);
    ADD_FAILURE() << "OpenRegularFile blocked on a FIFO";
  }
  return opened.get();
}

TEST_F(FileTest, RefusesAFifoWithoutBlocking) {
  std::string path = (dir_ / "fifo").string();
  ASSERT_EQ(::mkfifo(path.c_str(), 0644), 0);
  auto file = OpenWithoutHanging(path);
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(file.status().message(), "not a regular file: it is a FIFO");
  EXPECT_EQ(file.status().path(), path);
}

TEST_F(FileTest, RefusesASymlinkToAFifo) {
  ASSERT_EQ(::mkfifo((dir_ / "fifo").c_str(), 0644), 0);
  std::filesystem::create_symlink(dir_ / "fifo", dir_ / "link");
  auto file = OpenWithoutHanging((dir_ / "link").string());
  EXPECT_EQ(file.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(file.status().message(), "not a regular file: it is a FIFO");
}

TEST_F(FileTest, RefusesADirectory) {
  auto file = OpenRegularFile(dir_.string());
  EXPECT_EQ(file.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(file.status().message(), "not a regular file: it is a directory");
}

TEST_F(FileTest, RefusesACharacterDevice) {
  auto file = OpenRegularFile("/dev/null");
  EXPECT_EQ(file.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(file.status().message(), "not a regular file: it is a character device");
  EXPECT_EQ(file.status().path(), "/dev/null");
}

TEST_F(FileTest, MissingFileAndMissingParentAreNotFound) {
  std::string missing = (dir_ / "missing").string();
  auto file = OpenRegularFile(missing);
  EXPECT_EQ(file.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(file.status().message(), std::string("cannot open: ") + std::strerror(ENOENT));
  EXPECT_EQ(file.status().path(), missing);
  // A path through a regular file (ENOTDIR) is missing too.
  std::string through = Write("plain", "x") + "/child";
  EXPECT_EQ(OpenRegularFile(through).status().code(), StatusCode::kNotFound);
}

TEST_F(FileTest, UnreadableFileIsIoErrorNeverNotFound) {
  std::string path = Write("secret", "x");
  ASSERT_EQ(::chmod(path.c_str(), 0), 0);
  if (::geteuid() != 0) {
    auto file = OpenRegularFile(path);
    EXPECT_EQ(file.status().code(), StatusCode::kIoError);
    EXPECT_EQ(file.status().message(), std::string("cannot open: ") + std::strerror(EACCES));
  }
  // Root reads mode-000 files, so the mapping is checked directly as well.
  EXPECT_EQ(ErrnoStatus(EACCES, "cannot open", path).code(), StatusCode::kIoError);
}

TEST_F(FileTest, OutOfDescriptorsIsIoError) {
  std::string path = Write("data", "x");
  struct rlimit saved;
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &saved), 0);
  struct rlimit low = saved;
  low.rlim_cur = std::min<rlim_t>(saved.rlim_cur, 64);
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &low), 0);
  std::vector<int> held;
  while (true) {
    int fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (fd < 0) break;
    held.push_back(fd);
  }
  int exhausted_errno = errno;
  auto file = OpenRegularFile(path);
  for (int fd : held) ::close(fd);
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &saved), 0);
  ASSERT_EQ(exhausted_errno, EMFILE);
  EXPECT_EQ(file.status().code(), StatusCode::kIoError);
  EXPECT_EQ(file.status().message(), std::string("cannot open: ") + std::strerror(EMFILE));
}

}  // namespace
}  // namespace vigilo
