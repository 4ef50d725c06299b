// `vigilo index eval PUBLICATION --queries F (--ground-truth F | --base F)
// [-k 10] [--nprobe 1,2,4,…] [--batch N] [--warmup N] [--json]`: recall@k,
// QPS on one thread and bytes read per query, for each nprobe
// (ivf::EvaluateRecall). Without --ground-truth the exact neighbours are
// computed by brute force over the build's input vectors (--base) and
// cached (engine::BaseGroundTruth).
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <thread>
#include <utility>

#include "commands.h"
#include "index_io.h"
#include "interrupt.h"
#include "output.h"
#include "progress.h"
#include "vigilo/engine/budget_overrides.h"
#include "vigilo/engine/ground_truth.h"
#include "vigilo/ivf/eval.h"
#include "vigilo/ivf/lvq_kernels.h"
#include "vigilo/json/write.h"

namespace vigilo::cli {
namespace {

struct EvalArgs {
  std::string manifest, queries, format, vector_field, ground_truth;
  std::string base, base_format, base_vector_field, id_column;
  uint32_t threads = std::max(1u, std::thread::hardware_concurrency());
  uint32_t k = 10;
  bool quiet = false;
  bool no_screen = false;
  std::vector<uint32_t> nprobes = {1, 2, 4, 8, 16, 32, 64};
  size_t batch = 1, warmup = 100;
  std::string resident_max_bytes;  // empty: ResidentDefault()
  OutputFlags output;
};

// Half of this machine's memory: an evaluation answers thousands of
// queries, so a local publication's objects are held in memory once read
// (store::ResidentStore), as far as that leaves room for everything else.
uint64_t ResidentDefault() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page <= 0) return 0;
  return static_cast<uint64_t>(pages) / 2 * static_cast<uint64_t>(page);
}

// --resident-max-bytes, checked before anything is read.
Result<uint64_t> ResidentMaxBytes(const EvalArgs& a) {
  if (a.resident_max_bytes.empty()) return ResidentDefault();
  Result<uint64_t> bytes = engine::ParseByteSize(a.resident_max_bytes);
  if (!bytes.ok()) return InvalidArgument("--resident-max-bytes: " + std::string(bytes.status().message()));
  return bytes;
}

double Rounded(double v, int digits) {
  double scale = std::pow(10.0, digits);
  return std::round(v * scale) / scale;
}

// What an interrupted evaluation leaves: nothing (docs/errors.md, "Signals").
constexpr const char* kEvalLeft = "no result was printed, and nothing was written (a ground truth is cached only "
                                  "once complete)";

Status Eval(const EvalArgs& a, const store::CancelToken& cancel) {
  VIGILO_ASSIGN_OR_RETURN(const uint64_t resident_max_bytes, ResidentMaxBytes(a));
  VIGILO_ASSIGN_OR_RETURN(OpenedPublication opened, OpenPublication(a.manifest, /*use_cache=*/false, resident_max_bytes));
  const ivf::Manifest& manifest = opened.publication->manifest();
  VIGILO_ASSIGN_OR_RETURN(auto queries, LoadQueries(QuerySource{"", a.queries, a.format, a.vector_field}, manifest));
  ivf::GroundTruth truth;
  if (!a.id_column.empty()) {
    // The user's own ids, translated to the rows of the source column that holds them.
    VIGILO_ASSIGN_OR_RETURN(ivf::IdGroundTruth ids, ivf::ReadGroundTruthIds(a.ground_truth));
    ivf::PublicationReader lookup(manifest);
    VIGILO_ASSIGN_OR_RETURN(truth, ivf::GroundTruthInRows(lookup, opened.publication->store(), ids, a.id_column, a.k,
                                                                   &cancel));
  } else if (!a.ground_truth.empty()) {
    VIGILO_ASSIGN_OR_RETURN(truth, ivf::ReadGroundTruth(a.ground_truth));
  } else {
    engine::GroundTruthRequest request;
    request.base = engine::BaseVectors{a.base, a.base_format, a.base_vector_field};
    request.k = a.k;
    request.threads = a.threads;
    request.cancel = &cancel;
    Progress bar = Progress::ForStderr(a.quiet);
    request.progress = [&bar](uint64_t rows, uint64_t total) { bar.Update("ground truth", rows, total); };
    Result<engine::GroundTruthOutcome> computed = engine::BaseGroundTruth(*opened.context, manifest, queries, request);
    bar.Finish();
    if (!computed.ok()) return computed.status();
    if (computed->from_cache) {
      std::fprintf(stderr, "vigilo: ground truth: from the cache %s\n", computed->cache_path.c_str());
    } else {
      std::fprintf(stderr, "vigilo: ground truth: computed over %llu base vectors, cached in %s\n",
                   static_cast<unsigned long long>(manifest.index.ntotal), computed->cache_path.c_str());
    }
    truth = std::move(computed->truth);
  }
  ivf::PublicationReader reader(manifest);
  ivf::EvalOptions o;
  o.k = a.k;
  o.nprobes = a.nprobes;
  o.batch = a.batch;
  o.warmup = a.warmup;
  o.screen = !a.no_screen;
  o.hold_postings_max_bytes = opened.publication->resident_max_bytes();
  o.cancel = &cancel;
  VIGILO_ASSIGN_OR_RETURN(auto points, ivf::EvaluateRecall(reader, opened.publication->store(), queries, truth, o));
  // JSON: every measurement at full precision. Text: the columns a reader
  // compares, rounded (recall to 4 digits, rates to whole units).
  std::vector<Record> rows;
  for (const ivf::EvalPoint& p : points) {
    Record r;
    if (a.output.json) {
      for (auto& [key, value] : ivf::EvalPointFields(p, a.k)) r.Add(std::move(key), std::move(value));
    } else {
      r.Add("nprobe", json::Value::Uint(p.nprobe));
      r.Add("recall", json::Value::Double(Rounded(p.recall, 4)));
      r.Add("list_recall", json::Value::Double(Rounded(p.list_recall, 4)));
      r.Add("qps", json::Value::Uint(static_cast<uint64_t>(std::llround(p.qps))));
      r.Add("bytes_per_query", json::Value::Uint(static_cast<uint64_t>(std::llround(p.bytes_per_query))));
      r.Add("requests_per_query", json::Value::Double(Rounded(p.requests_per_query, 1)));
    }
    rows.push_back(std::move(r));
  }
  return PrintTable({"nprobe", "recall", "list_recall", "qps", "bytes_per_query", "requests_per_query"}, rows, a.output);
}

}  // namespace

