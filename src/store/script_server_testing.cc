#include "script_server_testing.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <sstream>
#include <vector>

namespace vigilo::store::testing {
namespace {

// Runs `command` with sh, returning its stdout; its stderr is in the error.
Result<std::string> Run(const std::string& command, const std::string& log) {
  std::FILE* pipe = ::popen((command + " 2>" + log).c_str(), "r");
  if (pipe == nullptr) return IoError("cannot run " + command);
  std::string out;
  char buffer[4096];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof(buffer), pipe)) > 0) out.append(buffer, n);
  const int status = ::pclose(pipe);
  std::string err;
  if (std::FILE* f = std::fopen(log.c_str(), "r")) {
    while ((n = std::fread(buffer, 1, sizeof(buffer), f)) > 0) err.append(buffer, n);
    std::fclose(f);
  }
  std::remove(log.c_str());
  if (status != 0) return IoError(command + " failed (status " + std::to_string(status) + "): " + err);
  return out;
}

// The servers this process started, stopped when it exits.
class Started {
 public:
  void Add(std::string command) {
    std::lock_guard lock(mu_);
    downs_.push_back(std::move(command));
  }
  ~Started() {
    if (::getpid() != owner_) return;
    for (const std::string& down : downs_) (void)!std::system((down + " >/dev/null 2>&1").c_str());
  }

 private:
  std::mutex mu_;
  std::vector<std::string> downs_;
  pid_t owner_ = ::getpid();
};

Started& StartedServers() {
  static Started started;
  return started;
}

std::string PathOf(const std::string& script) { return std::string(VIGILO_SOURCE_DIR) + "/" + script; }

}  // namespace

Result<ScriptServer> StartScriptServer(const std::string& script, const std::string& name) {
  const std::string path = PathOf(script);
  const std::string pid = std::to_string(::getpid());
  ScriptServer server;
  server.base = (std::filesystem::temp_directory_path() / ("vigilo-" + name + "-" + pid)).string();
  StartedServers().Add("bash " + path + " down " + server.base);  // also after a failed start
  const auto start = std::chrono::steady_clock::now();
  VIGILO_ASSIGN_OR_RETURN(std::string out, Run("bash " + path + " up " + server.base + " " + pid, server.base + ".log"));
  server.startup_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    const size_t eq = line.find('=');
    if (eq != std::string::npos) server.values[line.substr(0, eq)] = line.substr(eq + 1);
  }
  return server;
}

Result<std::string> RunScript(const std::string& script, const std::string& args) {
  const std::string log = (std::filesystem::temp_directory_path() /
                           ("vigilo-script-" + std::to_string(::getpid()) + ".log"))
                              .string();
  return Run("bash " + PathOf(script) + " " + args, log);
}

}  // namespace vigilo::store::testing
