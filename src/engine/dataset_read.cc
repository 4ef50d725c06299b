#include "vigilo/engine/dataset_read.h"

#include "verified_fetch.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <utility>

#include "vigilo/cases/dataset_reader.h"
#include "vigilo/cases/identity.h"
#include "vigilo/cases/ordinal_index.h"
#include "vigilo/common/hex.h"
#include "vigilo/hash/blake3.h"
#include "vigilo/json/parse.h"
#include "vigilo/json/write.h"
#include "vigilo/parquet/writer.h"

namespace vigilo::engine {
namespace {


// "dataset" or "run": how messages name what a namespace publishes.
std::string Noun(control::Namespace ns) { return ns == control::Namespace::kRuns ? "run" : "dataset"; }

Status RefTooLarge(control::Namespace ns) { return LimitExceeded("a " + Noun(ns) + " reference is at most 64 KiB"); }

// `origin: $.field` for an error inside the reference, else `origin`.
Status Located(Status s, const std::string& origin) {
  if (s.path().empty()) return std::move(s).WithPath(origin);
  return std::move(s).PrependPath(origin + ": ");
}

Result<cases::ObjectRef> ParseRef(std::string_view text, const std::string& origin, control::Namespace ns) {
  auto parsed = json::Parse(text);
  if (!parsed.ok()) return Located(std::move(parsed).take_status(), origin);
  auto ref = cases::ObjectRef::FromJson(*parsed, "$");
  if (!ref.ok()) return Located(std::move(ref).take_status(), origin);
  const cases::StorageFormat expected = RootFormat(ns);
  if (ref->schema != expected) {
    return InvalidArgument("the reference names a " + std::string(cases::StorageFormatId(ref->schema)) +
                           " object, not a " + std::string(cases::StorageFormatId(expected)) + " root")
        .WithPath(origin);
  }
  return std::move(ref).value();
}

// The verified fetches of one read, plus the budget that caps them and the
// index pages they walk.
class Fetcher : public VerifiedFetcher {
 public:
  Fetcher(const cases::BudgetConfig& budget, const cases::ObjectBytesFetch& fetch)
      : VerifiedFetcher(fetch), budget_(budget) {}

  // The page `expected` names, checked against its parent (FetchChildPage).
  Result<cases::OrdinalIndexPage> Page(const cases::IndexEntry& expected, int32_t level, int depth) {
    if (depth >= static_cast<int>(budget_.index_max_height)) {
      return LimitExceeded("index deeper than " + std::to_string(budget_.index_max_height) + " pages")
          .WithPath(expected.object.key);
    }
    cases::ObjectFetch fetch = [this](const cases::ObjectRef& ref) { return Fetch(ref, budget_.page_max_bytes); };
    return cases::FetchChildPage(expected, level, cases::IndexKind::kDatasetBatches, IndexLimitsOf(budget_), fetch);
  }

  const cases::BudgetConfig& budget() const { return budget_; }

