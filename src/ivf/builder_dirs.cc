#include "builder_dirs.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <optional>
#include <string>
#include <string_view>

namespace vigilo::ivf {
namespace {

constexpr std::string_view kScratchPrefix = ".vigilo-build-";

// The decimal number at the start of `s`, and the rest after it.
std::optional<std::pair<long, std::string_view>> LeadingNumber(std::string_view s) {
  long value = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || end == s.data()) return std::nullopt;
  return std::make_pair(value, s.substr(static_cast<size_t>(end - s.data())));
}

// `.vigilo-build-<pid>-<n>` → pid.
std::optional<long> ScratchPid(std::string_view name) {
  if (!name.starts_with(kScratchPrefix)) return std::nullopt;
  auto pid = LeadingNumber(name.substr(kScratchPrefix.size()));
  if (!pid || !pid->second.starts_with('-')) return std::nullopt;
  auto n = LeadingNumber(pid->second.substr(1));
  if (!n || !n->second.empty()) return std::nullopt;
  return pid->first;
}

// The local store's temporary name `.<name>.tmp-<pid>-<hex>` (store/local_store.cc) → pid.
std::optional<long> TemporaryPid(std::string_view name) {
  const size_t at = name.rfind(".tmp-");
  if (!name.starts_with('.') || at == std::string_view::npos || at < 2) return std::nullopt;
  auto pid = LeadingNumber(name.substr(at + 5));
  if (!pid || !pid->second.starts_with('-') || pid->second.size() < 2) return std::nullopt;
  for (char c : pid->second.substr(1)) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return std::nullopt;
  }
  return pid->first;
}

// Only a process that certainly is gone: kill(pid, 0) fails with ESRCH.
bool ProcessGone(long pid) {
  if (pid <= 1 || pid == static_cast<long>(::getpid())) return false;
  return ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
}

}  // namespace

uint64_t RemoveDeadBuildLeftovers(const std::filesystem::path& dir, bool temporaries) {
  namespace fs = std::filesystem;
  uint64_t removed = 0;
  std::error_code ec;
  std::vector<fs::path> doomed;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    auto pid = ScratchPid(it->path().filename().native());
    if (pid && it->is_directory(ec) && !it->is_symlink(ec) && ProcessGone(*pid)) doomed.push_back(it->path());
  }
  for (const fs::path& p : doomed) {
    if (fs::remove_all(p, ec) != static_cast<std::uintmax_t>(-1) && !ec) ++removed;
  }
  if (!temporaries) return removed;
  doomed.clear();
  ec.clear();
  // A publication's objects sit at most a few directories deep (postings/, source/, embedding/…).
  constexpr int kMaxDepth = 4;
  fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    if (it.depth() >= kMaxDepth) it.disable_recursion_pending();
    const std::string name = it->path().filename().native();
    if (ScratchPid(name)) it.disable_recursion_pending();  // a live build's scratch (dead ones are gone)
    auto pid = TemporaryPid(name);
    if (pid && it->is_regular_file(ec) && ProcessGone(*pid)) doomed.push_back(it->path());
  }
  for (const fs::path& p : doomed) {
    if (fs::remove(p, ec) && !ec) ++removed;
  }
  return removed;
}

void CreatedDirectories::Note(const std::filesystem::path& dir) {
  std::error_code ec;
  for (std::filesystem::path p = dir; !p.empty() && !std::filesystem::exists(p, ec) && !ec; p = p.parent_path()) {
    if (std::find(created_.begin(), created_.end(), p) == created_.end()) created_.push_back(p);
    if (p == p.parent_path()) break;
  }
}

Status CreatedDirectories::Create(const std::filesystem::path& dir) {
  Note(dir);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return IoError("cannot create directory: " + ec.message()).WithPath(dir.string());
  return Status::Ok();
}

void CreatedDirectories::RemoveEmpty() {
  // A directory's path is longer than its parent's: longest first is deepest first.
  std::sort(created_.begin(), created_.end(), [](const std::filesystem::path& a, const std::filesystem::path& b) {
    return a.native().size() > b.native().size();
  });
  for (const std::filesystem::path& p : created_) {
    std::error_code ec;
    if (std::filesystem::is_directory(p, ec) && std::filesystem::is_empty(p, ec) && !ec) {
      std::filesystem::remove(p, ec);
    }
  }
  created_.clear();
}

Result<std::unique_ptr<ScratchDir>> ScratchDir::Create(const std::filesystem::path& base) {
  RemoveDeadBuildLeftovers(base, /*temporaries=*/false);
  const std::string prefix = ".vigilo-build-" + std::to_string(::getpid()) + "-";
  for (int n = 0; n < 1000; ++n) {
    std::filesystem::path path = base / (prefix + std::to_string(n));
    std::error_code ec;
    if (std::filesystem::create_directory(path, ec)) return std::unique_ptr<ScratchDir>(new ScratchDir(path));
    if (ec) return IoError("cannot create scratch directory: " + ec.message()).WithPath(path.string());
  }
  return IoError("no free scratch directory name").WithPath((base / prefix).string());
}

Result<std::unique_ptr<ScratchDir>> ScratchDir::CreateBelow(const std::string& base) {
  const std::filesystem::path dir = base.empty() ? std::filesystem::temp_directory_path() : std::filesystem::path(base);
  CreatedDirectories parents;
  if (Status s = parents.Create(dir); !s.ok()) {
    parents.RemoveEmpty();
    return s;
  }
  auto scratch = Create(dir);
  if (!scratch.ok()) {
    parents.RemoveEmpty();
    return scratch.status();
  }
  (*scratch)->parents_ = std::move(parents);
  return scratch;
}

ScratchDir::~ScratchDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
  parents_.RemoveEmpty();
}

}  // namespace vigilo::ivf
