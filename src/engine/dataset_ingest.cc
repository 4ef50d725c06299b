#include "vigilo/engine/dataset_ingest.h"

#include <atomic>
#include <system_error>
#include <utility>

#include "attempt_writer.h"
#include "input_spool.h"
#include "vigilo/cases/dataset_reader.h"
#include "vigilo/cases/dataset_stream.h"
#include "vigilo/cases/dataset_writer.h"
#include "vigilo/cases/identity.h"
#include "vigilo/cases/object_io.h"
#include "vigilo/common/paths.h"
#include "vigilo/control/cleanup.h"
#include "vigilo/hash/blake3.h"
#include "vigilo/common/hex.h"
#include "vigilo/json/parse.h"
#include "vigilo/json/value.h"
#include "vigilo/json/write.h"

namespace vigilo::engine {
namespace {

namespace bb = cases::budget_bounds;

// Seed 004: "one active ingestion" per process (the validation spool quota
// is per process, so two at once would each think they have all of it).
std::atomic<bool> g_ingestion_active{false};

class OneIngestion {
 public:
  OneIngestion() : held_(!g_ingestion_active.exchange(true)) {}
  ~OneIngestion() {
    if (held_) g_ingestion_active.store(false);
  }
  bool held() const { return held_; }

 private:
  bool held_;
};

// Reads through to `inner`, hashing and counting every byte: pass one's
// input digest (the resume key) and the progress of both passes.
class CountingSource final : public ByteSource {
 public:
  CountingSource(ByteSource& inner, Blake3Hasher* hasher, std::function<void(uint64_t)> on_bytes)
      : inner_(inner), hasher_(hasher), on_bytes_(std::move(on_bytes)) {}
  Result<size_t> Read(std::span<char> buf) override {
    VIGILO_ASSIGN_OR_RETURN(size_t n, inner_.Read(buf));
    if (hasher_ != nullptr) hasher_->Update(std::string_view(buf.data(), n));
    bytes_ += n;
    if (on_bytes_) on_bytes_(bytes_);
    return n;
  }
  uint64_t bytes() const { return bytes_; }

