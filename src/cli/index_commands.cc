// `vigilo index build …` (engine::BuildPublicationAt), `index inspect` and
// `index query` (engine::Publication): flags in, records out. Publications
// are named by any engine locator (a directory, an http(s) URL, ALIAS:KEY);
// `index verify` and its older spelling `index validate` are in
// index_verify.cc. Output follows docs/cli.md.
#include <sched.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "commands.h"
#include "context.h"
#include "index_io.h"
#include "interrupt.h"
#include "output.h"
#include "progress.h"
#include "published_roots.h"

#include "vigilo/engine/publication.h"
#include "vigilo/engine/publication_build.h"
#include "vigilo/ivf/builder.h"
#include "vigilo/ivf/manifest.h"
#include "vigilo/ivf/publication_check.h"
#include "vigilo/ivf/publication_inspect.h"
#include "vigilo/ivf/query.h"
#include "vigilo/ivf/text_query.h"
#include "vigilo/ivf/source_lookup.h"
#include "vigilo/json/parse.h"
#include "vigilo/json/value.h"
#include "vigilo/parquet/footer.h"
#include "vigilo/parquet/schema.h"
#include "vigilo/json/write.h"

namespace vigilo::cli {
namespace {

// The fields every index command's record starts with, in one order.
void AddIndexSummary(Record& r, const ivf::Manifest& m) {
  r.Add("artifact_uuid", json::Value(m.artifact_uuid.ToString()));
  r.Add("metric", json::Value(ivf::MetricName(m.index.metric)));
  r.Add("encoding", json::Value(ivf::EncodingName(m.index.encoding)));
  r.Add("dimension", json::Value::Uint(m.index.dimension));
  r.Add("ntotal", json::Value::Uint(m.index.ntotal));
  r.Add("nlist", json::Value::Uint(m.index.nlist));
  r.Add("roots", json::Value::Uint(m.hierarchy.roots()));
}

// The cores this process may run on (its affinity mask), at least 1.
uint32_t AvailableCores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return 1;
  int n = CPU_COUNT(&set);
  return n > 0 ? static_cast<uint32_t>(n) : 1;
}

// --metric: the v1 metrics; an inner-product request is told why it is not one.
Result<ivf::Metric> MetricFlag(const std::string& text) {
  for (const char* ip : {"ip", "inner_product", "inner-product", "dot", "dot_product", "mips"}) {
    if (text == ip) {
      return InvalidArgument("--metric " + text +
                             ": inner product is outside the v1 publication format, whose metrics are l2_squared "
                             "and cosine (cosine ranks normalized vectors as inner product does)");
    }
  }
  auto metric = ivf::ParseMetric(text);
  if (!metric.ok()) return InvalidArgument("--metric: " + std::string(metric.status().message()));
  return *metric;
}

struct BuildArgs {
  std::string input, input_flag, vector_field, key, id_column, metric = "cosine", encoding = "lvq8", format, out, scratch;
  std::optional<uint32_t> nlist, roots;
  std::optional<uint64_t> sample;
  uint32_t iterations = 10;
  uint64_t seed = 1;
  uint32_t threads = AvailableCores();
  bool source = false;
  std::vector<std::string> columns;
  uint64_t source_row_group_rows = 1024;
  std::string embed_model, text_field;
  bool skip_unembeddable = false;
  bool quiet = false;
  OutputFlags output;
};

Status Build(const BuildArgs& a) {
  ivf::BuildOptions o;
  // The input is positional; --input, its older spelling, still works.
  if (a.input.empty() == a.input_flag.empty()) {
    return InvalidArgument(a.input.empty() ? "the input file is required: vigilo index build FILE …"
                                           : "give the input once: as FILE or as --input, not both");
  }
  o.input = a.input.empty() ? a.input_flag : a.input;
  // Without --vector-field the vector column is the input's one list of
  // numbers (Parquet, JSONL); unnamed formats record the name "vector".
  o.input_options.vector_field = a.vector_field.empty() ? "vector" : a.vector_field;
  o.input_options.detect_vector_field = a.vector_field.empty();
  if (!a.key.empty()) o.input_options.key_field = a.key;
  // A text build's vectors are the embeddings of --text-field (ivf-build.md).
  if (!a.embed_model.empty() && !a.vector_field.empty()) {
    return InvalidArgument("--vector-field cannot be used with --embed-model: the vectors are the embeddings of "
                           "--text-field");
  }
  o.embed_model = a.embed_model;
  o.text_field = a.text_field;
  o.skip_unembeddable = a.skip_unembeddable;
  if (!a.format.empty()) {
    VIGILO_ASSIGN_OR_RETURN(ivf::InputFormat format, ivf::ParseInputFormat(a.format));
    o.input_options.format = format;
  }
  VIGILO_ASSIGN_OR_RETURN(ivf::Metric metric, MetricFlag(a.metric));
  auto encoding = ivf::ParseEncoding(a.encoding);
  if (!encoding.ok()) return InvalidArgument("--encoding: " + std::string(encoding.status().message()));
  if (a.threads == 0) return InvalidArgument("--threads must be at least 1");
  o.metric = metric;
  o.encoding = *encoding;
  o.nlist = a.nlist;
  o.roots = a.roots;
  o.sample = a.sample;
  o.iterations = a.iterations;
  o.seed = a.seed;
  o.threads = a.threads;
  o.scratch = a.scratch;
  if (!a.columns.empty() && !a.source && a.id_column.empty()) {
    return InvalidArgument("--columns needs --source (or --id-column)");
  }
  o.source = a.source;
  o.source_columns = a.columns;
  o.id_column = a.id_column;
  o.source_layout.row_group_rows = a.source_row_group_rows;
  Progress bar = Progress::ForStderr(a.quiet);
  o.progress = [&bar](std::string_view phase, uint64_t done, uint64_t total) { bar.Update(phase, done, total); };
  VIGILO_ASSIGN_OR_RETURN(std::unique_ptr<engine::Context> context, MakeContext());
  // SIGINT/SIGTERM stop the build at its next step; it removes what it created (docs/format/ivf-build.md).
  store::CancelToken cancel;
  InterruptCancels interrupt(cancel);
  o.cancel = &cancel;
  auto at = engine::BuildPublicationAt(*context, std::move(o), a.out);
  bar.Finish();
  if (!at.ok()) {
    return UnderFlag(interrupt.Explain(at.status(), "nothing was published, and what this build had created was "
                                                    "removed"));
  }
  const ivf::BuildSummary* built = &at->summary;
  const ivf::Manifest& m = built->manifest;
  if (built->skipped_rows > 0) {
    std::fprintf(stderr, "vigilo: note: --skip-unembeddable left out %llu %s whose text has no word in the model's "
                 "vocabulary (or is null)\n",
                 static_cast<unsigned long long>(built->skipped_rows), built->skipped_rows == 1 ? "row" : "rows");
  }
  Record r;
  r.Add("manifest", json::Value(at->manifest));
  AddIndexSummary(r, m);
  r.Add("sample", json::Value::Uint(built->sample_rows));
  r.Add("empty_leaves", json::Value::Uint(built->empty_leaves));
  r.Add("postings_files", json::Value::Uint(m.postings.size()));
  if (m.source) r.Add("source_files", json::Value::Uint(m.source->files.size()));
  // The layout an --id-column build chose, said where the user reads the result.
  if (!a.id_column.empty()) r.Add("id_column", json::Value(a.id_column));
  if (m.embedding) {
    r.Add("embedding_assets", json::Value::Uint(m.embedding->assets.size()));
    r.Add("skipped_rows", json::Value::Uint(built->skipped_rows));
  }
  Record seconds;
  if (m.embedding) seconds.Add("embed", json::Value::Double(built->seconds_embed));
  seconds.Add("sample", json::Value::Double(built->seconds_sample));
  seconds.Add("train", json::Value::Double(built->seconds_train));
  seconds.Add("assign", json::Value::Double(built->seconds_assign));
  if (m.source) seconds.Add("source", json::Value::Double(built->seconds_source));
  seconds.Add("write", json::Value::Double(built->seconds_write));
  r.Add("seconds", std::move(seconds));
  return PrintRecord(r, a.output);
}

Record SummaryRecord(const ivf::SizeSummary& s) {
  Record r;
  r.Add("count", json::Value::Uint(s.count));
  r.Add("min", json::Value::Uint(s.min));
  r.Add("mean", json::Value::Double(s.mean));
  r.Add("p50", json::Value::Uint(s.p50));
  r.Add("p90", json::Value::Uint(s.p90));
  r.Add("p99", json::Value::Uint(s.p99));
  r.Add("max", json::Value::Uint(s.max));
  return r;
}

// The source table's columns as records (name, manifest type, Parquet
// physical and logical type; null where the footer states none).
json::Value SourceColumnsJson(const std::vector<ivf::SourceColumnShape>& columns) {
  json::Array out;
  auto or_null = [](const std::optional<std::string>& v) { return v ? json::Value(*v) : json::Value(); };
  for (const ivf::SourceColumnShape& c : columns) {
    json::Object o;
    o.Set("name", json::Value(c.name));
    o.Set("type", json::Value(c.type));
    o.Set("physical_type", or_null(c.physical_type));
    o.Set("logical_type", or_null(c.logical_type));
    out.emplace_back(std::move(o));
  }
  return json::Value(std::move(out));
}

// `vigilo index inspect MANIFEST`: counts, list-size distribution and bytes
// per part, from the manifest and the postings footers; the source table's
// columns from the manifest and the first source footer; the embedding
// section's descriptor (its assets are not read).
json::Value EmbeddingSummary(const ivf::Manifest& m) {
  if (!m.embedding) return json::Value();
  const ivf::EmbeddingSpec& e = *m.embedding;
  json::Object o;
  o.Set("model", json::Value(e.model.repository + "@" + e.model.revision));
  o.Set("integrity", json::Value(e.model.integrity));
  o.Set("contract", json::Value(e.contract));
  o.Set("dimension", json::Value::Uint(e.dimension));
  o.Set("input_template", json::Value(e.input_template));
  o.Set("parity_probes", json::Value::Uint(e.probes.size()));
  o.Set("assets", json::Value::Uint(e.assets.size()));
  return json::Value(std::move(o));
}

Status Inspect(const std::string& path, const OutputFlags& output) {
  VIGILO_ASSIGN_OR_RETURN(OpenedPublication opened, OpenPublication(path, /*use_cache=*/false));
  engine::Publication& publication = *opened.publication;
  const ivf::Manifest& m = publication.manifest();
  VIGILO_ASSIGN_OR_RETURN(ivf::PublicationShape shape, publication.Inspect());
  const uint64_t manifest_bytes = publication.manifest_bytes();
  Record bytes;
  bytes.Add("manifest", json::Value::Uint(manifest_bytes));
  bytes.Add("centroids", json::Value::Uint(shape.centroids_bytes));
  bytes.Add("postings", json::Value::Uint(shape.postings_bytes));
  bytes.Add("source", json::Value::Uint(shape.source_bytes));
  bytes.Add("embedding", json::Value::Uint(shape.embedding_bytes));
  bytes.Add("total", json::Value::Uint(shape.centroids_bytes + shape.postings_bytes + shape.source_bytes +
                                       shape.embedding_bytes + manifest_bytes));
  Record r;
  AddIndexSummary(r, m);
  r.Add("empty_lists", json::Value::Uint(shape.empty_lists));
  r.Add("postings_files", json::Value::Uint(m.postings.size()));
  r.Add("postings_row_groups", json::Value::Uint(shape.postings_row_groups));
  r.Add("source_rows", m.source ? json::Value::Uint(m.source->rows) : json::Value());
  r.Add("source_key", m.source ? json::Value(m.source->key) : json::Value());
  r.Add("source_columns", SourceColumnsJson(shape.source_columns));
  r.Add("embedding", EmbeddingSummary(m));
  r.Add("lists", SummaryRecord(shape.lists));
  r.Add("buckets", SummaryRecord(shape.buckets));
  r.Add("bytes", std::move(bytes));
  r.Add("footer_bytes_read", json::Value::Uint(shape.footer_bytes_read));
  return PrintRecord(r, output);
}

struct QueryArgs {
  std::string manifest, vector, queries, format, vector_field;
  std::vector<std::string> texts;
  uint32_t k = 10, nprobe = 16;
  std::vector<std::string> columns;
  OutputFlags output;
  bool stats = false;
  bool no_cache = false;
  bool no_screen = false;
  bool exact_ranges = false;
};

// --stats: what each phase fetched, on stderr (stdout keeps the hits);
// docs/format/http-reading.md, "Counting".
void PrintFetchStats(const char* phase, const ivf::FetchStats& s) {
  std::fprintf(stderr, "vigilo: stats: %s requests=%llu round_trips=%llu bytes=%llu cache_hits=%llu\n", phase,
               static_cast<unsigned long long>(s.requests), static_cast<unsigned long long>(s.round_trips),
               static_cast<unsigned long long>(s.bytes), static_cast<unsigned long long>(s.cache_hits));
}

// A query with fewer than k hits is said on stderr (in both output modes;
// stdout keeps one record per hit): the index is smaller than k, or the
// nprobe lists probed hold fewer rows.
void ReportShortQueries(const ivf::QueryResult& result, size_t queries, const QueryArgs& a, uint64_t ntotal) {
  std::vector<uint64_t> hits(queries, 0);
  for (const ivf::QueryHit& h : result.hits) {
    if (h.query < hits.size()) ++hits[h.query];
  }
  for (size_t q = 0; q < queries; ++q) {
    if (hits[q] >= a.k) continue;
    std::string why = ntotal < a.k ? "the index holds " + std::to_string(ntotal) + " vectors"
                                   : "the " + std::to_string(a.nprobe) +
                                         " lists probed hold fewer rows; a larger --nprobe finds more";
    std::fprintf(stderr, "vigilo: note: query %zu has %llu hits, fewer than k = %u (%s)\n", q,
                 static_cast<unsigned long long>(hits[q]), a.k, why.c_str());
  }
}

Status Query(const QueryArgs& a) {
  if (!a.vector.empty() + !a.queries.empty() + !a.texts.empty() != 1) {
    return InvalidArgument("give exactly one of --vector, --queries and --text");
  }
  if (!a.texts.empty() && (!a.format.empty() || !a.vector_field.empty())) {
    return InvalidArgument("--format and --vector-field describe --queries; --text needs neither");
  }
  VIGILO_ASSIGN_OR_RETURN(OpenedPublication opened, OpenPublication(a.manifest, !a.no_cache));
  engine::Publication& publication = *opened.publication;
  const ivf::Manifest* manifest = &publication.manifest();
  engine::SearchRequest request;
  request.texts = a.texts;
  if (a.texts.empty()) {
    VIGILO_ASSIGN_OR_RETURN(request.vectors,
                            LoadQueries(QuerySource{a.vector, a.queries, a.format, a.vector_field}, *manifest));
  }
  request.k = a.k;
  request.nprobe = a.nprobe;
  request.screen = !a.no_screen;
  request.exact_ranges = a.exact_ranges;
  request.columns = a.columns;
  Result<engine::SearchResult> searched = publication.Search(request);
  if (!searched.ok()) return UnderFlag(searched.status());
  const ivf::QueryResult& result = searched->result;
  const std::vector<std::string>& payload_columns = searched->payload_columns;
  const ivf::SourceRows& payload = searched->payload;
  const size_t query_count = searched->queries;
  // One row per hit: the query, the rank, the key under its own name, the
  // distance, then the payload columns. Key and payload values arrive as
  // JSON text (KeyJson, SourceRows) and are parsed back into values.
  const std::string& key_name = manifest->index.source_key[0].name;
  std::vector<std::string> columns = {"query", "rank", key_name, "_distance"};
  columns.insert(columns.end(), payload_columns.begin(), payload_columns.end());
  std::vector<Record> rows;
  rows.reserve(result.hits.size());
  for (size_t i = 0; i < result.hits.size(); ++i) {
    const ivf::QueryHit& h = result.hits[i];
    VIGILO_ASSIGN_OR_RETURN(std::string key, KeyJson(result.keys, i));
    Record r;
    r.Add("query", json::Value::Uint(h.query)).Add("rank", json::Value::Uint(h.rank));
    VIGILO_ASSIGN_OR_RETURN(json::Value key_value, json::Parse(key));
    r.Add(key_name, std::move(key_value));
    VIGILO_ASSIGN_OR_RETURN(json::Value distance, json::Parse(FloatText(h.distance)));
    r.Add("_distance", std::move(distance));
    for (size_t c = 0; c < payload_columns.size(); ++c) {
      VIGILO_ASSIGN_OR_RETURN(json::Value value, json::Parse(payload.Value(i, c)));
      r.Add(payload_columns[c], std::move(value));
    }
    rows.push_back(std::move(r));
  }
  ReportShortQueries(result, query_count, a, manifest->index.ntotal);
  if (a.stats) {
    const ivf::FetchStats manifest_fetch = publication.manifest_fetch();
    PrintFetchStats("manifest", manifest_fetch);
    if (!a.texts.empty()) PrintFetchStats("embed", searched->embed);
    PrintFetchStats("query", searched->query);
    if (!payload_columns.empty()) PrintFetchStats("payload", searched->lookup);
    ivf::FetchStats total = searched->embed;
    for (const ivf::FetchStats& f : {manifest_fetch, searched->query, searched->lookup}) total += f;
    PrintFetchStats("total", total);
  }
  return PrintTable(columns, rows, a.output);
}

}  // namespace