 private:
  const cases::BudgetConfig& budget_;
};

struct LoadedRoot {
  cases::DatasetManifest manifest;
  cases::DatasetSourceFields source_fields;
};

// The manifest and its source fields, verified and consistent with each
// other (the checks cases::ReadDataset makes before it walks the index).
Result<LoadedRoot> LoadRoot(const cases::ObjectRef& root, Fetcher& fetcher) {
  const cases::BudgetConfig& budget = fetcher.budget();
  VIGILO_RETURN_IF_ERROR(budget.Validate());
  if (root.schema != cases::StorageFormat::kDatasetManifest) {
    return InvalidArgument("the root reference must name a vigilo/dataset-manifest/v1 object");
  }
  LoadedRoot loaded;
  VIGILO_ASSIGN_OR_RETURN(cases::VerifiedObject manifest_object, fetcher.Fetch(root, budget.root_manifest_max_bytes));
  VIGILO_ASSIGN_OR_RETURN(loaded.manifest, cases::DatasetManifest::Decode(manifest_object));
  const cases::DatasetManifest& manifest = loaded.manifest;
  VIGILO_ASSIGN_OR_RETURN(cases::VerifiedObject fields_object,
                          fetcher.Fetch(manifest.source_fields, budget.source_fields_max_bytes));
  VIGILO_ASSIGN_OR_RETURN(loaded.source_fields, cases::DatasetSourceFields::Decode(fields_object));
  VIGILO_RETURN_IF_ERROR(cases::CheckSourceFieldsOf(loaded.source_fields, manifest));
  return loaded;
}

cases::IndexEntry RootEntry(const cases::DatasetManifest& manifest) {
  const cases::IndexRootDescriptor& root = manifest.batches;
  return cases::IndexEntry{root.range_start, root.range_end, root.object};
}

// A batch fetched for its index entry: verified, of this dataset, covering
// exactly the entry's range, within the recorded batch policy.
struct FetchedBatch {
  std::unique_ptr<cases::DecodedCaseBatch> batch;  // the reader points into it
  cases::CaseBatchReader reader;
};
Result<FetchedBatch> FetchBatch(const cases::IndexEntry& entry, const cases::DatasetManifest& manifest,
                                Fetcher& fetcher) {
  VIGILO_ASSIGN_OR_RETURN(cases::VerifiedObject object, fetcher.Fetch(entry.object, manifest.batch_limits.max_bytes));
  VIGILO_ASSIGN_OR_RETURN(cases::DecodedCaseBatch decoded, cases::DecodeCaseBatch(std::move(object)));
  auto batch = std::make_unique<cases::DecodedCaseBatch>(std::move(decoded));
  VIGILO_RETURN_IF_ERROR(cases::CheckBatchForEntry(batch->header(), entry, manifest));
  VIGILO_ASSIGN_OR_RETURN(cases::CaseBatchReader reader, batch->Validate(manifest.batch_limits));
  return FetchedBatch{std::move(batch), std::move(reader)};
}

// The stored record line (without LF): batch lines are canonical, so the
// canonical encoding of the decoded record is exactly the stored bytes.
Result<std::string> RecordLine(const cases::CaseRecord& record) {
  json::Object object;
  object.Set("case_hash", json::Value(HexEncode(record.case_hash)));
  object.Set("case_ordinal", json::Value::Int(record.case_ordinal));
  object.Set("source", record.source);
  return json::ToCanonical(json::Value(std::move(object)));
}

// Visits, depth first and in ordinal order, the leaf entries overlapping
// [from, to); only the pages on the way to them are fetched.
Status WalkLeaves(const cases::IndexEntry& expected, int32_t level, int depth, int32_t from, int32_t to,
                  Fetcher& fetcher, uint64_t* pages,
                  const std::function<Status(const cases::IndexEntry& leaf)>& on_leaf) {
  VIGILO_ASSIGN_OR_RETURN(cases::OrdinalIndexPage page, fetcher.Page(expected, level, depth));
  ++*pages;
  for (const cases::IndexEntry& entry : page.entries) {
    if (entry.range_end <= from || entry.range_start >= to) continue;
    if (page.level == 0) {
      VIGILO_RETURN_IF_ERROR(on_leaf(entry));
    } else {
      VIGILO_RETURN_IF_ERROR(WalkLeaves(entry, page.level - 1, depth + 1, from, to, fetcher, pages, on_leaf));
    }
  }
  return Status::Ok();
}

}  // namespace

cases::StorageFormat RootFormat(control::Namespace ns) {
  return ns == control::Namespace::kRuns ? cases::StorageFormat::kRunPlanManifest
                                         : cases::StorageFormat::kDatasetManifest;
}

Result<RootLocator> ParseRootLocator(std::string_view text, control::Namespace ns) {
  const std::string noun = Noun(ns);
  if (text.empty()) return InvalidArgument("a " + noun + " name or reference is required");
  RootLocator locator;
  if (text[0] == '{') {
    VIGILO_ASSIGN_OR_RETURN(locator.ref, ParseRootReference(text, "<reference>", ns));
    return locator;
  }
  if (Status s = control::ValidateRootName(text); !s.ok()) {
    return InvalidArgument("\"" + std::string(text) + "\" is not a " + noun + " name (" + std::string(s.message()) +
                           ") nor a reference (@FILE, - or inline JSON)");
  }
  locator.name = std::string(text);
  return locator;
}

Result<cases::ObjectRef> ParseRootReference(std::string_view text, const std::string& origin, control::Namespace ns) {
  if (!text.empty() && text.back() == '\n') text.remove_suffix(1);
  if (text.size() > kMaxRootReferenceBytes) return RefTooLarge(ns).WithPath(origin);
  return ParseRef(text, origin, ns);
}

Result<DatasetLocator> ParseDatasetLocator(std::string_view text) {
  return ParseRootLocator(text, control::Namespace::kDatasets);
}

Result<ResolvedRoot> ResolveRoot(const RootLocator& locator, control::ControlStore* control, control::Namespace ns) {
  ResolvedRoot resolved;
  if (locator.ref) {
    resolved.root = *locator.ref;
    return resolved;
  }
  if (control == nullptr) return InvalidArgument("a " + Noun(ns) + " name needs the control store");
  VIGILO_ASSIGN_OR_RETURN(std::optional<control::RootRecord> record, control->GetRoot(ns, locator.name));
  if (!record) return NotFound("no " + Noun(ns) + " is published under " + locator.name);
  const std::string where =
      std::string(control::NamespaceName(ns)) + "/" + locator.name + " version " + std::to_string(record->version);
  VIGILO_ASSIGN_OR_RETURN(resolved.root, ParseRef(record->value, where, ns));
  VIGILO_ASSIGN_OR_RETURN(control::AttemptRecord attempt, control->GetAttempt(record->attempt));
  resolved.ledger_store_id = attempt.store;
  resolved.record = std::move(record);
  return resolved;
}

Result<ResolvedDataset> ResolveDataset(const DatasetLocator& locator, control::ControlStore* control) {
  return ResolveRoot(locator, control, control::Namespace::kDatasets);
}

Result<DatasetOverview> ShowDataset(const cases::ObjectRef& root, const cases::BudgetConfig& budget,
                                    const cases::ObjectBytesFetch& fetch) {
  Fetcher fetcher(budget, fetch);
  VIGILO_ASSIGN_OR_RETURN(LoadedRoot loaded, LoadRoot(root, fetcher));
  DatasetOverview overview;
  uint64_t batch_bytes = 0;
  const cases::DatasetManifest& manifest = loaded.manifest;
  VIGILO_RETURN_IF_ERROR(WalkLeaves(RootEntry(manifest), manifest.batches.level, 0, 0, manifest.case_count, fetcher,
                                    &overview.index_page_count, [&](const cases::IndexEntry& leaf) {
                                      ++overview.batch_count;
                                      batch_bytes += leaf.object.byte_count;
                                      return Status::Ok();
                                    }));
  overview.object_count = fetcher.objects + overview.batch_count;
  overview.object_bytes = fetcher.bytes_fetched + batch_bytes;
  overview.manifest = std::move(loaded.manifest);
  overview.source_fields = std::move(loaded.source_fields);
  return overview;
}

Result<ExportSummary> ExportDataset(const cases::ObjectRef& root, const cases::BudgetConfig& budget,
                                    const cases::ObjectBytesFetch& fetch,
                                    const std::function<Status(std::string_view bytes)>& out,
                                    const store::CancelToken* cancel) {
  auto check_cancelled = [cancel]() -> Status {
    if (cancel != nullptr && cancel->cancelled()) return Cancelled("the export was cancelled");
    return Status::Ok();
  };
  VIGILO_RETURN_IF_ERROR(check_cancelled());
  Fetcher fetcher(budget, fetch);
  VIGILO_ASSIGN_OR_RETURN(LoadedRoot loaded, LoadRoot(root, fetcher));
  const cases::DatasetManifest& manifest = loaded.manifest;
  VIGILO_RETURN_IF_ERROR(budget.AdmitBatchPolicy(manifest.batch_limits.max_cases, manifest.batch_limits.max_bytes));

  ExportSummary summary;
  Blake3Hasher hasher;
  auto emit = [&](std::string_view bytes) -> Status {
    hasher.Update(bytes);
    summary.bytes_written += bytes.size();
    return out(bytes);
  };
  cases::CanonicalDatasetFrame frame = cases::FrameCanonicalDataset(loaded.source_fields.fields, true);
  VIGILO_RETURN_IF_ERROR(emit(frame.prefix));
  // One piece per batch: its cases, comma-separated, in canonical form.
  std::string piece;
  auto write_batch = [&](const cases::IndexEntry& leaf) -> Status {
    VIGILO_RETURN_IF_ERROR(check_cancelled());
    VIGILO_ASSIGN_OR_RETURN(FetchedBatch fetched, FetchBatch(leaf, manifest, fetcher));
    piece.clear();
    while (true) {
      VIGILO_ASSIGN_OR_RETURN(std::optional<cases::CaseRecord> record, fetched.reader.Next());
      if (!record) break;
      VIGILO_RETURN_IF_ERROR(cases::AppendCanonicalCase(record->source, summary.case_count, &piece));
      ++summary.case_count;
    }
    return emit(piece);
  };
  uint64_t pages = 0;
  VIGILO_RETURN_IF_ERROR(WalkLeaves(RootEntry(manifest), manifest.batches.level, 0, 0, manifest.case_count, fetcher,
                                    &pages, write_batch));
  VIGILO_RETURN_IF_ERROR(emit(frame.suffix));
  summary.dataset_hash = HexEncode(hasher.Finalize());
  if (summary.case_count != static_cast<uint64_t>(manifest.case_count)) {
    return IntegrityError("the batches hold " + std::to_string(summary.case_count) + " cases; the manifest says " +
                          std::to_string(manifest.case_count));
  }
  if (summary.dataset_hash != manifest.dataset_hash) {
    return IntegrityError("the exported bytes hash to " + summary.dataset_hash + ", not the manifest's dataset_hash")
        .WithPath("$.dataset_hash");
  }
  return summary;
}

Result<CasesSummary> ReadDatasetCases(const cases::ObjectRef& root, const cases::BudgetConfig& budget,
                                      const cases::ObjectBytesFetch& fetch, int32_t from, int32_t to,
                                      const std::function<Status(const cases::CaseRecord& record,
                                                                 std::string_view line)>& on_record) {
  Fetcher fetcher(budget, fetch);
  VIGILO_ASSIGN_OR_RETURN(LoadedRoot loaded, LoadRoot(root, fetcher));
  const cases::DatasetManifest& manifest = loaded.manifest;
  const int32_t count = manifest.case_count;
  auto range_text = [&] {
    return "[" + std::to_string(from) + ", " + std::to_string(to) + ") of a dataset of " + std::to_string(count) +
           " cases";
  };
  if (from < 0) return InvalidArgument("the range " + range_text() + " starts before ordinal 0");
  if (from >= to) return InvalidArgument("the range " + range_text() + " is empty");
  if (from >= count) {
    // `to` may be "to the end" (INT32_MAX), so only `from` is named.
    return InvalidArgument("the range starting at " + std::to_string(from) +
                           " starts past the last case of a dataset of " + std::to_string(count) + " cases");
  }
  VIGILO_RETURN_IF_ERROR(budget.AdmitBatchPolicy(manifest.batch_limits.max_cases, manifest.batch_limits.max_bytes));

  CasesSummary summary;
  summary.from = from;
  summary.to = to < count ? to : count;
  uint64_t pages = 0;
  VIGILO_RETURN_IF_ERROR(WalkLeaves(
      RootEntry(manifest), manifest.batches.level, 0, summary.from, summary.to, fetcher, &pages,
      [&](const cases::IndexEntry& leaf) -> Status {
        VIGILO_ASSIGN_OR_RETURN(FetchedBatch fetched, FetchBatch(leaf, manifest, fetcher));
        ++summary.batches_fetched;
        while (true) {
          VIGILO_ASSIGN_OR_RETURN(std::optional<cases::CaseRecord> record, fetched.reader.Next());
          if (!record) break;
          if (record->case_ordinal < summary.from || record->case_ordinal >= summary.to) continue;
          VIGILO_ASSIGN_OR_RETURN(std::string line, RecordLine(*record));
          VIGILO_RETURN_IF_ERROR(on_record(*record, line));
        }
        return Status::Ok();
      }));
  summary.bytes_fetched = fetcher.bytes_fetched;
  return summary;
}

namespace {

std::string ExportTemporary(const std::filesystem::path& file, long pid) {
  return (file.parent_path() / ("." + file.filename().string() + ".vigilo-export-" + std::to_string(pid))).string();
}

void RemoveDeadExportTemporaries(const std::filesystem::path& file) {
  const std::string prefix = "." + file.filename().string() + ".vigilo-export-";
  std::filesystem::path dir = file.parent_path();
  if (dir.empty()) dir = ".";
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) continue;
    const std::string digits = name.substr(prefix.size());
    if (digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos) continue;
    const long pid = std::stol(digits);
    if (pid > 0 && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) {
      std::error_code removed;
      std::filesystem::remove(entry.path(), removed);
    }
  }
}

}  // namespace

Result<ExportSummary> ExportDatasetToFile(const cases::ObjectRef& root, const cases::BudgetConfig& budget,
                                          const cases::ObjectBytesFetch& fetch, const std::string& path,
                                          const store::CancelToken* cancel) {
  RemoveDeadExportTemporaries(path);
  const std::string temporary = ExportTemporary(path, static_cast<long>(::getpid()));
  Result<std::unique_ptr<parquet::FileSink>> created = parquet::FileSink::Create(temporary);
  if (!created.ok()) return Status(created.status().code(), std::string(created.status().message())).WithPath(path);
  std::unique_ptr<parquet::FileSink> file = std::move(created).value();
  auto out = [&file](std::string_view bytes) {
    return file->Append(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
  };
  Result<ExportSummary> exported = ExportDataset(root, budget, fetch, out, cancel);
  Status closed = file->Close();
  if (exported.ok() && !closed.ok()) exported = closed;
  std::error_code ec;
  if (exported.ok()) {
    std::filesystem::rename(temporary, path, ec);
    if (ec) exported = IoError("cannot rename the finished export into place: " + ec.message()).WithPath(path);
  }
  if (!exported.ok()) std::filesystem::remove(temporary, ec);
  return exported;
}

}  // namespace vigilo::engine
