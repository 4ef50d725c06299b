// Full, streaming verification of a publication (publication_verify.h).
#include "vigilo/ivf/publication_verify.h"

#include <algorithm>
#include <string_view>

#include "vigilo/hash/blake3.h"
#include "vigilo/json/write.h"

namespace vigilo::ivf {
namespace {

Status InManifest(Status s, const std::string& manifest_path) {
  if (s.ok()) return s;
  std::string_view path = s.path();
  if (path.empty()) return std::move(s).WithPath(manifest_path);
  if (path == manifest_path || path.substr(0, manifest_path.size() + 2) == manifest_path + ": ") return s;
  return std::move(s).PrependPath(manifest_path + ": ");
}

Result<VerifyReport> Verify(const Manifest& m, store::ObjectStore& store, const VerifyOptions& o, VerifyReport report,
                            const std::string& manifest_path) {
  auto record = [&](const Status& s) {
    report.failures.push_back(s);
    return o.all;
  };
  if (o.derived_uuid) {
    Status s = CheckDerivedArtifactUuid(m);
    if (!s.ok() && !record(manifest_path.empty() ? s : InManifest(s, manifest_path))) return report;
  }
  ObjectCheckOptions checks;
  checks.deep = true;
  checks.every_column = true;
  checks.max_read = o.max_buffer_bytes;
  checks.on_failure = record;
  checks.cancel = o.cancel;
  ObjectCheckReport counts;
  Status checked = CheckObjects(m, store, checks, &counts);  // every other failure went to record
  if (checked.code() == StatusCode::kCancelled) return checked;
  report.AddObjectCounts(counts);
  return report;
}

Status CheckOptions(const VerifyOptions& o) {
  if (o.max_buffer_bytes == 0) return InvalidArgument("the verify buffer limit must be positive");
  return Status::Ok();
}

}  // namespace

void VerifyReport::AddObjectCounts(const ObjectCheckReport& counts) {
  objects = counts.objects;
  assets = counts.assets;
  bytes_hashed = counts.bytes_hashed;
  bytes_read = counts.bytes_read;
  largest_read = std::max(largest_read, counts.largest_read);
  row_groups = counts.row_groups;
  column_chunks = counts.column_chunks;
  rows = counts.rows;
  source_rows = counts.source_rows;
}

Status CheckDerivedArtifactUuid(const Manifest& manifest) {
  Manifest nil = manifest;
  nil.artifact_uuid = Uuid();
  VIGILO_ASSIGN_OR_RETURN(std::string preimage, json::ToCanonical(ManifestToJson(nil)));
  Blake3Hasher h;
  h.Update(std::string_view("vigilo/publication/v1/artifact\0", 31));
  h.Update(preimage);
  Uuid derived = Uuid::V8FromHash(h.Finalize());
  if (derived != manifest.artifact_uuid) {
    return IntegrityError("artifact-uuid " + manifest.artifact_uuid.ToString() +
                          " is not the UUID derived from the manifest's content (" + derived.ToString() +
                          "): the manifest was changed after it was built")
        .WithPath("$.artifact-uuid");
  }
  return Status::Ok();
}

Result<VerifyReport> VerifyPublication(const Manifest& manifest, store::ObjectStore& store,
                                       const VerifyOptions& options) {
  VIGILO_RETURN_IF_ERROR(CheckOptions(options));
  return Verify(manifest, store, options, VerifyReport{}, "");
}

Result<VerifyReport> VerifyPublicationFrom(store::ObjectStore& store, const std::string& manifest_path,
                                           const VerifyOptions& options) {
  VIGILO_RETURN_IF_ERROR(CheckOptions(options));
  VerifyReport report;
  auto fail = [&](Status s) {
    report.failures.push_back(InManifest(std::move(s), manifest_path));
    return report;
  };
  // Its size is known from nothing but itself: one Get with the format's cap
  // (the whole manifest is held for parsing anyway), never a HEAD.
  store::GetOptions get;
  get.max_bytes = kMaxManifestBytes;
  auto bytes = store.Get(manifest_path, get);
  if (!bytes.ok()) return fail(bytes.status());
  report.manifest_bytes = bytes->size();
  report.largest_read = bytes->size();
  auto manifest = ParseManifest(bytes->view());
  *bytes = store::Bytes();  // the parsed model is all that is needed from here on
  if (!manifest.ok()) return fail(manifest.status());
  return Verify(*manifest, store, options, std::move(report), manifest_path);
}

}  // namespace vigilo::ivf
