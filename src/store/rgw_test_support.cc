#include "rgw_test_support.h"

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>

#include "vigilo/json/parse.h"

namespace vigilo::store::testing {
namespace {

std::string Script() { return std::string(VIGILO_SOURCE_DIR) + "/scripts/ceph-rgw"; }

// Runs `command` with sh, returning its stdout (stderr goes to `log`).
Result<std::string> Run(const std::string& command, const std::string& log) {
  std::FILE* pipe = ::popen((command + " 2>>" + log).c_str(), "r");
  if (pipe == nullptr) return IoError("cannot run " + command);
  std::string out;
  char buffer[4096];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof(buffer), pipe)) > 0) out.append(buffer, n);
  const int status = ::pclose(pipe);
  if (status != 0) {
    std::ifstream in(log);
    std::stringstream err;
    err << in.rdbuf();
    return IoError(command + " failed (status " + std::to_string(status) + "): " + err.str());
  }
  return out;
}

struct Holder {
  std::unique_ptr<SharedRgw> rgw;
  Status status = Status::Ok();
  std::string base;
  ~Holder() {
    if (base.empty()) return;
    (void)!std::system((Script() + " down " + base + " >/dev/null 2>&1").c_str());
    std::error_code ignored;
    std::filesystem::remove_all(base + "-files", ignored);
  }
};

}  // namespace

Result<SharedRgw*> SharedRgw::Get() {
  static std::mutex mu;
  static Holder holder;
  static bool tried = false;
  std::lock_guard lock(mu);
  if (!tried) {
    tried = true;
    auto rgw = std::unique_ptr<SharedRgw>(new SharedRgw());
    const std::string base =
        (std::filesystem::temp_directory_path() / ("vigilo-rgw-" + std::to_string(::getpid()))).string();
    const std::string files = base + "-files";
    std::filesystem::remove_all(files);
    std::filesystem::create_directories(files);
    holder.base = base;
    const auto start = std::chrono::steady_clock::now();
    Result<std::string> out =
        Run("bash " + Script() + " up " + base + " " + std::to_string(::getpid()), files + "/rgw-up.log");
    if (!out.ok()) {
      holder.status = out.status();
      return holder.status;
    }
    rgw->startup_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::map<std::string, std::string> values;
    std::istringstream lines(*out);
    for (std::string line; std::getline(lines, line);) {
      const size_t eq = line.find('=');
      if (eq != std::string::npos) values[line.substr(0, eq)] = line.substr(eq + 1);
    }
    rgw->base_ = files;
    rgw->endpoint_ = values["endpoint"];
    rgw->region_ = values["region"];
    rgw->bucket_ = values["bucket"];
    rgw->access_key_ = values["access_key"];
    rgw->secret_key_ = values["secret_key"];
    if (rgw->endpoint_.empty() || rgw->secret_key_.empty()) {
      holder.status = IoError("scripts/ceph-rgw printed no endpoint: " + *out);
      return holder.status;
    }
    rgw->credentials_file_ = files + "/credentials";
    {
      std::ofstream file(rgw->credentials_file_, std::ios::trunc);
      file << "[default]\naws_access_key_id = NOTTHISONE\naws_secret_access_key = nope\n\n"
           << "[vigilo]\naws_access_key_id = " << rgw->access_key_ << "\naws_secret_access_key = " << rgw->secret_key_
           << "\n";
    }
    ::chmod(rgw->credentials_file_.c_str(), 0600);
    holder.rgw = std::move(rgw);
  }
  if (!holder.rgw) return holder.status;
  return holder.rgw.get();
}

std::string SharedRgw::FreshPrefix() {
  static std::mutex mu;
  std::lock_guard lock(mu);
  return "t" + std::to_string(::getpid()) + "-" + std::to_string(next_++);
}

std::string SharedRgw::BackendJson() const {
  return R"({"endpoint":")" + endpoint_ + R"(","region":")" + region_ +
         R"(","addressing":"path","credentials":{"source":"file","path":")" + credentials_file_ +
         R"(","profile":"vigilo"}})";
}

StoreEntry SharedRgw::Entry(const std::string& alias, const std::string& prefix, bool writable) const {
  StoreEntry entry;
  entry.alias = alias;
  entry.scheme = "s3";
  entry.url = "s3://" + bucket_ + (prefix.empty() ? "" : "/" + prefix);
  entry.backend = std::move(json::Parse(BackendJson())).value();
  entry.declared.writable = writable;
  entry.declared.conditional_create = writable;
  entry.declared.read_after_create = writable;
  return entry;
}

}  // namespace vigilo::store::testing
