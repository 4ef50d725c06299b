// Runs the real `vigilo` binary: exact stdout bytes, stderr text and exit statuses.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "exit_codes.h"

namespace vigilo::cli {
namespace {

struct CliRun {
  int exit_code;
  std::string out;
  std::string err;
};

std::string TempPath(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / ("vigilo_cli_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return (dir / name).string();
}

void WriteFile(const std::string& path, std::string_view data) {
  std::ofstream f(path, std::ios::binary);
  f.write(data.data(), static_cast<std::streamsize>(data.size()));
}

std::string ReadFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

// Runs `vigilo ARGS` with `input` on stdin.
CliRun Vigilo(const std::string& args, std::string_view input = "") {
  std::string in = TempPath("stdin"), out = TempPath("stdout"), err = TempPath("stderr");
  WriteFile(in, input);
  std::string cmd = std::string(VIGILO_BIN) + " " + args + " <" + in + " >" + out + " 2>" + err;
  int status = std::system(cmd.c_str());
  return CliRun{WIFEXITED(status) ? WEXITSTATUS(status) : -1, ReadFile(out), ReadFile(err)};
}

TEST(CliTest, Version) {
  CliRun r = Vigilo("version");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out.rfind("vigilo ", 0), 0u);
}

TEST(CliTest, JsonCanonWritesExactBytes) {
  CliRun r = Vigilo("json canon", " {\"b\": [1E2, -0, \"\\u00e9\"], \"a\": null}\n");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "{\"a\":null,\"b\":[100.0,-0.0,\"\xc3\xa9\"]}");
  std::string file = TempPath("doc.json");
  WriteFile(file, "[1.5e300,1e-7]");
  EXPECT_EQ(Vigilo("json canon " + file).out, "[1.5e300,1e-7]");
}

TEST(CliTest, JsonCanonErrorsHaveCodeOffsetAndExitStatus) {
  CliRun dup = Vigilo("json canon", "{\"a\":1,\"a\":2}");
  EXPECT_EQ(dup.exit_code, 3);
  EXPECT_EQ(dup.out, "");
  EXPECT_EQ(dup.err, "vigilo: parse_error: duplicate object key \"a\" (at byte 7)\n");
  CliRun deep = Vigilo("json canon", std::string(200, '['));
  EXPECT_EQ(deep.exit_code, 7);
  CliRun big = Vigilo("json canon --max-bytes 3", "[1,2]");
  EXPECT_EQ(big.exit_code, 7);
  EXPECT_NE(big.err.find("limit_exceeded"), std::string::npos);
  CliRun missing = Vigilo("json canon /nonexistent/file.json");
  EXPECT_EQ(missing.exit_code, 8);
  EXPECT_NE(missing.err.find("not_found"), std::string::npos);
}

TEST(CliTest, JsonCheck) {
  EXPECT_EQ(Vigilo("json check", "{\"a\":[1,2.0]}").exit_code, 0);
  CliRun r = Vigilo("json check", "{\"a\": 1}");
  EXPECT_EQ(r.exit_code, 5);
  EXPECT_NE(r.err.find("not_canonical"), std::string::npos);
  EXPECT_NE(r.err.find("(at byte 5)"), std::string::npos);
  EXPECT_EQ(Vigilo("json check", "{\"a\":1}\n").exit_code, 5);  // trailing LF is not canonical
  EXPECT_EQ(Vigilo("json check", "{").exit_code, 3);
}

TEST(CliTest, HashMatchesReferenceTools) {
  std::string file = TempPath("abc.txt");
  WriteFile(file, "abc");
  CliRun b3 = Vigilo("hash --blake3 " + file);
  EXPECT_EQ(b3.exit_code, 0) << b3.err;
  EXPECT_EQ(b3.out, "6437b3ac38465133ffb63b75273a8db548c558465d79db03fd359c6cd5bd9d85  " + file + "\n");
  EXPECT_EQ(Vigilo("hash " + file).out, b3.out);  // BLAKE3 is the default
  CliRun sha = Vigilo("hash --sha256 " + file);
  EXPECT_EQ(sha.out, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad  " + file + "\n");
  CliRun stdin_hash = Vigilo("hash -", "abc");
  EXPECT_EQ(stdin_hash.out, "6437b3ac38465133ffb63b75273a8db548c558465d79db03fd359c6cd5bd9d85  -\n");
  CliRun missing = Vigilo("hash /nonexistent");
  EXPECT_EQ(missing.exit_code, 8);
}

TEST(CliTest, UsageErrors) {
  EXPECT_EQ(Vigilo("").exit_code, kExitUsage);
  EXPECT_EQ(Vigilo("frobnicate").exit_code, kExitUsage);
  EXPECT_EQ(Vigilo("hash --sha256 --blake3 x").exit_code, kExitUsage);
  EXPECT_EQ(Vigilo("json").exit_code, kExitUsage);
}

TEST(ExitCodeTest, TableIsStable) {
  EXPECT_EQ(ExitCodeFor(Status::Ok()), 0);
  EXPECT_EQ(ExitCodeFor(InvalidArgument("")), 2);
  EXPECT_EQ(ExitCodeFor(ParseError("")), 3);
  EXPECT_EQ(ExitCodeFor(InvalidFormat("")), 4);
  EXPECT_EQ(ExitCodeFor(NotCanonical("")), 5);
  EXPECT_EQ(ExitCodeFor(IntegrityError("")), 6);
  EXPECT_EQ(ExitCodeFor(LimitExceeded("")), 7);
  EXPECT_EQ(ExitCodeFor(OutOfRange("")), 7);
  EXPECT_EQ(ExitCodeFor(NotFound("")), 8);
  EXPECT_EQ(ExitCodeFor(AlreadyExists("")), 9);
  EXPECT_EQ(ExitCodeFor(IoError("")), 10);
  EXPECT_EQ(ExitCodeFor(Fenced("")), 11);
  EXPECT_EQ(ExitCodeFor(Unimplemented("")), 12);
  EXPECT_EQ(ExitCodeFor(Internal("")), 1);
}

}  // namespace
}  // namespace vigilo::cli
