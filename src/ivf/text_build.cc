#include "text_build.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <optional>

#include "builder_dirs.h"
#include "input_internal.h"
#include "object_sink.h"
#include "source_copy.h"
#include "spaced_column.h"
#include "vigilo/common/hex.h"
#include "vigilo/hash/sha256.h"
#include "vigilo/ivf/embed.h"
#include "vigilo/ivf/embed_import.h"
#include "vigilo/ivf/publication_writer.h"
#include "vigilo/parquet/local_file.h"
#include "vigilo/parquet/writer.h"
#include "vigilo/store/local_store.h"

namespace vigilo::ivf {
namespace {

namespace pq = vigilo::parquet;
using Kind = ColumnType::Kind;
using Clock = std::chrono::steady_clock;

// The scratch file's vector column, and the index's vector column.
constexpr std::string_view kTextVectorColumn = "vector";
constexpr uint64_t kAssetChunkBytes = uint64_t{8} << 20;
constexpr size_t kScratchRows = 4096;

Status CheckTextArguments(const BuildOptions& o) {
  if (o.embed_model.empty() && o.text_field.empty()) {
    return InvalidArgument("`skip_unembeddable` needs `embed_model` and `text_field`");
  }
  if (o.embed_model.empty()) return InvalidArgument("`text_field` needs `embed_model` (the model that embeds it)");
  if (o.text_field.empty()) return InvalidArgument("`embed_model` needs `text_field` (the column to embed)");
  if (o.skip_unembeddable && !o.input_options.key_field && o.id_column.empty()) {
    return InvalidArgument(
        "`skip_unembeddable` needs `key` or `id_column`: rows left out would shift the row positions that key a "
        "publication without a key column, and only your own ids would still name the rows kept");
  }
  if (!o.id_column.empty() && o.input_options.key_field) {
    return InvalidArgument("`id_column` keys the publication by row position and returns \"" + o.id_column +
                           "\" with every hit; it cannot be combined with `key`");
  }
  if (o.metric != Metric::kCosine) {
    return InvalidArgument("`metric` must be cosine with `embed_model` (the model's vectors have unit length), got " +
                           std::string(MetricName(o.metric)));
  }
  return Status::Ok();
}

// The model directory: embedding.json decoded, every asset present with its size.
struct Model {
  std::unique_ptr<store::ObjectStore> store;
  EmbeddingSpec spec;
};

Result<Model> OpenModel(const std::string& dir) {
  store::LocalStoreOptions read_only;
  read_only.writable = false;
  auto opened = store::OpenLocalStore(dir, read_only);
  if (!opened.ok()) {
    return InvalidArgument("`embed_model` " + dir + ": " + std::string(opened.status().message()));
  }
  Model model{std::move(*opened), {}};
  store::GetOptions get;
  get.max_bytes = uint64_t{64} << 20;
  auto bytes = model.store->Get(kEmbeddingSectionPath, get);
  if (!bytes.ok()) {
    return InvalidArgument("`embed_model` " + dir + ": no readable embedding.json (" +
                           std::string(bytes.status().message()) + "); the directory `vigilo embed import` writes");
  }
  auto spec = ParseEmbeddingSection(bytes->view());
  if (!spec.ok()) {
    std::string where = spec.status().path().empty() ? "" : " at " + std::string(spec.status().path());
    return InvalidArgument("`embed_model` " + dir + ": embedding.json is not a valid embedding section" + where +
                           ": " + std::string(spec.status().message()));
  }
  model.spec = std::move(*spec);
  for (const ObjectDescriptor& asset : model.spec.assets) {
    auto info = model.store->Head(asset.path);
    if (!info.ok()) {
      return InvalidArgument("`embed_model` " + dir + ": the asset " + asset.path + " is missing (" +
                             std::string(info.status().message()) + ")");
    }
    if (info->size != asset.size) {
      return IntegrityError("the asset is " + std::to_string(info->size) + " bytes; embedding.json says " +
                            std::to_string(asset.size))
          .WithPath((std::filesystem::path(dir) / asset.path).string());
    }
  }
  return model;
}

// Reads `asset` from the model in chunks, handing each to `consume`; the
// bytes must have the inventory's size and SHA-256.
Status StreamAsset(store::ObjectStore& model, const std::string& dir, const ObjectDescriptor& asset,
                   const std::function<Status(std::span<const uint8_t>)>& consume) {
  Sha256Hasher hasher;
  for (uint64_t at = 0; at < asset.size; at += kAssetChunkBytes) {
    store::GetOptions get;
    get.range = ByteRange{at, std::min(kAssetChunkBytes, asset.size - at)};
    get.reuse = false;
    VIGILO_ASSIGN_OR_RETURN(store::Bytes chunk, model.Get(asset.path, get));
    hasher.Update(chunk.span());
    VIGILO_RETURN_IF_ERROR(consume(chunk.span()));
  }
  VIGILO_ASSIGN_OR_RETURN(auto digest, hasher.Finalize());
  if (HexEncode(digest) != asset.sha256) {
    return IntegrityError("the asset's SHA-256 is " + HexEncode(digest) + "; embedding.json says " + asset.sha256)
        .WithPath((std::filesystem::path(dir) / asset.path).string());
  }
  return Status::Ok();
}

// The scratch Parquet file: the key (when there is one, required), the
// payload columns (optional), then the embeddings.
class ScratchTable {
 public:
  static Result<std::unique_ptr<ScratchTable>> Create(const std::string& path, std::vector<Field> fields,
                                                      bool has_key) {
    std::unique_ptr<ScratchTable> t(new ScratchTable);
    t->fields_ = std::move(fields);
    std::vector<pq::ColumnSpec> specs;
    for (size_t i = 0; i < t->fields_.size(); ++i) {
      bool is_key = has_key && i == 0, is_vector = i + 1 == t->fields_.size();
      VIGILO_ASSIGN_OR_RETURN(pq::ColumnSpec spec, ParquetColumnFor(t->fields_[i], !is_key && !is_vector));
      specs.push_back(std::move(spec));
    }
    VIGILO_ASSIGN_OR_RETURN(t->sink_, pq::FileSink::Create(path));
    pq::WriterOptions options;
    options.max_statistics_value_bytes = 64;
    VIGILO_ASSIGN_OR_RETURN(t->writer_, pq::FileWriter::Open(std::move(specs), options, t->sink_.get()));
    return t;
  }

