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

Result<VerifyReport> Verify(const Manifest& m, ObjectReader& reader, const VerifyOptions& o, VerifyReport report,
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
  ObjectCheckReport counts;
  (void)CheckObjects(m, reader, checks, &counts);  // every failure went to record
  report.objects = counts.objects;
  report.bytes_hashed = counts.bytes_hashed;
  report.bytes_read = counts.bytes_read;
  report.largest_read = std::max(report.largest_read, counts.largest_read);
  report.row_groups = counts.row_groups;
  report.column_chunks = counts.column_chunks;
  report.rows = counts.rows;
  report.source_rows = counts.source_rows;
  return report;
}

Status CheckOptions(const VerifyOptions& o) {
  if (o.max_buffer_bytes == 0) return InvalidArgument("the verify buffer limit must be positive");
  return Status::Ok();
}

}  // namespace

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

Result<VerifyReport> VerifyPublication(const Manifest& manifest, ObjectReader& reader, const VerifyOptions& options) {
  VIGILO_RETURN_IF_ERROR(CheckOptions(options));
  return Verify(manifest, reader, options, VerifyReport{}, "");
}

Result<VerifyReport> VerifyPublicationFrom(ObjectReader& reader, const std::string& manifest_path,
                                           const VerifyOptions& options) {
  VIGILO_RETURN_IF_ERROR(CheckOptions(options));
  VerifyReport report;
  auto fail = [&](Status s) {
    report.failures.push_back(InManifest(std::move(s), manifest_path));
    return report;
  };
  auto size = reader.Size(manifest_path);
  if (!size.ok()) return fail(size.status());
  if (*size > kMaxManifestBytes) {
    return fail(LimitExceeded("manifest is " + std::to_string(*size) + " bytes; at most " +
                              std::to_string(kMaxManifestBytes) + " are allowed"));
  }
  std::string bytes;
  bytes.reserve(*size);
  for (uint64_t at = 0; at < *size; at += options.max_buffer_bytes) {
    uint64_t n = std::min(options.max_buffer_bytes, *size - at);
    auto piece = reader.Read(manifest_path, at, n);
    if (!piece.ok()) return fail(piece.status());
    report.largest_read = std::max(report.largest_read, n);
    bytes.append(piece->begin(), piece->end());
  }
  report.manifest_bytes = bytes.size();
  auto manifest = ParseManifest(bytes);
  if (!manifest.ok()) return fail(manifest.status());
  bytes = std::string();
  return Verify(*manifest, reader, options, std::move(report), manifest_path);
}

}  // namespace vigilo::ivf
