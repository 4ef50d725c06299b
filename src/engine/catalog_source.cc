// Registered source tables (catalog.h, RegisterSource): Parquet files named
// one by one, described as a manifest's source section would describe them,
// checked as `index verify` checks a publication's source, and read at query
// time through a store that routes their synthetic paths to their locations.
#include <algorithm>
#include <filesystem>
#include <map>

#include "catalog_internal.h"
#include "vigilo/common/hex.h"
#include "vigilo/engine/locator.h"
#include "vigilo/hash/sha256.h"
#include "vigilo/ivf/publication_check.h"
#include "vigilo/ivf/source_table.h"
#include "vigilo/json/parse.h"
#include "vigilo/json/write.h"
#include "vigilo/store/forwarding_store.h"
#include "vigilo/store/local_store.h"
#include "vigilo/store/memory_store.h"

namespace vigilo::engine {
namespace {

constexpr std::string_view kSourcePathPrefix = "catalog-source/";
constexpr uint64_t kHashWindow = uint64_t{8} << 20;
constexpr uint64_t kMaxCheckRead = uint64_t{64} << 20;
constexpr size_t kMaxSourceFiles = 10'000;

// One object wherever a locator puts it: the store that holds it and its key.
struct ObjectAt {
  std::unique_ptr<store::ObjectStore> store;
  std::string key;
  std::string display;
};

// A path, or ALIAS:KEY. An http(s) URL is refused: registering reads each
// file's size, which over plain HTTP only a HEAD tells, and vigilo never
// sends one (publication-v1.md); a catalog name names no file.
Result<ObjectAt> LocateObject(Context& context, const std::string& location) {
  VIGILO_ASSIGN_OR_RETURN(Locator l, ParseLocator(location));
  ObjectAt out;
  switch (l.kind) {
    case LocatorKind::kPath: {
      std::filesystem::path path(l.path);
      std::string dir = path.has_parent_path() ? path.parent_path().string() : std::string(".");
      VIGILO_ASSIGN_OR_RETURN(out.store, store::OpenLocalStore(dir, store::LocalStoreOptions{.writable = false}));
      out.key = path.filename().string();
      out.display = l.path;
      return out;
    }
    case LocatorKind::kAliasKey: {
      VIGILO_ASSIGN_OR_RETURN(bool known, context.KnowsAlias(l.alias));
      if (!known) return InvalidArgument("no store alias \"" + l.alias + "\" is configured").WithPath(location);
      VIGILO_ASSIGN_OR_RETURN(store::ResolvedStore resolved,
                              context.OpenStore(l.alias, store::OpenOptions{.governor = &context.publication_governor()}));
      out.store = std::move(resolved.store);
      out.key = l.key;
      out.display = location;
      return out;
    }
    case LocatorKind::kUrl:
      return InvalidArgument("a source file is registered from a local path or ALIAS:KEY, not an http(s) URL: its "
                             "size would take a HEAD request, which vigilo never sends")
          .WithPath("files");
    case LocatorKind::kCatalog:
      return InvalidArgument("a catalog name is not a source file").WithPath("files");
  }
  return InvalidArgument("unknown locator");
}

// Serves RegisteredSourcePath(i) from file i's store and key; every other
// key from the publication's own store.
class RegisteredSourceStore final : public store::ForwardingStore {
 public:
  RegisteredSourceStore(std::unique_ptr<store::ObjectStore> base, const RegisteredSource& source,
                        std::vector<ObjectAt> files)
      : ForwardingStore(std::move(base)) {
    for (size_t i = 0; i < files.size(); ++i) {
      files_.emplace(RegisteredSourcePath(source.files[i]), std::move(files[i]));
    }
  }

  Result<store::Bytes> Get(std::string_view key, const store::GetOptions& options) override {
    if (const ObjectAt* f = Route(key)) return f->store->Get(f->key, options);
    return inner().Get(key, options);
  }