 private:
  ByteSource& inner_;
  Blake3Hasher* hasher_;
  std::function<void(uint64_t)> on_bytes_;
  uint64_t bytes_ = 0;
};

// Reads what a pass left unread, so that the digest covers the whole input.
Status Drain(ByteSource& source) {
  char buf[64 * 1024];
  while (true) {
    VIGILO_ASSIGN_OR_RETURN(size_t n, source.Read(std::span<char>(buf, sizeof buf)));
    if (n == 0) return Status::Ok();
  }
}

std::string_view FormatName(InputFormat f) { return f == InputFormat::kDatasetJson ? "dataset-json" : "case-lines"; }

// Checks everything that needs no input and no I/O.
Status CheckRequest(const IngestInput& input, const IngestOptions& options, const IngestTarget& target) {
  if (input.path.empty()) return InvalidArgument("no input file given").WithPath("input");
  VIGILO_RETURN_IF_ERROR(options.budget.Validate());
  if (!options.name.empty()) {
    if (Status s = control::ValidateRootName(options.name); !s.ok()) {
      return InvalidArgument(std::string(s.message())).WithPath("name");
    }
  }
  if (options.lease_duration <= 0 || options.lease_duration > control::kMaxLeaseDuration) {
    return InvalidArgument("the lease duration must be positive and at most 24 hours").WithPath("lease_duration");
  }
  std::error_code ec;
  if (!std::filesystem::is_directory(options.scratch_dir, ec)) {
    return InvalidArgument("the scratch directory " + options.scratch_dir.string() + " does not exist")
        .WithPath("scratch_dir");
  }
  if (input.format == InputFormat::kCaseLines) {
    cases::CaseLinesOptions lines = input.lines;
    lines.limits.max_source_fields_bytes = options.budget.source_fields_max_bytes;
    VIGILO_RETURN_IF_ERROR(cases::ValidateCaseLinesOptions(lines));
  }
  return CheckWriteTarget(target);
}

// The admission record of an attempt (seed 004: "Uploads record their
// admission limits for resumable processing"): everything that decides the
// bytes the attempt writes. An unpublished attempt is resumed only by a run
// whose record is byte-for-byte the same, so its objects are replays.
Result<std::string> AdmissionRecord(const IngestInput& input, const cases::BudgetConfig& b, const std::string& alias,
                                    const std::string& input_digest, uint64_t input_bytes) {
  json::Object o;
  o.Set("case_batch_max_bytes", json::Value::Uint(b.case_batch_max_bytes));
  o.Set("case_batch_max_cases", json::Value::Uint(b.case_batch_max_cases));
  o.Set("index_max_height", json::Value::Uint(b.index_max_height));
  o.Set("input_blake3", json::Value(input_digest));
  o.Set("input_bytes", json::Value::Uint(input_bytes));
  o.Set("input_format", json::Value(std::string(FormatName(input.format))));
  if (input.format == InputFormat::kCaseLines) {
    json::Object lines;
    lines.Set("dataset_id", json::Value(input.lines.dataset_id));
    // The version and the derive field are recorded by their BLAKE3 (hex):
    // they are bounded only by the source-fields budget (8 MiB), the ledger
    // record by the control store's 64 KiB (issue 34).
    lines.Set("dataset_version_blake3",
              input.lines.dataset_version ? json::Value(HexEncode(Blake3(*input.lines.dataset_version)))
                                          : json::Value());
    lines.Set("derive_ids_from_blake3", json::Value(HexEncode(Blake3(input.lines.derive_ids_from))));
    o.Set("lines", json::Value(std::move(lines)));
  }
  o.Set("logical_key_max_bytes", json::Value::Uint(b.logical_key_max_bytes));
  o.Set("page_max_bytes", json::Value::Uint(b.page_max_bytes));
  o.Set("page_max_entries", json::Value::Uint(b.page_max_entries));
  o.Set("root_manifest_max_bytes", json::Value::Uint(b.root_manifest_max_bytes));
  o.Set("source_fields_max_bytes", json::Value::Uint(b.source_fields_max_bytes));
  o.Set("storage_alias", json::Value(alias));
  return json::ToCanonical(json::Value(std::move(o)));
}

// Two manifests describe the same dataset: the same identities and the same
// recorded batch policy (where the objects lie does not matter).
bool SameDataset(const cases::DatasetManifest& a, const cases::DatasetManifest& b) {
  return a.dataset_id == b.dataset_id && a.dataset_version == b.dataset_version &&
         a.dataset_version_id == b.dataset_version_id && a.dataset_hash == b.dataset_hash &&
         a.case_count == b.case_count && a.batch_limits == b.batch_limits;
}

class Ingestion {
 public:
  Ingestion(const IngestInput& input, const IngestOptions& options, const IngestTarget& target)
      : input_(input), options_(options), target_(target) {
    // Whether a case fits a batch is the batch builder's decision on its
    // encoded record, whose error names the case's ordinal and id: read any
    // case a format-valid batch could hold (one case at a time).
    stream_limits_.max_case_bytes = bb::kMaxBatchBytes;
    // The top-level fields are held to the configured budget, in either
    // format (the writer holds the source-fields object to it as well).
    stream_limits_.max_source_fields_bytes = options.budget.source_fields_max_bytes;
  }

  Result<IngestResult> Run() {
    VIGILO_RETURN_IF_ERROR(ReadPassOne());
    writer_.emplace(target_, control::Namespace::kDatasets, name_, options_.lease_duration, options_.cancel);
    VIGILO_ASSIGN_OR_RETURN(std::string admission, AdmissionRecord(input_, budget_, target_.alias, input_digest_,
                                                                   input_bytes_));
    VIGILO_RETURN_IF_ERROR(
        writer_->Take(admission, [&admission](const std::string& theirs) { return theirs == admission; }));
    Result<IngestResult> done = WriteVerifyPublish();
    if (done.ok()) return done;
    // A name held by another dataset is kept resumable (AttemptWriter),
    // so that a rerun with `replace` reuses the objects. An object key held
    // by other bytes is not: a rerun of this attempt would meet them again.
    return writer_->OnFailure(done.status());
  }

 private:
  void Report(const char* phase, uint64_t cases, uint64_t bytes) {
    if (!options_.progress) return;
    IngestProgress p;
    p.phase = phase;
    p.cases = cases;
    p.bytes = bytes;
    p.total_bytes = spool_ ? spool_->size_hint() : 0;
    options_.progress(p);
  }