void RegisterIndexEval(CLI::App* index, Action* action) {
  auto a = std::make_shared<EvalArgs>();
  auto* eval = index->add_subcommand("eval",
                                     "Recall@k, single-thread QPS and bytes read per query, per nprobe; the exact "
                                     "neighbours from --ground-truth, or computed from the build's input (--base) "
                                     "and cached");
  eval->add_option("manifest", a->manifest, kManifestHelp)->required()->type_name("PUBLICATION");
  eval->add_option("--queries", a->queries,
                   "Query vectors: .fvecs, .bvecs, .npy, .parquet, or .jsonl (objects holding the vector field, or "
                   "arrays); - reads stdin (needs --format)")
      ->required()
      ->type_name("FILE");
  eval->add_option("--format", a->format, "Format of --queries, overriding the extension (jsonl|fvecs|bvecs|npy|parquet)");
  eval->add_option("--vector-field", a->vector_field,
                   "Vector column/member of --queries (Parquet, JSONL); default: the manifest's vector-field");
  auto* truth = eval->add_option("--ground-truth", a->ground_truth,
                                 "Exact neighbour ids per query (the publication's long keys, or with "
                                 "--id-column your own ids): .ivecs or .npy (int32/int64), or .jsonl (per line an "
                                 "array of ids: integers, or strings with --id-column)")
                    ->type_name("FILE");
  auto* base = eval->add_option("--base", a->base,
                                "Instead of --ground-truth: the build's input vectors (its formats and vector-field "
                                "rules), searched exactly with the publication's metric; the result is cached in "
                                "$XDG_CACHE_HOME/vigilo/ground-truth (else ~/.cache/…) by artifact-uuid")
                   ->type_name("FILE");
  truth->excludes(base);
  base->excludes(truth);
  eval->add_option("--id-column", a->id_column,
                   "Compare --ground-truth by this source column (what index build --id-column NAME copied: your own "
                   "ids) instead of by the publication's key")
      ->type_name("NAME")
      ->needs(truth);
  eval->add_option("--base-format", a->base_format, "Format of --base, overriding the extension")->needs(base);
  eval->add_option("--base-vector-field", a->base_vector_field,
                   "Vector column/member of --base; default: the manifest's vector-field")
      ->needs(base);
  eval->add_option("--threads", a->threads, "Threads of the exact search over --base (default: the cores available)")
      ->check(CLI::PositiveNumber)
      ->needs(base);
  eval->add_option("-k,--k", a->k, "Neighbours per query (default 10)")->check(CLI::PositiveNumber);
  eval->add_option("--nprobe", a->nprobes, "Comma-separated nprobe values (default 1,2,4,8,16,32,64)")
      ->delimiter(',')
      ->check(CLI::PositiveNumber);
  eval->add_option("--batch", a->batch, "Queries per query run: 1 = one at a time (default), 0 = all at once");
  eval->add_option("--warmup", a->warmup,
                   "Untimed queries before each timed pass, and as many at the widest --nprobe before the first (default 100)");
  eval->add_option("--resident-max-bytes", a->resident_max_bytes,
                   "Hold a local publication's objects in memory (on 2 MiB pages) once first read, and its postings "
                   "files in the reader (checked whole first), up to this many bytes (default: half of this "
                   "machine's memory; 0: read them in place from the files)")
      ->type_name("BYTES");
  eval->add_flag("--no-screen", a->no_screen,
                 "Score every probed row exactly instead of screening with proven bounds first (same results; for "
                 "measuring the screen)");
  eval->add_flag("-q,--quiet", a->quiet,
                 "No progress bar for --base (one is drawn on stderr only when it is a terminal)");
  AddJsonFlag(eval, &a->output);
  eval->callback([a, action] {
    *action = [a] {
      if (a->ground_truth.empty() && a->base.empty()) {
        return InvalidArgument("index eval: give --ground-truth FILE, or --base FILE to compute it from the build's "
                               "input vectors");
      }
      // SIGINT/SIGTERM stop it at its next query or block of base rows.
      store::CancelToken cancel;
      InterruptCancels interrupt(cancel);
      Status evaluated = Eval(*a, cancel);
      return interrupt.Explain(evaluated, kEvalLeft);
    };
  });
}

}  // namespace vigilo::cli
