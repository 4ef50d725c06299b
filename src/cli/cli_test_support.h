// What the CLI tests share: they drive the built binary (VIGILO_BIN, a
// compile definition of each test target) through the shell, with stdout
// and stderr captured in files, either in one directory per test process or
// in a fresh directory per test that also holds the test's control database.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>

#include "common/scratch_test_support.h"

namespace vigilo::cli_test {

struct CliRun {
  int exit_code;  // -1 when the process did not exit normally
  std::string out;
  std::string err;
};

inline std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

inline void WriteFile(const std::filesystem::path& path, std::string_view data) {
  std::ofstream f(path, std::ios::binary);
  f.write(data.data(), static_cast<std::streamsize>(data.size()));
}

// "vigilo_<test binary>", and with "_<pid>" the process's: test binaries
// running at once (ctest -j) never share a directory.
inline std::string BinaryTag() { return std::string("vigilo_") + program_invocation_short_name; }
inline std::string ProcessTag() { return BinaryTag() + "_" + std::to_string(::getpid()); }

// TMPDIR/vigilo_<test binary>_<pid>, created on first use and kept for the
// whole run (files made by one-per-process setup live there), removed when
// the test process exits.
inline std::filesystem::path ProcessDir() {
  return test_support::ProcessScratchDir(BinaryTag());
}

inline std::string TempPath(const std::string& name) { return (ProcessDir() / name).string(); }

// Where and how `vigilo` runs: stdout and stderr go to DIR/stdout and
// DIR/stderr, stdin comes from DIR/stdin when there is input (else
// /dev/null), `env` is prepended to the command (VAR=VALUE ...), and with
// `cd` the command runs inside DIR.
struct Invocation {
  std::filesystem::path dir;
  std::string env;
  bool cd = false;
};

inline CliRun RunVigilo(const Invocation& at, const std::string& args,
                        std::optional<std::string_view> input = std::nullopt) {
  const std::filesystem::path in = at.dir / "stdin", out = at.dir / "stdout", err = at.dir / "stderr";
  if (input) WriteFile(in, *input);
  std::string cmd = at.cd ? "cd " + at.dir.string() + " && " : "";
  if (!at.env.empty()) cmd += at.env + " ";
  cmd += std::string(VIGILO_BIN) + " " + args + " <" + (input ? in.string() : "/dev/null") + " >" + out.string() +
         " 2>" + err.string();
  int status = std::system(cmd.c_str());
  return CliRun{WIFEXITED(status) ? WEXITSTATUS(status) : -1, ReadFile(out), ReadFile(err)};
}

// `vigilo ARGS` with the test process's environment, files in ProcessDir().
inline CliRun Vigilo(const std::string& args) { return RunVigilo({ProcessDir(), "", false}, args); }
// ... with `input` on stdin.
inline CliRun Vigilo(const std::string& args, std::string_view input) {
  return RunVigilo({ProcessDir(), "", false}, args, input);
}

// A fresh directory per test (TMPDIR/vigilo_<binary>_<pid>_<test>, removed
// afterwards) in which `vigilo` runs with its own control database,
// DIR/control.db, so relative paths in ARGS are inside it.
class CliDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           (ProcessTag() + "_" + test_support::CurrentTestPathName());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string Path(const std::string& name) const { return (dir_ / name).string(); }
  void Write(const std::string& name, std::string_view text) const { WriteFile(dir_ / name, text); }
  std::string Read(const std::string& name) const { return ReadFile(dir_ / name); }

  CliRun Vigilo(const std::string& args) const { return RunVigilo(Here(), args); }
  CliRun Vigilo(const std::string& args, std::string_view input) const { return RunVigilo(Here(), args, input); }

  std::filesystem::path dir_;

 private:
  Invocation Here() const { return {dir_, "VIGILO_CONTROL=" + Path("control.db"), true}; }
};

// A tiny wink-format model (4 words × 2 dimensions; "a", "the" and "don" make
// every default parity probe embeddable) packed with the system tar as npm
// packs it: the embed and text-build CLI tests import it.
inline constexpr std::string_view kTinyModelJson =
    R"({"precision":8,"l2NormIndex":2,"wordIndex":3,"size":4,"dimensions":2,"words":["a","the","don","cat"],)"
    R"("vectors":{"a":[0.1,0.2,1,0],"the":[0.3,-0.4,1,1],"don":[1,1,1,2],"cat":[0.7,0.1,1,3]},"unkVector":[0,0,-1]})";

// The tarball's path (made once per process).
inline std::string TinyModelTarball() {
  static const std::string path = [] {
    std::filesystem::path dir = ProcessDir() / "tiny-model-pkg";
    std::filesystem::create_directories(dir / "package");
    WriteFile(dir / "package" / "package.json", R"({"name":"wink-tiny","version":"1.0.0","main":"./model.json"})");
    WriteFile(dir / "package" / "model.json", kTinyModelJson);
    std::string tgz = (ProcessDir() / "wink-tiny-1.0.0.tgz").string();
    std::string cmd =
        "tar --format=ustar -czf " + tgz + " -C " + dir.string() + " package/package.json package/model.json";
    if (std::system(cmd.c_str()) != 0) ADD_FAILURE() << cmd;
    return tgz;
  }();
  return path;
}

}  // namespace vigilo::cli_test
