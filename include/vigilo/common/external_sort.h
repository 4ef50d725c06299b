// ExternalSorter: sorts fixed-width byte records that may not fit in memory,
// with both memory and disk bounded by the caller.
//
// Records collect in a buffer of at most `memory_bytes`. A full buffer is
// sorted and written as a run file in a private directory under
// `scratch_dir`. Drain() merges the runs (fan-in bounded so the merge's read
// buffers fit `memory_bytes`; more runs take extra passes) and hands every
// record to the visitor in ascending byte order (memcmp). Every byte written
// to disk is charged against `disk_quota_bytes` *before* it is written, so a
// full quota is LimitExceeded, never a full disk. The private directory and
// its files are removed when the sorter is destroyed.
//
// Used for checks that must not keep a dataset-wide set in memory (duplicate
// case IDs; seed 004 "bounded external sort/spool").
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string_view>

#include "vigilo/common/result.h"
#include "vigilo/common/status.h"

namespace vigilo {

struct ExternalSortOptions {
  size_t record_bytes = 0;        // every record has exactly this size (1…4096)
  uint64_t memory_bytes = 0;      // sort buffer, and the merge's read buffers
  uint64_t disk_quota_bytes = 0;  // run files alive at once
  std::filesystem::path scratch_dir;
};

struct ExternalSortStats {
  uint64_t records = 0;
  uint64_t runs_written = 0;     // initial runs and intermediate merge runs
  uint64_t merge_passes = 0;     // 0 when everything fit in memory
  uint64_t peak_disk_bytes = 0;  // the most run bytes alive at once
};

class ExternalSorter {
 public:
  // InvalidArgument for a zero record size, a buffer smaller than 16
  // records, or a scratch directory that does not exist; IoError when the
  // private directory cannot be created.
  static Result<ExternalSorter> Create(const ExternalSortOptions& options);

  ExternalSorter(ExternalSorter&&) noexcept;
  ExternalSorter& operator=(ExternalSorter&&) noexcept;
  ~ExternalSorter();

  // `record.size()` must equal record_bytes. May spill a run (IoError,
  // LimitExceeded when the quota would be exceeded).
  Status Add(std::string_view record);

  // Visits every added record once, ascending; stops at the first non-OK
  // status from the visitor and returns it. Call at most once.
  Status Drain(const std::function<Status(std::string_view record)>& visit);

  const ExternalSortStats& stats() const;

 private:
  struct State;
  explicit ExternalSorter(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace vigilo
