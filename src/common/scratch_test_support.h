// Scratch directories for test processes that leave nothing behind in TMPDIR
// (a test run used to leave one directory per test binary and process there,
// about 155 per full run, some holding fixtures of several MB).
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <mutex>
#include <string>
#include <system_error>
#include <vector>

namespace vigilo::test_support {

// TMPDIR/<tag>_<pid>: made on first use (and again when a test removed it),
// removed with everything in it when the process that first asked for it
// exits normally. A forked child that exits leaves it to its parent, which
// may still be using it.
inline std::filesystem::path ProcessScratchDir(const std::string& tag) {
  struct Remover {
    std::mutex mu;
    std::vector<std::filesystem::path> dirs;
    pid_t owner = ::getpid();
    ~Remover() {
      if (::getpid() != owner) return;
      for (const auto& dir : dirs) {
        std::error_code ignored;  // nothing to report to at exit
        std::filesystem::remove_all(dir, ignored);
      }
    }
  };
  static Remover remover;
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / (tag + "_" + std::to_string(::getpid()));
  {
    std::lock_guard<std::mutex> lock(remover.mu);
    if (std::find(remover.dirs.begin(), remover.dirs.end(), dir) == remover.dirs.end()) remover.dirs.push_back(dir);
  }
  std::filesystem::create_directories(dir);
  return dir;
}

// The running test's name as one path component. A parameterized test is
// named "Case/Backend": used as is, its directory would sit inside a
// "…-Case" directory that removing the test's own directory leaves behind.
inline std::string CurrentTestPathName() {
  std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
  std::replace(name.begin(), name.end(), '/', '_');
  return name;
}

}  // namespace vigilo::test_support
