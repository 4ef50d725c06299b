// BudgetConfig: the case-storage resource budgets (seed 004, "Resource
// Budgets") and the override ceilings that keep every override finite.
//
// A process builds one BudgetConfig (Defaults() plus operator overrides),
// calls Validate() before any I/O, and passes it to the codecs, spools and
// remote clients. The rules and their reasons are in
// docs/format/case-storage-budgets.md.
#pragma once

#include <chrono>
#include <cstdint>

#include "vigilo/common/result.h"
#include "vigilo/common/status.h"
#include "vigilo/store/governor.h"

namespace vigilo::cases {

// Units and ceilings. The seed's override-ceilings table, plus vigilo's own
// finite maxima for the settings that table does not list.
namespace budget_bounds {

inline constexpr uint64_t kKiB = uint64_t{1} << 10;
inline constexpr uint64_t kMiB = uint64_t{1} << 20;  // the seed: 1,048,576 bytes
inline constexpr uint64_t kGiB = uint64_t{1} << 30;
inline constexpr uint64_t kTiB = uint64_t{1} << 40;

// From the seed's table.
// The seed's defaults that other headers also need (BatchLimits, IndexLimits).
inline constexpr uint64_t kDefaultCasesPerBatch = 100;
inline constexpr uint64_t kDefaultBatchBytes = 8 * kMiB;
inline constexpr uint64_t kDefaultPageEntries = 256;
inline constexpr uint64_t kDefaultPageBytes = kMiB;
inline constexpr uint64_t kDefaultIndexHeight = 8;
inline constexpr uint64_t kMinCasesPerBatch = 1;
inline constexpr uint64_t kMaxCasesPerBatch = 65'536;
inline constexpr uint64_t kMinBatchBytes = 256;
inline constexpr uint64_t kMaxBatchBytes = 64 * kMiB;
inline constexpr uint64_t kMinPageEntries = 1;
inline constexpr uint64_t kMaxPageEntries = 4'096;
inline constexpr uint64_t kMinPageBytes = 256;
inline constexpr uint64_t kMaxPageBytes = 8 * kMiB;
inline constexpr uint64_t kMinRootBytes = 256;
inline constexpr uint64_t kMaxRootBytes = kMiB;
inline constexpr uint64_t kMinSourceOrConfigurationBytes = 256;
inline constexpr uint64_t kMaxSourceOrConfigurationBytes = 64 * kMiB;
inline constexpr uint64_t kMinIndexHeight = 1;
inline constexpr uint64_t kMaxIndexHeight = 8;
inline constexpr uint64_t kMinResidentBatches = 1;
inline constexpr uint64_t kMaxResidentBatches = 16;
inline constexpr uint64_t kMaxResidentReservationBytes = kGiB;
inline constexpr uint64_t kMaxStagingSpoolBytes = 4 * kGiB;
inline constexpr uint64_t kMinRemoteAttempts = store::governor_bounds::kMinAttempts;
inline constexpr uint64_t kMaxRemoteAttempts = store::governor_bounds::kMaxAttempts;

// vigilo's decisions (see the budgets document for the reasons).
inline constexpr uint64_t kMinLogicalKeyBytes = 1;
inline constexpr uint64_t kMaxLogicalKeyBytes = 1'024;  // the ObjectRef format limit
// The remote-request settings are the request governor's (one set of numbers).
inline constexpr uint64_t kMinStreamBufferBytes = store::governor_bounds::kMinStreamBufferBytes;
inline constexpr uint64_t kMaxStreamBufferBytes = store::governor_bounds::kMaxStreamBufferBytes;
inline constexpr uint64_t kMinConcurrentRequests = store::governor_bounds::kMinConcurrentRequests;
inline constexpr uint64_t kMaxConcurrentRequests = store::governor_bounds::kMaxConcurrentRequests;
inline constexpr uint64_t kMaxStreamBufferingBytes = store::governor_bounds::kMaxStreamBufferingBytes;
inline constexpr uint64_t kMinControlWorkingSetBytes = 256;
inline constexpr uint64_t kMaxControlWorkingSetBytes = 64 * kMiB;
inline constexpr uint64_t kMinValidationSpoolBytes = kMiB;
inline constexpr uint64_t kMaxValidationSpoolBytes = kTiB;
inline constexpr uint64_t kMinExternalSortBufferBytes = kMiB;
inline constexpr uint64_t kMaxExternalSortBufferBytes = kGiB;
inline constexpr std::chrono::milliseconds kMinTimeout = store::governor_bounds::kMinTimeout;
inline constexpr std::chrono::milliseconds kMaxTimeout = store::governor_bounds::kMaxTimeout;
inline constexpr std::chrono::milliseconds kMinDeadline = store::governor_bounds::kMinDeadline;
inline constexpr std::chrono::milliseconds kMaxDeadline = store::governor_bounds::kMaxDeadline;
inline constexpr std::chrono::milliseconds kMinBackoff = store::governor_bounds::kMinBackoff;
inline constexpr std::chrono::milliseconds kMaxBackoff = store::governor_bounds::kMaxBackoff;

}  // namespace budget_bounds

struct BudgetConfig {
  // Case batches: close at whichever cap is reached first. The byte cap
  // counts the header, every record envelope and every LF.
  uint64_t case_batch_max_cases = budget_bounds::kDefaultCasesPerBatch;
  uint64_t case_batch_max_bytes = budget_bounds::kDefaultBatchBytes;

