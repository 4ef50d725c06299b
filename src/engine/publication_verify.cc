#include "vigilo/engine/publication_verify.h"

#include <algorithm>

#include "vigilo/engine/publication.h"
#include "vigilo/ivf/manifest.h"
#include "vigilo/ivf/publication_check.h"

namespace vigilo::engine {
namespace {

// The checks in the order they run, and the first level that runs each.
struct Check {
  const char* name;
  VerifyLevel from;
};
constexpr Check kChecks[] = {
    {"manifest_rules", VerifyLevel::kManifest},     // every rule of §2
    {"artifact_uuid", VerifyLevel::kManifest},      // derived from the content (not with any_uuid)
    {"object_sizes", VerifyLevel::kQuick},          // each read expects the descriptor's size
    {"footers", VerifyLevel::kQuick},               // each Parquet footer parses
    {"schemas", VerifyLevel::kQuick},               // §3 columns, types, lengths
    {"row_group_statistics", VerifyLevel::kQuick},  // CID statistics and row-group layout
    {"row_counts", VerifyLevel::kQuick},            // file rows against the descriptors
    {"column_chunks", VerifyLevel::kFull},          // every chunk decoded: pages, levels, encodings
    {"values", VerifyLevel::kFull},                 // code lengths, cid values, centroid order, source keys
    {"sha256", VerifyLevel::kFull},                 // every byte of every object
};

// A failure named "<manifest key>: …" (as ivf::VerifyPublicationFrom names them).
Status InManifest(Status s, const std::string& key) {
  std::string_view path = s.path();
  if (path.empty()) return std::move(s).WithPath(key);
  if (path == key || path.substr(0, key.size() + 2) == key + ": ") return s;
  return std::move(s).PrependPath(key + ": ");
}

// The manifest and quick levels: the manifest read as the full level reads
// it (one Get capped at 64 MiB), then its derived UUID, then with quick the
// objects' footers (ivf::CheckObjects without deep).
Result<ivf::VerifyReport> VerifyUpTo(store::ObjectStore& store, const std::string& key, const VerifyRequest& request) {
  ivf::VerifyReport report;
  auto record = [&](const Status& s) {
    report.failures.push_back(s);
    return request.all;
  };
  store::GetOptions get;
  get.max_bytes = ivf::kMaxManifestBytes;
  auto bytes = store.Get(key, get);
  if (!bytes.ok()) {
    record(InManifest(bytes.status(), key));
    return report;
  }
  report.manifest_bytes = report.largest_read = bytes->size();
  auto manifest = ivf::ParseManifest(bytes->view());
  if (!manifest.ok()) {
    record(InManifest(manifest.status(), key));
    return report;
  }
  if (!request.any_uuid) {
    Status s = ivf::CheckDerivedArtifactUuid(*manifest);
    if (!s.ok() && !record(InManifest(s, key))) return report;
  }
  if (request.level == VerifyLevel::kManifest) return report;
  ivf::ObjectCheckOptions checks;
  checks.deep = false;
  checks.max_read = request.max_buffer;
  checks.on_failure = record;
  checks.cancel = request.cancel;
  ivf::ObjectCheckReport counts;
  Status checked = ivf::CheckObjects(*manifest, store, checks, &counts);  // every other failure went to record
  if (checked.code() == StatusCode::kCancelled) return checked;
  report.AddObjectCounts(counts);  // bytes_hashed and column_chunks stay 0: not deep
  return report;
}

// Through the catalog, the registered source table the binding adds (a
// query reads it): its files by the same rules as a publication's source,
// at the same level (with full, the dense key and every file's SHA-256).
Status VerifyRegisteredSource(const ivf::SourceSpec& source, store::ObjectStore& store, const VerifyRequest& request,
                              ivf::VerifyReport& report) {
  if (request.level == VerifyLevel::kManifest) return Status::Ok();
  ivf::ObjectCheckOptions checks;
  checks.deep = request.level == VerifyLevel::kFull;
  checks.max_read = request.max_buffer;
  checks.cancel = request.cancel;
  checks.on_failure = [&](const Status& s) {
    report.failures.push_back(s);
    return request.all;
  };
  ivf::ObjectCheckReport counts;
  Status checked = ivf::CheckSourceTable(source, store, checks, &counts);
  if (checked.code() == StatusCode::kCancelled) return checked;
  // Added to the publication's own counts (AddObjectCounts takes, not adds).
  report.objects += counts.objects;
  report.bytes_hashed += counts.bytes_hashed;
  report.bytes_read += counts.bytes_read;
  report.largest_read = std::max(report.largest_read, counts.largest_read);
  report.row_groups += counts.row_groups;
  report.column_chunks += counts.column_chunks;
  report.source_rows += counts.source_rows;
  return Status::Ok();
}

}  // namespace

std::string_view VerifyLevelName(VerifyLevel level) {
  switch (level) {
    case VerifyLevel::kManifest: return "manifest";
    case VerifyLevel::kQuick: return "quick";
    case VerifyLevel::kFull: return "full";
  }
  return "full";
}

Result<VerifyOutcome> VerifyPublication(Context& context, std::string_view locator, const VerifyRequest& request) {
  VIGILO_ASSIGN_OR_RETURN(PublicationLocation where, LocatePublication(context, locator));
  VerifyOutcome out;
  out.level = request.level;
  if (request.level == VerifyLevel::kFull) {
    ivf::VerifyOptions options;
    options.all = request.all;
    options.max_buffer_bytes = request.max_buffer;
    options.derived_uuid = !request.any_uuid;
    options.cancel = request.cancel;
    VIGILO_ASSIGN_OR_RETURN(out.report, ivf::VerifyPublicationFrom(*where.store, where.manifest_key, options));
  } else {
    VIGILO_ASSIGN_OR_RETURN(out.report, VerifyUpTo(*where.store, where.manifest_key, request));
  }
  if (where.registered_source && (out.report.failures.empty() || request.all)) {
    VIGILO_RETURN_IF_ERROR(VerifyRegisteredSource(*where.registered_source, *where.store, request, out.report));
  }
  for (const Check& c : kChecks) {
    bool ran = c.from <= request.level && !(request.any_uuid && std::string_view(c.name) == "artifact_uuid");
    (ran ? out.checked : out.not_checked).emplace_back(c.name);
  }
  if (out.report.assets > 0) out.not_checked.emplace_back("embedding_parity_probe");
  if (where.registered_source) out.checked.emplace_back("registered_source");
  return out;
}

}  // namespace vigilo::engine
