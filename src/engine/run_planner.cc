#include "vigilo/engine/run_planner.h"

#include <cstdio>
#include <optional>
#include <utility>
#include <vector>

#include "attempt_writer.h"
#include "vigilo/cases/dataset.h"
#include "vigilo/cases/ordinal_index.h"
#include "vigilo/cases/run_chunks.h"
#include "vigilo/cases/run_configuration.h"
#include "vigilo/cases/typed_case.h"
#include "vigilo/json/parse.h"
#include "vigilo/json/write.h"
#include "vigilo/engine/dataset_read.h"
#include "vigilo/engine/run_read.h"

namespace vigilo::engine {
namespace {

std::string Padded(int64_t v, int width) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%0*lld", width, static_cast<long long>(v));
  return buf;
}


// The admission record of a planning attempt: what decides every byte it
// writes. run_id is drawn once and kept here, so a resumed attempt writes
// byte-identical pages; the resume match ignores it.
Result<std::string> PlanAdmission(const cases::ObjectRef& dataset_root, const EvaluationProfile& profile,
                                  const cases::BudgetConfig& b, const std::string& alias, const Uuid& run_id) {
  json::Object o;
  o.Set("aggregation_policy_hash", json::Value(profile.aggregation_policy_hash));
  o.Set("dataset", dataset_root.ToJson());
  o.Set("execution_plan_hash", json::Value(profile.execution_plan_hash));
  o.Set("index_max_height", json::Value::Uint(b.index_max_height));
  o.Set("page_max_bytes", json::Value::Uint(b.page_max_bytes));
  o.Set("page_max_entries", json::Value::Uint(b.page_max_entries));
  o.Set("profile_hash", json::Value(profile.profile_hash));
  o.Set("root_manifest_max_bytes", json::Value::Uint(b.root_manifest_max_bytes));
  o.Set("run_configuration_max_bytes", json::Value::Uint(b.run_configuration_max_bytes));
  o.Set("run_id", json::Value(run_id.ToString()));
  o.Set("storage_alias", json::Value(alias));
  return json::ToCanonical(json::Value(std::move(o)));
}

// The record without its run_id, for the resume match.
std::string WithoutRunId(const std::string& admission) {
  Result<json::Value> parsed = json::Parse(admission);
  if (!parsed.ok() || !parsed->is_object()) return admission;
  json::Object o = parsed->as_object();
  o.Erase("run_id");
  Result<std::string> text = json::ToCanonical(json::Value(std::move(o)));
  return text.ok() ? *text : admission;
}

Result<Uuid> RunIdOf(const std::string& admission) {
  VIGILO_ASSIGN_OR_RETURN(json::Value parsed, json::Parse(admission));
  const json::Value* id = parsed.is_object() ? parsed.as_object().Find("run_id") : nullptr;
  if (id == nullptr || !id->is_string()) return InvalidFormat("the attempt's admission record has no run_id");
  return Uuid::Parse(id->as_string());
}

// Builds the run-chunk pages as chunks close, one open page at a time.
class ChunkPageWriter {
 public:
  ChunkPageWriter(const Uuid& run_id, std::string key_prefix, const cases::RunPlanLimits& limits,
                  cases::ObjectSink sink, cases::OrdinalIndexBuilder* index)
      : run_id_(run_id), key_prefix_(std::move(key_prefix)), limits_(limits), sink_(std::move(sink)), index_(index) {}

  Status Add(cases::RunChunk chunk) {
    VIGILO_ASSIGN_OR_RETURN(std::string encoded, json::ToCanonical(chunk.ToJson()));
    uint64_t added = encoded.size() + (page_.chunks.empty() ? 0 : 1);
    if (!page_.chunks.empty() &&
        (page_.chunks.size() >= limits_.max_page_entries || EnvelopeBytes() + bytes_ + added > limits_.max_page_bytes)) {
      VIGILO_RETURN_IF_ERROR(Flush());
      added = encoded.size();
    }
    if (page_.chunks.empty()) page_.chunk_index_start = chunk.chunk_index;
    page_.chunk_index_end = chunk.chunk_index + 1;
    page_.chunks.push_back(std::move(chunk));
    bytes_ += added;
    return Status::Ok();
  }

