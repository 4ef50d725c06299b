// Gate counts: `vigilo/gate-counts/v1` pages, linked by `next` into one chain
// per run shard, and the descriptor a shard record holds for its chain (seed
// 004, "Run-plan Manifest"). A gate's planned count is its denominator: the
// shard's eligible cases, including those without executions.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "vigilo/cases/ordinal_index.h"
#include "vigilo/cases/run_chunks.h"

namespace vigilo::cases {

struct GateCountEntry {
  std::string gate_id;  // nonempty, <= 1,024 UTF-8 bytes
  int32_t planned_count = 0;
  friend bool operator==(const GateCountEntry&, const GateCountEntry&) = default;
};

// The manifest's reference to a shard's chain and its totals. `first` is
// null exactly when the chain is empty, which is exactly when both counts are
// zero; otherwise 1 <= page_count <= entry_count (pages are nonempty).
struct GateCountDescriptor {
  std::optional<ObjectRef> first;
  int32_t page_count = 0;
  int32_t entry_count = 0;

  static Result<GateCountDescriptor> FromJson(const json::Value& value, const std::string& path);
  json::Value ToJson() const;
  // Paths relative to the descriptor (".first").
  Status Validate() const;
  friend bool operator==(const GateCountDescriptor&, const GateCountDescriptor&) = default;
};

class GateCountPage final : public StorageDocument {
 public:
  int32_t run_shard = 0;
  std::vector<GateCountEntry> entries;
  std::optional<ObjectRef> next;

  // Verified bytes, canonical, exactly the fields; then Validate() and the
  // page limits. Errors name "<key>: $.entries[i].gate_id".
  static Result<GateCountPage> Decode(const VerifiedObject& object, const RunPlanLimits& limits = {});
  static Result<GateCountPage> FromJson(const json::Value& value);

  StorageFormat format() const override { return StorageFormat::kGateCounts; }
  // run_shard 0..127; nonempty entries with valid gate IDs strictly
  // increasing by UTF-8 bytes; non-negative int32 planned counts; `next`
  // references a gate-counts page.
  Status Validate() const override;
  // Validate() plus the entry limit and every planned count <= the owning
  // shard's case count.
  Status ValidateWithin(const RunPlanLimits& limits, int32_t shard_case_count) const;
  json::Value ToJson() const override;
};

// Walks one shard's chain from its descriptor, fetching one page at a time
// (memory: one page plus the last gate ID). Checks each page, the run shard,
// strict gate-ID order across pages (so no gate repeats), planned counts
// against the shard's case count, and that the chain has exactly the
// descriptor's page and entry counts. A cycle cannot pass: a revisited page
// repeats gate IDs and breaks the order; a chain longer than page_count
// stops at page_count + 1 without fetching further; a `next` naming the
// current or the first page is reported as a cycle at once.
class GateCountChainValidator {
 public:
  // Called once per entry in chain order, after its page has been checked.
  using Visit = std::function<Status(const GateCountEntry& entry)>;

  GateCountChainValidator(RunPlanLimits limits, ObjectFetch fetch) : limits_(limits), fetch_(std::move(fetch)) {}

  Status Validate(int32_t run_shard, int32_t shard_case_count, const GateCountDescriptor& descriptor,
                  const Visit& visit = nullptr) const;

 private:
  RunPlanLimits limits_;
  ObjectFetch fetch_;
};

// Builds one shard's chain with one page in memory. Pages name their
// successor, so the chain is written last page first: entries are added in
// strictly DECREASING gate-ID order (read the sorted spool backwards, or sort
// descending), each page is written as soon as adding one more entry would
// exceed max_page_entries or max_page_bytes, and Finish() writes the chain's
// first page and returns the descriptor. Keys are
// `<key_prefix><seq:06>.json`, seq counting in write order (000000 is the
// chain's last page).
class GateCountChainBuilder {
 public:
  static Result<GateCountChainBuilder> Start(int32_t run_shard, int32_t shard_case_count, std::string key_prefix,
                                             RunPlanLimits limits, ObjectSink sink);

  // The next entry in decreasing gate-ID order.
  Status AddDescending(GateCountEntry entry);
  Result<GateCountDescriptor> Finish();

 private:
  GateCountChainBuilder(int32_t run_shard, int32_t shard_case_count, std::string key_prefix, RunPlanLimits limits,
                        ObjectSink sink);
  Result<uint64_t> EncodedSize(const GateCountEntry& entry) const;
  Result<uint64_t> EnvelopeSize() const;
  Status WritePage();

  int32_t run_shard_;
  int32_t shard_case_count_;
  std::string key_prefix_;
  RunPlanLimits limits_;
  ObjectSink sink_;
  std::vector<GateCountEntry> page_;  // the open page, in decreasing order
  uint64_t page_entry_bytes_ = 0;     // encoded entries of the open page, commas included
  std::optional<ObjectRef> next_;     // the page written last: the open page's successor
  std::optional<std::string> last_gate_id_;
  int32_t pages_written_ = 0;
  int32_t entries_ = 0;
  bool finished_ = false;
};

// Convenience for entries already in memory in increasing gate-ID order.
Result<GateCountDescriptor> BuildGateCountChain(int32_t run_shard, int32_t shard_case_count,
                                                const std::vector<GateCountEntry>& ascending,
                                                std::string key_prefix, RunPlanLimits limits, ObjectSink sink);

}  // namespace vigilo::cases
