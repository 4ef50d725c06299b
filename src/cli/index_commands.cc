// `vigilo index build …` (ivf::BuildPublication) and
// `vigilo index validate MANIFEST [--manifest-only | --deep]`: the
// validation levels of publication-v1.md §6 (manifest; footers, the default;
// deep). Objects are read through a local store rooted at the manifest's
// directory (index_io.h). Prints a one-line JSON summary.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "commands.h"
#include "index_io.h"

#include "vigilo/ivf/builder.h"
#include "vigilo/ivf/manifest.h"
#include "vigilo/ivf/publication_check.h"
#include "vigilo/ivf/publication_inspect.h"
#include "vigilo/ivf/query.h"
#include "vigilo/ivf/source_lookup.h"
#include "vigilo/json/parse.h"
#include "vigilo/json/write.h"

namespace vigilo::cli {
namespace {

struct ValidateArgs {
  std::string manifest;
  bool manifest_only = false;
  bool deep = false;
};

Status Validate(const ValidateArgs& args) {
  const std::string& path = args.manifest;
  VIGILO_ASSIGN_OR_RETURN(LoadedManifest loaded, LoadManifest(path));
  const ivf::Manifest& m = loaded.manifest;
  json::Object o;
  if (!args.manifest_only) {
    VIGILO_ASSIGN_OR_RETURN(ivf::ObjectCheckReport report, ivf::CheckPublicationObjects(m, *loaded.store, args.deep));
    o.Set("objects", json::Value::Uint(report.objects));
    o.Set("row-groups", json::Value::Uint(report.row_groups));
  }
  o.Set("artifact-uuid", json::Value(m.artifact_uuid.ToString()));
  o.Set("dimension", json::Value::Uint(m.index.dimension));
  o.Set("encoding", json::Value(ivf::EncodingName(m.index.encoding)));
  o.Set("level", json::Value(args.manifest_only ? "manifest" : args.deep ? "deep" : "footers"));
  o.Set("metric", json::Value(ivf::MetricName(m.index.metric)));
  o.Set("nlist", json::Value::Uint(m.index.nlist));
  o.Set("ntotal", json::Value::Uint(m.index.ntotal));
  o.Set("postings-files", json::Value::Uint(m.postings.size()));
  o.Set("roots", json::Value::Uint(m.hierarchy.roots()));
  o.Set("source", json::Value(m.source.has_value()));
  o.Set("valid", json::Value(true));
  VIGILO_ASSIGN_OR_RETURN(std::string line, json::ToCanonical(json::Value(std::move(o))));
  line.push_back('\n');
  return WriteStdout(line);
}

struct BuildArgs {
  std::string input, vector_field = "vector", key, metric, encoding, format, out, scratch;
  std::optional<uint32_t> nlist, roots;
  std::optional<uint64_t> sample;
  uint32_t iterations = 10;
  uint64_t seed = 1;
  uint32_t threads = 2;
  bool source = false;
  std::vector<std::string> columns;
  uint64_t source_row_group_rows = 1024;
};

// A one-line progress display on stderr: redrawn in place on a terminal,
// one line per finished phase otherwise (logs stay readable).
class ProgressBar {
 public:
  ProgressBar() : tty_(::isatty(STDERR_FILENO) != 0) {}
  void Update(std::string_view phase, uint64_t done, uint64_t total) {
    if (phase != phase_) {
      Finish();
      phase_ = std::string(phase);
    }
    done_ = done;
    total_ = total;
    if (!tty_) return;
    if (total > 0) {
      int width = 30, filled = static_cast<int>(static_cast<double>(done) / static_cast<double>(total) * width);
      std::fprintf(stderr, "\r%-8s [%-*s] %llu/%llu", phase_.c_str(), width, std::string(filled, '#').c_str(),
                   static_cast<unsigned long long>(done), static_cast<unsigned long long>(total));
    } else {
      std::fprintf(stderr, "\r%-8s %llu", phase_.c_str(), static_cast<unsigned long long>(done));
    }
  }
  void Finish() {
    if (phase_.empty()) return;
    if (tty_) {
      std::fprintf(stderr, "\n");
    } else {
      std::fprintf(stderr, "%s: %llu%s\n", phase_.c_str(), static_cast<unsigned long long>(done_),
                   total_ ? ("/" + std::to_string(total_)).c_str() : "");
    }
    phase_.clear();
  }

