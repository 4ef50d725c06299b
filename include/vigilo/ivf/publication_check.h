// Validation levels 2 and 3 of publication-v1.md §6: with the objects at
// hand, each Parquet object's size, footer, schema, row groups and CID
// statistics (footers), and optionally every object's SHA-256 and the value
// rules that need the data (deep). The caller supplies the I/O.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vigilo/common/result.h"
#include "vigilo/ivf/manifest.h"
#include "vigilo/parquet/footer.h"

namespace vigilo::ivf {

// Byte access to a publication's objects by manifest path: a directory, or
// HTTP range requests later.
class ObjectReader {
 public:
  virtual ~ObjectReader() = default;
  virtual Result<uint64_t> Size(const std::string& path) = 0;
  // Exactly [offset, offset + length).
  virtual Result<std::vector<uint8_t>> Read(const std::string& path, uint64_t offset, uint64_t length) = 0;
};

// Objects as files below a directory (the manifest's).
class DirectoryObjectReader final : public ObjectReader {
 public:
  explicit DirectoryObjectReader(std::string root) : root_(std::move(root)) {}
  Result<uint64_t> Size(const std::string& path) override;
  Result<std::vector<uint8_t>> Read(const std::string& path, uint64_t offset, uint64_t length) override;

 private:
  std::string root_;
};

struct ObjectCheckReport {
  uint64_t objects = 0;
  uint64_t row_groups = 0;
  uint64_t bytes_read = 0;
};

// The footer of a Parquet object: its size must equal the descriptor's
// (IntegrityError), then one speculative 64 KiB tail read, and a second read
// only for a larger footer. Adds the bytes read to *bytes_read if given.
Result<parquet::Footer> ReadObjectFooter(ObjectReader& reader, const ObjectDescriptor& object, uint64_t* bytes_read);

// The single CID a postings row group holds, from its cid chunk's exact
// min = max statistics (publication-v1.md P-POS-03/04); InvalidFormat at
// `where` otherwise.
Result<int32_t> PostingsRowGroupCid(const parquet::RowGroup& row_group, const std::string& where);

// Errors name the object (and row group: "<path>: row group 3"):
// IntegrityError for a size or SHA-256 that differs from the manifest,
// ParseError for a broken footer, InvalidFormat for a rule of §3.
Result<ObjectCheckReport> CheckPublicationObjects(const Manifest& manifest, ObjectReader& reader, bool deep);

}  // namespace vigilo::ivf
