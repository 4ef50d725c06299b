#include "rgw_test_support.h"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>

#include "script_server_testing.h"
#include "vigilo/json/parse.h"

namespace vigilo::store::testing {
namespace {

// Its scratch files (the credentials file), removed at exit; the server
// itself is stopped by script_server_testing.
struct Holder {
  std::unique_ptr<SharedRgw> rgw;
  Status status = Status::Ok();
  std::string files;
  ~Holder() {
    if (files.empty()) return;
    std::error_code ignored;
    std::filesystem::remove_all(files, ignored);
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
    Result<ScriptServer> server = StartScriptServer("scripts/ceph-rgw", "rgw");
    if (!server.ok()) {
      holder.status = server.status();
      return holder.status;
    }
    const std::string files = server->base + "-files";
    std::filesystem::remove_all(files);
    std::filesystem::create_directories(files);
    holder.files = files;
    rgw->startup_seconds_ = server->startup_seconds;
    std::map<std::string, std::string>& values = server->values;
    rgw->base_ = files;
    rgw->endpoint_ = values["endpoint"];
    rgw->region_ = values["region"];
    rgw->bucket_ = values["bucket"];
    rgw->access_key_ = values["access_key"];
    rgw->secret_key_ = values["secret_key"];
    if (rgw->endpoint_.empty() || rgw->secret_key_.empty()) {
      holder.status = IoError("scripts/ceph-rgw printed no endpoint");
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