 private:
  bool tty_;
  std::string phase_;
  uint64_t done_ = 0, total_ = 0;
};

Status Build(const BuildArgs& a) {
  ivf::BuildOptions o;
  o.input = a.input;
  o.input_options.vector_field = a.vector_field;
  if (!a.key.empty()) o.input_options.key_field = a.key;
  if (!a.format.empty()) {
    VIGILO_ASSIGN_OR_RETURN(ivf::InputFormat format, ivf::ParseInputFormat(a.format));
    o.input_options.format = format;
  }
  auto metric = ivf::ParseMetric(a.metric);
  if (!metric.ok()) return InvalidArgument(std::string(metric.status().message()));
  auto encoding = ivf::ParseEncoding(a.encoding);
  if (!encoding.ok()) return InvalidArgument(std::string(encoding.status().message()));
  o.metric = *metric;
  o.encoding = *encoding;
  o.nlist = a.nlist;
  o.roots = a.roots;
  o.sample = a.sample;
  o.iterations = a.iterations;
  o.seed = a.seed;
  o.threads = a.threads;
  o.out = a.out;
  o.scratch = a.scratch;
  if (!a.columns.empty() && !a.source) return InvalidArgument("--columns needs --source");
  o.source = a.source;
  o.source_columns = a.columns;
  o.source_layout.row_group_rows = a.source_row_group_rows;
  ProgressBar bar;
  o.progress = [&bar](std::string_view phase, uint64_t done, uint64_t total) { bar.Update(phase, done, total); };
  auto built = ivf::BuildPublication(o);
  bar.Finish();
  if (!built.ok()) return built.status();
  const ivf::Manifest& m = built->manifest;
  json::Object s;
  s.Set("artifact-uuid", json::Value(m.artifact_uuid.ToString()));
  s.Set("dimension", json::Value::Uint(m.index.dimension));
  s.Set("empty-leaves", json::Value::Uint(built->empty_leaves));
  s.Set("encoding", json::Value(ivf::EncodingName(m.index.encoding)));
  s.Set("manifest", json::Value((std::filesystem::path(a.out) / "manifest.json").string()));
  s.Set("metric", json::Value(ivf::MetricName(m.index.metric)));
  s.Set("nlist", json::Value::Uint(m.index.nlist));
  s.Set("ntotal", json::Value::Uint(m.index.ntotal));
  s.Set("postings-files", json::Value::Uint(m.postings.size()));
  s.Set("roots", json::Value::Uint(m.hierarchy.roots()));
  s.Set("sample", json::Value::Uint(built->sample_rows));
  if (m.source) s.Set("source-files", json::Value::Uint(m.source->files.size()));
  json::Object seconds;
  seconds.Set("assign", json::Value::Double(built->seconds_assign));
  seconds.Set("sample", json::Value::Double(built->seconds_sample));
  if (m.source) seconds.Set("source", json::Value::Double(built->seconds_source));
  seconds.Set("train", json::Value::Double(built->seconds_train));
  seconds.Set("write", json::Value::Double(built->seconds_write));
  s.Set("seconds", json::Value(std::move(seconds)));
  VIGILO_ASSIGN_OR_RETURN(std::string line, json::ToCanonical(json::Value(std::move(s))));
  line.push_back('\n');
  return WriteStdout(line);
}

json::Value SummaryValue(const ivf::SizeSummary& s) {
  json::Object o;
  o.Set("count", json::Value::Uint(s.count));
  o.Set("max", json::Value::Uint(s.max));
  o.Set("mean", json::Value::Double(s.mean));
  o.Set("min", json::Value::Uint(s.min));
  o.Set("p50", json::Value::Uint(s.p50));
  o.Set("p90", json::Value::Uint(s.p90));
  o.Set("p99", json::Value::Uint(s.p99));
  return json::Value(std::move(o));
}

// `vigilo index inspect MANIFEST`: counts, list-size distribution and bytes
// per part, from the manifest and the postings footers.
Status Inspect(const std::string& path) {
  VIGILO_ASSIGN_OR_RETURN(LoadedManifest loaded, LoadManifest(path));
  const ivf::Manifest& m = loaded.manifest;
  VIGILO_ASSIGN_OR_RETURN(ivf::PublicationShape shape, ivf::InspectPublication(m, *loaded.store));
  json::Object bytes;
  bytes.Set("centroids", json::Value::Uint(shape.centroids_bytes));
  bytes.Set("manifest", json::Value::Uint(loaded.bytes));
  bytes.Set("postings", json::Value::Uint(shape.postings_bytes));
  bytes.Set("source", json::Value::Uint(shape.source_bytes));
  bytes.Set("total", json::Value::Uint(shape.centroids_bytes + shape.postings_bytes + shape.source_bytes +
                                       loaded.bytes));
  json::Object o;
  o.Set("artifact-uuid", json::Value(m.artifact_uuid.ToString()));
  o.Set("buckets", SummaryValue(shape.buckets));
  o.Set("bytes", json::Value(std::move(bytes)));
  o.Set("dimension", json::Value::Uint(m.index.dimension));
  o.Set("empty-lists", json::Value::Uint(shape.empty_lists));
  o.Set("encoding", json::Value(ivf::EncodingName(m.index.encoding)));
  o.Set("footer-bytes-read", json::Value::Uint(shape.footer_bytes_read));
  o.Set("lists", SummaryValue(shape.lists));
  o.Set("metric", json::Value(ivf::MetricName(m.index.metric)));
  o.Set("nlist", json::Value::Uint(m.index.nlist));
  o.Set("ntotal", json::Value::Uint(m.index.ntotal));
  o.Set("postings-files", json::Value::Uint(m.postings.size()));
  o.Set("postings-row-groups", json::Value::Uint(shape.postings_row_groups));
  o.Set("roots", json::Value::Uint(m.hierarchy.roots()));
  o.Set("source-rows", m.source ? json::Value::Uint(m.source->rows) : json::Value());
  VIGILO_ASSIGN_OR_RETURN(std::string line, json::ToCanonical(json::Value(std::move(o))));
  line.push_back('\n');
  return WriteStdout(line);
}

struct QueryArgs {
  std::string manifest, vector, queries;
  uint32_t k = 10, nprobe = 16;
  std::vector<std::string> columns;
  bool json = false;
};

// The requested payload columns of every hit, from the source table
// (ivf::SourceLookup), or nothing when none are requested.
Result<ivf::SourceRows> PayloadOf(ivf::PublicationReader& reader, store::ObjectStore& objects,
                                  const ivf::QueryResult& result, const std::vector<std::string>& columns) {
  if (columns.empty()) return ivf::SourceRows{};
  const ivf::Manifest& m = reader.manifest();
  const std::string& key = m.index.source_key[0].name;
  for (const std::string& c : columns) {
    if (c == key || c == "_distance" || c == "query" || c == "rank") {
      return InvalidArgument("--columns: '" + c + "' is printed already");
    }
  }
  if (m.source && m.source->key != key) {
    return Unimplemented("payload lookup by source key '" + m.source->key + "', which is not the first index key");
  }
  return ivf::LookupSource(reader, objects, result.keys.integers, columns);
}

Status Query(const QueryArgs& a) {
  if (a.vector.empty() == a.queries.empty()) return InvalidArgument("give exactly one of --vector and --queries");
  VIGILO_ASSIGN_OR_RETURN(LoadedManifest loaded, LoadManifest(a.manifest));
  const ivf::Manifest* manifest = &loaded.manifest;
  VIGILO_ASSIGN_OR_RETURN(auto queries, LoadQueries(a.vector, a.queries));
  ivf::PublicationReader reader(*manifest);
  ivf::QueryOptions options;
  options.k = a.k;
  options.nprobe = a.nprobe;
  VIGILO_ASSIGN_OR_RETURN(ivf::QueryResult result, ivf::RunQuery(reader, *loaded.store, std::move(queries), options));
  VIGILO_ASSIGN_OR_RETURN(ivf::SourceRows payload, PayloadOf(reader, *loaded.store, result, a.columns));
  const std::string& key_name = manifest->index.source_key[0].name;
  VIGILO_ASSIGN_OR_RETURN(std::string key_label, json::ToCanonical(json::Value(key_name)));
  std::vector<std::string> column_labels;
  for (const std::string& c : a.columns) {
    VIGILO_ASSIGN_OR_RETURN(std::string label, json::ToCanonical(json::Value(c)));
    column_labels.push_back(std::move(label));
  }
  std::string out;
  if (!a.json) {
    out = "query\trank\t" + key_name + "\t_distance";
    for (const std::string& c : a.columns) out += "\t" + c;
    out += "\n";
  }
  for (size_t i = 0; i < result.hits.size(); ++i) {
    const ivf::QueryHit& h = result.hits[i];
    VIGILO_ASSIGN_OR_RETURN(std::string key, KeyJson(result.keys, i));
    if (a.json) {
      out += "{\"query\":" + std::to_string(h.query) + ",\"rank\":" + std::to_string(h.rank) + "," + key_label + ":" +
             key + ",\"_distance\":" + FloatText(h.distance);
      for (size_t c = 0; c < a.columns.size(); ++c) out += "," + column_labels[c] + ":" + payload.Value(i, c);
      out += "}\n";
    } else {
      out += std::to_string(h.query) + "\t" + std::to_string(h.rank) + "\t" + key + "\t" + FloatText(h.distance);
      for (size_t c = 0; c < a.columns.size(); ++c) out += "\t" + payload.Value(i, c);
      out += "\n";
    }
  }
  return WriteStdout(out);
}

}  // namespace

void RegisterIndexCommands(CLI::App& app, Action* action) {
  auto* index = app.add_subcommand("index", "Vector publications (IVF-LVQ snapshots)");
  index->require_subcommand(1);
  auto b = std::make_shared<BuildArgs>();
  auto* build = index->add_subcommand("build", "Build a vector publication (IVF-LVQ4/LVQ8) from a vector file");
  build->add_option("--input", b->input, "Parquet, .fvecs, .bvecs, .npy or .jsonl file")->required();
  build->add_option("--format", b->format, "Input format, overriding the extension (parquet|fvecs|bvecs|npy|jsonl)");
  build->add_option("--vector-field", b->vector_field, "Vector column (Parquet/JSONL), or the name recorded (default vector)");
  build->add_option("--key", b->key, "Key column (Parquet/JSONL); default: the row position as a long named id");
  build->add_option("--metric", b->metric, "l2_squared or cosine")->required();
  build->add_option("--encoding", b->encoding, "lvq4 or lvq8")->required();
  build->add_option("--nlist", b->nlist, "Leaf centroids (default about 4*sqrt(N))");
  build->add_option("--roots", b->roots, "Root buckets (default about sqrt(nlist))");
  build->add_option("--sample", b->sample, "Training vectors (default min(N, 256*nlist))");
  build->add_option("--iterations", b->iterations, "k-means iterations (default 10)");
  build->add_option("--seed", b->seed, "Random seed (default 1); the same seed gives the same bytes");
  build->add_option("--threads", b->threads, "Worker threads (default 2)");
  build->add_option("--scratch", b->scratch,
                    "Directory in which a private spill directory is made, removed afterwards (default --out)");
  build->add_flag("--source", b->source, "Also publish a source table: the key (dense long) and the --columns");
  build->add_option("--columns", b->columns, "Source columns (default: every input column)")->delimiter(',');
  build->add_option("--source-row-group-rows", b->source_row_group_rows, "Rows per source row group (default 1024)");
  build->add_option("--out", b->out, "Publication directory (must not hold a publication yet)")->required();
  build->callback([b, action] { *action = [b] { return Build(*b); }; });

  auto q = std::make_shared<QueryArgs>();
  auto* query = index->add_subcommand("query", "Nearest neighbours of query vectors in a local publication");
  query->add_option("manifest", q->manifest, "Path of manifest.json (objects are read beside it)")->required();
  query->add_option("--vector", q->vector, "One query as a JSON array, e.g. [0.1,0.2,…]");
  query->add_option("--queries", q->queries, "Query file: .fvecs, .bvecs, .npy, or .jsonl lines of JSON arrays");
  query->add_option("--k", q->k, "Results per query (default 10)");
  query->add_option("--nprobe", q->nprobe, "Leaf lists probed per query (default 16)");
  query->add_option("--columns", q->columns, "Payload columns from the source table, e.g. --columns title,label")
      ->delimiter(',');
  query->add_flag("--json", q->json, "One JSON object per result: query, rank, key, _distance, then the --columns");
  query->callback([q, action] { *action = [q] { return Query(*q); }; });

  auto inspected = std::make_shared<std::string>();
  auto* inspect = index->add_subcommand("inspect", "Summarize a publication: counts, list sizes, bytes per part");
  inspect->add_option("manifest", *inspected, "Path of manifest.json (objects are read beside it)")->required();
  inspect->callback([inspected, action] { *action = [inspected] { return Inspect(*inspected); }; });

  auto args = std::make_shared<ValidateArgs>();
  auto* validate = index->add_subcommand(
      "validate", "Check a publication: its manifest, then its objects' footers (and with --deep all their bytes)");
  validate->add_option("manifest", args->manifest, "Path of manifest.json (objects are read beside it)")->required();
  auto* only = validate->add_flag("--manifest-only", args->manifest_only, "Check manifest.json alone, read no object");
  validate->add_flag("--deep", args->deep, "Also check every object's SHA-256 and the values (code lengths, keys)")
      ->excludes(only);
  validate->callback([args, action] { *action = [args] { return Validate(*args); }; });

  RegisterIndexEval(index, action);
  RegisterIndexVerify(index, action);
}

}  // namespace vigilo::cli