  Status Flush() {
    if (page_.chunks.empty()) return Status::Ok();
    page_.run_id = run_id_;
    VIGILO_RETURN_IF_ERROR(page_.ValidateWithin(limits_));
    VIGILO_ASSIGN_OR_RETURN(std::string bytes, page_.Encode());
    std::string key = key_prefix_ + Padded(page_.chunk_index_start, 10) + "-" + Padded(page_.chunk_index_end, 10) +
                      ".json";
    VIGILO_ASSIGN_OR_RETURN(cases::ObjectRef ref, sink_(key, cases::StorageFormat::kRunChunks, std::move(bytes)));
    VIGILO_RETURN_IF_ERROR(index_->Add(cases::IndexEntry{page_.chunk_index_start, page_.chunk_index_end, ref}));
    ++pages_;
    page_ = cases::RunChunkPage();
    bytes_ = 0;
    return Status::Ok();
  }

  uint64_t pages() const { return pages_; }

 private:
  // The page's bytes without its chunks, at the widest indexes (an upper bound).
  uint64_t EnvelopeBytes() const {
    // {"chunk_index_end":2147483647,"chunk_index_start":2147483647,"chunks":[],"run_id":"<36 chars>",
    //  "schema":"vigilo/run-chunks/v1"} is 155 bytes.
    return 192;
  }

  Uuid run_id_;
  std::string key_prefix_;
  cases::RunPlanLimits limits_;
  cases::ObjectSink sink_;
  cases::OrdinalIndexBuilder* index_;
  cases::RunChunkPage page_;
  uint64_t bytes_ = 0;
  uint64_t pages_ = 0;
};

// The plan's state while the cases stream past: the open chunk, per-shard
// hashers and gate counts (shards × gates integers), the executability
// counts. Nothing grows with the number of cases.
class Planner {
 public:
  Planner(const EvaluationProfile& profile, const Uuid& run_id, ChunkPageWriter& pages)
      : profile_(profile), run_id_(run_id), pages_(pages), executability_(profile),
        gate_counts_(static_cast<size_t>(profile.shard_count), std::vector<int32_t>(profile.gates.size(), 0)),
        shard_cases_(static_cast<size_t>(profile.shard_count), 0) {
    for (int32_t s = 0; s < profile.shard_count; ++s) hashers_.emplace_back(s);
  }

  Status AddCase(const cases::CaseRecord& record) {
    VIGILO_ASSIGN_OR_RETURN(cases::TypedCase typed,
                            cases::ValidateCase(record.source, "$.cases[" + std::to_string(record.case_ordinal) + "]"));
    VIGILO_ASSIGN_OR_RETURN(CaseDecision decision, DecideCase(profile_, typed));
    VIGILO_RETURN_IF_ERROR(executability_.Add(decision));
    // A chunk closes at chunk_size cases and where the profile group changes
    // (a chunk has one profile_group_id).
    if (!open_.empty() &&
        (static_cast<int32_t>(open_.size()) >= profile_.chunk_size || decision.profile_group_id != open_group_)) {
      VIGILO_RETURN_IF_ERROR(CloseChunk());
    }
    if (open_.empty()) open_group_ = decision.profile_group_id;
    open_.push_back(cases::ProjectedCase{record.case_ordinal, typed.id, record.case_hash});
    int32_t shard = ShardOf(next_chunk_index_);
    ++shard_cases_[static_cast<size_t>(shard)];
    for (uint32_t g : decision.gates) ++gate_counts_[static_cast<size_t>(shard)][g];
    return Status::Ok();
  }

  Status Finish() {
    if (!open_.empty()) VIGILO_RETURN_IF_ERROR(CloseChunk());
    return pages_.Flush();
  }

