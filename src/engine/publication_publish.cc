#include "vigilo/engine/publication_publish.h"

#include <algorithm>
#include <filesystem>
#include <memory>
#include <utility>
#include <vector>

#include "vigilo/common/hex.h"
#include "vigilo/engine/locator.h"
#include "vigilo/engine/publication.h"
#include "vigilo/hash/sha256.h"
#include "vigilo/ivf/manifest.h"
#include "vigilo/store/local_store.h"
#include "vigilo/store/prefixed_store.h"

namespace vigilo::engine {
namespace {

constexpr std::string_view kManifestKey = "manifest.json";

struct Destination {
  std::unique_ptr<store::ObjectStore> store;
  std::string manifest;  // safe to print
};

Result<Destination> OpenDestination(Context& context, std::string_view text) {
  VIGILO_ASSIGN_OR_RETURN(Locator locator, ParseLocator(text));
  Destination out;
  switch (locator.kind) {
    case LocatorKind::kPath: {
      VIGILO_ASSIGN_OR_RETURN(out.store, store::OpenLocalStore(locator.path, {.writable = true, .create_root = true}));
      VIGILO_RETURN_IF_ERROR(store::RequireWritable(*out.store, store::kDefaultLocalAlias));
      out.manifest = (std::filesystem::path(locator.path) / kManifestKey).string();
      return out;
    }
    case LocatorKind::kAliasKey: {
      VIGILO_ASSIGN_OR_RETURN(store::ResolvedStore resolved,
                              context.OpenStore(locator.alias, store::OpenOptions{.writable = true}));
      VIGILO_ASSIGN_OR_RETURN(out.store, store::MakePrefixedStore(std::move(resolved.store), locator.key));
      std::string key = locator.key;
      while (!key.empty() && key.back() == '/') key.pop_back();
      out.manifest = locator.alias + ":" + (key.empty() ? "" : key + "/") + std::string(kManifestKey);
      return out;
    }
    case LocatorKind::kUrl:
      return InvalidArgument("an http(s) URL is read-only: publish into a directory or ALIAS:KEY of a writable store")
          .WithPath("destination");
    case LocatorKind::kCatalog:
      return InvalidArgument("a catalog name is bound to a publication, not published into: publish into a "
                             "directory or ALIAS:KEY")
          .WithPath("destination");
  }
  return InvalidArgument("unknown locator").WithPath("destination");
}

// Every object the manifest names, in manifest order.
std::vector<const ivf::ObjectDescriptor*> ReferencedObjects(const ivf::Manifest& m) {
  std::vector<const ivf::ObjectDescriptor*> out{&m.hierarchy.centroids};
  for (const ivf::PostingsFile& f : m.postings) out.push_back(&f.object);
  if (m.source) {
    for (const ivf::SourceFile& f : m.source->files) out.push_back(&f.object);
  }
  if (m.embedding) {
    for (const ivf::ObjectDescriptor& a : m.embedding->assets) out.push_back(&a);
  }
  return out;
}

Status CheckCancelled(const PublishOptions& options) {
  if (options.cancel != nullptr && options.cancel->cancelled()) {
    return Cancelled("the publish was cancelled; DEST has no manifest, and a rerun resumes");
  }
  return Status::Ok();
}

// Reads `d` from `from` in pieces, checking its size as it goes, handing
// each piece to `use`, and returns its SHA-256 in hex.
Result<std::string> StreamObject(store::ObjectStore& from, const ivf::ObjectDescriptor& d, const PublishOptions& options,
                                 const std::function<Status(std::span<const uint8_t>)>& use) {
  Sha256Hasher hasher;
  const uint64_t piece = std::max<uint64_t>(1, options.piece_bytes);
  for (uint64_t offset = 0; offset < d.size; offset += piece) {
    VIGILO_RETURN_IF_ERROR(CheckCancelled(options));
    store::GetOptions get;
    get.range = ByteRange{offset, std::min(piece, d.size - offset)};
    get.expected_size = d.size;
    get.reuse = false;
    VIGILO_ASSIGN_OR_RETURN(store::Bytes bytes, from.Get(d.path, get));
    hasher.Update(bytes.span());
    VIGILO_RETURN_IF_ERROR(use(bytes.span()));
  }
  if (d.size == 0) {
    // An empty object still has to exist at its size.
    store::GetOptions get;
    get.expected_size = 0;
    VIGILO_RETURN_IF_ERROR(from.Get(d.path, get).status());
  }
  VIGILO_ASSIGN_OR_RETURN(auto digest, hasher.Finalize());
  return HexEncode(digest);
}

Status CheckDigest(const std::string& got, const ivf::ObjectDescriptor& d, std::string_view where) {
  if (got == d.sha256) return Status::Ok();
  return IntegrityError(std::string(where) + ": SHA-256 " + got + " does not match the manifest's " + d.sha256)
      .WithPath(d.path);
}

// The object at DEST: none, or present with exactly the manifest's bytes;
// other bytes are AlreadyExists (nothing is overwritten).
Result<bool> PresentAtDestination(store::ObjectStore& to, const ivf::ObjectDescriptor& d, const PublishOptions& options) {
  Result<store::ObjectInfo> info = to.Head(d.path);
  if (!info.ok() && info.status().code() == StatusCode::kNotFound) return false;
  if (!info.ok()) return info.status();
  if (info->size != d.size) {
    return AlreadyExists("DEST holds " + std::to_string(info->size) + " bytes here, not the manifest's " +
                         std::to_string(d.size) + "; nothing was overwritten")
        .WithPath(d.path);
  }
  VIGILO_ASSIGN_OR_RETURN(std::string digest,
                          StreamObject(to, d, options, [](std::span<const uint8_t>) { return Status::Ok(); }));
  if (digest != d.sha256) {
    return AlreadyExists("DEST holds other bytes here (SHA-256 " + digest + ", the manifest's " + d.sha256 +
                         "); nothing was overwritten")
        .WithPath(d.path);
  }
  return true;
}

// Copies `d` from `from` to `to` (create-if-absent), then reads it back.
// True when this run created it.
Result<bool> CopyObject(store::ObjectStore& from, store::ObjectStore& to, const ivf::ObjectDescriptor& d,
                        const PublishOptions& options) {
  VIGILO_ASSIGN_OR_RETURN(std::unique_ptr<store::ObjectWriter> writer, to.BeginCreate(d.path));
  VIGILO_ASSIGN_OR_RETURN(std::string digest, StreamObject(from, d, options, [&](std::span<const uint8_t> piece) {
                            return writer->Append(piece);
                          }));
  // A source object that is not the manifest's is never committed.
  VIGILO_RETURN_IF_ERROR(CheckDigest(digest, d, "the source object"));
  VIGILO_ASSIGN_OR_RETURN(store::CreateResult created, writer->Commit());
  VIGILO_ASSIGN_OR_RETURN(std::string back,
                          StreamObject(to, d, options, [](std::span<const uint8_t>) { return Status::Ok(); }));
  VIGILO_RETURN_IF_ERROR(CheckDigest(back, d, "read back from DEST"));
  return created.outcome == store::CreateOutcome::kCreated;
}

// The artifact UUID of manifest bytes, or a word saying they do not parse.
std::string ArtifactOf(std::string_view manifest_bytes) {
  Result<ivf::Manifest> m = ivf::ParseManifest(manifest_bytes);
  return m.ok() ? m->artifact_uuid.ToString() : std::string("(a manifest that does not parse)");
}

Status AnotherManifest(std::string_view theirs, const ivf::Manifest& ours) {
  return AlreadyExists("DEST already holds another publication (artifact-uuid " + ArtifactOf(theirs) +
                       "), not this one (artifact-uuid " + ours.artifact_uuid.ToString() +
                       "); nothing was overwritten")
      .WithPath(std::string(kManifestKey));
}

}  // namespace

std::string_view PublishOutcomeName(PublishOutcome outcome) {
  return outcome == PublishOutcome::kUnchanged ? "unchanged" : "published";
}

Result<PublishReport> PublishPublication(Context& context, std::string_view source, std::string_view destination,
                                         const PublishOptions& options) {
  // The source first: a manifest that does not parse is refused before DEST
  // is touched (or created).
  VIGILO_ASSIGN_OR_RETURN(std::unique_ptr<Publication> publication,
                          Publication::Open(context, source, PublicationOpenOptions{.use_cache = false}));
  const ivf::Manifest& manifest = publication->manifest();
  const std::string_view manifest_bytes = publication->manifest_text();
  VIGILO_ASSIGN_OR_RETURN(Destination dest, OpenDestination(context, destination));

  PublishReport report;
  report.artifact_uuid = manifest.artifact_uuid.ToString();
  report.manifest = dest.manifest;
  std::vector<const ivf::ObjectDescriptor*> objects = ReferencedObjects(manifest);
  report.objects = objects.size();
  for (const ivf::ObjectDescriptor* d : objects) report.bytes_total += d->size;

  store::GetOptions whole;
  whole.max_bytes = ivf::kMaxManifestBytes;
  Result<store::Bytes> existing = dest.store->Get(kManifestKey, whole);
  if (existing.ok()) {
    if (existing->view() != manifest_bytes) return AnotherManifest(existing->view(), manifest);
    report.outcome = PublishOutcome::kUnchanged;
    report.already_present = report.objects;
    return report;
  }
  if (existing.status().code() != StatusCode::kNotFound) return existing.status();

  PublishProgress progress{.objects_done = 0, .objects_total = report.objects, .bytes_done = 0,
                           .bytes_total = report.bytes_total};
  for (const ivf::ObjectDescriptor* d : objects) {
    VIGILO_RETURN_IF_ERROR(CheckCancelled(options));
    VIGILO_ASSIGN_OR_RETURN(bool present, PresentAtDestination(*dest.store, *d, options));
    bool created = false;
    if (!present) {
      VIGILO_ASSIGN_OR_RETURN(created, CopyObject(publication->store(), *dest.store, *d, options));
    }
    if (created) {
      ++report.copied;
      report.bytes_copied += d->size;
    } else {
      ++report.already_present;
    }
    ++progress.objects_done;
    progress.bytes_done += d->size;
    if (options.progress) options.progress(progress);
  }
  VIGILO_RETURN_IF_ERROR(CheckCancelled(options));
  // The manifest last, with the source's exact bytes.
  const auto* data = reinterpret_cast<const uint8_t*>(manifest_bytes.data());
  Result<store::CreateResult> created =
      dest.store->CreateIfAbsent(kManifestKey, std::span<const uint8_t>(data, manifest_bytes.size()));
  if (!created.ok() && created.status().code() == StatusCode::kAlreadyExists) {
    Result<store::Bytes> theirs = dest.store->Get(kManifestKey, whole);
    return AnotherManifest(theirs.ok() ? theirs->view() : std::string_view(), manifest);
  }
  VIGILO_RETURN_IF_ERROR(created.status());
  if (created->outcome == store::CreateOutcome::kAlreadyIdentical) report.outcome = PublishOutcome::kUnchanged;
  return report;
}

}  // namespace vigilo::engine