void RegisterIndexCommands(CLI::App& app, Action* action) {
  auto* index = app.add_subcommand("index", "Vector publications (IVF-LVQ snapshots)");
  index->require_subcommand(1);
  auto b = std::make_shared<BuildArgs>();
  auto* build = index->add_subcommand(
      "build",
      "Build a vector publication (IVF-LVQ4/LVQ8) from a vector file, or from a text column with --embed-model");
  build->add_option("input", b->input,
                    "Parquet, .fvecs, .bvecs, .npy or .jsonl file (with --embed-model: JSONL objects or Parquet "
                    "holding a text column)")
      ->type_name("FILE");
  build->add_option("--input", b->input_flag, "The input file, as a flag (same as FILE)")->type_name("FILE");
  build->add_option("--format", b->format, "Input format, overriding the extension (parquet|fvecs|bvecs|npy|jsonl)");
  build->add_option("--vector-field", b->vector_field,
                    "Vector column (Parquet/JSONL); default: the one column that is a list of numbers (an error "
                    "lists them when there are several); for .fvecs/.bvecs/.npy the name recorded (default vector)");
  build->add_option("--key", b->key,
                    "Key column (Parquet/JSONL); default: the row position, a long named _row (an input column "
                    "named _row then needs --key or a new name); with --source it must be a long 0, 1, 2, ... "
                    "(other ids: --id-column)");
  build->add_option("--id-column", b->id_column,
                    "Your own ids (strings, or integers that are not 0, 1, 2, ...): the publication is keyed by row "
                    "position (_row) and this column is copied into a source table and returned with every hit "
                    "(index eval --id-column compares ground truth by it); with --source, the other columns follow")
      ->type_name("NAME");
  build->add_option("--metric", b->metric, "l2_squared or cosine (default cosine; inner product is not in the v1 format)")
      ->type_name("l2_squared|cosine");
  build->add_option("--encoding", b->encoding, "lvq4 or lvq8 (default lvq8)")->type_name("lvq4|lvq8");
  build->add_option("--nlist", b->nlist, "Leaf centroids (default about 4*sqrt(N))");
  build->add_option("--roots", b->roots, "Root buckets (default about sqrt(nlist))");
  build->add_option("--sample", b->sample, "Training vectors (default min(N, 64*nlist))");
  build->add_option("--iterations", b->iterations, "k-means iterations (default 10)");
  build->add_option("--seed", b->seed, "Random seed (default 1); the same seed gives the same bytes");
  build->add_option("--threads", b->threads, "Worker threads (default: the cores available)");
  build->add_option("--scratch", b->scratch,
                    "Directory in which a private spill directory is made, removed afterwards (default --out for a "
                    "directory, else the temporary directory)");
  build->add_flag("--source", b->source,
                  "Also publish a source table of the key (a long 0, 1, 2, ...) and the --columns, for "
                  "index query --columns to return");
  build->add_option("--columns", b->columns,
                    "Source columns (default: every input column except the key and the vector column; the "
                    "vector column when there is no other, as in .fvecs, .bvecs, .npy)")
      ->delimiter(',');
  build->add_option("--embed-model", b->embed_model,
                    "Vectors from text: embed --text-field with this model (a directory vigilo embed import wrote); "
                    "the publication carries the model, for index query --text")
      ->type_name("DIR");
  build->add_option("--text-field", b->text_field, "The string column to embed (with --embed-model)")
      ->type_name("NAME");
  build->add_flag("--skip-unembeddable", b->skip_unembeddable,
                  "Leave out rows whose text has no word in the model's vocabulary (or is null) instead of failing; "
                  "needs --key");
  build->add_option("--source-row-group-rows", b->source_row_group_rows, "Rows per source row group (default 1024)");
  build->add_option("-o,--out", b->out,
                    "Publication directory, or ALIAS:KEY in a writable configured store (must not hold a "
                    "publication yet)")
      ->required()
      ->type_name("DIR|ALIAS:KEY");
  build->add_flag("-q,--quiet", b->quiet, "No progress bar (one is drawn on stderr only when it is a terminal)");
  AddJsonFlags(build, &b->output);
  build->callback([b, action] { *action = [b] { return Build(*b); }; });

  auto q = std::make_shared<QueryArgs>();
  auto* query = index->add_subcommand("query", "Nearest neighbours of query vectors in a publication (a directory, its manifest.json, an http(s) URL, ALIAS:KEY in a configured store, or catalog:SOURCE/INDEX)");
  query->add_option("manifest", q->manifest, kManifestHelp)->required()->type_name("PUBLICATION");
  query->add_option("--vector", q->vector, "One query as a JSON array ([0.1,0.2,…]), @FILE holding one, or - (stdin)");
  query->add_option("--text", q->texts,
                    "A query text, embedded with the publication's own model (after its parity probe); repeat for "
                    "several queries")
      ->type_name("TEXT")
      ->allow_extra_args(false);  // one text per --text, so a following PUBLICATION is not taken for one
  query->add_option("--queries", q->queries,
                    "Query file: .fvecs, .bvecs, .npy, .parquet, or .jsonl (lines: objects holding the vector field, "
                    "or arrays); - reads stdin (needs --format)")
      ->type_name("FILE");
  query->add_option("--format", q->format, "Format of --queries, overriding the extension (jsonl|fvecs|bvecs|npy|parquet)");
  query->add_option("--vector-field", q->vector_field,
                    "Vector column/member of --queries (Parquet, JSONL); default: the manifest's vector-field");
  query->add_option("-k,--k", q->k, "Results per query (default 10)");
  query->add_option("--nprobe", q->nprobe, "Leaf lists probed per query (default 16)");
  query->add_option("--columns", q->columns,
                    "Payload columns from the source table, e.g. --columns title,label (default: with a generated "
                    "_row key, the first payload column that is not a vector)")
      ->delimiter(',');
  query->add_flag("--json", q->output.json,
                  "One canonical JSON object per hit: query, rank, the key, _distance and the --columns");
  query->add_flag("--stats", q->stats,
                  "Print to stderr what each phase fetched: requests, dependent round trips, bytes, cache hits");
  query->add_flag("--no-screen", q->no_screen,
                  "Score every probed row exactly instead of screening with proven bounds first (same results)");
  query->add_flag("--exact-ranges", q->exact_ranges,
                  "Fetch each run of adjacent row groups as its own request, merging no gaps (measurements; same results)");
  query->add_flag("--no-cache", q->no_cache,
                  "Over http(s), read no object from the cache directory and store none there (also VIGILO_CACHE=off)");
  query->callback([q, action] { *action = [q] { return Query(*q); }; });

  struct InspectArgs {
    std::string manifest;
    OutputFlags output;
  };
  auto inspected = std::make_shared<InspectArgs>();
  auto* inspect = index->add_subcommand("inspect", "Summarize a publication: counts, list sizes, bytes per part, source columns and their types");
  inspect->add_option("manifest", inspected->manifest, kManifestHelp)->required()->type_name("PUBLICATION");
  AddJsonFlags(inspect, &inspected->output);
  inspect->callback([inspected, action] {
    *action = [inspected] { return Inspect(inspected->manifest, inspected->output); };
  });

  RegisterIndexEval(index, action);
  RegisterIndexVerify(index, action);
  RegisterIndexPublish(index, action);
}

}  // namespace vigilo::cli