  int32_t chunk_count() const { return next_chunk_index_; }
  cases::Executability executability() const { return executability_.Finish(); }
  int32_t shard_case_count(int32_t s) const { return shard_cases_[static_cast<size_t>(s)]; }
  const std::vector<int32_t>& gate_counts(int32_t s) const { return gate_counts_[static_cast<size_t>(s)]; }
  const cases::PlannedChunkHasher& hasher(int32_t s) const { return hashers_[static_cast<size_t>(s)]; }

 private:
  // Logical and deterministic: chunk i goes to shard i mod shard_count, so
  // shards are balanced within one chunk and no physical owner is recorded.
  int32_t ShardOf(int32_t chunk_index) const { return chunk_index % profile_.shard_count; }

  Status CloseChunk() {
    cases::RunChunk chunk;
    chunk.chunk_index = next_chunk_index_;
    chunk.chunk_id = cases::DeriveChunkId(run_id_, chunk.chunk_index);
    chunk.run_shard = ShardOf(chunk.chunk_index);
    chunk.ordinal_start = open_.front().case_ordinal;
    chunk.ordinal_end = open_.back().case_ordinal + 1;
    chunk.profile_group_id = open_group_;
    VIGILO_ASSIGN_OR_RETURN(chunk.case_projection_hash, cases::ComputeCaseProjectionHash(open_));
    VIGILO_RETURN_IF_ERROR(hashers_[static_cast<size_t>(chunk.run_shard)].Add(chunk));
    VIGILO_RETURN_IF_ERROR(pages_.Add(std::move(chunk)));
    open_.clear();
    if (next_chunk_index_ == INT32_MAX) return OutOfRange("a run holds at most 2147483647 chunks");
    ++next_chunk_index_;
    return Status::Ok();
  }

  const EvaluationProfile& profile_;
  Uuid run_id_;
  ChunkPageWriter& pages_;
  ExecutabilityCounter executability_;
  std::vector<std::vector<int32_t>> gate_counts_;
  std::vector<int32_t> shard_cases_;
  std::vector<cases::PlannedChunkHasher> hashers_;
  std::vector<cases::ProjectedCase> open_;
  std::string open_group_;
  int32_t next_chunk_index_ = 0;
};

// Two plans are the same plan: the same dataset manifest, profile and
// policies, and the same chunking and shard totals (run ids differ).
bool SamePlan(const cases::RunPlanManifest& a, const cases::RunPlanManifest& b) {
  if (!(a.dataset == b.dataset) || a.profile_hash != b.profile_hash ||
      a.aggregation_policy_hash != b.aggregation_policy_hash || a.execution_plan_hash != b.execution_plan_hash ||
      a.chunk_count != b.chunk_count || a.shards.size() != b.shards.size()) {
    return false;
  }
  for (size_t i = 0; i < a.shards.size(); ++i) {
    if (a.shards[i].run_shard != b.shards[i].run_shard || a.shards[i].case_count != b.shards[i].case_count ||
        a.shards[i].chunk_count != b.shards[i].chunk_count) {
      return false;
    }
  }
  return true;
}

class Planning {
 public:
  Planning(const cases::ObjectRef& dataset_root, const cases::ObjectBytesFetch& dataset_fetch,
           const EvaluationProfile& profile, const PlanRunOptions& options, const WriteTarget& target)
      : dataset_root_(dataset_root), dataset_fetch_(dataset_fetch), profile_(profile), options_(options),
        target_(target), limits_(cases::RunPlanLimits::From(options.budget)) {}

  Result<PlanRunResult> Run() {
    VIGILO_RETURN_IF_ERROR(LoadDataset());
    name_ = options_.name.empty() ? dataset_.dataset_id + "." + profile_.profile_id : options_.name;
    if (Status s = control::ValidateRootName(name_); !s.ok()) {
      return InvalidArgument("the run name '" + name_ + "': " + std::string(s.message())).WithPath("name");
    }
    store::RandomSource& random = target_.random != nullptr ? *target_.random : store::DefaultRandom();
    VIGILO_ASSIGN_OR_RETURN(std::string admission, PlanAdmission(dataset_root_, profile_, options_.budget,
                                                                 target_.alias, store::RandomUuidV4(random)));
    writer_.emplace(target_, control::Namespace::kRuns, name_, options_.lease_duration, options_.cancel);
    std::string match = WithoutRunId(admission);
    VIGILO_RETURN_IF_ERROR(
        writer_->Take(admission, [&match](const std::string& theirs) { return WithoutRunId(theirs) == match; }));
    VIGILO_ASSIGN_OR_RETURN(run_id_, RunIdOf(writer_->admission()));
    Result<PlanRunResult> done = WriteVerifyPublish();
    if (done.ok()) return done;
    return writer_->OnFailure(done.status());
  }

