#include "vigilo/cases/dataset_writer.h"

#include <cstdio>
#include <string_view>

#include "vigilo/json/write.h"

namespace vigilo::cases {
namespace {
std::string Padded(int32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%010d", v);
  return buf;
}

std::string BatchKey(const std::string& prefix, int32_t start, int32_t end) {
  return prefix + "batches/" + Padded(start) + "-" + Padded(end) + ".jsonl";
}

// budget.logical_key_max_bytes, applied to one key (UTF-8 bytes, prefix included).
Status CheckKeyLength(const std::string& key, uint64_t max_bytes, std::string_view what) {
  if (key.size() <= max_bytes) return Status::Ok();
  return LimitExceeded(std::string(what) + " \"" + key + "\" is " + std::to_string(key.size()) +
                       " bytes, more than logical_key_max_bytes (" + std::to_string(max_bytes) + ")")
      .WithPath("logical_key_max_bytes");
}

// Every key the writer will build has one of these shapes, and ordinals are
// zero-padded, so each shape has one length: checking a sample of each before
// anything is written proves every key fits. Index pages are
// `index/L<level>/<start>-<end>.json` with level below index_max_height.
Status CheckKeyShapes(const std::string& prefix, const BudgetConfig& budget) {
  const uint64_t max = budget.logical_key_max_bytes;
  VIGILO_RETURN_IF_ERROR(CheckKeyLength(BatchKey(prefix, 0, INT32_MAX), max, "the batch key"));
  std::string deepest_level = std::to_string(budget.index_max_height);  // as many digits as any level
  VIGILO_RETURN_IF_ERROR(CheckKeyLength(
      prefix + "index/L" + deepest_level + "/" + Padded(0) + "-" + Padded(INT32_MAX) + ".json", max,
      "the index page key"));
  VIGILO_RETURN_IF_ERROR(CheckKeyLength(prefix + "source-fields.json", max, "the source-fields key"));
  return CheckKeyLength(prefix + "manifest.json", max, "the manifest key");
}
}  // namespace

std::string DatasetAttemptPrefix(const std::string& dataset_id, const Uuid& attempt_id, uint32_t generation) {
  return "datasets/" + dataset_id + "/attempts/" + attempt_id.ToString() + "/g" + std::to_string(generation) + "/";
}

DatasetWriter::DatasetWriter(DatasetSourceFields sf, std::string sf_bytes, DatasetIdentityBuilder identity,
                             CaseIdUniquenessCheck ids, BatchLimits batch_limits, IndexLimits index_limits,
                             std::string key_prefix, ObjectSink sink)
    : source_fields_(std::move(sf)), source_fields_bytes_(std::move(sf_bytes)), identity_(std::move(identity)),
      ids_(std::move(ids)), batch_limits_(batch_limits),
      key_prefix_(std::move(key_prefix)), sink_(std::move(sink)),
      batch_(source_fields_.dataset_id(), 0, batch_limits),
      index_(IndexKind::kDatasetBatches, key_prefix_ + "index/", index_limits, sink_) {}

Result<DatasetWriter> DatasetWriter::Start(DatasetSourceFields source_fields, const BudgetConfig& budget,
                                           const std::filesystem::path& scratch_dir, std::string key_prefix,
                                           ObjectSink sink) {
  VIGILO_RETURN_IF_ERROR(budget.Validate());
  BatchLimits batch_limits{budget.case_batch_max_cases, budget.case_batch_max_bytes};
  IndexLimits index_limits{budget.page_max_entries, budget.page_max_bytes,
                           static_cast<int32_t>(budget.index_max_height)};
  VIGILO_RETURN_IF_ERROR(source_fields.Validate());
  VIGILO_RETURN_IF_ERROR(ValidateBatchLimits(batch_limits));
  VIGILO_RETURN_IF_ERROR(CheckKeyShapes(key_prefix, budget));
  VIGILO_ASSIGN_OR_RETURN(std::string sf_bytes, source_fields.Encode());
  if (sf_bytes.size() > budget.source_fields_max_bytes) {
    return LimitExceeded("source fields encode to " + std::to_string(sf_bytes.size()) + " bytes; the limit is " +
                         std::to_string(budget.source_fields_max_bytes))
        .WithPath("$.fields");
  }
  VIGILO_ASSIGN_OR_RETURN(DatasetIdentityBuilder identity,
                          DatasetIdentityBuilder::Start(source_fields.fields, source_fields.cases_present));
  VIGILO_ASSIGN_OR_RETURN(CaseIdUniquenessCheck ids, CaseIdUniquenessCheck::Start(budget, scratch_dir));
  return DatasetWriter(std::move(source_fields), std::move(sf_bytes), std::move(identity), std::move(ids),
                       batch_limits, index_limits, std::move(key_prefix), std::move(sink));
}

Status DatasetWriter::FlushBatch() {
  VIGILO_ASSIGN_OR_RETURN(std::string bytes, batch_.Finish());
  int32_t start = batch_.next_ordinal() - static_cast<int32_t>(batch_.record_count());
  int32_t end = batch_.next_ordinal();
  std::string key = BatchKey(key_prefix_, start, end);
  VIGILO_ASSIGN_OR_RETURN(ObjectRef ref, sink_(key, StorageFormat::kCaseBatch, std::move(bytes)));
  VIGILO_RETURN_IF_ERROR(index_.Add(IndexEntry{start, end, std::move(ref)}));
  batch_ = CaseBatchBuilder(source_fields_.dataset_id(), end, batch_limits_);
  return Status::Ok();
}

Status DatasetWriter::AddCase(const json::Value& source_case) {
  if (identity_.case_count() >= uint64_t{INT32_MAX}) {
    return OutOfRange("a dataset holds at most 2147483647 cases").WithPath("$.cases");
  }
  auto ordinal = static_cast<int32_t>(identity_.case_count());
  VIGILO_ASSIGN_OR_RETURN(CaseHash hash, identity_.AddCase(source_case));
  VIGILO_RETURN_IF_ERROR(ids_.Add(identity_.last_case_id(), ordinal));
  VIGILO_ASSIGN_OR_RETURN(bool added, batch_.Add(source_case, hash));
  if (added) return Status::Ok();
  VIGILO_RETURN_IF_ERROR(FlushBatch());
  VIGILO_ASSIGN_OR_RETURN(bool retried, batch_.Add(source_case, hash));
  if (!retried) return Internal("a case that fit an empty batch was refused");
  return Status::Ok();
}

Result<WrittenDataset> DatasetWriter::Finish() {
  VIGILO_ASSIGN_OR_RETURN(DatasetIdentity identity, identity_.Finish());
  if (identity.case_count == 0) return InvalidFormat("a published dataset needs at least one case").WithPath("$.cases");
  VIGILO_RETURN_IF_ERROR(ids_.Finish());
  VIGILO_RETURN_IF_ERROR(FlushBatch());
  VIGILO_ASSIGN_OR_RETURN(IndexRootDescriptor root, index_.Finish());
  VIGILO_ASSIGN_OR_RETURN(ObjectRef sf_ref, sink_(key_prefix_ + "source-fields.json",
                                                  StorageFormat::kDatasetSourceFields, source_fields_bytes_));
  WrittenDataset out;
  DatasetManifest& m = out.manifest;
  m.dataset_id = source_fields_.dataset_id();
  m.dataset_version = source_fields_.dataset_version();
  m.dataset_version_id = identity.dataset_version_id;
  m.dataset_hash = identity.dataset_hash;
  m.case_count = static_cast<int32_t>(identity.case_count);
  m.batch_limits = batch_limits_;
  m.source_fields = sf_ref;
  m.batches = root;
  VIGILO_ASSIGN_OR_RETURN(std::string manifest_bytes, m.Encode());
  VIGILO_ASSIGN_OR_RETURN(out.manifest_ref,
                          sink_(key_prefix_ + "manifest.json", StorageFormat::kDatasetManifest, manifest_bytes));
  return out;
}

}  // namespace vigilo::cases