  // One row group: the decoded columns (all but the vector) with the rows
  // `keep` marks, and the kept rows' vectors (row-major).
  Status Append(const std::vector<const pq::DecodedColumn*>& columns, const std::vector<uint8_t>& keep,
                const std::vector<float>& vectors, size_t dimension) {
    size_t kept = static_cast<size_t>(std::count(keep.begin(), keep.end(), uint8_t{1}));
    if (kept == 0) return Status::Ok();
    VIGILO_RETURN_IF_ERROR(writer_->BeginRowGroup());
    for (size_t c = 0; c < columns.size(); ++c) {
      SpacedColumn spaced;
      spaced.kind = fields_[c].type.kind;
      size_t cursor = 0;
      for (size_t r = 0; r < columns[c]->num_rows; ++r) spaced.Take(*columns[c], r, &cursor, keep[r] != 0);
      VIGILO_RETURN_IF_ERROR(spaced.Write(*writer_, c));
    }
    std::vector<int64_t> offsets(kept + 1);
    for (size_t i = 0; i <= kept; ++i) offsets[i] = static_cast<int64_t>(i * dimension);
    VIGILO_RETURN_IF_ERROR(writer_->WriteFloatList(columns.size(), offsets, vectors));
    return writer_->EndRowGroup();
  }

  Status Finish() {
    VIGILO_RETURN_IF_ERROR(writer_->Finish());
    return sink_->Close();
  }

 private:
  ScratchTable() = default;
  std::vector<Field> fields_;
  std::unique_ptr<pq::FileSink> sink_;
  std::unique_ptr<pq::FileWriter> writer_;
};

// The columns a text build copies: the key, then the payload columns (the
// source table's, without the embeddings themselves).
struct TextPlan {
  std::optional<Field> key;
  std::vector<Field> payload;
  std::vector<std::string> source_columns;  // for the build on the scratch file
};

// Embeds row texts, counting the rows that cannot be embedded.
class RowEmbedder {
 public:
  RowEmbedder(TextEmbedder& embedder, const BuildOptions& o) : embedder_(embedder), o_(o) {}