 private:
  void Report(const char* phase, uint64_t cases) {
    if (!options_.progress) return;
    options_.progress(PlanProgress{phase, cases, static_cast<uint64_t>(dataset_.case_count)});
  }

  // The dataset manifest, verified (the plan references it; runs require a
  // nonempty dataset, which a valid manifest is).
  Status LoadDataset() {
    VIGILO_ASSIGN_OR_RETURN(std::string bytes, dataset_fetch_(dataset_root_, options_.budget.root_manifest_max_bytes));
    VIGILO_ASSIGN_OR_RETURN(cases::VerifiedObject object,
                            dataset_root_.Verify(std::move(bytes), options_.budget.root_manifest_max_bytes));
    VIGILO_ASSIGN_OR_RETURN(dataset_, cases::DatasetManifest::Decode(object));
    return Status::Ok();
  }

  Result<PlanRunResult> WriteVerifyPublish() {
    const std::string prefix = writer_->lease().key_prefix;
    cases::ObjectSink sink = writer_->Sink(options_.budget.staging_spool_bytes);
    cases::IndexLimits index_limits{options_.budget.page_max_entries, options_.budget.page_max_bytes,
                                    static_cast<int32_t>(options_.budget.index_max_height)};
    cases::OrdinalIndexBuilder index(cases::IndexKind::kRunChunks, prefix + "index/", index_limits, sink);
    ChunkPageWriter pages(run_id_, prefix + "chunks/", limits_, sink, &index);
    Planner planner(profile_, run_id_, pages);

    // One bounded pass over the dataset: each batch fetched and verified,
    // one case decoded at a time.
    uint64_t cases_read = 0;
    VIGILO_ASSIGN_OR_RETURN(
        CasesSummary read,
        ReadDatasetCases(dataset_root_, options_.budget, dataset_fetch_, 0, dataset_.case_count,
                         [&](const cases::CaseRecord& record, std::string_view) -> Status {
                           if ((cases_read & 1023) == 0) {
                             VIGILO_RETURN_IF_ERROR(writer_->CheckCancelled());
                             Report("planning", cases_read);
                           }
                           ++cases_read;
                           return planner.AddCase(record);
                         }));
    (void)read;
    VIGILO_RETURN_IF_ERROR(planner.Finish());
    VIGILO_ASSIGN_OR_RETURN(cases::IndexRootDescriptor chunks_root, index.Finish());

    cases::RunPlanManifest plan;
    plan.run_id = run_id_;
    plan.dataset = dataset_root_;
    plan.profile_hash = profile_.profile_hash;
    plan.aggregation_policy_hash = profile_.aggregation_policy_hash;
    plan.execution_plan_hash = profile_.execution_plan_hash;
    plan.chunk_count = planner.chunk_count();
    plan.chunks = chunks_root;
    uint64_t gate_pages = 0;
    for (int32_t s = 0; s < profile_.shard_count; ++s) {
      const cases::PlannedChunkHasher& hasher = planner.hasher(s);
      if (hasher.chunk_count() == 0) continue;  // shards without planned work are omitted
      cases::RunPlanShard shard;
      shard.run_shard = s;
      shard.case_count = planner.shard_case_count(s);
      shard.chunk_count = hasher.chunk_count();
      shard.planned_chunk_hash = hasher.FinishHex();
      // Every gate is listed for every shard, zero counts included: the
      // denominators are explicit.
      std::vector<cases::GateCountEntry> entries;
      const std::vector<int32_t>& counts = planner.gate_counts(s);
      for (size_t g = 0; g < profile_.gates.size(); ++g) {
        entries.push_back(cases::GateCountEntry{profile_.gates[g].gate_id, counts[g]});
      }
      VIGILO_ASSIGN_OR_RETURN(shard.gate_counts,
                              cases::BuildGateCountChain(s, shard.case_count, entries,
                                                         prefix + "gates/" + Padded(s, 3) + "/", limits_, sink));
      gate_pages += static_cast<uint64_t>(shard.gate_counts.page_count);
      plan.shards.push_back(std::move(shard));
    }

    cases::RunConfiguration configuration;
    cases::RunSnapshot& snap = configuration.snapshot;
    snap.profile = profile_.document;
    snap.agent = profile_.agent;
    snap.dataset_ref.dataset_id = dataset_.dataset_id;
    snap.dataset_ref.dataset_version = dataset_.dataset_version;
    snap.dataset_ref.dataset_version_id = dataset_.dataset_version_id;
    snap.dataset_ref.dataset_hash = dataset_.dataset_hash;
    snap.dataset_ref.case_count = dataset_.case_count;
    snap.dataset_version_id = dataset_.dataset_version_id;
    snap.profile_version_id = profile_.profile_version_id;
    snap.profile_hash = profile_.profile_hash;
    snap.dataset_hash = dataset_.dataset_hash;
    snap.aggregation_policy_hash = profile_.aggregation_policy_hash;
    snap.execution_plan_hash = profile_.execution_plan_hash;
    snap.execution_plan = profile_.execution_plan;
    snap.chunk_size = profile_.chunk_size;
    snap.executability = planner.executability();
    VIGILO_RETURN_IF_ERROR(configuration.Validate());
    VIGILO_ASSIGN_OR_RETURN(std::string configuration_bytes, configuration.Encode());
    if (configuration_bytes.size() > limits_.max_configuration_bytes) {
      return LimitExceeded("the run configuration encodes to " + std::to_string(configuration_bytes.size()) +
                           " bytes; the limit is " + std::to_string(limits_.max_configuration_bytes))
          .WithPath("run_configuration_max_bytes");
    }
    VIGILO_ASSIGN_OR_RETURN(plan.configuration, sink(prefix + "configuration.json",
                                                     cases::StorageFormat::kRunConfiguration,
                                                     std::move(configuration_bytes)));
    VIGILO_RETURN_IF_ERROR(plan.ValidateWithin(limits_));
    VIGILO_RETURN_IF_ERROR(cases::CheckConfigurationAgreement(plan, configuration));
    VIGILO_ASSIGN_OR_RETURN(std::string plan_bytes, plan.Encode());
    VIGILO_ASSIGN_OR_RETURN(cases::ObjectRef root,
                            sink(prefix + "manifest.json", cases::StorageFormat::kRunPlanManifest, plan_bytes));

    // Activation's checks on what the store now holds, before the name
    // points at it.
    Report("verifying", cases_read);
    VIGILO_RETURN_IF_ERROR(writer_->KeepLease());
    cases::ObjectBytesFetch plan_fetch = [this](const cases::ObjectRef& ref, uint64_t max) -> Result<std::string> {
      if (ref.key.rfind(writer_->lease().key_prefix, 0) == 0) {
        return cases::StoreBytesFetch(cases::SingleStore(writer_->governed()))(ref, max);
      }
      return dataset_fetch_(ref, max);
    };
    VIGILO_RETURN_IF_ERROR(VerifyRun(root, options_.budget, options_.scratch_dir, plan_fetch, false).status());

    PlanRunResult result;
    result.root = root;
    result.plan = std::move(plan);
    result.cases_read = cases_read;
    result.chunk_pages = pages.pages();
    result.gate_pages = gate_pages;
    Report("publishing", cases_read);
    VIGILO_RETURN_IF_ERROR(Publish(result));
    result.name = name_;
    writer_->Report(result);
    return result;
  }

