#include "index_io.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <string_view>

#include "vigilo/common/byte_source.h"
#include "vigilo/hash/sha256.h"
#include "vigilo/ivf/input.h"
#include "vigilo/json/parse.h"
#include "vigilo/json/write.h"
#include "vigilo/store/caching_store.h"
#include "vigilo/store/governor.h"
#include "vigilo/store/http_store.h"
#include "vigilo/store/local_store.h"

namespace vigilo::cli {

Result<PublicationStore> OpenPublicationStore(const std::string& manifest_path) {
  if (store::IsHttpUrl(manifest_path)) {
    // The store's base is the manifest's "directory": everything up to the
    // last '/'. A URL ending in '/' names the publication's base, whose
    // manifest is manifest.json. Nothing is listed or probed.
    size_t slash = manifest_path.rfind('/');
    std::string name = manifest_path.substr(slash + 1);
    if (name.empty()) name = "manifest.json";
    // A query's round (its selected row-group runs) is fetched at once: the
    // process's request permits are raised from case storage's 4 to
    // kPublicationReadPermits before the first request (refused, and left
    // as they are, once anything in the process has used them).
    store::GovernorLimits limits;
    limits.concurrent_remote_requests = kPublicationReadPermits;
    (void)store::ConfigureDefaultGovernor(limits);
    VIGILO_ASSIGN_OR_RETURN(auto opened, store::OpenHttpStore({.base_url = manifest_path.substr(0, slash + 1),
                                                               .governor = nullptr,
                                                               .cancel = nullptr}));
    return PublicationStore{std::move(opened), std::move(name)};
  }
  std::filesystem::path path(manifest_path);
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) path /= "manifest.json";  // the publication directory
  std::string root = path.has_parent_path() ? path.parent_path().string() : std::string(".");
  store::LocalStoreOptions options;
  options.writable = false;
  VIGILO_ASSIGN_OR_RETURN(auto opened, store::OpenLocalStore(root, options));
  return PublicationStore{std::move(opened), path.filename().string()};
}

std::string ManifestFileName(const std::string& manifest_path) {
  std::error_code ec;
  if (store::IsHttpUrl(manifest_path) || !std::filesystem::is_directory(manifest_path, ec)) return manifest_path;
  return (std::filesystem::path(manifest_path) / "manifest.json").string();
}

std::string ReadCacheDirectory() {
  const char* off = std::getenv("VIGILO_CACHE");
  if (off != nullptr && std::string_view(off) == "off") return "";
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  // The XDG base-directory rules: a relative value is ignored.
  if (xdg != nullptr && xdg[0] == '/') return std::string(xdg) + "/vigilo/ranges";
  const char* home = std::getenv("HOME");
  if (home != nullptr && home[0] == '/') return std::string(home) + "/.cache/vigilo/ranges";
  return "";
}

Result<uint64_t> ReadCacheMaxBytes() {
  const char* text = std::getenv("VIGILO_CACHE_MAX_BYTES");
  if (text == nullptr) return store::kDefaultCacheMaxBytes;
  std::string_view v(text);
  uint64_t value = 0;
  auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), value);
  if (v.empty() || ec != std::errc() || end != v.data() + v.size() || value == 0) {
    return InvalidArgument("VIGILO_CACHE_MAX_BYTES: '" + std::string(v) + "' is not a positive number of bytes");
  }
  return value;
}

namespace {

// Wraps an http(s) publication's store in the cache directory, keyed by the
// artifact-uuid (which commits to every object's size and digest) and the
// base URL's hash (two servers may publish one artifact-uuid with different
// bytes; the URL itself is never written to disk).
Status UseCacheDirectory(const std::string& manifest_path, LoadedManifest& loaded) {
  const std::string directory = ReadCacheDirectory();
  if (directory.empty()) return Status::Ok();
  VIGILO_ASSIGN_OR_RETURN(uint64_t max_bytes, ReadCacheMaxBytes());
  VIGILO_ASSIGN_OR_RETURN(std::string base_hash,
                          Sha256Hex(std::string_view(manifest_path).substr(0, manifest_path.rfind('/') + 1)));
  auto caching = std::make_unique<store::CachingStore>(
      std::move(loaded.store),
      store::CachingStoreOptions{.directory = directory,
                                 .cache_namespace = loaded.manifest.artifact_uuid.ToString() + " " + base_hash,
                                 .max_bytes = max_bytes});
  loaded.store = std::move(caching);
  return Status::Ok();
}

}  // namespace