  std::vector<store::GetResponse> GetMany(std::span<const store::GetRequest> requests) override {
    // Each target store gets its own batch (so its parallelism is kept);
    // the answers go back in the callers' order.
    std::map<store::ObjectStore*, std::vector<size_t>> by_store;
    std::map<store::ObjectStore*, std::vector<store::GetRequest>> batches;
    for (size_t i = 0; i < requests.size(); ++i) {
      store::GetRequest r = requests[i];
      store::ObjectStore* target = &inner();
      if (const ObjectAt* f = Route(r.key)) {
        target = f->store.get();
        r.key = f->key;
      }
      by_store[target].push_back(i);
      batches[target].push_back(std::move(r));
    }
    std::vector<store::GetResponse> out(requests.size(), store::GetResponse{Internal("not fetched")});
    for (auto& [target, batch] : batches) {
      std::vector<store::GetResponse> answers = target->GetMany(batch);
      const std::vector<size_t>& positions = by_store[target];
      for (size_t j = 0; j < answers.size() && j < positions.size(); ++j) out[positions[j]] = std::move(answers[j]);
    }
    return out;
  }

 private:
  const ObjectAt* Route(std::string_view key) const {
    if (!key.starts_with(kSourcePathPrefix)) return nullptr;
    auto it = files_.find(key);
    return it == files_.end() ? nullptr : &it->second;
  }

