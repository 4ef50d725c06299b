// Parquet footer parsing and page-header decoding on arbitrary bytes.
// Invariants: no crash or sanitizer report; every decode error says where;
// whatever decodes re-encodes to bytes that decode to the same value; a
// parsed footer's metadata validates again and yields in-file chunk ranges.
#include <cstdint>
#include <cstdlib>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "vigilo/parquet/footer.h"
#include "vigilo/parquet/metadata.h"

namespace {

using vigilo::StatusCode;
namespace pq = vigilo::parquet;

void CheckErrorHasOffset(const vigilo::Status& st) {
  if (st.code() == StatusCode::kParseError && !st.offset().has_value()) std::abort();
}

void CheckFooter(const pq::Footer& footer, uint64_t file_size) {
  auto again = pq::EncodeFileMetaData(footer.metadata);
  if (!again.ok()) std::abort();
  auto redecoded = pq::DecodeFileMetaData(*again);
  if (!redecoded.ok() || !(*redecoded == footer.metadata)) std::abort();
  if (!pq::ValidateFileMetaData(footer.metadata, footer.offset).ok()) std::abort();
  if (footer.offset + footer.length + pq::kTrailerSize != file_size) std::abort();
  for (size_t g = 0; g < footer.metadata.row_groups.size(); ++g) {
    std::vector<std::string> names;
    for (const auto& chunk : footer.metadata.row_groups[g].columns) {
      std::string name;
      for (const auto& part : chunk.meta_data->path_in_schema) name += (name.empty() ? "" : ".") + part;
      names.push_back(name);
    }
    auto ranges = pq::ColumnChunkRanges(footer.metadata, g, names);
    // Names may repeat ("a.b" as a path and as one name): only check ranges.
    if (!ranges.ok()) std::abort();
    for (const pq::ByteRange& r : *ranges) {
      if (r.offset < 4 || r.offset + r.length > footer.offset) std::abort();
    }
  }
}

void FuzzFooter(std::span<const uint8_t> bytes) {
  auto whole = pq::ParseFooter(bytes, bytes.size());
  if (whole.ok()) {
    if (const auto* footer = std::get_if<pq::Footer>(&*whole)) CheckFooter(*footer, bytes.size());
  }
  // The same bytes as the tail of a larger file: never reads before the tail.
  uint64_t larger = uint64_t{bytes.size()} + 1000;
  auto tail = pq::ParseFooter(bytes, larger);
  if (tail.ok()) {
    if (const auto* need = std::get_if<pq::NeedMoreBytes>(&*tail)) {
      if (need->tail_bytes <= bytes.size() || need->tail_bytes > larger) std::abort();
    }
  }
}

void FuzzMetaData(std::span<const uint8_t> bytes) {
  pq::DecodeOptions options;
  options.max_decoded_bytes = 64 << 20;
  auto md = pq::DecodeFileMetaData(bytes, options);
  if (!md.ok()) return CheckErrorHasOffset(md.status());
  auto again = pq::EncodeFileMetaData(*md);
  if (!again.ok()) std::abort();
  auto redecoded = pq::DecodeFileMetaData(*again);
  if (!redecoded.ok() || !(*redecoded == *md)) std::abort();
  // Validation must not crash whatever the offsets say.
  (void)pq::ValidateFileMetaData(*md, bytes.size());
}

void FuzzPageHeader(std::span<const uint8_t> bytes) {
  size_t size = 0;
  auto header = pq::DecodePageHeader(bytes, &size);
  if (!header.ok()) return CheckErrorHasOffset(header.status());
  if (size > bytes.size()) std::abort();
  auto again = pq::EncodePageHeader(*header);
  if (!again.ok()) std::abort();
  size_t again_size = 0;
  auto redecoded = pq::DecodePageHeader(*again, &again_size);
  if (!redecoded.ok() || !(*redecoded == *header) || again_size != again->size()) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::span<const uint8_t> bytes(data, size);
  FuzzFooter(bytes);
  FuzzMetaData(bytes);
  FuzzPageHeader(bytes);
  return 0;
}
