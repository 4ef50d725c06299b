#include "vigilo/cases/ordinal_index.h"

#include <algorithm>
#include <cstdio>

#include "vigilo/common/checked.h"
#include "vigilo/json/write.h"

namespace vigilo::cases {
namespace {

// Which schema an entry must reference at `level` of an index of `kind`.
StorageFormat ChildFormat(IndexKind kind, int32_t level) {
  if (level > 0) return StorageFormat::kOrdinalIndex;
  return kind == IndexKind::kDatasetBatches ? StorageFormat::kCaseBatch : StorageFormat::kRunChunks;
}

Result<IndexKind> ParseKind(const std::string& name, const std::string& path) {
  if (name == "dataset-batches") return IndexKind::kDatasetBatches;
  if (name == "run-chunks") return IndexKind::kRunChunks;
  return InvalidFormat("kind must be \"dataset-batches\" or \"run-chunks\", got \"" + name + "\"").WithPath(path);
}

Result<IndexEntry> EntryFromJson(const json::Value& value, const std::string& path) {
  VIGILO_ASSIGN_OR_RETURN(Fields f, Fields::Of(value, path));
  VIGILO_RETURN_IF_ERROR(f.ExpectExactly({"object", "range_end", "range_start"}));
  IndexEntry e;
  VIGILO_ASSIGN_OR_RETURN(int64_t start, f.Int("range_start", 0, kMaxInt32));
  VIGILO_ASSIGN_OR_RETURN(int64_t end, f.Int("range_end", 0, kMaxInt32));
  e.range_start = static_cast<int32_t>(start);
  e.range_end = static_cast<int32_t>(end);
  VIGILO_ASSIGN_OR_RETURN(const json::Value* object, f.Get("object"));
  VIGILO_ASSIGN_OR_RETURN(e.object, ObjectRef::FromJson(*object, f.PathOf("object")));
  return e;
}

json::Value EntryToJson(const IndexEntry& e) {
  json::Object o;
  o.Set("object", e.object.ToJson());
  o.Set("range_end", json::Value::Int(e.range_end));
  o.Set("range_start", json::Value::Int(e.range_start));
  return json::Value(std::move(o));
}

std::string Padded(int32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%010d", v);
  return buf;
}

}  // namespace

std::string_view IndexKindName(IndexKind kind) {
  return kind == IndexKind::kDatasetBatches ? "dataset-batches" : "run-chunks";
}

Result<IndexRootDescriptor> IndexRootDescriptor::FromJson(const json::Value& value, const std::string& path) {
  VIGILO_ASSIGN_OR_RETURN(Fields f, Fields::Of(value, path));
  VIGILO_RETURN_IF_ERROR(f.ExpectExactly({"level", "object", "range_end", "range_start"}));
  IndexRootDescriptor d;
  VIGILO_ASSIGN_OR_RETURN(int64_t level, f.Int("level", 0, kMaxInt32));
  VIGILO_ASSIGN_OR_RETURN(int64_t start, f.Int("range_start", 0, kMaxInt32));
  VIGILO_ASSIGN_OR_RETURN(int64_t end, f.Int("range_end", 0, kMaxInt32));
  d.level = static_cast<int32_t>(level);
  d.range_start = static_cast<int32_t>(start);
  d.range_end = static_cast<int32_t>(end);
  VIGILO_ASSIGN_OR_RETURN(const json::Value* object, f.Get("object"));
  VIGILO_ASSIGN_OR_RETURN(d.object, ObjectRef::FromJson(*object, f.PathOf("object")));
  if (d.range_end <= d.range_start) {
    return InvalidFormat("range_end must be greater than range_start").WithPath(f.PathOf("range_end"));
  }
  if (d.object.schema != StorageFormat::kOrdinalIndex) {
    return InvalidFormat("an index root must reference a vigilo/ordinal-index/v1 page")
        .WithPath(f.PathOf("object") + ".schema");
  }
  return d;
}

json::Value IndexRootDescriptor::ToJson() const {
  json::Object o;
  o.Set("level", json::Value::Int(level));
  o.Set("object", object.ToJson());
  o.Set("range_end", json::Value::Int(range_end));
  o.Set("range_start", json::Value::Int(range_start));
  return json::Value(std::move(o));
}

Status IndexRootDescriptor::Validate(const IndexLimits& limits) const {
  if (level < 0 || level >= limits.max_height) {
    return LimitExceeded("index level " + std::to_string(level) + " needs more than the height limit of " +
                         std::to_string(limits.max_height) + " pages")
        .WithPath(".level");
  }
  if (range_start < 0 || range_end <= range_start) return InvalidFormat("empty or negative range").WithPath(".range_end");
  if (object.schema != StorageFormat::kOrdinalIndex) {
    return InvalidFormat("an index root must reference a vigilo/ordinal-index/v1 page").WithPath(".object.schema");
  }
  return object.Validate();
}

Result<OrdinalIndexPage> OrdinalIndexPage::FromJson(const json::Value& value) {
  VIGILO_ASSIGN_OR_RETURN(Fields f, Fields::Of(value, "$"));
  VIGILO_RETURN_IF_ERROR(f.ExpectExactly({"entries", "kind", "level", "range_end", "range_start", "schema"}));
  VIGILO_RETURN_IF_ERROR(ExpectSchema(f, StorageFormat::kOrdinalIndex));
  OrdinalIndexPage page;
  VIGILO_ASSIGN_OR_RETURN(std::string kind, f.String("kind"));
  VIGILO_ASSIGN_OR_RETURN(page.kind, ParseKind(kind, f.PathOf("kind")));
  VIGILO_ASSIGN_OR_RETURN(int64_t level, f.Int("level", 0, kMaxInt32));
  VIGILO_ASSIGN_OR_RETURN(int64_t start, f.Int("range_start", 0, kMaxInt32));
  VIGILO_ASSIGN_OR_RETURN(int64_t end, f.Int("range_end", 0, kMaxInt32));
  page.level = static_cast<int32_t>(level);
  page.range_start = static_cast<int32_t>(start);
  page.range_end = static_cast<int32_t>(end);
  VIGILO_ASSIGN_OR_RETURN(const json::Array* entries, f.Array("entries"));
  page.entries.reserve(entries->size());
  for (size_t i = 0; i < entries->size(); ++i) {
    VIGILO_ASSIGN_OR_RETURN(IndexEntry e, EntryFromJson((*entries)[i], f.PathOf("entries") + "[" + std::to_string(i) + "]"));
    page.entries.push_back(std::move(e));
  }
  VIGILO_RETURN_IF_ERROR(page.Validate());
  return page;
}

Result<OrdinalIndexPage> OrdinalIndexPage::Decode(const VerifiedObject& object) {
  VIGILO_ASSIGN_OR_RETURN(json::Value value, DecodeDocumentJson(object, StorageFormat::kOrdinalIndex));
  auto page = FromJson(value);
  if (!page.ok()) return std::move(page).take_status().PrependPath(object.ref().key + ": ");
  return page;
}

Status OrdinalIndexPage::Validate() const {
  if (level < 0) return OutOfRange("level must be non-negative").WithPath("$.level");
  if (range_end <= range_start) return InvalidFormat("range_end must be greater than range_start").WithPath("$.range_end");
  if (entries.empty()) return InvalidFormat("an index page needs at least one entry").WithPath("$.entries");
  int32_t expect = range_start;
  StorageFormat child = ChildFormat(kind, level);
  for (size_t i = 0; i < entries.size(); ++i) {
    const IndexEntry& e = entries[i];
    std::string path = "$.entries[" + std::to_string(i) + "]";
    if (e.range_start != expect) {
      return InvalidFormat(e.range_start < expect ? "entry overlaps the previous one" : "gap before this entry")
          .WithPath(path + ".range_start");
    }
    if (e.range_end <= e.range_start) return InvalidFormat("empty entry range").WithPath(path + ".range_end");
    if (e.object.schema != child) {
      return InvalidFormat("a level-" + std::to_string(level) + " " + std::string(IndexKindName(kind)) +
                           " entry must reference " + std::string(StorageFormatId(child)))
          .WithPath(path + ".object.schema");
    }
    if (Status s = e.object.Validate(); !s.ok()) return std::move(s).PrependPath(path + ".object");
    expect = e.range_end;
  }
  if (expect != range_end) {
    return InvalidFormat("entries end at " + std::to_string(expect) + ", not at the page's range_end " +
                         std::to_string(range_end))
        .WithPath("$.range_end");
  }
  return Status::Ok();
}

Status OrdinalIndexPage::ValidateWithin(const IndexLimits& limits) const {
  VIGILO_RETURN_IF_ERROR(Validate());
  if (entries.size() > limits.max_entries) {
    return LimitExceeded("index page has " + std::to_string(entries.size()) + " entries; the limit is " +
                         std::to_string(limits.max_entries))
        .WithPath("$.entries");
  }
  if (level >= limits.max_height) {
    return LimitExceeded("index level exceeds the height limit").WithPath("$.level");
  }
  return Status::Ok();
}

json::Value OrdinalIndexPage::ToJson() const {
  json::Array items;
  items.reserve(entries.size());
  for (const IndexEntry& e : entries) items.push_back(EntryToJson(e));
  json::Object o;
  o.Set("entries", json::Value(std::move(items)));
  o.Set("kind", json::Value(std::string(IndexKindName(kind))));
  o.Set("level", json::Value::Int(level));
  o.Set("range_end", json::Value::Int(range_end));
  o.Set("range_start", json::Value::Int(range_start));
  o.Set("schema", json::Value(std::string(StorageFormatId(StorageFormat::kOrdinalIndex))));
  return json::Value(std::move(o));
}

Result<const IndexEntry*> OrdinalIndexPage::Find(int32_t ordinal) const {
  if (ordinal < range_start || ordinal >= range_end) {
    return NotFound("ordinal " + std::to_string(ordinal) + " is outside [" + std::to_string(range_start) + ", " +
                    std::to_string(range_end) + ")");
  }
  auto it = std::upper_bound(entries.begin(), entries.end(), ordinal,
                             [](int32_t v, const IndexEntry& e) { return v < e.range_end; });
  return &*it;
}

Status CheckChild(const OrdinalIndexPage& parent, const IndexEntry& entry, const OrdinalIndexPage& child) {
  if (child.kind != parent.kind) return InvalidFormat("child page has a different kind").WithPath("$.kind");
  if (child.level != parent.level - 1) {
    return InvalidFormat("child page is at level " + std::to_string(child.level) + "; level " +
                         std::to_string(parent.level - 1) + " is required")
        .WithPath("$.level");
  }
  if (child.range_start != entry.range_start || child.range_end != entry.range_end) {
    return InvalidFormat("child page range differs from its parent entry's").WithPath("$.range_start");
  }
  return Status::Ok();
}

OrdinalIndexBuilder::OrdinalIndexBuilder(IndexKind kind, std::string key_prefix, IndexLimits limits, ObjectSink sink)
    : kind_(kind), key_prefix_(std::move(key_prefix)), limits_(limits), sink_(std::move(sink)) {}

Result<std::string> OrdinalIndexBuilder::Encode(size_t level, const std::vector<IndexEntry>& entries) const {
  OrdinalIndexPage page;
  page.kind = kind_;
  page.level = static_cast<int32_t>(level);
  page.range_start = entries.front().range_start;
  page.range_end = entries.back().range_end;
  page.entries = entries;
  return page.Encode();
}

Result<IndexEntry> OrdinalIndexBuilder::Close(size_t level) {
  std::vector<IndexEntry>& entries = levels_[level].entries;
  VIGILO_ASSIGN_OR_RETURN(std::string bytes, Encode(level, entries));
  int32_t start = entries.front().range_start, end = entries.back().range_end;
  std::string key = key_prefix_ + "L" + std::to_string(level) + "/" + Padded(start) + "-" + Padded(end) + ".json";
  VIGILO_ASSIGN_OR_RETURN(ObjectRef ref, sink_(key, StorageFormat::kOrdinalIndex, std::move(bytes)));
  entries.clear();
  return IndexEntry{start, end, std::move(ref)};
}

Status OrdinalIndexBuilder::AddAt(size_t level, IndexEntry entry) {
  if (level >= static_cast<size_t>(limits_.max_height)) {
    return LimitExceeded("the index would need more than " + std::to_string(limits_.max_height) +
                         " levels; refusing to publish an unreadable manifest");
  }
  if (levels_.size() <= level) levels_.resize(level + 1);
  std::vector<IndexEntry>& entries = levels_[level].entries;
  bool full = entries.size() >= limits_.max_entries;
  if (!full && !entries.empty()) {
    entries.push_back(entry);
    auto bytes = Encode(level, entries);
    entries.pop_back();
    VIGILO_RETURN_IF_ERROR(bytes.status());
    full = bytes->size() > limits_.max_page_bytes;
  }
  if (full) {
    VIGILO_ASSIGN_OR_RETURN(IndexEntry parent, Close(level));
    VIGILO_RETURN_IF_ERROR(AddAt(level + 1, std::move(parent)));
  }
  levels_[level].entries.push_back(std::move(entry));
  if (levels_[level].entries.size() == 1) {  // a page with one entry must fit on its own
    VIGILO_ASSIGN_OR_RETURN(std::string alone, Encode(level, levels_[level].entries));
    if (alone.size() > limits_.max_page_bytes) {
      return LimitExceeded("one index entry does not fit in a " + std::to_string(limits_.max_page_bytes) +
                           "-byte page");
    }
  }
  return Status::Ok();
}

Status OrdinalIndexBuilder::Add(IndexEntry leaf) {
  if (finished_) return InvalidArgument("Add after Finish");
  if (leaf.range_end <= leaf.range_start) return InvalidArgument("empty leaf range");
  if (next_start_ && leaf.range_start != *next_start_) {
    return InvalidArgument("leaf entries must be adjacent: expected range_start " + std::to_string(*next_start_));
  }
  if (leaf.object.schema != ChildFormat(kind_, 0)) {
    return InvalidArgument("leaf entries of a " + std::string(IndexKindName(kind_)) + " index must reference " +
                           std::string(StorageFormatId(ChildFormat(kind_, 0))));
  }
  next_start_ = leaf.range_end;
  return AddAt(0, std::move(leaf));
}

Result<IndexRootDescriptor> OrdinalIndexBuilder::Finish() {
  if (finished_) return InvalidArgument("Finish called twice");
  finished_ = true;
  if (levels_.empty()) return InvalidArgument("an index needs at least one entry");
  // Close every level bottom-up; the top level closes into the root.
  for (size_t level = 0;; ++level) {
    bool top = level + 1 == levels_.size();
    VIGILO_ASSIGN_OR_RETURN(IndexEntry closed, Close(level));
    if (top) {
      return IndexRootDescriptor{static_cast<int32_t>(level), closed.range_start, closed.range_end,
                                 std::move(closed.object)};
    }
    VIGILO_RETURN_IF_ERROR(AddAt(level + 1, std::move(closed)));
  }
}

Result<OrdinalIndexPage> FetchChildPage(const IndexEntry& expected, int32_t level, IndexKind kind,
                                        const IndexLimits& limits, const ObjectFetch& fetch) {
  // The parent's reference bounds and names the child: refuse an oversized
  // page before fetching, and bytes verified against any other reference.
  if (expected.object.byte_count > limits.max_page_bytes) {
    return LimitExceeded("index page of " + std::to_string(expected.object.byte_count) + " bytes exceeds its " +
                         std::to_string(limits.max_page_bytes) + "-byte budget")
        .WithPath(expected.object.key);
  }
  VIGILO_ASSIGN_OR_RETURN(VerifiedObject object, fetch(expected.object));
  if (!(object.ref() == expected.object)) {
    return IntegrityError("fetched page was verified against another reference").WithPath(expected.object.key);
  }
  VIGILO_ASSIGN_OR_RETURN(OrdinalIndexPage page, OrdinalIndexPage::Decode(object));
  VIGILO_RETURN_IF_ERROR(page.ValidateWithin(limits).WithPath(expected.object.key));
  if (page.kind != kind) {
    return InvalidFormat("index page has the wrong kind (" + std::string(IndexKindName(page.kind)) + ")")
        .WithPath(expected.object.key);
  }
  if (page.level != level || page.range_start != expected.range_start || page.range_end != expected.range_end) {
    return InvalidFormat("index page does not match the level and range its parent names")
        .WithPath(expected.object.key);
  }
  return page;
}

Result<IndexEntry> LookupOrdinal(const IndexRootDescriptor& root, IndexKind kind, int32_t ordinal,
                                 const IndexLimits& limits, const ObjectFetch& fetch) {
  VIGILO_RETURN_IF_ERROR(root.Validate(limits));
  IndexEntry current{root.range_start, root.range_end, root.object};
  int32_t level = root.level;
  for (int32_t depth = 0; depth < limits.max_height; ++depth) {
    VIGILO_ASSIGN_OR_RETURN(OrdinalIndexPage page, FetchChildPage(current, level, kind, limits, fetch));
    VIGILO_ASSIGN_OR_RETURN(const IndexEntry* entry, page.Find(ordinal));
    if (page.level == 0) return *entry;
    current = *entry;
    level = page.level - 1;
  }
  return LimitExceeded("index deeper than the height limit");
}

}  // namespace vigilo::cases
