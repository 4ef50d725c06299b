#include "vigilo/cases/gate_counts.h"

#include <algorithm>
#include <cstdio>

#include "vigilo/cases/fields.h"
#include "vigilo/common/checked.h"
#include "vigilo/json/write.h"

namespace vigilo::cases {
namespace {

std::string EntryPath(size_t i) { return "$.entries[" + std::to_string(i) + "]"; }

Result<std::optional<ObjectRef>> NullableRef(const Fields& f, std::string_view name) {
  VIGILO_ASSIGN_OR_RETURN(const json::Value* v, f.Get(name));
  if (v->is_null()) return std::optional<ObjectRef>();
  VIGILO_ASSIGN_OR_RETURN(ObjectRef ref, ObjectRef::FromJson(*v, f.PathOf(name)));
  return std::optional<ObjectRef>(std::move(ref));
}

Status CheckGateCountsRef(const ObjectRef& ref, std::string_view what) {
  if (ref.schema != StorageFormat::kGateCounts) {
    return InvalidFormat(std::string(what) + " must reference a vigilo/gate-counts/v1 page, not " +
                         std::string(StorageFormatId(ref.schema)))
        .WithPath(".schema");
  }
  return ref.Validate();
}

json::Value EntryToJson(const GateCountEntry& e) {
  json::Object o;
  o.Set("gate_id", json::Value(e.gate_id));
  o.Set("planned_count", json::Value::Int(e.planned_count));
  return json::Value(std::move(o));
}

}  // namespace

Result<GateCountDescriptor> GateCountDescriptor::FromJson(const json::Value& value, const std::string& path) {
  VIGILO_ASSIGN_OR_RETURN(Fields f, Fields::Of(value, path));
  VIGILO_RETURN_IF_ERROR(f.ExpectExactly({"entry_count", "first", "page_count"}));
  GateCountDescriptor d;
  VIGILO_ASSIGN_OR_RETURN(d.first, NullableRef(f, "first"));
  VIGILO_ASSIGN_OR_RETURN(int64_t pages, f.Int("page_count", 0, kMaxInt32));
  VIGILO_ASSIGN_OR_RETURN(int64_t entries, f.Int("entry_count", 0, kMaxInt32));
  d.page_count = static_cast<int32_t>(pages);
  d.entry_count = static_cast<int32_t>(entries);
  if (Status s = d.Validate(); !s.ok()) return std::move(s).PrependPath(path);
  return d;
}

json::Value GateCountDescriptor::ToJson() const {
  json::Object o;
  o.Set("entry_count", json::Value::Int(entry_count));
  o.Set("first", first ? first->ToJson() : json::Value());
  o.Set("page_count", json::Value::Int(page_count));
  return json::Value(std::move(o));
}

Status GateCountDescriptor::Validate() const {
  if (page_count < 0) return OutOfRange("page_count must be non-negative").WithPath(".page_count");
  if (entry_count < 0) return OutOfRange("entry_count must be non-negative").WithPath(".entry_count");
  if (first.has_value() != (entry_count != 0)) {
    return InvalidFormat(first ? "first must be null when entry_count is 0"
                               : "first is null, so entry_count must be 0")
        .WithPath(first ? ".first" : ".entry_count");
  }
  if ((page_count == 0) != (entry_count == 0)) {
    return InvalidFormat("page_count must be 0 exactly when entry_count is 0").WithPath(".page_count");
  }
  if (page_count > entry_count) {
    return InvalidFormat("page_count " + std::to_string(page_count) + " exceeds entry_count " +
                         std::to_string(entry_count) + ": every page holds at least one entry")
        .WithPath(".page_count");
  }
  if (first) {
    if (Status s = CheckGateCountsRef(*first, "first"); !s.ok()) return std::move(s).PrependPath(".first");
  }
  return Status::Ok();
}

Result<GateCountPage> GateCountPage::FromJson(const json::Value& value) {
  VIGILO_ASSIGN_OR_RETURN(Fields f, Fields::Of(value, "$"));
  VIGILO_RETURN_IF_ERROR(f.ExpectExactly({"entries", "next", "run_shard", "schema"}));
  VIGILO_RETURN_IF_ERROR(ExpectSchema(f, StorageFormat::kGateCounts));
  GateCountPage page;
  VIGILO_ASSIGN_OR_RETURN(int64_t shard, f.Int("run_shard", 0, kRunShardCount - 1));
  page.run_shard = static_cast<int32_t>(shard);
  VIGILO_ASSIGN_OR_RETURN(const json::Array* entries, f.Array("entries"));
  page.entries.reserve(entries->size());
  for (size_t i = 0; i < entries->size(); ++i) {
    VIGILO_ASSIGN_OR_RETURN(Fields e, Fields::Of((*entries)[i], EntryPath(i)));
    VIGILO_RETURN_IF_ERROR(e.ExpectExactly({"gate_id", "planned_count"}));
    GateCountEntry entry;
    VIGILO_ASSIGN_OR_RETURN(entry.gate_id, e.String("gate_id"));
    VIGILO_ASSIGN_OR_RETURN(int64_t count, e.Int("planned_count", 0, kMaxInt32));
    entry.planned_count = static_cast<int32_t>(count);
    page.entries.push_back(std::move(entry));
  }
  VIGILO_ASSIGN_OR_RETURN(page.next, NullableRef(f, "next"));
  VIGILO_RETURN_IF_ERROR(page.Validate());
  return page;
}

Result<GateCountPage> GateCountPage::Decode(const VerifiedObject& object, const RunPlanLimits& limits) {
  if (object.bytes().size() > limits.max_page_bytes) {
    return LimitExceeded("gate-count page is " + std::to_string(object.bytes().size()) + " bytes; the limit is " +
                         std::to_string(limits.max_page_bytes))
        .WithPath(object.ref().key);
  }
  VIGILO_ASSIGN_OR_RETURN(json::Value value, DecodeDocumentJson(object, StorageFormat::kGateCounts));
  auto page = FromJson(value);
  if (!page.ok()) return std::move(page).take_status().PrependPath(object.ref().key + ": ");
  if (Status s = page->ValidateWithin(limits, static_cast<int32_t>(kMaxInt32)); !s.ok()) {
    return std::move(s).PrependPath(object.ref().key + ": ");
  }
  return page;
}

Status GateCountPage::Validate() const {
  if (Status s = ValidateRunShard(run_shard); !s.ok()) return s.WithPath("$.run_shard");
  if (entries.empty()) {
    return InvalidFormat("a gate-count page holds at least one entry (an empty chain has first = null)")
        .WithPath("$.entries");
  }
  for (size_t i = 0; i < entries.size(); ++i) {
    const GateCountEntry& e = entries[i];
    if (Status s = ValidateRunIdentifier(e.gate_id, "gate_id"); !s.ok()) return s.WithPath(EntryPath(i) + ".gate_id");
    // std::string compares as unsigned bytes: UTF-8 byte order.
    if (i > 0 && !(entries[i - 1].gate_id < e.gate_id)) {
      return InvalidFormat(entries[i - 1].gate_id == e.gate_id ? "duplicate gate_id"
                                                               : "gate IDs must be strictly increasing (UTF-8 bytes)")
          .WithPath(EntryPath(i) + ".gate_id");
    }
    if (e.planned_count < 0) return OutOfRange("planned_count must be non-negative").WithPath(EntryPath(i) + ".planned_count");
  }
  if (next) {
    if (Status s = CheckGateCountsRef(*next, "next"); !s.ok()) return std::move(s).PrependPath("$.next");
  }
  return Status::Ok();
}

Status GateCountPage::ValidateWithin(const RunPlanLimits& limits, int32_t shard_case_count) const {
  VIGILO_RETURN_IF_ERROR(Validate());
  if (entries.size() > limits.max_page_entries) {
    return LimitExceeded("gate-count page has " + std::to_string(entries.size()) + " entries; the limit is " +
                         std::to_string(limits.max_page_entries))
        .WithPath("$.entries");
  }
  for (size_t i = 0; i < entries.size(); ++i) {
    if (entries[i].planned_count > shard_case_count) {
      return InvalidFormat("planned_count " + std::to_string(entries[i].planned_count) +
                           " exceeds the shard's case_count " + std::to_string(shard_case_count))
          .WithPath(EntryPath(i) + ".planned_count");
    }
  }
  return Status::Ok();
}

json::Value GateCountPage::ToJson() const {
  json::Array items;
  items.reserve(entries.size());
  for (const GateCountEntry& e : entries) items.push_back(EntryToJson(e));
  json::Object o;
  o.Set("entries", json::Value(std::move(items)));
  o.Set("next", next ? next->ToJson() : json::Value());
  o.Set("run_shard", json::Value::Int(run_shard));
  o.Set("schema", json::Value(std::string(StorageFormatId(StorageFormat::kGateCounts))));
  return json::Value(std::move(o));
}

Status GateCountChainValidator::Validate(int32_t run_shard, int32_t shard_case_count,
                                         const GateCountDescriptor& descriptor, const Visit& visit) const {
  if (Status s = ValidateRunShard(run_shard); !s.ok()) return s.WithPath(".run_shard");
  VIGILO_RETURN_IF_ERROR(descriptor.Validate());
  if (!descriptor.first) return Status::Ok();
  ObjectRef ref = *descriptor.first;
  const std::string first_digest = ref.digest;
  int32_t pages = 0;
  int64_t entries = 0;
  std::optional<std::string> last_gate_id;
  while (true) {
    if (pages == descriptor.page_count) {
      return IntegrityError("the chain continues past the descriptor's page_count " +
                            std::to_string(descriptor.page_count))
          .WithPath(ref.key);
    }
    // Refuse an oversized page before fetching it.
    if (ref.byte_count > limits_.max_page_bytes) {
      return LimitExceeded("gate-count page reference is " + std::to_string(ref.byte_count) +
                           " bytes; the limit is " + std::to_string(limits_.max_page_bytes))
          .WithPath(ref.key);
    }
    VIGILO_ASSIGN_OR_RETURN(VerifiedObject object, fetch_(ref));
    if (!(object.ref() == ref)) {
      return IntegrityError("the fetched object's reference differs from the chain's").WithPath(ref.key);
    }
    VIGILO_ASSIGN_OR_RETURN(GateCountPage page, GateCountPage::Decode(object, limits_));
    const std::string where = ref.key + ": ";
    if (Status s = page.ValidateWithin(limits_, shard_case_count); !s.ok()) return std::move(s).PrependPath(where);
    ++pages;
    if (page.run_shard != run_shard) {
      return InvalidFormat("page belongs to run_shard " + std::to_string(page.run_shard) + ", not " +
                           std::to_string(run_shard))
          .WithPath(where + "$.run_shard");
    }
    if (last_gate_id && !(*last_gate_id < page.entries.front().gate_id)) {
      return InvalidFormat("gate IDs must be strictly increasing across pages: this page starts at or before the "
                           "previous page's last gate ID")
          .WithPath(where + "$.entries[0].gate_id");
    }
    entries += static_cast<int64_t>(page.entries.size());
    if (entries > descriptor.entry_count) {
      return IntegrityError("the chain holds more than the descriptor's entry_count " +
                            std::to_string(descriptor.entry_count))
          .WithPath(where + "$.entries");
    }
    if (visit) {
      for (const GateCountEntry& e : page.entries) VIGILO_RETURN_IF_ERROR(visit(e));
    }
    last_gate_id = page.entries.back().gate_id;
    if (!page.next) break;
    if (page.next->digest == ref.digest || page.next->digest == first_digest) {
      return InvalidFormat("next names a page already in the chain (a cycle)").WithPath(where + "$.next");
    }
    ref = *page.next;
  }
  if (pages != descriptor.page_count) {
    return IntegrityError("the chain ends after " + std::to_string(pages) + " pages; the descriptor declares " +
                          std::to_string(descriptor.page_count))
        .WithPath(ref.key);
  }
  if (entries != descriptor.entry_count) {
    return IntegrityError("the chain holds " + std::to_string(entries) + " entries; the descriptor declares " +
                          std::to_string(descriptor.entry_count))
        .WithPath(ref.key);
  }
  return Status::Ok();
}

GateCountChainBuilder::GateCountChainBuilder(int32_t run_shard, int32_t shard_case_count, std::string key_prefix,
                                             RunPlanLimits limits, ObjectSink sink)
    : run_shard_(run_shard), shard_case_count_(shard_case_count), key_prefix_(std::move(key_prefix)),
      limits_(limits), sink_(std::move(sink)) {}

Result<GateCountChainBuilder> GateCountChainBuilder::Start(int32_t run_shard, int32_t shard_case_count,
                                                           std::string key_prefix, RunPlanLimits limits,
                                                           ObjectSink sink) {
  VIGILO_RETURN_IF_ERROR(limits.Validate());
  if (Status s = ValidateRunShard(run_shard); !s.ok()) return InvalidArgument(std::string(s.message()));
  if (shard_case_count < 0) return InvalidArgument("shard_case_count must be non-negative");
  if (!sink) return InvalidArgument("a gate-count chain needs an object sink");
  return GateCountChainBuilder(run_shard, shard_case_count, std::move(key_prefix), limits, std::move(sink));
}

Result<uint64_t> GateCountChainBuilder::EncodedSize(const GateCountEntry& entry) const {
  VIGILO_ASSIGN_OR_RETURN(std::string bytes, json::ToCanonical(EntryToJson(entry)));
  return static_cast<uint64_t>(bytes.size());
}

Result<uint64_t> GateCountChainBuilder::EnvelopeSize() const {
  // The page with no entries: a canonical object's bytes are its members'
  // bytes in key order, so entries add their sizes plus one comma apiece.
  GateCountPage empty;
  empty.run_shard = run_shard_;
  empty.next = next_;
  VIGILO_ASSIGN_OR_RETURN(std::string bytes, json::ToCanonical(empty.ToJson()));
  return static_cast<uint64_t>(bytes.size());
}

Status GateCountChainBuilder::WritePage() {
  GateCountPage page;
  page.run_shard = run_shard_;
  page.entries.assign(page_.rbegin(), page_.rend());
  page.next = next_;
  VIGILO_RETURN_IF_ERROR(page.ValidateWithin(limits_, shard_case_count_));
  VIGILO_ASSIGN_OR_RETURN(std::string bytes, page.Encode());
  if (bytes.size() > limits_.max_page_bytes) {
    return Internal("gate-count page size prediction was wrong: " + std::to_string(bytes.size()) + " bytes");
  }
  char seq[16];
  std::snprintf(seq, sizeof seq, "%06d", pages_written_);
  VIGILO_ASSIGN_OR_RETURN(ObjectRef ref, sink_(key_prefix_ + seq + ".json", StorageFormat::kGateCounts,
                                               std::move(bytes)));
  VIGILO_ASSIGN_OR_RETURN(pages_written_, CheckedAdd<int32_t>(pages_written_, 1));
  next_ = std::move(ref);
  page_.clear();
  page_entry_bytes_ = 0;
  return Status::Ok();
}

Status GateCountChainBuilder::AddDescending(GateCountEntry entry) {
  if (finished_) return InvalidArgument("AddDescending after Finish");
  if (Status s = ValidateRunIdentifier(entry.gate_id, "gate_id"); !s.ok()) return s.WithPath(".gate_id");
  if (entry.planned_count < 0) return OutOfRange("planned_count must be non-negative").WithPath(".planned_count");
  if (entry.planned_count > shard_case_count_) {
    return InvalidFormat("planned_count " + std::to_string(entry.planned_count) + " exceeds the shard's case_count " +
                         std::to_string(shard_case_count_))
        .WithPath(".planned_count");
  }
  if (last_gate_id_ && !(entry.gate_id < *last_gate_id_)) {
    return InvalidArgument("gate IDs must be added in strictly decreasing order");
  }
  VIGILO_ASSIGN_OR_RETURN(int32_t total, CheckedAdd<int32_t>(entries_, 1));
  VIGILO_ASSIGN_OR_RETURN(uint64_t entry_bytes, EncodedSize(entry));
  if (!page_.empty()) {
    VIGILO_ASSIGN_OR_RETURN(uint64_t envelope, EnvelopeSize());
    bool full = page_.size() >= limits_.max_page_entries ||
                envelope + page_entry_bytes_ + 1 + entry_bytes > limits_.max_page_bytes;
    if (full) VIGILO_RETURN_IF_ERROR(WritePage());
  }
  if (page_.empty()) {
    VIGILO_ASSIGN_OR_RETURN(uint64_t envelope, EnvelopeSize());
    if (envelope + entry_bytes > limits_.max_page_bytes) {
      return LimitExceeded("gate " + std::to_string(entry_bytes) + "-byte entry does not fit in a " +
                           std::to_string(limits_.max_page_bytes) + "-byte gate-count page")
          .WithPath(".gate_id");
    }
  }
  page_entry_bytes_ += entry_bytes + (page_.empty() ? 0 : 1);
  last_gate_id_ = entry.gate_id;
  page_.push_back(std::move(entry));
  entries_ = total;
  return Status::Ok();
}

Result<GateCountDescriptor> GateCountChainBuilder::Finish() {
  if (finished_) return InvalidArgument("Finish called twice");
  finished_ = true;
  if (!page_.empty()) VIGILO_RETURN_IF_ERROR(WritePage());
  GateCountDescriptor d{next_, pages_written_, entries_};
  VIGILO_RETURN_IF_ERROR(d.Validate());
  return d;
}

Result<GateCountDescriptor> BuildGateCountChain(int32_t run_shard, int32_t shard_case_count,
                                                const std::vector<GateCountEntry>& ascending,
                                                std::string key_prefix, RunPlanLimits limits, ObjectSink sink) {
  VIGILO_ASSIGN_OR_RETURN(GateCountChainBuilder builder, GateCountChainBuilder::Start(run_shard, shard_case_count,
                                                                                      std::move(key_prefix), limits,
                                                                                      std::move(sink)));
  for (auto it = ascending.rbegin(); it != ascending.rend(); ++it) {
    VIGILO_RETURN_IF_ERROR(builder.AddDescending(*it));
  }
  return builder.Finish();
}

}  // namespace vigilo::cases
