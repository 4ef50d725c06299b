#include "index_io.h"

#include <charconv>
#include <filesystem>

#include "vigilo/common/byte_source.h"
#include "vigilo/ivf/input.h"
#include "vigilo/json/parse.h"
#include "vigilo/json/write.h"
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
    VIGILO_ASSIGN_OR_RETURN(auto opened, store::OpenHttpStore({.base_url = manifest_path.substr(0, slash + 1),
                                                               .governor = nullptr,
                                                               .cancel = nullptr}));
    return PublicationStore{std::move(opened), std::move(name)};
  }
  std::filesystem::path path(manifest_path);
  std::string root = path.has_parent_path() ? path.parent_path().string() : std::string(".");
  store::LocalStoreOptions options;
  options.writable = false;
  VIGILO_ASSIGN_OR_RETURN(auto opened, store::OpenLocalStore(root, options));
  return PublicationStore{std::move(opened), path.filename().string()};
}

Result<LoadedManifest> LoadManifest(const std::string& manifest_path) {
  VIGILO_ASSIGN_OR_RETURN(PublicationStore publication, OpenPublicationStore(manifest_path));
  store::GetOptions get;
  get.max_bytes = ivf::kMaxManifestBytes;
  auto bytes = publication.store->Get(publication.manifest_key, get);
  if (!bytes.ok()) {
    // The store names the key; the user named the file. A URL is not
    // echoed (errors never carry one): the key stays.
    Status s = bytes.status();
    if (store::IsHttpUrl(manifest_path)) return s;
    return s.path() == publication.manifest_key ? std::move(s).WithPath(manifest_path) : s;
  }
  auto manifest = ivf::ParseManifest(bytes->view());
  if (!manifest.ok()) {
    Status s = manifest.status();
    const std::string& where = store::IsHttpUrl(manifest_path) ? publication.manifest_key : manifest_path;
    return s.path().empty() ? std::move(s).WithPath(where) : std::move(s).PrependPath(where + ": ");
  }
  return LoadedManifest{std::move(publication.store), std::move(*manifest), bytes->size()};
}

namespace {

Result<std::vector<float>> VectorFromJson(const json::Value& v, const std::string& where) {
  if (!v.is_array()) return InvalidArgument(where + ": a query vector is a JSON array of numbers");
  std::vector<float> out;
  for (const json::Value& x : v.as_array()) {
    if (!x.is_number()) return InvalidArgument(where + ": a query vector is a JSON array of numbers");
    out.push_back(static_cast<float>(x.as_number().AsDouble()));
  }
  return out;
}

}  // namespace

Result<std::vector<std::vector<float>>> LoadQueries(const std::string& vector, const std::string& file) {
  std::vector<std::vector<float>> out;
  if (!vector.empty()) {
    auto parsed = json::Parse(vector);
    if (!parsed.ok()) return InvalidArgument("--vector: " + parsed.status().ToString());
    VIGILO_ASSIGN_OR_RETURN(std::vector<float> v, VectorFromJson(*parsed, "--vector"));
    out.push_back(std::move(v));
    return out;
  }
  if (file.size() > 6 && file.substr(file.size() - 6) == ".jsonl") {
    VIGILO_ASSIGN_OR_RETURN(std::string text, ReadFileToString(file, 1u << 30));
    size_t start = 0, line = 0;
    while (start < text.size()) {
      size_t end = text.find('\n', start);
      if (end == std::string::npos) end = text.size();
      std::string_view row(text.data() + start, end - start);
      start = end + 1;
      ++line;
      if (row.empty()) continue;
      auto parsed = json::Parse(row);
      if (!parsed.ok()) return std::move(parsed).status().WithPath(file + ": line " + std::to_string(line));
      VIGILO_ASSIGN_OR_RETURN(std::vector<float> v, VectorFromJson(*parsed, file + ": line " + std::to_string(line)));
      out.push_back(std::move(v));
    }
    return out;
  }
  VIGILO_ASSIGN_OR_RETURN(auto input, ivf::OpenVectorInput(file, {}));
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