  // The vector of row `row`'s text (nullptr: null) appended to `out`; false
  // when the row cannot be embedded (counted; the pass goes on).
  Result<bool> Embed(const std::string* text, uint64_t row, std::vector<float>& out) {
    ++rows_;
    if (text == nullptr) return Unembeddable(row, "its text is null");
    auto v = embedder_.Embed(*text);
    if (!v.ok()) {
      std::string_view m = v.status().message();
      if (v.status().code() == StatusCode::kInvalidArgument &&
          (m == "no word of the text is in the model's vocabulary" || m.rfind("the text holds no word", 0) == 0)) {
        return Unembeddable(row, "its text has no word in the model's vocabulary");
      }
      return Status(v.status().code(), input_internal::RowName(row) + ": " + std::string(m)).WithPath(o_.input);
    }
    out.insert(out.end(), v->begin(), v->end());
    return true;
  }

  // After the pass: the error naming the first row that could not be
  // embedded, unless skip_unembeddable.
  Status Check() const {
    if (unembeddable_ == 0 || o_.skip_unembeddable) return Status::Ok();
    return InvalidArgument(input_internal::RowName(first_row_) + ": " + first_what_ + " (" +
                           std::to_string(unembeddable_) + (unembeddable_ == 1 ? " row" : " rows") +
                           " of `text_field` \"" + o_.text_field +
                           "\" cannot be embedded; `skip_unembeddable` leaves them out)")
        .WithPath(o_.input);
  }
  uint64_t unembeddable() const { return unembeddable_; }
  uint64_t rows() const { return rows_; }
  // Every row that cannot be embedded goes to `rows` as well.
  void CollectInto(std::vector<UnembeddableRow>* rows) { collect_ = rows; }

