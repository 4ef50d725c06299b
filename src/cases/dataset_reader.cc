#include "vigilo/cases/dataset_reader.h"

#include "vigilo/cases/case_id_check.h"
#include "vigilo/cases/identity.h"
#include "vigilo/cases/ordinal_index.h"
#include "vigilo/common/checked.h"
#include "vigilo/common/hex.h"

namespace vigilo::cases {
namespace {

class DatasetWalk {
 public:
  DatasetWalk(const BudgetConfig& budget, const ObjectBytesFetch& fetch,
              const std::function<Status(const CaseRecord&)>& on_case, CaseIdUniquenessCheck* ids,
              ReadDatasetSummary* summary)
      : budget_(budget), fetch_(fetch), on_case_(on_case), ids_(ids), summary_(summary) {}

  Result<VerifiedObject> Fetch(const ObjectRef& ref, uint64_t max_bytes) {
    VIGILO_ASSIGN_OR_RETURN(VerifiedObject object, FetchVerified(fetch_, ref, max_bytes));
    summary_->object_bytes += ref.byte_count;
    return object;
  }

  // Depth-first over the index: `expected` is what the parent (or the root
  // descriptor) says the page covers; leaves are visited in ordinal order.
  Status Page(const IndexEntry& expected, int32_t level, int depth, DatasetIdentityBuilder& identity) {
    if (depth >= static_cast<int>(budget_.index_max_height)) {
      return LimitExceeded("index deeper than " + std::to_string(budget_.index_max_height) + " pages")
          .WithPath(expected.object.key);
    }
    IndexLimits limits{budget_.page_max_entries, budget_.page_max_bytes, static_cast<int32_t>(budget_.index_max_height)};
    ObjectFetch fetch = [this](const ObjectRef& ref) { return Fetch(ref, budget_.page_max_bytes); };
    VIGILO_ASSIGN_OR_RETURN(OrdinalIndexPage page,
                            FetchChildPage(expected, level, IndexKind::kDatasetBatches, limits, fetch));
    ++summary_->index_page_count;
    for (const IndexEntry& entry : page.entries) {
      if (page.level == 0) {
        VIGILO_RETURN_IF_ERROR(Batch(entry, identity));
      } else {
        VIGILO_RETURN_IF_ERROR(Page(entry, page.level - 1, depth + 1, identity));
      }
    }
    return Status::Ok();
  }

  Status Batch(const IndexEntry& entry, DatasetIdentityBuilder& identity) {
    const DatasetManifest& manifest = summary_->manifest;
    VIGILO_ASSIGN_OR_RETURN(VerifiedObject object, Fetch(entry.object, manifest.batch_limits.max_bytes));
    VIGILO_ASSIGN_OR_RETURN(DecodedCaseBatch batch, DecodeCaseBatch(std::move(object)));
    VIGILO_RETURN_IF_ERROR(CheckBatchForEntry(batch.header(), entry, manifest));
    VIGILO_ASSIGN_OR_RETURN(CaseBatchReader reader, batch.Validate(manifest.batch_limits));
    while (true) {
      VIGILO_ASSIGN_OR_RETURN(std::optional<CaseRecord> record, reader.Next());
      if (!record) break;
      VIGILO_ASSIGN_OR_RETURN(CaseHash recomputed, identity.AddCase(record->source));
      if (recomputed != record->case_hash) return Internal("batch reader accepted a wrong case hash");
      VIGILO_RETURN_IF_ERROR(ids_->Add(identity.last_case_id(), record->case_ordinal));
      if (on_case_) VIGILO_RETURN_IF_ERROR(on_case_(*record));
    }
    ++summary_->batch_count;
    return Status::Ok();
  }

