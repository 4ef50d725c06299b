#include "vigilo/store/local_writer.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "vigilo/common/hex.h"
#include "vigilo/common/paths.h"

namespace vigilo::store {
namespace {

Status Errno(const std::string& what, const std::string& path) {
  return IoError(what + " " + path + ": " + std::strerror(errno));
}

void SyncDirectory(const std::filesystem::path& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
}

}  // namespace

LocalObjectWriter::LocalObjectWriter(int fd, std::string tmp, std::string target)
    : fd_(fd), tmp_(std::move(tmp)), target_(std::move(target)) {}

LocalObjectWriter::~LocalObjectWriter() {
  if (fd_ >= 0) ::close(fd_);
  if (!tmp_.empty()) ::unlink(tmp_.c_str());
}

Result<std::unique_ptr<LocalObjectWriter>> LocalObjectWriter::Create(const std::string& root, std::string_view path) {
  VIGILO_RETURN_IF_ERROR(ValidatePublicationPath(path));
  std::filesystem::path target = std::filesystem::path(root) / std::string(path);
  std::error_code ec;
  std::filesystem::create_directories(target.parent_path(), ec);
  if (ec) return IoError("cannot create directory " + target.parent_path().string() + ": " + ec.message());
  if (std::filesystem::exists(target, ec)) return AlreadyExists("object " + target.string() + " already exists");
  // mkstemp picks a unique name (O_EXCL) in the target's directory, so the
  // final link() stays on one filesystem.
  std::string tmp = target.string() + ".tmp-XXXXXX";
  int fd = ::mkostemp(tmp.data(), O_CLOEXEC);
  if (fd < 0) return Errno("cannot create", tmp);
  ::fchmod(fd, 0644);
  return std::unique_ptr<LocalObjectWriter>(new LocalObjectWriter(fd, std::move(tmp), target.string()));
}

Status LocalObjectWriter::Append(std::span<const uint8_t> bytes) {
  if (failed_ || fd_ < 0) return Internal("append to a failed or committed object writer");
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd_, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      failed_ = true;
      return Errno("cannot write", tmp_);
    }
    done += static_cast<size_t>(n);
  }
  hasher_.Update(bytes);
  size_ += bytes.size();
  return Status::Ok();
}

Result<CommittedObject> LocalObjectWriter::Commit() {
  if (failed_ || fd_ < 0) return Internal("commit of a failed or committed object writer");
  if (::fsync(fd_) != 0) return Errno("cannot fsync", tmp_);
  int closed = ::close(fd_);
  fd_ = -1;
  if (closed != 0) return Errno("cannot close", tmp_);
  if (::link(tmp_.c_str(), target_.c_str()) != 0) {
    return errno == EEXIST ? AlreadyExists("object " + target_ + " already exists") : Errno("cannot create", target_);
  }
  ::unlink(tmp_.c_str());
  tmp_.clear();
  SyncDirectory(std::filesystem::path(target_).parent_path());
  VIGILO_ASSIGN_OR_RETURN(auto digest, hasher_.Finalize());
  return CommittedObject{size_, HexEncode(digest)};
}

}  // namespace vigilo::store
