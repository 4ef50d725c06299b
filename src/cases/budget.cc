#include "vigilo/cases/budget.h"

#include <string>
#include <string_view>
#include <utility>

#include "vigilo/common/checked.h"
#include "vigilo/common/setting_checks.h"

namespace vigilo::cases {
namespace {

namespace bb = budget_bounds;
using std::chrono::milliseconds;

std::string Bytes(uint64_t n) { return ByteCountText(n); }

// A checked sum or product for a message: its value, or that it overflowed.
std::string BytesOrOverflow(const Result<uint64_t>& total) {
  return total.ok() ? Bytes(*total) : std::string("more than 2^64 bytes");
}

std::string Ms(milliseconds d) { return MillisecondsText(d); }

// Each setting against its own constant range, in declaration order.
Status CheckRanges(const BudgetConfig& c) {
  VIGILO_RETURN_IF_ERROR(
      CheckCount("case_batch_max_cases", c.case_batch_max_cases, bb::kMinCasesPerBatch, bb::kMaxCasesPerBatch));
  VIGILO_RETURN_IF_ERROR(
      CheckBytes("case_batch_max_bytes", c.case_batch_max_bytes, bb::kMinBatchBytes, bb::kMaxBatchBytes));
  VIGILO_RETURN_IF_ERROR(
      CheckCount("page_max_entries", c.page_max_entries, bb::kMinPageEntries, bb::kMaxPageEntries));
  VIGILO_RETURN_IF_ERROR(CheckBytes("page_max_bytes", c.page_max_bytes, bb::kMinPageBytes, bb::kMaxPageBytes));
  VIGILO_RETURN_IF_ERROR(
      CheckBytes("root_manifest_max_bytes", c.root_manifest_max_bytes, bb::kMinRootBytes, bb::kMaxRootBytes));
  VIGILO_RETURN_IF_ERROR(CheckBytes("source_fields_max_bytes", c.source_fields_max_bytes,
                                    bb::kMinSourceOrConfigurationBytes, bb::kMaxSourceOrConfigurationBytes));
  VIGILO_RETURN_IF_ERROR(CheckBytes("run_configuration_max_bytes", c.run_configuration_max_bytes,
                                    bb::kMinSourceOrConfigurationBytes, bb::kMaxSourceOrConfigurationBytes));
  VIGILO_RETURN_IF_ERROR(CheckBytes("logical_key_max_bytes", c.logical_key_max_bytes, bb::kMinLogicalKeyBytes,
                                    bb::kMaxLogicalKeyBytes));
  VIGILO_RETURN_IF_ERROR(
      CheckCount("index_max_height", c.index_max_height, bb::kMinIndexHeight, bb::kMaxIndexHeight));
  VIGILO_RETURN_IF_ERROR(CheckBytes("stream_buffer_bytes", c.stream_buffer_bytes, bb::kMinStreamBufferBytes,
                                    bb::kMaxStreamBufferBytes));
  VIGILO_RETURN_IF_ERROR(CheckCount("concurrent_remote_requests", c.concurrent_remote_requests,
                                    bb::kMinConcurrentRequests, bb::kMaxConcurrentRequests));
  VIGILO_RETURN_IF_ERROR(CheckCount("resident_case_batches", c.resident_case_batches, bb::kMinResidentBatches,
                                    bb::kMaxResidentBatches));
  VIGILO_RETURN_IF_ERROR(CheckBytes("control_working_set_bytes", c.control_working_set_bytes,
                                    bb::kMinControlWorkingSetBytes, bb::kMaxControlWorkingSetBytes));
  VIGILO_RETURN_IF_ERROR(
      CheckBytes("staging_spool_bytes", c.staging_spool_bytes, bb::kMinBatchBytes, bb::kMaxStagingSpoolBytes));
  VIGILO_RETURN_IF_ERROR(CheckBytes("ingestion_validation_spool_bytes", c.ingestion_validation_spool_bytes,
                                    bb::kMinValidationSpoolBytes, bb::kMaxValidationSpoolBytes));
  VIGILO_RETURN_IF_ERROR(CheckBytes("external_sort_buffer_bytes", c.external_sort_buffer_bytes,
                                    bb::kMinExternalSortBufferBytes, bb::kMaxExternalSortBufferBytes));
  VIGILO_RETURN_IF_ERROR(
      CheckDuration("connection_timeout_ms", c.connection_timeout_ms, bb::kMinTimeout, bb::kMaxTimeout));
  VIGILO_RETURN_IF_ERROR(
      CheckDuration("no_progress_timeout_ms", c.no_progress_timeout_ms, bb::kMinTimeout, bb::kMaxTimeout));
  VIGILO_RETURN_IF_ERROR(CheckDuration("object_operation_deadline_ms", c.object_operation_deadline_ms,
                                       bb::kMinDeadline, bb::kMaxDeadline));
  VIGILO_RETURN_IF_ERROR(CheckCount("remote_request_attempts", c.remote_request_attempts, bb::kMinRemoteAttempts,
                                    bb::kMaxRemoteAttempts));
  VIGILO_RETURN_IF_ERROR(
      CheckDuration("retry_backoff_base_ms", c.retry_backoff_base_ms, bb::kMinBackoff, bb::kMaxBackoff));
  VIGILO_RETURN_IF_ERROR(
      CheckDuration("retry_backoff_cap_ms", c.retry_backoff_cap_ms, bb::kMinBackoff, bb::kMaxBackoff));
  VIGILO_RETURN_IF_ERROR(
      CheckDuration("cleanup_deadline_ms", c.cleanup_deadline_ms, bb::kMinDeadline, bb::kMaxDeadline));
  return Status::Ok();
}

// Rules between settings. Run after CheckRanges, so every bound they name is
// itself in range; products and sums are still checked, never trusted.
Status CheckRelationships(const BudgetConfig& c) {
  VIGILO_RETURN_IF_ERROR(BudgetConfig::CheckResidentReservation(c.resident_case_batches, c.case_batch_max_bytes));
  if (c.staging_spool_bytes < c.case_batch_max_bytes) {
    return InvalidSetting("staging_spool_bytes", "must hold at least one admitted batch (case_batch_max_bytes = " +
                                                     Bytes(c.case_batch_max_bytes) + "), got " +
                                                     Bytes(c.staging_spool_bytes));
  }
  // Control objects are loaded whole, so the working set holds the largest one.
  if (c.control_working_set_bytes < c.page_max_bytes || c.control_working_set_bytes < c.root_manifest_max_bytes) {
    return InvalidSetting("control_working_set_bytes",
                          "must hold one whole page (page_max_bytes = " + Bytes(c.page_max_bytes) +
                              ") and one root (root_manifest_max_bytes = " + Bytes(c.root_manifest_max_bytes) +
                              "), got " + Bytes(c.control_working_set_bytes));
  }
  // Every concurrent request may hold one stream buffer.
  Result<uint64_t> buffering = CheckedMul(c.concurrent_remote_requests, c.stream_buffer_bytes);
  if (!buffering.ok() || *buffering > bb::kMaxStreamBufferingBytes) {
    return InvalidSetting("stream_buffer_bytes",
                          "× concurrent_remote_requests (" + std::to_string(c.concurrent_remote_requests) +
                              ") must be at most " + Bytes(bb::kMaxStreamBufferingBytes) +
                              " of stream buffering, got " + BytesOrOverflow(buffering));
  }
  // One spilled sort run and one batch of source lookahead share the quota.
  Result<uint64_t> validation_floor = CheckedAdd(c.external_sort_buffer_bytes, c.case_batch_max_bytes);
  if (!validation_floor.ok() || c.ingestion_validation_spool_bytes < *validation_floor) {
    return InvalidSetting("ingestion_validation_spool_bytes",
                          "must hold one sort run plus one batch (external_sort_buffer_bytes + "
                          "case_batch_max_bytes = " + BytesOrOverflow(validation_floor) + "), got " +
                              Bytes(c.ingestion_validation_spool_bytes));
  }
  // The seed includes connection, stall and backoff waits in the total deadline.
  const milliseconds deadline = c.object_operation_deadline_ms;
  if (c.connection_timeout_ms > deadline) {
    return InvalidSetting("connection_timeout_ms", "must be at most object_operation_deadline_ms (" + Ms(deadline) +
                                                       "), got " + Ms(c.connection_timeout_ms));
  }
  if (c.no_progress_timeout_ms > deadline) {
    return InvalidSetting("no_progress_timeout_ms", "must be at most object_operation_deadline_ms (" + Ms(deadline) +
                                                        "), got " + Ms(c.no_progress_timeout_ms));
  }
  if (c.retry_backoff_cap_ms < c.retry_backoff_base_ms) {
    return InvalidSetting("retry_backoff_cap_ms", "must be at least retry_backoff_base_ms (" +
                                                      Ms(c.retry_backoff_base_ms) + "), got " +
                                                      Ms(c.retry_backoff_cap_ms));
  }
  if (c.retry_backoff_cap_ms > deadline) {
    return InvalidSetting("retry_backoff_cap_ms", "must be at most object_operation_deadline_ms (" + Ms(deadline) +
                                                      "), got " + Ms(c.retry_backoff_cap_ms));
  }
  return Status::Ok();
}

}  // namespace

Status BudgetConfig::Validate() const {
  VIGILO_RETURN_IF_ERROR(CheckRanges(*this));
  return CheckRelationships(*this);
}

Status BudgetConfig::CheckResidentReservation(uint64_t resident_batches, uint64_t batch_max_bytes) {
  Result<uint64_t> product = CheckedMul(resident_batches, batch_max_bytes);
  if (!product.ok()) {
    return InvalidSetting("resident_case_batches", "× batch byte cap overflows: " + std::to_string(resident_batches) +
                                                       " × " + std::to_string(batch_max_bytes));
  }
  if (*product > bb::kMaxResidentReservationBytes) {
    return InvalidSetting("resident_case_batches",
                          "× batch byte cap = " + Bytes(*product) + " exceeds the encoded resident reservation of " +
                              Bytes(bb::kMaxResidentReservationBytes));
  }
  return Status::Ok();
}

Result<uint64_t> BudgetConfig::ResidentReservationBytes() const {
  Result<uint64_t> product = CheckedMul(resident_case_batches, case_batch_max_bytes);
  if (!product.ok()) return std::move(product).take_status().WithPath("resident_case_batches");
  return product;
}

Status BudgetConfig::AdmitBatchPolicy(uint64_t max_cases, uint64_t max_bytes) const {
  VIGILO_RETURN_IF_ERROR(Validate());
  if (max_cases < bb::kMinCasesPerBatch || max_cases > bb::kMaxCasesPerBatch) {
    return InvalidFormat("published max_cases must be between 1 and 65536, got " + std::to_string(max_cases))
        .WithPath("batch_limits.max_cases");
  }
  if (max_bytes < bb::kMinBatchBytes || max_bytes > bb::kMaxBatchBytes) {
    return InvalidFormat("published max_bytes must be between " + Bytes(bb::kMinBatchBytes) + " and " +
                         Bytes(bb::kMaxBatchBytes) + ", got " + Bytes(max_bytes))
        .WithPath("batch_limits.max_bytes");
  }
  // Each error's path is the setting whose override admits the policy, and
  // its message says the value that would.
  if (max_bytes > staging_spool_bytes) {
    return LimitExceeded("a published batch of up to " + Bytes(max_bytes) + " does not fit staging_spool_bytes (" +
                         Bytes(staging_spool_bytes) + "); staging_spool_bytes of at least " + Bytes(max_bytes) +
                         " would admit it")
        .WithPath("staging_spool_bytes");
  }
  // The reservation is what reading commits: resident_case_batches batches of
  // the published size, within the seed's ceiling. This process's own
  // case_batch_max_bytes is a writing policy and plays no part.
  Result<uint64_t> needed = CheckedMul(resident_case_batches, max_bytes);
  if (!needed.ok() || *needed > bb::kMaxResidentReservationBytes) {
    uint64_t fitting = bb::kMaxResidentReservationBytes / max_bytes;  // >= 16 for any format-valid max_bytes
    return LimitExceeded(std::to_string(resident_case_batches) + " resident batches of up to " + Bytes(max_bytes) +
                         " need " + BytesOrOverflow(needed) + ", more than the encoded resident reservation of " +
                         Bytes(bb::kMaxResidentReservationBytes) + "; resident_case_batches of at most " +
                         std::to_string(fitting) + " would admit it")
        .WithPath("resident_case_batches");
  }
  return Status::Ok();
}

milliseconds BudgetConfig::BackoffCeiling(uint32_t retry_index) const {
  // 2^63 does not fit int64; any such factor exceeds every cap anyway.
  if (retry_index >= 63) return retry_backoff_cap_ms;
  Result<int64_t> scaled = CheckedMul<int64_t>(retry_backoff_base_ms.count(), int64_t{1} << retry_index);
  if (!scaled.ok() || *scaled > retry_backoff_cap_ms.count()) return retry_backoff_cap_ms;
  return milliseconds(*scaled);
}

namespace {

Status RequirePositive(std::string_view name, uint64_t value) {
  if (value > 0) return Status::Ok();
  return InvalidArgument(std::string(name) + " must be positive").WithPath(std::string(name));
}

// Size admission: `parts` (already summed with checked addition) must fit
// `limit`. The object is rejected whole, never split or truncated.
Status CheckFits(Result<uint64_t> parts, const std::string& what, std::string_view limit_name, uint64_t limit) {
  if (parts.ok() && *parts <= limit) return Status::Ok();
  return LimitExceeded(what + " needs " + BytesOrOverflow(parts) + ", more than " + std::string(limit_name) +
                       " (" + Bytes(limit) + ")")
      .WithPath(std::string(limit_name));
}

}  // namespace

Status BudgetConfig::CheckRecordFits(uint64_t header_bytes, uint64_t record_bytes) const {
  VIGILO_RETURN_IF_ERROR(RequirePositive("header_bytes", header_bytes));
  VIGILO_RETURN_IF_ERROR(RequirePositive("record_bytes", record_bytes));
  // Both lines end in LF, and every LF counts toward the batch byte cap.
  Result<uint64_t> lines = CheckedAdd(header_bytes, record_bytes);
  if (lines.ok()) lines = CheckedAdd(*lines, uint64_t{2});
  return CheckFits(std::move(lines),
                   "a record of " + std::to_string(record_bytes) + " bytes with its " + std::to_string(header_bytes) +
                       "-byte header and two LFs",
                   "case_batch_max_bytes", case_batch_max_bytes);
}

Status BudgetConfig::CheckDescriptorFits(uint64_t page_envelope_bytes, uint64_t descriptor_bytes) const {
  VIGILO_RETURN_IF_ERROR(RequirePositive("page_envelope_bytes", page_envelope_bytes));
  VIGILO_RETURN_IF_ERROR(RequirePositive("descriptor_bytes", descriptor_bytes));
  return CheckFits(CheckedAdd(page_envelope_bytes, descriptor_bytes),
                   "a descriptor of " + std::to_string(descriptor_bytes) + " bytes in a " +
                       std::to_string(page_envelope_bytes) + "-byte page envelope",
                   "page_max_bytes", page_max_bytes);
}

}  // namespace vigilo::cases