  Status Publish(PlanRunResult& result) {
    std::optional<cases::RunPlanManifest> theirs;
    auto same = writer_->SameRoot(
        limits_.max_root_bytes,
        [this](const cases::VerifiedObject& o) { return cases::RunPlanManifest::Decode(o, limits_); }, SamePlan,
        result.plan, theirs);
    auto refusal = [&](const control::RootRecord& current) -> Status {
      // A root in another store is not fetched: say only what is known.
      if (std::optional<std::string> elsewhere = writer_->OtherStoreOf(current)) {
        return NameHoldsOther("run name", name_,
                              "a plan published from another store (" + *elsewhere +
                                  "), whose objects are not compared with these",
                              current.version);
      }
      return NameHoldsOther("run name", name_, "another plan", current.version);
    };
    VIGILO_ASSIGN_OR_RETURN(AttemptWriter::PublishedRoot published,
                            writer_->PublishRoot(result.root, options_.replace, same, refusal));
    writer_->Report(published, result);
    if (published.outcome == RootOutcome::kUnchanged) result.plan = std::move(*theirs);
    return Status::Ok();
  }

  const cases::ObjectRef& dataset_root_;
  const cases::ObjectBytesFetch& dataset_fetch_;
  const EvaluationProfile& profile_;
  const PlanRunOptions& options_;
  const WriteTarget& target_;
  cases::RunPlanLimits limits_;
  cases::DatasetManifest dataset_;
  std::string name_;
  Uuid run_id_;
  std::optional<AttemptWriter> writer_;
};

}  // namespace