  Status CheckCancelled() const {
    if (options_.cancel != nullptr && options_.cancel->cancelled()) return Cancelled("ingestion cancelled");
    return Status::Ok();
  }

  // Pass one: the spool (stdin only), the source fields and the input digest.
  Status ReadPassOne() {
    VIGILO_ASSIGN_OR_RETURN(InputSpool spool, InputSpool::Open(input_.path, options_.scratch_dir,
                                                               options_.budget.ingestion_validation_spool_bytes));
    spool_.emplace(std::move(spool));
    budget_ = options_.budget;
    // The copy of stdin and the duplicate-ID sort share one quota.
    uint64_t left = budget_.ingestion_validation_spool_bytes - spool_->spooled_bytes();
    if (left < bb::kMinValidationSpoolBytes) {
      return LimitExceeded("standard input (" + std::to_string(spool_->spooled_bytes()) +
                           " bytes) leaves less than 1 MiB of the validation spool for the duplicate-ID sort")
          .WithPath("ingestion_validation_spool_bytes");
    }
    budget_.ingestion_validation_spool_bytes = left;

    VIGILO_ASSIGN_OR_RETURN(std::unique_ptr<ByteSource> reader, spool_->OpenReader());
    Blake3Hasher hasher;
    CountingSource counted(*reader, &hasher, [this](uint64_t n) { Report("reading", 0, n); });
    if (input_.format == InputFormat::kDatasetJson) {
      VIGILO_ASSIGN_OR_RETURN(source_fields_, cases::ReadDatasetSourceFields(counted, stream_limits_));
    } else {
      VIGILO_ASSIGN_OR_RETURN(source_fields_, cases::CaseLinesSourceFields(input_.lines));
      // Every line is parsed and its case checked here, before an attempt
      // is taken or anything written (a dataset document's pass one
      // tokenizes the whole input for the same reason): a bad line, a line
      // nesting deeper than its stored record allows, or a bad case is
      // refused naming its line (issue 34).
      cases::CaseLinesOptions lines = input_.lines;
      lines.limits = stream_limits_;
      uint64_t index = 0;
      VIGILO_RETURN_IF_ERROR(cases::ForEachCaseLine(counted, lines, [&](const json::Value& c) -> Status {
        if ((index & 1023) == 0) VIGILO_RETURN_IF_ERROR(CheckCancelled());
        return cases::ValidateSubmittedCase(c, index++).status();
      }));
    }
    VIGILO_RETURN_IF_ERROR(Drain(counted));
    input_bytes_ = counted.bytes();
    {
      auto digest = hasher.Finalize();
      input_digest_ = HexEncode(digest);
    }
    name_ = options_.name.empty() ? source_fields_.dataset_id() : options_.name;
    VIGILO_RETURN_IF_ERROR(control::ValidateRootName(name_));
    return CheckCancelled();
  }

  Result<IngestResult> WriteVerifyPublish() {
    VIGILO_ASSIGN_OR_RETURN(cases::DatasetWriter writer,
                            cases::DatasetWriter::Start(source_fields_, budget_, options_.scratch_dir,
                                                        writer_->lease().key_prefix,
                                                        writer_->Sink(budget_.staging_spool_bytes)));
    VIGILO_ASSIGN_OR_RETURN(std::unique_ptr<ByteSource> reader, spool_->OpenReader());
    uint64_t cases_done = 0;
    CountingSource counted(*reader, nullptr, [&](uint64_t n) { Report("writing", cases_done, n); });
    auto add = [&](const json::Value& c) -> Status {
      if ((cases_done & 1023) == 0) VIGILO_RETURN_IF_ERROR(CheckCancelled());
      VIGILO_RETURN_IF_ERROR(writer.AddCase(c));
      ++cases_done;
      return Status::Ok();
    };
    if (input_.format == InputFormat::kDatasetJson) {
      VIGILO_RETURN_IF_ERROR(cases::ForEachDatasetCase(counted, stream_limits_, add));
    } else {
      cases::CaseLinesOptions lines = input_.lines;
      lines.limits = stream_limits_;
      VIGILO_RETURN_IF_ERROR(cases::ForEachCaseLine(counted, lines, add));
    }
    Result<cases::WrittenDataset> finished = writer.Finish();
    if (!finished.ok()) return NameDuplicate(std::move(finished).take_status());
    cases::WrittenDataset written = std::move(finished).value();

    // Publication requires bounded verification of every descendant (seed
    // 004): read back from the store, decoded by the reader, not the writer.
    Report("verifying", cases_done, 0);
    VIGILO_RETURN_IF_ERROR(writer_->KeepLease());
    VIGILO_ASSIGN_OR_RETURN(cases::ReadDatasetSummary verified,
                            cases::ReadDataset(written.manifest_ref, budget_, options_.scratch_dir,
                                               cases::StoreBytesFetch(cases::SingleStore(writer_->governed()))));
    IngestResult result;
    result.verified_bytes = verified.object_bytes;
    result.manifest = written.manifest;
    result.root = written.manifest_ref;
    VIGILO_RETURN_IF_ERROR(CheckCancelled());
    Report("publishing", cases_done, 0);
    VIGILO_RETURN_IF_ERROR(Publish(result));
    Fill(result);
    return result;
  }

