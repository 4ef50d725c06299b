#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "vigilo/ivf/query.h"

namespace vigilo::ivf {

Result<QueryResult> RunQuery(PublicationReader& reader, ObjectReader& objects, std::vector<std::vector<float>> queries,
                             QueryOptions options) {
  VIGILO_ASSIGN_OR_RETURN(auto run, QueryRun::Start(reader, std::move(queries), options));
  while (!run->done()) {
    std::vector<std::vector<uint8_t>> bytes;
    for (const ObjectRange& r : run->requests()) {
      VIGILO_ASSIGN_OR_RETURN(std::vector<uint8_t> b, objects.Read(r.path, r.offset, r.length));
      bytes.push_back(std::move(b));
    }
    VIGILO_RETURN_IF_ERROR(run->Supply(std::move(bytes)));
  }
  return run->result();
}

struct MappedPublication::Mapping {
  const uint8_t* data = nullptr;
  size_t size = 0;
  ~Mapping() {
    if (size > 0) ::munmap(const_cast<uint8_t*>(data), size);
  }
};

MappedPublication::MappedPublication(std::string root) : root_(std::move(root)) {}
MappedPublication::~MappedPublication() = default;

Result<std::span<const uint8_t>> MappedPublication::View(const std::string& path, uint64_t offset, uint64_t length) {
  auto it = mapped_.find(path);
  if (it == mapped_.end()) {
    std::string full = (std::filesystem::path(root_) / path).string();
    int fd = ::open(full.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return NotFound(std::string("cannot open object: ") + std::strerror(errno)).WithPath(path);
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
      int e = errno;
      ::close(fd);
      return IoError(std::string("cannot stat object: ") + std::strerror(e)).WithPath(path);
    }
    auto m = std::make_unique<Mapping>();
    if (st.st_size > 0) {
      void* p = ::mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_SHARED, fd, 0);
      if (p == MAP_FAILED) {
        int e = errno;
        ::close(fd);
        return IoError(std::string("cannot map object: ") + std::strerror(e)).WithPath(path);
      }
      m->data = static_cast<const uint8_t*>(p);
      m->size = static_cast<size_t>(st.st_size);
    }
    ::close(fd);
    it = mapped_.emplace(path, std::move(m)).first;
  }
  const Mapping& m = *it->second;
  if (offset > m.size || length > m.size - offset) {
    return OutOfRange("range [" + std::to_string(offset) + ", +" + std::to_string(length) + ") is past the object's " +
                      std::to_string(m.size) + " bytes")
        .WithPath(path);
  }
  return std::span<const uint8_t>(m.data + offset, static_cast<size_t>(length));
}

Result<QueryResult> RunQuery(PublicationReader& reader, MappedPublication& objects,
                             std::vector<std::vector<float>> queries, QueryOptions options) {
  VIGILO_ASSIGN_OR_RETURN(auto run, QueryRun::Start(reader, std::move(queries), options));
  std::vector<std::span<const uint8_t>> views;
  while (!run->done()) {
    views.clear();
    for (const ObjectRange& r : run->requests()) {
      VIGILO_ASSIGN_OR_RETURN(std::span<const uint8_t> v, objects.View(r.path, r.offset, r.length));
      views.push_back(v);
    }
    VIGILO_RETURN_IF_ERROR(run->Supply(std::span<const std::span<const uint8_t>>(views)));
  }
  return run->result();
}

}  // namespace vigilo::ivf
