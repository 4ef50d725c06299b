// The ordinal interval tree shared by dataset batch lookup and run-plan page
// lookup: `vigilo/ordinal-index/v1` pages and their root descriptor (seed
// 004, "Index Page"). Ranges are half-open [range_start, range_end).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "vigilo/cases/budget.h"
#include "vigilo/cases/document.h"
#include "vigilo/cases/object_io.h"
#include "vigilo/cases/object_ref.h"

namespace vigilo::cases {

enum class IndexKind { kDatasetBatches, kRunChunks };
std::string_view IndexKindName(IndexKind kind);

// The seed's defaults: fan-out 256 entries, 1 MiB per page, height 8.
struct IndexLimits {
  uint64_t max_entries = budget_bounds::kDefaultPageEntries;
  uint64_t max_page_bytes = budget_bounds::kDefaultPageBytes;
  int32_t max_height = static_cast<int32_t>(budget_bounds::kDefaultIndexHeight);  // index pages on a root-to-leaf path
};

struct IndexEntry {
  int32_t range_start = 0;
  int32_t range_end = 0;
  ObjectRef object;
  friend bool operator==(const IndexEntry&, const IndexEntry&) = default;
};

// The single descriptor a dataset or run root holds for its index.
struct IndexRootDescriptor {
  int32_t level = 0;
  int32_t range_start = 0;
  int32_t range_end = 0;
  ObjectRef object;  // the root index page

  static Result<IndexRootDescriptor> FromJson(const json::Value& value, const std::string& path);
  json::Value ToJson() const;
  // Level within the height limit, nonempty range, reference to an index page.
  Status Validate(const IndexLimits& limits) const;
  friend bool operator==(const IndexRootDescriptor&, const IndexRootDescriptor&) = default;
};

class OrdinalIndexPage final : public StorageDocument {
 public:
  IndexKind kind = IndexKind::kDatasetBatches;
  int32_t level = 0;
  int32_t range_start = 0;
  int32_t range_end = 0;
  std::vector<IndexEntry> entries;

  static Result<OrdinalIndexPage> Decode(const VerifiedObject& object);
  static Result<OrdinalIndexPage> FromJson(const json::Value& value);

  StorageFormat format() const override { return StorageFormat::kOrdinalIndex; }
  // Nonempty, sorted, adjacent entries whose union is the page range; each
  // entry references the schema its kind and level require.
  Status Validate() const override;
  // Validate() plus the entry-count limit.
  Status ValidateWithin(const IndexLimits& limits) const;
  json::Value ToJson() const override;

  // The entry whose range holds `ordinal`, or NotFound.
  Result<const IndexEntry*> Find(int32_t ordinal) const;
};

// What a parent requires of a child page it references: same kind, one level
// down, exactly the entry's range.
Status CheckChild(const OrdinalIndexPage& parent, const IndexEntry& entry, const OrdinalIndexPage& child);

// Builds the tree bottom-up in one streaming pass over the leaf entries: it
// holds at most one open page per level (never every descriptor), closes a
// page at max_entries or when one more entry would exceed max_page_bytes,
// and fails rather than exceed max_height.
class OrdinalIndexBuilder {
 public:
  // Pages are written as `<key_prefix>L<level>/<start>-<end>.json`.
  OrdinalIndexBuilder(IndexKind kind, std::string key_prefix, IndexLimits limits, ObjectSink sink);

  // Leaf entries must be adjacent and in order, starting at the first's range_start.
  Status Add(IndexEntry leaf);
  Result<IndexRootDescriptor> Finish();

 private:
  struct Open {
    std::vector<IndexEntry> entries;
  };
  Status AddAt(size_t level, IndexEntry entry);
  Result<IndexEntry> Close(size_t level);
  Result<std::string> Encode(size_t level, const std::vector<IndexEntry>& entries) const;

  IndexKind kind_;
  std::string key_prefix_;
  IndexLimits limits_;
  ObjectSink sink_;
  std::vector<Open> levels_;
  std::optional<int32_t> next_start_;
  bool finished_ = false;
};

// Walks root to leaf for `ordinal`, verifying each page against its parent,
// and returns the leaf entry (a case batch or run-chunk page reference).
// Fetches the page a parent entry (or root descriptor) names and checks it
// against that parent: the byte cap before fetching, the verified reference,
// strict decode, ValidateWithin(limits), the kind, the level and the range.
Result<OrdinalIndexPage> FetchChildPage(const IndexEntry& expected, int32_t level, IndexKind kind,
                                        const IndexLimits& limits, const ObjectFetch& fetch);

Result<IndexEntry> LookupOrdinal(const IndexRootDescriptor& root, IndexKind kind, int32_t ordinal,
                                 const IndexLimits& limits, const ObjectFetch& fetch);

}  // namespace vigilo::cases