  // With derived ids, a duplicate id is named by the user's own values
  // (read again from the input), not by the UUIDs derived from them.
  Status NameDuplicate(Status status) {
    if (input_.format != InputFormat::kCaseLines || input_.lines.derive_ids_from.empty()) return status;
    Result<std::unique_ptr<ByteSource>> reader = spool_->OpenReader();
    if (!reader.ok()) return status;
    cases::CaseLinesOptions lines = input_.lines;
    lines.limits = stream_limits_;
    return cases::NameDerivedDuplicate(std::move(status), **reader, lines);
  }

  Status Publish(IngestResult& result) {
    std::optional<cases::DatasetManifest> theirs;
    auto same = writer_->SameRoot(
        budget_.root_manifest_max_bytes, [](const cases::VerifiedObject& o) { return cases::DatasetManifest::Decode(o); },
        SameDataset, result.manifest, theirs);
    auto refusal = [&](const control::RootRecord& current) -> Status {
      bool same_identity = theirs && theirs->dataset_hash == result.manifest.dataset_hash &&
                           theirs->dataset_version_id == result.manifest.dataset_version_id;
      std::string what = same_identity ? "this dataset with another batch policy (max_cases " +
                                             std::to_string(theirs->batch_limits.max_cases) + ", max_bytes " +
                                             std::to_string(theirs->batch_limits.max_bytes) +
                                             "); a published dataset is never repacked"
                                       : "another dataset";
      // A root written to another store is not fetched (it may be another
      // machine's directory), so whether it holds these cases is unknown:
      // say only what is known (issue 34).
      if (std::optional<std::string> elsewhere = writer_->OtherStoreOf(current)) {
        what = "a dataset published from another store (" + *elsewhere +
               "), whose objects are not compared with these";
      }
      return NameHoldsOther("name", name_, what, current.version);
    };
    VIGILO_ASSIGN_OR_RETURN(AttemptWriter::PublishedRoot published,
                            writer_->PublishRoot(result.root, options_.replace, same, refusal));
    writer_->Report(published, result);
    if (published.outcome == RootOutcome::kUnchanged) result.manifest = *theirs;
    return Status::Ok();
  }

  void Fill(IngestResult& result) const {
    result.name = name_;
    result.input_bytes = input_bytes_;
    writer_->Report(result);
  }

  const IngestInput& input_;
  const IngestOptions& options_;
  const IngestTarget& target_;
  cases::DatasetStreamLimits stream_limits_;
  cases::BudgetConfig budget_;
  std::optional<InputSpool> spool_;
  cases::DatasetSourceFields source_fields_;
  uint64_t input_bytes_ = 0;
  std::string input_digest_;
  std::string name_;
  std::optional<AttemptWriter> writer_;
};

}  // namespace


Result<IngestResult> IngestDataset(const IngestInput& input, const IngestOptions& options,
                                   const IngestTarget& target) {
  VIGILO_RETURN_IF_ERROR(CheckRequest(input, options, target));
  OneIngestion guard;
  if (!guard.held()) {
    return Unavailable("another ingestion is running in this process (seed 004: one active ingestion per process)");
  }
  Ingestion ingestion(input, options, target);
  return ingestion.Run();
}

}  // namespace vigilo::engine