  // JSON metadata, index, run-chunk and gate-count pages: both caps apply.
  uint64_t page_max_entries = budget_bounds::kDefaultPageEntries;
  uint64_t page_max_bytes = budget_bounds::kDefaultPageBytes;

  uint64_t root_manifest_max_bytes = 256 * budget_bounds::kKiB;  // dataset and run roots
  uint64_t source_fields_max_bytes = 8 * budget_bounds::kMiB;
  uint64_t run_configuration_max_bytes = 8 * budget_bounds::kMiB;
  uint64_t logical_key_max_bytes = 1'024;  // UTF-8 bytes, staging prefix included
  uint64_t index_max_height = budget_bounds::kDefaultIndexHeight;           // index pages on a root-to-leaf path

  uint64_t stream_buffer_bytes = 256 * budget_bounds::kKiB;  // per active object stream
  uint64_t concurrent_remote_requests = 4;                   // one per-process semaphore
  uint64_t resident_case_batches = 4;                        // verified batches held at once
  uint64_t control_working_set_bytes = 4 * budget_bounds::kMiB;
  uint64_t staging_spool_bytes = 256 * budget_bounds::kMiB;             // queued + active batches
  uint64_t ingestion_validation_spool_bytes = 8 * budget_bounds::kGiB;  // disk quota, one ingestion
  uint64_t external_sort_buffer_bytes = 64 * budget_bounds::kMiB;       // one merge/sort pass

  std::chrono::milliseconds connection_timeout_ms{5'000};
  std::chrono::milliseconds no_progress_timeout_ms{15'000};
  std::chrono::milliseconds object_operation_deadline_ms{120'000};
  uint64_t remote_request_attempts = 3;  // total, first attempt included
  // Full jitter: a retry waits uniformly in [0, BackoffCeiling(retry_index)].
  std::chrono::milliseconds retry_backoff_base_ms{250};
  std::chrono::milliseconds retry_backoff_cap_ms{2'000};
  std::chrono::milliseconds cleanup_deadline_ms{30'000};

  // The seed's defaults table.
  static BudgetConfig Defaults() { return BudgetConfig{}; }

  // Every ceiling and cross-setting rule, checked with checked arithmetic and
  // no I/O. A violation is InvalidArgument whose path is the setting to change
  // and whose message names the bound.
  Status Validate() const;

  // The encoded resident reservation: resident_case_batches ×
  // case_batch_max_bytes (32 MiB at defaults). OutOfRange on overflow.
  Result<uint64_t> ResidentReservationBytes() const;

  // The seed's product rule on its own: resident_batches × batch_max_bytes
  // must fit the 1 GiB encoded resident reservation ceiling. Validate()
  // applies it; it is public so the rule is testable beyond the per-setting
  // ranges (which, at 16 × 64 MiB, meet it exactly).
  static Status CheckResidentReservation(uint64_t resident_batches, uint64_t batch_max_bytes);

  // Admits a published dataset's recorded batch_limits before loading its
  // batches. InvalidFormat if the policy is outside the format's accepted
  // ranges. LimitExceeded if one of its batches would not fit this process's
  // staging spool (path "staging_spool_bytes"), or resident_case_batches of
  // them (resident_case_batches × the published max_bytes) would exceed the
  // 1 GiB encoded resident reservation ceiling (path "resident_case_batches");
  // the message says the value of that setting that would admit the policy.
  // This process's case_batch_max_bytes (a writing policy) is not consulted,
  // so a reader with default settings admits every format-valid policy.
  // Any case count in the format range is admitted: records are decoded one
  // at a time, so the count costs no resident bytes. Errors of Validate() are
  // returned first.
  Status AdmitBatchPolicy(uint64_t max_cases, uint64_t max_bytes) const;

  // min(retry_backoff_cap_ms, retry_backoff_base_ms × 2^retry_index), without
  // overflow for any index. Assumes a validated config.
  std::chrono::milliseconds BackoffCeiling(uint32_t retry_index) const;

  // Size admission for a batch's first record: the header line and the record
  // line (each given without its LF) plus their two LFs must fit
  // case_batch_max_bytes. LimitExceeded otherwise (the record is never split
  // or truncated); InvalidArgument for an empty line.
  Status CheckRecordFits(uint64_t header_bytes, uint64_t record_bytes) const;

  // Size admission for an index page's first entry: the page encoded with an
  // empty entries array plus one descriptor must fit page_max_bytes.
  // LimitExceeded otherwise; InvalidArgument for an empty input.
  Status CheckDescriptorFits(uint64_t page_envelope_bytes, uint64_t descriptor_bytes) const;
};

}  // namespace vigilo::cases
