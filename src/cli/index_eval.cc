// `vigilo index eval MANIFEST --queries F --ground-truth F [--k 10]
// [--nprobe 1,2,4,…] [--batch N] [--warmup N] [--json]`: recall@k, QPS on
// one thread and bytes read per query, for each nprobe (ivf::EvaluateRecall).
#include <cmath>
#include <cstdio>
#include <memory>

#include "commands.h"
#include "index_io.h"
#include "output.h"
#include "vigilo/ivf/eval.h"
#include "vigilo/ivf/lvq_kernels.h"
#include "vigilo/json/write.h"

namespace vigilo::cli {
namespace {

struct EvalArgs {
  std::string manifest, queries, format, vector_field, ground_truth;
  uint32_t k = 10;
  std::vector<uint32_t> nprobes = {1, 2, 4, 8, 16, 32, 64};
  size_t batch = 1, warmup = 100;
  OutputFlags output;
};

double Rounded(double v, int digits) {
  double scale = std::pow(10.0, digits);
  return std::round(v * scale) / scale;
}

Status Eval(const EvalArgs& a) {
  VIGILO_ASSIGN_OR_RETURN(LoadedManifest loaded, LoadManifest(a.manifest));
  VIGILO_ASSIGN_OR_RETURN(auto queries,
                          LoadQueries(QuerySource{"", a.queries, a.format, a.vector_field}, loaded.manifest));
  VIGILO_ASSIGN_OR_RETURN(ivf::GroundTruth truth, ivf::ReadGroundTruth(a.ground_truth));
  ivf::PublicationReader reader(loaded.manifest);
  ivf::EvalOptions o;
  o.k = a.k;
  o.nprobes = a.nprobes;
  o.batch = a.batch;
  o.warmup = a.warmup;
  VIGILO_ASSIGN_OR_RETURN(auto points, ivf::EvaluateRecall(reader, *loaded.store, queries, truth, o));
  // JSON: every measurement at full precision. Text: the columns a reader
  // compares, rounded (recall to 4 digits, rates to whole units).
  std::vector<Record> rows;
  for (const ivf::EvalPoint& p : points) {
    Record r;
    r.Add("nprobe", json::Value::Uint(p.nprobe));
    if (a.output.json) {
      r.Add("recall", json::Value::Double(p.recall));
      r.Add("qps", json::Value::Double(p.qps));
      r.Add("bytes_per_query", json::Value::Double(p.bytes_per_query));
      r.Add("requests_per_query", json::Value::Double(p.requests_per_query));
      r.Add("k", json::Value::Uint(a.k));
      r.Add("batch", json::Value::Uint(p.batch));
      r.Add("queries", json::Value::Uint(p.queries));
      r.Add("seconds", json::Value::Double(p.seconds));
      r.Add("kernel", json::Value(std::string(ivf::KernelName())));
    } else {
      r.Add("recall", json::Value::Double(Rounded(p.recall, 4)));
      r.Add("qps", json::Value::Uint(static_cast<uint64_t>(std::llround(p.qps))));
      r.Add("bytes_per_query", json::Value::Uint(static_cast<uint64_t>(std::llround(p.bytes_per_query))));
      r.Add("requests_per_query", json::Value::Double(Rounded(p.requests_per_query, 1)));
    }
    rows.push_back(std::move(r));
  }
  return PrintTable({"nprobe", "recall", "qps", "bytes_per_query", "requests_per_query"}, rows, a.output);
}

}  // namespace

void RegisterIndexEval(CLI::App* index, Action* action) {
  auto a = std::make_shared<EvalArgs>();
  auto* eval = index->add_subcommand("eval", "Recall@k, single-thread QPS and bytes read per query, per nprobe");
  eval->add_option("manifest", a->manifest, kManifestHelp)->required()->type_name("PUBLICATION");
  eval->add_option("--queries", a->queries,
                   "Query vectors: .fvecs, .bvecs, .npy, .parquet, or .jsonl (objects holding the vector field, or "
                   "arrays); - reads stdin (needs --format)")
      ->required()
      ->type_name("FILE");
  eval->add_option("--format", a->format, "Format of --queries, overriding the extension (jsonl|fvecs|bvecs|npy|parquet)");
  eval->add_option("--vector-field", a->vector_field,
                   "Vector column/member of --queries (Parquet, JSONL); default: the manifest's vector-field");
  eval->add_option("--ground-truth", a->ground_truth,
                   "Exact neighbour ids per query (the publication's long keys): .ivecs or .npy (int32/int64)")
      ->required()
      ->type_name("FILE");
  eval->add_option("-k,--k", a->k, "Neighbours per query (default 10)")->check(CLI::PositiveNumber);
  eval->add_option("--nprobe", a->nprobes, "Comma-separated nprobe values (default 1,2,4,8,16,32,64)")
      ->delimiter(',')
      ->check(CLI::PositiveNumber);
  eval->add_option("--batch", a->batch, "Queries per query run: 1 = one at a time (default), 0 = all at once");
  eval->add_option("--warmup", a->warmup, "Untimed queries before each timed pass (default 100)");
  AddJsonFlag(eval, &a->output);
  eval->callback([a, action] { *action = [a] { return Eval(*a); }; });
}

}  // namespace vigilo::cli
