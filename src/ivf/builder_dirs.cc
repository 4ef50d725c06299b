#include "builder_dirs.h"

#include <unistd.h>

#include <algorithm>
#include <string>

namespace vigilo::ivf {

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