std::string ChunkSizeWarning(const PlanRunResult& result, const EvaluationProfile& profile) {
  const uint64_t chunks = static_cast<uint64_t>(result.plan.chunk_count);
  const uint64_t cases = static_cast<uint64_t>(result.plan.planned_case_count());
  const uint64_t size = static_cast<uint64_t>(profile.chunk_size);
  if (chunks < 2 || cases * 4 >= size * chunks) return "";
  char average[32];
  std::snprintf(average, sizeof average, "%.1f", static_cast<double>(cases) / static_cast<double>(chunks));
  std::string field;
  switch (profile.groups.by) {
    case GroupRule::By::kTaskType: field = "task_type"; break;
    case GroupRule::By::kMetadataField: field = "metadata." + profile.groups.field; break;
    case GroupRule::By::kNone: break;
  }
  std::string why = field.empty()
                        ? "a chunk closes at chunk_size cases and where the profile group changes"
                        : "a chunk closes wherever the profile group (" + field +
                              ") changes, and the dataset's cases are not in " + field + " order";
  std::string fix = field.empty() ? "sort the cases by their group" : "sort the cases by " + field;
  return std::to_string(cases) + " cases made " + std::to_string(chunks) + " chunks, " + average +
         " cases per chunk against a chunk_size of " + std::to_string(size) + ": " + why +
         ". Workers pay per chunk; to get full chunks, " + fix +
         " before ingesting the dataset, or plan with a profile without profile_groups";
}

Result<PlanRunResult> PlanRun(const cases::ObjectRef& dataset_root, const cases::ObjectBytesFetch& dataset_fetch,
                              const EvaluationProfile& profile, const PlanRunOptions& options,
                              const WriteTarget& target) {
  VIGILO_RETURN_IF_ERROR(options.budget.Validate());
  VIGILO_RETURN_IF_ERROR(cases::RunPlanLimits::From(options.budget).Validate());
  if (!options.name.empty()) {
    if (Status s = control::ValidateRootName(options.name); !s.ok()) {
      return InvalidArgument(std::string(s.message())).WithPath("name");
    }
  }
  if (options.lease_duration <= 0 || options.lease_duration > control::kMaxLeaseDuration) {
    return InvalidArgument("the lease duration must be positive and at most 24 hours").WithPath("lease_duration");
  }
  if (dataset_root.schema != cases::StorageFormat::kDatasetManifest) {
    return InvalidArgument("the dataset reference does not name a dataset manifest").WithPath("dataset");
  }
  VIGILO_RETURN_IF_ERROR(CheckWriteTarget(target));
  Planning planning(dataset_root, dataset_fetch, profile, options, target);
  return planning.Run();
}

}  // namespace vigilo::engine