Result<LoadedManifest> LoadManifest(const std::string& manifest_path, bool use_cache) {
  VIGILO_ASSIGN_OR_RETURN(PublicationStore publication, OpenPublicationStore(manifest_path));
  store::GetOptions get;
  get.max_bytes = ivf::kMaxManifestBytes;
  auto bytes = publication.store->Get(publication.manifest_key, get);
  if (!bytes.ok()) {
    // The store names the key; the user named the file. A URL is not
    // echoed (errors never carry one): the key stays.
    Status s = bytes.status();
    if (store::IsHttpUrl(manifest_path)) return s;
    return s.path() == publication.manifest_key ? std::move(s).WithPath(ManifestFileName(manifest_path)) : s;
  }
  auto manifest = ivf::ParseManifest(bytes->view());
  if (!manifest.ok()) {
    Status s = manifest.status();
    const std::string where =
        store::IsHttpUrl(manifest_path) ? publication.manifest_key : ManifestFileName(manifest_path);
    return s.path().empty() ? std::move(s).WithPath(where) : std::move(s).PrependPath(where + ": ");
  }
  LoadedManifest loaded{std::move(publication.store), std::move(*manifest), bytes->size()};
  if (use_cache && store::IsHttpUrl(manifest_path)) VIGILO_RETURN_IF_ERROR(UseCacheDirectory(manifest_path, loaded));
  return loaded;
}

namespace {

constexpr size_t kMaxVectorTextBytes = size_t{64} << 20;

Result<std::vector<float>> VectorFromJson(const json::Value& v, const std::string& where) {
  if (!v.is_array()) return InvalidArgument(where + ": a query vector is a JSON array of numbers");
  std::vector<float> out;
  for (const json::Value& x : v.as_array()) {
    if (!x.is_number()) return InvalidArgument(where + ": a query vector is a JSON array of numbers");
    double d = x.as_number().AsDouble();
    // Converting a double beyond the float range is undefined: refused as infinite.
    out.push_back(std::fabs(d) > static_cast<double>(std::numeric_limits<float>::max())
                      ? std::numeric_limits<float>::infinity()
                      : static_cast<float>(d));
  }
  return out;
}

// The text of --vector: itself, the file after '@', or stdin for "-".
Result<std::string> VectorText(const std::string& vector) {
  if (vector == "-") {
    VIGILO_ASSIGN_OR_RETURN(WholeFile in, WholeFile::Open("-", kMaxVectorTextBytes));
    return std::string(in.bytes());
  }
  if (vector.starts_with("@")) return ReadFileToString(vector.substr(1), kMaxVectorTextBytes);
  return vector;
}

}  // namespace

Result<std::vector<std::vector<float>>> LoadQueries(const QuerySource& source, const ivf::Manifest& manifest) {
  std::vector<std::vector<float>> out;
  if (!source.vector.empty()) {
    VIGILO_ASSIGN_OR_RETURN(std::string text, VectorText(source.vector));
    auto parsed = json::Parse(text);
    if (!parsed.ok()) return InvalidArgument("--vector: " + parsed.status().ToString());
    VIGILO_ASSIGN_OR_RETURN(std::vector<float> v, VectorFromJson(*parsed, "--vector"));
    // The input domain of `index build` (ivf::VectorDomainViolation), for queries.
    std::string violation = ivf::VectorDomainViolation(v);
    if (!violation.empty()) return InvalidArgument("--vector: " + violation);
    out.push_back(std::move(v));
    return out;
  }
  // Every query file goes through the build's readers: the same formats,
  // the same row rules (blank lines refused, naming them) and input domain.
  ivf::InputOptions options;
  options.vector_field = source.vector_field.empty() ? manifest.index.vector_field : source.vector_field;
  if (!source.format.empty()) {
    VIGILO_ASSIGN_OR_RETURN(options.format, ivf::ParseInputFormat(source.format));
  } else if (source.file == "-") {
    return InvalidArgument("--queries -: name the format of stdin with --format (jsonl, fvecs, bvecs or npy)");
  }
  VIGILO_ASSIGN_OR_RETURN(auto input, ivf::OpenVectorInput(source.file, options));
  ivf::InputBlock block;
  while (true) {
    VIGILO_ASSIGN_OR_RETURN(bool more, input->Next(&block));
    if (!more) break;
    for (size_t i = 0; i < block.rows; ++i) {
      out.emplace_back(block.vectors.begin() + static_cast<std::ptrdiff_t>(i * input->dimension()),
                       block.vectors.begin() + static_cast<std::ptrdiff_t>((i + 1) * input->dimension()));
    }
  }
  return out;
}

std::string FloatText(float f) {
  char buf[32];
  auto r = std::to_chars(buf, buf + sizeof buf, f);  // shortest text that reads back as the same float
  return std::string(buf, r.ptr);
}

Result<std::string> KeyJson(const ivf::KeyColumn& keys, size_t i) {
  using K = ivf::ColumnType::Kind;
  switch (keys.type.kind) {
    case K::kBoolean: return std::string(keys.booleans[i] ? "true" : "false");
    case K::kInt:
    case K::kLong:
    case K::kDate: return std::to_string(keys.integers[i]);
    case K::kString: return json::ToCanonical(json::Value(std::string(keys.Bytes(i))));
    default: {
      std::string_view b = keys.Bytes(i);
      static const char* kHex = "0123456789abcdef";
      std::string out = "\"";
      for (unsigned char c : b) {
        out.push_back(kHex[c >> 4]);
        out.push_back(kHex[c & 15]);
      }
      return out + "\"";
    }
  }
}

}  // namespace vigilo::cli