 private:
  const BudgetConfig& budget_;
  const ObjectBytesFetch& fetch_;
  const std::function<Status(const CaseRecord&)>& on_case_;
  CaseIdUniquenessCheck* ids_;
  ReadDatasetSummary* summary_;
};

}  // namespace

Status CheckSourceFieldsOf(const DatasetSourceFields& fields, const DatasetManifest& manifest) {
  if (fields.dataset_id() != manifest.dataset_id || fields.dataset_version() != manifest.dataset_version) {
    return InvalidFormat("source fields name another dataset id or version than the manifest")
        .WithPath(manifest.source_fields.key);
  }
  if (!fields.cases_present) {
    return InvalidFormat("a published dataset's source fields must record a cases array")
        .WithPath(manifest.source_fields.key);
  }
  return Status::Ok();
}

Status CheckBatchForEntry(const CaseBatchHeader& header, const IndexEntry& entry, const DatasetManifest& manifest) {
  if (header.dataset_id != manifest.dataset_id) {
    return InvalidFormat("batch belongs to dataset '" + header.dataset_id + "'").WithPath(entry.object.key);
  }
  if (header.ordinal_start != entry.range_start || header.ordinal_end != entry.range_end) {
    return InvalidFormat("batch covers [" + std::to_string(header.ordinal_start) + ", " +
                         std::to_string(header.ordinal_end) + "); its index entry says [" +
                         std::to_string(entry.range_start) + ", " + std::to_string(entry.range_end) + ")")
        .WithPath(entry.object.key);
  }
  return Status::Ok();
}

Result<ReadDatasetSummary> ReadDataset(const ObjectRef& manifest_ref, const BudgetConfig& budget,
                                       const std::filesystem::path& scratch_dir, const ObjectBytesFetch& fetch,
                                       const std::function<Status(const CaseRecord&)>& on_case) {
  VIGILO_RETURN_IF_ERROR(budget.Validate());
  if (manifest_ref.schema != StorageFormat::kDatasetManifest) {
    return InvalidArgument("the root reference must name a vigilo/dataset-manifest/v1 object");
  }
  VIGILO_ASSIGN_OR_RETURN(CaseIdUniquenessCheck ids, CaseIdUniquenessCheck::Start(budget, scratch_dir));
  ReadDatasetSummary summary;
  DatasetWalk walk(budget, fetch, on_case, &ids, &summary);

  VIGILO_ASSIGN_OR_RETURN(VerifiedObject root, walk.Fetch(manifest_ref, budget.root_manifest_max_bytes));
  VIGILO_ASSIGN_OR_RETURN(summary.manifest, DatasetManifest::Decode(root));
  const DatasetManifest& manifest = summary.manifest;
  VIGILO_RETURN_IF_ERROR(
      budget.AdmitBatchPolicy(manifest.batch_limits.max_cases, manifest.batch_limits.max_bytes));

  VIGILO_ASSIGN_OR_RETURN(VerifiedObject fields_object,
                          walk.Fetch(manifest.source_fields, budget.source_fields_max_bytes));
  VIGILO_ASSIGN_OR_RETURN(summary.source_fields, DatasetSourceFields::Decode(fields_object));
  VIGILO_RETURN_IF_ERROR(CheckSourceFieldsOf(summary.source_fields, manifest));

  VIGILO_ASSIGN_OR_RETURN(DatasetIdentityBuilder identity,
                          DatasetIdentityBuilder::Start(summary.source_fields.fields, true));
  const IndexRootDescriptor& root_index = manifest.batches;
  IndexEntry top{root_index.range_start, root_index.range_end, root_index.object};
  VIGILO_RETURN_IF_ERROR(walk.Page(top, root_index.level, 0, identity));

  VIGILO_ASSIGN_OR_RETURN(DatasetIdentity recomputed, identity.Finish());
  if (recomputed.case_count != static_cast<uint64_t>(manifest.case_count)) {
    return IntegrityError("the batches hold " + std::to_string(recomputed.case_count) + " cases; the manifest says " +
                          std::to_string(manifest.case_count));
  }
  if (recomputed.dataset_hash != manifest.dataset_hash) {
    return IntegrityError("recomputed dataset_hash " + recomputed.dataset_hash + " differs from the manifest's")
        .WithPath("$.dataset_hash");
  }
  if (recomputed.dataset_version_id != manifest.dataset_version_id) {
    return IntegrityError("recomputed dataset_version_id " + recomputed.dataset_version_id.ToString() +
                          " differs from the manifest's")
        .WithPath("$.dataset_version_id");
  }
  VIGILO_RETURN_IF_ERROR(ids.Finish());
  return summary;
}

}  // namespace vigilo::cases