 private:
  Result<bool> Unembeddable(uint64_t row, const char* what) {
    if (unembeddable_++ == 0) {
      first_row_ = row;
      first_what_ = what;
    }
    if (collect_ != nullptr) collect_->push_back(UnembeddableRow{row, what});
    return false;
  }
  TextEmbedder& embedder_;
  const BuildOptions& o_;
  std::vector<UnembeddableRow>* collect_ = nullptr;
  uint64_t unembeddable_ = 0, first_row_ = 0, rows_ = 0;
  std::string first_what_;
};

Status RefuseTakenNames(const BuildOptions& o, const std::vector<std::string>& names) {
  for (const std::string& name : names) {
    if (name == kTextVectorColumn) {
      return InvalidArgument("the input has a column \"" + name + "\", the name a text build gives the " +
                             "embeddings; rename it")
          .WithPath(o.input);
    }
    if (name == kGeneratedKeyName && !o.input_options.key_field) {
      return InvalidArgument("the input has a column named \"" + name + "\", the name of the row-position key " +
                             "a build without `key` publishes; pass `key` COLUMN, or rename \"" + name + "\"")
          .WithPath(o.input);
    }
  }
  return Status::Ok();
}

// The payload columns the scratch file carries: the id column first, then
// (with `source`) the chosen or the default ones.
std::vector<std::string> DefaultPayload(const BuildOptions& o, const std::vector<std::string>& names) {
  std::vector<std::string> columns;
  if (!o.id_column.empty()) columns.push_back(o.id_column);
  if (!o.source && (o.id_column.empty() || o.source_columns.empty())) return columns;
  std::vector<std::string> chosen = o.source_columns;
  if (chosen.empty()) {
    for (const std::string& n : names) {
      if (!o.input_options.key_field || n != *o.input_options.key_field) chosen.push_back(n);
    }
  }
  for (const std::string& n : chosen) {
    if (n != o.id_column) columns.push_back(n);
  }
  return columns;
}

// ---- JSONL ----

Result<TextPlan> PlanJsonlText(const BuildOptions& o, const std::vector<JsonlMember>& members) {
  auto find = [&](const std::string& name) {
    return std::find_if(members.begin(), members.end(), [&](const JsonlMember& m) { return m.name == name; });
  };
  std::string names;
  std::vector<std::string> all;
  for (const JsonlMember& m : members) {
    names += (names.empty() ? "\"" : ", \"") + m.name + "\"";
    all.push_back(m.name);
  }
  VIGILO_RETURN_IF_ERROR(RefuseTakenNames(o, all));
  auto text = find(o.text_field);
  if (text == members.end()) {
    return InvalidArgument("`text_field` \"" + o.text_field + "\": no line of the input has this member (members: " +
                           names + ")")
        .WithPath(o.input);
  }
  if (!text->type || text->type->kind != Kind::kString) {
    return InvalidArgument("`text_field` \"" + o.text_field + "\" is not a string column: " +
                           (text->type ? "its values are " + text->type->ToString() : text->why))
        .WithPath(o.input);
  }
  TextPlan plan;
  if (o.input_options.key_field) {
    auto key = find(*o.input_options.key_field);
    if (key == members.end()) {
      return InvalidArgument("`key` \"" + *o.input_options.key_field + "\": no line of the input has this member " +
                             "(members: " + names + ")")
          .WithPath(o.input);
    }
    if (!key->type || (key->type->kind != Kind::kLong && key->type->kind != Kind::kString)) {
      return InvalidArgument("`key` \"" + key->name + "\": keys are integers or strings; " +
                             (key->type ? "its values are " + key->type->ToString() : key->why))
          .WithPath(o.input);
    }
    plan.key = Field{key->name, *key->type};
  }
  for (const std::string& name : DefaultPayload(o, all)) {
    plan.source_columns.push_back(name);
    if (name == kTextVectorColumn) continue;  // the embeddings themselves
    if (plan.key && name == plan.key->name) continue;  // the builder refuses it, in its words
    auto m = find(name);
    if (m == members.end()) {
      return InvalidArgument("`columns`: no line of the input has a member \"" + name + "\" (members: " + names +
                             ")")
          .WithPath(o.input);
    }
    if (!m->type) return CannotCopyJsonlMember(*m).WithPath(o.input);
    plan.payload.push_back(Field{name, *m->type});
  }
  return plan;
}

// Before the model's heavy checks: the text member is in the first line.
Status CheckJsonlFirstRow(const BuildOptions& o) {
  VIGILO_ASSIGN_OR_RETURN(auto lines, input_internal::JsonlLines::Open(o.input));
  json::Value line;
  uint64_t row = 0, offset = 0;
  VIGILO_ASSIGN_OR_RETURN(bool any, lines->Next(&line, &row, &offset));
  if (!any) return input_internal::FormatError(o.input, "the file holds no rows");
  if (!line.is_object()) return input_internal::JsonlRowError(o.input, 0, offset, "not a JSON object");
  const json::Value* text = line.as_object().Find(o.text_field);
  if (text == nullptr) {
    std::string names;
    for (const auto& [name, value] : line.as_object()) names += (names.empty() ? "\"" : ", \"") + name + "\"";
    return InvalidArgument("`text_field` \"" + o.text_field + "\": the first line has no such member (members: " +
                           names + ")")
        .WithPath(o.input);
  }
  if (!text->is_string() && !text->is_null()) {
    return InvalidArgument("`text_field` \"" + o.text_field + "\" is not a string column: row 0 holds a " +
                           std::string(json::KindName(text->kind())))
        .WithPath(o.input);
  }
  return Status::Ok();
}

// Embeds every row's text, appending each row (key, payload, vector) to
// `table`; with no table (a check) only the texts are embedded.
Status EmbedJsonl(const BuildOptions& o, const TextPlan& plan, RowEmbedder& embedder, ScratchTable* table,
                  size_t dimension) {
  VIGILO_ASSIGN_OR_RETURN(auto lines, input_internal::JsonlLines::Open(o.input));
  std::vector<Field> columns;
  if (plan.key) columns.push_back(*plan.key);
  columns.insert(columns.end(), plan.payload.begin(), plan.payload.end());
  std::vector<pq::DecodedColumn> decoded(columns.size());
  std::vector<uint8_t> keep;
  std::vector<float> vectors;
  json::Value line;
  uint64_t row = 0, offset = 0, done = 0;
  auto flush = [&]() -> Status {
    std::vector<const pq::DecodedColumn*> ptrs;
    for (const auto& d : decoded) ptrs.push_back(&d);
    if (table != nullptr) VIGILO_RETURN_IF_ERROR(table->Append(ptrs, keep, vectors, dimension));
    for (size_t c = 0; c < columns.size(); ++c) decoded[c] = EmptyJsonColumn(columns[c].type);
    keep.clear();
    vectors.clear();
    return Status::Ok();
  };
  for (size_t c = 0; c < columns.size(); ++c) decoded[c] = EmptyJsonColumn(columns[c].type);
  while (true) {
    VIGILO_ASSIGN_OR_RETURN(bool more, lines->Next(&line, &row, &offset));
    if (!more) break;
    if (!line.is_object()) return input_internal::JsonlRowError(o.input, row, offset, "not a JSON object");
    const json::Object& object = line.as_object();
    const json::Value* text = object.Find(o.text_field);
    VIGILO_ASSIGN_OR_RETURN(bool embedded, embedder.Embed(text && text->is_string() ? &text->as_string() : nullptr,
                                                          row, vectors));
    keep.push_back(embedded ? 1 : 0);
    for (size_t c = 0; c < columns.size(); ++c) {
      const json::Value* v = object.Find(columns[c].name);
      if (plan.key && c == 0 && (v == nullptr || v->is_null())) {
        return input_internal::JsonlRowError(o.input, row, offset, "no key member \"" + columns[0].name + "\"");
      }
      AppendJsonValue(v, decoded[c]);
    }
    if (keep.size() == kScratchRows) VIGILO_RETURN_IF_ERROR(flush());
    if (++done % kScratchRows == 0) {
      if (o.progress) o.progress("embed", done, 0);
      VIGILO_RETURN_IF_ERROR(CheckCancelled(o));
    }
  }
  if (!keep.empty()) VIGILO_RETURN_IF_ERROR(flush());
  return Status::Ok();
}

// ---- Parquet ----

struct ParquetText {
  std::optional<pq::LocalParquetFile> file;
  TextPlan plan;
  size_t text_leaf = 0;
  std::vector<size_t> leaves;  // key (if any), then payload
};

Result<ParquetText> PlanParquetText(const BuildOptions& o) {
  ParquetText p;
  VIGILO_ASSIGN_OR_RETURN(auto file, pq::LocalParquetFile::Open(o.input));
  p.file.emplace(std::move(file));
  const pq::Footer& f = p.file->footer();
  std::vector<std::string> names = ParquetTopLevelFields(f);
  VIGILO_RETURN_IF_ERROR(RefuseTakenNames(o, names));
  auto as_argument = [](Status s) { return InvalidArgument(std::string(s.message())).WithPath(std::string(s.path())); };
  auto text = input_internal::FindParquetField(o.input, f, o.text_field, "text");
  if (!text.ok()) return as_argument(text.status());
  auto text_type = ParquetSourceType(o.input, *text);
  if (!text_type.ok() || text_type->kind != Kind::kString) {
    return InvalidArgument("`text_field` \"" + o.text_field + "\" is not a string column (" +
                           (text_type.ok() ? text_type->ToString() : std::string(pq::PhysicalTypeName(text->type))) +
                           ")")
        .WithPath(o.input);
  }
  p.text_leaf = text->leaf;
  if (o.input_options.key_field) {
    auto key = input_internal::FindParquetField(o.input, f, *o.input_options.key_field, "key");
    if (!key.ok()) return as_argument(key.status());
    auto type = input_internal::ParquetKeyType(o.input, *key);
    if (!type.ok()) return as_argument(type.status());
    p.plan.key = Field{*o.input_options.key_field, *type};
    p.leaves.push_back(key->leaf);
  }
  for (const std::string& name : DefaultPayload(o, names)) {
    p.plan.source_columns.push_back(name);
    if (name == kTextVectorColumn) continue;
    if (p.plan.key && name == p.plan.key->name) continue;
    auto d = input_internal::FindParquetField(o.input, f, name, "source");
    if (!d.ok()) return as_argument(d.status());
    VIGILO_ASSIGN_OR_RETURN(ColumnType type, ParquetSourceType(o.input, *d));
    p.plan.payload.push_back(Field{name, type});
    p.leaves.push_back(d->leaf);
  }
  return p;
}

Status EmbedParquet(const BuildOptions& o, ParquetText& p, RowEmbedder& embedder, ScratchTable* table,
                    size_t dimension) {
  const pq::Footer& f = p.file->footer();
  uint64_t row = 0;
  std::vector<float> vectors;
  for (size_t rg = 0; rg < f.metadata.row_groups.size(); ++rg) {
    auto n = static_cast<uint64_t>(f.metadata.row_groups[rg].num_rows);
    if (n == 0) continue;
    auto texts = p.file->ReadColumnChunk(rg, p.text_leaf);
    if (!texts.ok()) return input_internal::InFile(o.input, texts.status());
    std::vector<uint8_t> keep(n);
    vectors.clear();
    size_t cursor = 0;
    for (uint64_t r = 0; r < n; ++r) {
      bool valid = texts->row_valid.empty() || texts->row_valid[r] != 0;
      std::string text;
      if (valid) {
        auto b = texts->values.Binary(cursor++);
        text.assign(reinterpret_cast<const char*>(b.data()), b.size());
      }
      VIGILO_ASSIGN_OR_RETURN(bool embedded, embedder.Embed(valid ? &text : nullptr, row + r, vectors));
      keep[r] = embedded ? 1 : 0;
    }
    row += n;
    if (o.progress) o.progress("embed", row, static_cast<uint64_t>(f.metadata.num_rows));
    VIGILO_RETURN_IF_ERROR(CheckCancelled(o));
    if (table == nullptr) continue;
    std::vector<pq::DecodedColumn> decoded;
    for (size_t leaf : p.leaves) {
      auto chunk = p.file->ReadColumnChunk(rg, leaf);
      if (!chunk.ok()) return input_internal::InFile(o.input, chunk.status());
      decoded.push_back(std::move(*chunk));
    }
    std::vector<const pq::DecodedColumn*> ptrs;
    for (const auto& d : decoded) ptrs.push_back(&d);
    VIGILO_RETURN_IF_ERROR(table->Append(ptrs, keep, vectors, dimension));
  }
  return Status::Ok();
}

// The input's format (JSONL or Parquet) for a text build.
Result<InputFormat> TextInputFormat(const BuildOptions& o) {
  InputFormat format = InputFormat::kJsonl;
  if (o.input_options.format) {
    format = *o.input_options.format;
  } else {
    VIGILO_ASSIGN_OR_RETURN(format, DetectInputFormat(o.input));
  }
  if (format != InputFormat::kJsonl && format != InputFormat::kParquet) {
    return InvalidArgument("`embed_model` needs a jsonl or parquet input with a text column; a " +
                           std::string(InputFormatName(format)) + " input holds vectors only");
  }
  return format;
}

// What a text pass reads: the model (its assets verified and its parity
// probes run before the first row), and the input's plan.
struct TextInput {
  Model model;
  std::unique_ptr<TextEmbedder> embedder;  // reads model.store
  std::optional<ParquetText> parquet;      // set for a Parquet input
  TextPlan plan;
};

Result<TextInput> OpenTextInput(const BuildOptions& o, InputFormat format) {
  TextInput in;
  VIGILO_ASSIGN_OR_RETURN(in.model, OpenModel(o.embed_model));
  if (format == InputFormat::kJsonl) VIGILO_RETURN_IF_ERROR(CheckJsonlFirstRow(o));
  if (format == InputFormat::kParquet) {
    VIGILO_ASSIGN_OR_RETURN(ParquetText p, PlanParquetText(o));
    in.parquet.emplace(std::move(p));
  }
  // The model's bytes, then its parity probe, before the first pass.
  for (const ObjectDescriptor& asset : in.model.spec.assets) {
    VIGILO_RETURN_IF_ERROR(StreamAsset(*in.model.store, o.embed_model, asset,
                                       [](std::span<const uint8_t>) { return Status::Ok(); }));
  }
  VIGILO_ASSIGN_OR_RETURN(in.embedder, TextEmbedder::Open(*in.model.store, in.model.spec));
  if (in.parquet) {
    in.plan = in.parquet->plan;
  } else {
    VIGILO_ASSIGN_OR_RETURN(std::vector<JsonlMember> members, ScanJsonlMembers(o.input));
    VIGILO_ASSIGN_OR_RETURN(in.plan, PlanJsonlText(o, members));
  }
  return in;
}

}  // namespace

Result<BuildSummary> BuildFromText(const BuildOptions& o, store::ObjectStore& store) {
  VIGILO_RETURN_IF_ERROR(CheckTextArguments(o));
  VIGILO_ASSIGN_OR_RETURN(InputFormat format, TextInputFormat(o));
  VIGILO_RETURN_IF_ERROR(RefuseExistingPublication(store, o));
  auto t0 = Clock::now();
  VIGILO_ASSIGN_OR_RETURN(TextInput text, OpenTextInput(o, format));
  const Model& model = text.model;
  const TextPlan& plan = text.plan;

  VIGILO_ASSIGN_OR_RETURN(std::unique_ptr<ScratchDir> scratch, ScratchDir::CreateBelow(o.scratch));
  std::string scratch_file = (scratch->path() / "text-vectors.parquet").string();

  std::vector<Field> fields;
  if (plan.key) fields.push_back(*plan.key);
  fields.insert(fields.end(), plan.payload.begin(), plan.payload.end());
  const size_t dimension = model.spec.dimension;
  fields.push_back(Field{std::string(kTextVectorColumn), ColumnType{Kind::kFloatList, 0}});
  VIGILO_ASSIGN_OR_RETURN(auto table, ScratchTable::Create(scratch_file, fields, plan.key.has_value()));
  RowEmbedder rows(*text.embedder, o);
  if (text.parquet) {
    VIGILO_RETURN_IF_ERROR(EmbedParquet(o, *text.parquet, rows, table.get(), dimension));
  } else {
    VIGILO_RETURN_IF_ERROR(EmbedJsonl(o, plan, rows, table.get(), dimension));
  }
  VIGILO_RETURN_IF_ERROR(rows.Check());
  VIGILO_RETURN_IF_ERROR(table->Finish());
  double seconds_embed = std::chrono::duration<double>(Clock::now() - t0).count();

  BuildOptions inner = o;
  inner.embed_model.clear();
  inner.text_field.clear();
  inner.skip_unembeddable = false;
  inner.input = scratch_file;
  inner.input_options.format = InputFormat::kParquet;
  inner.input_options.vector_field = std::string(kTextVectorColumn);
  inner.input_options.detect_vector_field = false;
  inner.source_columns = plan.source_columns;
  BuildAddition addition;
  addition.embedding = model.spec;
  store::ObjectStore& model_store = *model.store;
  const std::string& dir = o.embed_model;
  addition.write = [&model_store, &dir, &spec = model.spec](store::OwnedWrites& writes) -> Status {
    for (const ObjectDescriptor& asset : spec.assets) {
      VIGILO_ASSIGN_OR_RETURN(auto sink, ObjectSink::Create(writes, asset.path));
      VIGILO_RETURN_IF_ERROR(StreamAsset(model_store, dir, asset,
                                         [&sink](std::span<const uint8_t> b) { return sink->Append(b); }));
      VIGILO_ASSIGN_OR_RETURN(ObjectDescriptor copied, sink->Commit());
      if (copied != asset) {
        return IntegrityError("the copy is " + std::to_string(copied.size) + " bytes with SHA-256 " + copied.sha256 +
                              "; the model's inventory says " + std::to_string(asset.size) + " and " + asset.sha256)
            .WithPath(asset.path);
      }
    }
    return Status::Ok();
  };
  auto built = BuildPublicationWith(inner, store, &addition);
  if (!built.ok()) {
    Status s = built.status();
    if (rows.unembeddable() > 0 && o.source && s.code() == StatusCode::kInvalidArgument &&
        s.message().find("row position") != std::string_view::npos) {
      return InvalidArgument(std::string(s.message()) + " (`skip_unembeddable` left out " +
                             std::to_string(rows.unembeddable()) + (rows.unembeddable() == 1 ? " row" : " rows") +
                             ", so the keys are no longer the row positions a source table needs)")
          .WithPath(o.input);
    }
    // Errors in the scratch file are the input's rows: name the input.
    if (s.path() == scratch_file) return Status(s.code(), std::string(s.message())).WithPath(o.input);
    return s;
  }
  built->skipped_rows = rows.unembeddable();
  built->seconds_embed = seconds_embed;
  return built;
}

Result<TextCheck> CheckTextInput(const BuildOptions& options) {
  if (options.embed_model.empty()) return InvalidArgument("a text check needs the model directory (embed_model)");
  if (options.text_field.empty()) return InvalidArgument("a text check needs the text column (text_field)");
  // The text column (and the key, when given, checked as a build checks it); no payload.
  BuildOptions o = options;
  o.source = false;
  o.source_columns.clear();
  VIGILO_ASSIGN_OR_RETURN(InputFormat format, TextInputFormat(o));
  // The same model checks as a build: an answer from a broken model would be wrong.
  VIGILO_ASSIGN_OR_RETURN(TextInput text, OpenTextInput(o, format));
  TextCheck check;
  RowEmbedder rows(*text.embedder, o);
  rows.CollectInto(&check.unembeddable);
  if (text.parquet) {
    VIGILO_RETURN_IF_ERROR(EmbedParquet(o, *text.parquet, rows, nullptr, text.model.spec.dimension));
  } else {
    VIGILO_RETURN_IF_ERROR(EmbedJsonl(o, text.plan, rows, nullptr, text.model.spec.dimension));
  }
  check.rows = rows.rows();
  return check;
}

}  // namespace vigilo::ivf
