// Local directories a build creates (private to src/ivf): the scratch
// directory and, for a local publication, the output directory and the
// object directories the local store makes. A failed build removes the ones
// it created that are left empty, so a retry starts from what was there
// before; a directory that existed before the build is never removed.
#pragma once

#include <filesystem>
#include <memory>
#include <vector>

#include "vigilo/common/result.h"
#include "vigilo/store/forwarding_store.h"
#include "vigilo/store/object_store.h"

namespace vigilo::ivf {

class CreatedDirectories {
 public:
  // Records `dir` and each of its ancestors that does not exist yet (called
  // before something creates them).
  void Note(const std::filesystem::path& dir);
  // create_directories(dir), recording the directories it creates.
  Status Create(const std::filesystem::path& dir);
  // Removes every recorded directory that exists and is empty, deepest first.
  void RemoveEmpty();

 private:
  std::vector<std::filesystem::path> created_;
};

// A private, freshly created scratch directory `.vigilo-build-<pid>-<n>`
// below `base` (spill files are appended to, so a leftover directory must
// never be reused); removed with everything in it on destruction.
class ScratchDir {
 public:
  static Result<std::unique_ptr<ScratchDir>> Create(const std::filesystem::path& base);
  // Below `base` (empty: the temporary directory), creating `base` and its
  // missing parents first; those it created go too, when left empty.
  static Result<std::unique_ptr<ScratchDir>> CreateBelow(const std::string& base);
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  explicit ScratchDir(std::filesystem::path path) : path_(std::move(path)) {}
  std::filesystem::path path_;
  CreatedDirectories parents_;  // CreateBelow's
};

// Removes what builds that died (kill -9, a crash, a power cut) left in the
// local directory `dir`: their scratch directories `.vigilo-build-<pid>-<n>`
// directly in it and, with `temporaries`, the local store's unfinished
// temporary files `.<name>.tmp-<pid>-<hex>` anywhere below it (a few levels:
// a publication's layout). Only names whose process <pid> no longer exists
// on this host go, so a build still running into `dir` is left alone.
// Returns how many entries it removed; errors are ignored (best effort).
uint64_t RemoveDeadBuildLeftovers(const std::filesystem::path& dir, bool temporaries);

// Forwards every call to a local store rooted at `root` (reads, batches
// included, pass straight through), first noting in `dirs` the directories a
// create is about to make for its key.
class DirectoryNotingStore final : public store::ForwardingStore {
 public:
  DirectoryNotingStore(store::ObjectStore& inner, std::filesystem::path root, CreatedDirectories& dirs)
      : ForwardingStore(inner), root_(std::move(root)), dirs_(dirs) {}
  Result<store::CreateResult> CreateIfAbsent(std::string_view key, std::span<const uint8_t> bytes,
                                             const store::AttemptContext* attempt = nullptr) override {
    dirs_.Note((root_ / key).parent_path());
    return inner().CreateIfAbsent(key, bytes, attempt);
  }
  Result<std::unique_ptr<store::ObjectWriter>> BeginCreate(std::string_view key,
                                                            const store::AttemptContext* attempt = nullptr) override {
    dirs_.Note((root_ / key).parent_path());
    return inner().BeginCreate(key, attempt);
  }

 private:
  std::filesystem::path root_;
  CreatedDirectories& dirs_;
};

}  // namespace vigilo::ivf