  std::map<std::string, ObjectAt, std::less<>> files_;
};

// Size (the store's Head), SHA-256 (read in windows, never whole) and
// footer of one file.
struct DescribedFile {
  RegisteredSourceFile file;
  std::vector<ivf::Field> columns;
  std::vector<uint64_t> row_groups;  // rows of each
};
Result<DescribedFile> DescribeFile(ObjectAt& at, const std::string& location, const store::CancelToken* cancel) {
  DescribedFile out;
  out.file.location = location;
  Result<store::ObjectInfo> info = at.store->Head(at.key);
  if (!info.ok()) return info.status().WithPath(at.display);
  out.file.size = info->size;
  Sha256Hasher hash;
  for (uint64_t offset = 0; offset < out.file.size; offset += kHashWindow) {
    if (cancel != nullptr && cancel->cancelled()) return Cancelled("registering the source was cancelled");
    store::GetOptions get;
    get.range = ByteRange{offset, std::min(kHashWindow, out.file.size - offset)};
    get.expected_size = out.file.size;
    get.reuse = false;
    Result<store::Bytes> bytes = at.store->Get(at.key, get);
    if (!bytes.ok()) return bytes.status().WithPath(at.display);
    hash.Update(bytes->span());
  }
  VIGILO_ASSIGN_OR_RETURN(auto digest, hash.Finalize());
  out.file.sha256 = HexEncode(digest);
  ivf::ObjectDescriptor d{at.key, out.file.size, out.file.sha256};
  Result<parquet::Footer> footer = ivf::ReadObjectFooter(*at.store, d, nullptr, kMaxCheckRead);
  if (!footer.ok()) return footer.status().WithPath(at.display);
  VIGILO_ASSIGN_OR_RETURN(out.columns, ivf::SourceColumnsOf(*footer, at.display));
  for (const auto& g : footer->metadata.row_groups) out.row_groups.push_back(static_cast<uint64_t>(g.num_rows));
  return out;
}

std::string ColumnsText(const std::vector<ivf::Field>& columns) {
  std::string out;
  for (const ivf::Field& f : columns) out += (out.empty() ? "" : ", ") + f.name + " " + f.type.ToString();
  return out;
}

// The table the files make together: one schema, the key a long, rows
// assigned in file order, row-group-rows the largest row group.
Result<RegisteredSource> Describe(std::string_view name, const std::vector<DescribedFile>& files,
                                  const std::string& key_option) {
  RegisteredSource s;
  s.name = std::string(name);
  s.columns = files.front().columns;
  for (size_t i = 1; i < files.size(); ++i) {
    if (files[i].columns != s.columns) {
      return InvalidArgument("its columns (" + ColumnsText(files[i].columns) + ") are not the first file's (" +
                             ColumnsText(s.columns) + ")")
          .WithPath(files[i].file.location);
    }
  }
  s.key = key_option.empty() ? "id" : key_option;
  auto key = std::find_if(s.columns.begin(), s.columns.end(), [&](const ivf::Field& f) { return f.name == s.key; });
  if (key == s.columns.end()) {
    return InvalidArgument("the files have no key column '" + s.key + "' (columns: " + ColumnsText(s.columns) + ")")
        .WithPath("key");
  }
  if (key->type.kind != ivf::ColumnType::Kind::kLong) {
    return InvalidArgument("the key column '" + s.key + "' is " + key->type.ToString() +
                           "; a source key is a non-null long, dense from 0")
        .WithPath("key");
  }
  for (const DescribedFile& f : files) {
    RegisteredSourceFile file = f.file;
    file.row_begin = s.rows;
    for (uint64_t rows : f.row_groups) {
      s.rows += rows;
      s.row_group_rows = std::max(s.row_group_rows, rows);
    }
    file.row_end = s.rows;
    s.files.push_back(std::move(file));
  }
  if (s.rows == 0) return InvalidArgument("the files hold no rows").WithPath("files");
  return s;
}

}  // namespace

std::string RegisteredSourcePath(const RegisteredSourceFile& file) {
  // The digest makes it content-addressed; the file's own name makes an
  // error about it readable.
  std::string_view name = file.location;
  if (size_t cut = name.find_last_of("/:"); cut != std::string_view::npos) name = name.substr(cut + 1);
  return std::string(kSourcePathPrefix) + file.sha256 + "/" + std::string(name);
}

ivf::SourceSpec RegisteredSourceSpec(const RegisteredSource& source) {
  ivf::SourceSpec spec;
  spec.rows = source.rows;
  spec.row_group_rows = source.row_group_rows;
  spec.columns = source.columns;
  spec.key = source.key;
  for (size_t i = 0; i < source.files.size(); ++i) {
    const RegisteredSourceFile& f = source.files[i];
    spec.files.push_back(ivf::SourceFile{ivf::ObjectDescriptor{RegisteredSourcePath(f), f.size, f.sha256},
                                         f.row_begin, f.row_end});
  }
  return spec;
}

Result<std::unique_ptr<store::ObjectStore>> WithRegisteredSource(Context& context, const RegisteredSource& source,
                                                                 std::unique_ptr<store::ObjectStore> base) {
  std::vector<ObjectAt> files;
  for (const RegisteredSourceFile& f : source.files) {
    VIGILO_ASSIGN_OR_RETURN(ObjectAt at, LocateObject(context, f.location));
    files.push_back(std::move(at));
  }
  return std::unique_ptr<store::ObjectStore>(new RegisteredSourceStore(std::move(base), source, std::move(files)));
}

Status CheckSourceFitsIndex(const RegisteredSource& source, const ivf::Manifest& manifest) {
  const std::string where = "catalog source " + source.name;
  const auto& key = manifest.index.source_key;
  if (key.size() != 1 || key[0].type.kind != ivf::ColumnType::Kind::kLong) {
    return InvalidArgument("the publication's source key is not one long field: a registered source table serves "
                           "payloads by a long key only")
        .WithPath(where);
  }
  if (key[0].name != source.key) {
    return InvalidArgument("its key column is '" + source.key + "'; the publication's source key is '" + key[0].name +
                           "': register the table with that key column")
        .WithPath(where);
  }
  if (source.rows != manifest.index.ntotal) {
    return InvalidArgument("it holds " + std::to_string(source.rows) + " rows; the publication's ntotal is " +
                           std::to_string(manifest.index.ntotal) + " (rows must equal ntotal)")
        .WithPath(where);
  }
  return Status::Ok();
}

Result<RegisterSourceResult> RegisterSource(Context& context, std::string_view source,
                                            const std::vector<std::string>& files,
                                            const RegisterSourceOptions& options) {
  // Arguments first, before any file is read.
  if (Status s = ValidateCatalogPart(source, "source"); !s.ok()) return std::move(s).WithPath("source");
  if (files.empty()) return InvalidArgument("name the source table's files, in row order").WithPath("files");
  if (files.size() > kMaxSourceFiles) {
    return InvalidArgument("at most " + std::to_string(kMaxSourceFiles) + " files").WithPath("files");
  }
  std::vector<std::string> stored;
  std::vector<ObjectAt> opened;
  for (const std::string& f : files) {
    VIGILO_ASSIGN_OR_RETURN(std::string location, AbsoluteLocation(f));
    VIGILO_ASSIGN_OR_RETURN(ObjectAt at, LocateObject(context, location));
    stored.push_back(std::move(location));
    opened.push_back(std::move(at));
  }
  std::vector<DescribedFile> described;
  for (size_t i = 0; i < opened.size(); ++i) {
    VIGILO_ASSIGN_OR_RETURN(DescribedFile d, DescribeFile(opened[i], stored[i], options.cancel));
    described.push_back(std::move(d));
  }
  VIGILO_ASSIGN_OR_RETURN(RegisteredSource table, Describe(source, described, options.key));
  // Every rule a publication's source obeys, checked as `index verify`
  // checks one: schema (the key REQUIRED), row-group layout, the key dense
  // from 0 in file order, and each file's SHA-256 again.
  RegisteredSourceStore routed(std::make_unique<store::MemoryStore>(), table, std::move(opened));
  ivf::ObjectCheckOptions checks;
  checks.deep = true;
  checks.max_read = kMaxCheckRead;
  checks.cancel = options.cancel;
  Status checked = ivf::CheckSourceTable(RegisteredSourceSpec(table), routed, checks, nullptr);
  if (!checked.ok()) {
    // Name the file as the user gave it, not by its synthetic path.
    std::string path(checked.path());
    for (size_t i = 0; i < table.files.size(); ++i) {
      const std::string synthetic = RegisteredSourcePath(table.files[i]);
      if (path.starts_with(synthetic)) {
        return Status(checked.code(), std::string(checked.message()))
            .WithPath(files[i] + path.substr(synthetic.size()));
      }
    }
    return checked;
  }
  VIGILO_ASSIGN_OR_RETURN(std::string value, json::ToCanonical(RegisteredSourceJson(table)));
  VIGILO_ASSIGN_OR_RETURN(control::ControlStore * control, context.Control());
  const std::string root(source);
  VIGILO_ASSIGN_OR_RETURN(std::optional<control::RootRecord> current, control->GetRoot(CatalogSourcesNamespace(), root));
  VIGILO_ASSIGN_OR_RETURN(control::PublishOutcome outcome,
                          RecordCatalogRoot(*control, CatalogSourcesNamespace(), root, "catalog source " + root,
                                            current, value));
  RegisterSourceResult out;
  out.unchanged = outcome == control::PublishOutcome::kAlreadyIdentical;
  VIGILO_ASSIGN_OR_RETURN(out.source, GetRegisteredSource(context, source));
  return out;
}

Result<RegisteredSource> GetRegisteredSource(Context& context, std::string_view source) {
  const std::string missing = "no source table is registered as " + std::string(source) + " in the catalog";
  Result<control::ControlStore*> control = context.ExistingControl();
  if (!control.ok()) {
    if (control.status().code() == StatusCode::kNotFound) return NotFound(missing);
    return control.status();
  }
  VIGILO_ASSIGN_OR_RETURN(std::optional<control::RootRecord> record,
                          (*control)->GetRoot(CatalogSourcesNamespace(), std::string(source)));
  if (!record) return NotFound(missing);
  VIGILO_ASSIGN_OR_RETURN(json::Value value, json::Parse(record->value));
  VIGILO_ASSIGN_OR_RETURN(RegisteredSource out, ParseRegisteredSource(value));
  out.version = record->version;
  return out;
}

}  // namespace vigilo::engine
