// `vigilo index eval MANIFEST --queries F --ground-truth F [--k 10]
// [--nprobe 1,2,4,…] [--batch N] [--warmup N] [--json]`: recall@k, QPS on
// one thread and bytes read per query, for each nprobe (ivf::EvaluateRecall).
#include <cstdio>
#include <memory>

#include "commands.h"
#include "index_io.h"
#include "vigilo/ivf/eval.h"
#include "vigilo/ivf/lvq_kernels.h"
#include "vigilo/json/write.h"

namespace vigilo::cli {
namespace {

struct EvalArgs {
  std::string manifest, queries, ground_truth;
  uint32_t k = 10;
  std::vector<uint32_t> nprobes = {1, 2, 4, 8, 16, 32, 64};
  size_t batch = 1, warmup = 100;
  bool json = false;
};

std::string Fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

Status Eval(const EvalArgs& a) {
  VIGILO_ASSIGN_OR_RETURN(LoadedManifest loaded, LoadManifest(a.manifest));
  VIGILO_ASSIGN_OR_RETURN(auto queries, LoadQueries("", a.queries));
  VIGILO_ASSIGN_OR_RETURN(ivf::GroundTruth truth, ivf::ReadGroundTruth(a.ground_truth));
  ivf::PublicationReader reader(loaded.manifest);
  ivf::EvalOptions o;
  o.k = a.k;
  o.nprobes = a.nprobes;
  o.batch = a.batch;
  o.warmup = a.warmup;
  VIGILO_ASSIGN_OR_RETURN(auto points, ivf::EvaluateRecall(reader, *loaded.store, queries, truth, o));
  std::string out;
  if (!a.json) out = "nprobe\trecall@" + std::to_string(a.k) + "\tqps\tbytes/query\trequests/query\n";
  for (const ivf::EvalPoint& p : points) {
    if (a.json) {
      json::Object line;
      line.Set("batch", json::Value::Uint(p.batch));
      line.Set("bytes-per-query", json::Value::Double(p.bytes_per_query));
      line.Set("k", json::Value::Uint(a.k));
      line.Set("kernel", json::Value(std::string(ivf::KernelName())));
      line.Set("nprobe", json::Value::Uint(p.nprobe));
      line.Set("qps", json::Value::Double(p.qps));
      line.Set("queries", json::Value::Uint(p.queries));
      line.Set("recall", json::Value::Double(p.recall));
      line.Set("requests-per-query", json::Value::Double(p.requests_per_query));
      line.Set("seconds", json::Value::Double(p.seconds));
      VIGILO_ASSIGN_OR_RETURN(std::string text, json::ToCanonical(json::Value(std::move(line))));
      out += text + "\n";
    } else {
      out += std::to_string(p.nprobe) + "\t" + Fixed(p.recall, 4) + "\t" + Fixed(p.qps, 0) + "\t" +
             Fixed(p.bytes_per_query, 0) + "\t" + Fixed(p.requests_per_query, 1) + "\n";
    }
  }
  return WriteStdout(out);
}

}  // namespace

void RegisterIndexEval(CLI::App* index, Action* action) {
  auto a = std::make_shared<EvalArgs>();
  auto* eval = index->add_subcommand("eval", "Recall@k, single-thread QPS and bytes read per query, per nprobe");
  eval->add_option("manifest", a->manifest, "Path of manifest.json (objects are read beside it)")->required();
  eval->add_option("--queries", a->queries, "Query vectors: .fvecs, .bvecs, .npy, or .jsonl lines of JSON arrays")
      ->required();
  eval->add_option("--ground-truth", a->ground_truth,
                   "Exact neighbour ids per query (the publication's long keys): .ivecs or .npy (int32/int64)")
      ->required();
  eval->add_option("--k", a->k, "Neighbours per query (default 10)")->check(CLI::PositiveNumber);
  eval->add_option("--nprobe", a->nprobes, "Comma-separated nprobe values (default 1,2,4,8,16,32,64)")
      ->delimiter(',')
      ->check(CLI::PositiveNumber);
  eval->add_option("--batch", a->batch, "Queries per query run: 1 = one at a time (default), 0 = all at once");
  eval->add_option("--warmup", a->warmup, "Untimed queries before each timed pass (default 100)");
  eval->add_flag("--json", a->json, "One JSON object per nprobe");
  eval->callback([a, action] { *action = [a] { return Eval(*a); }; });
}

}  // namespace vigilo::cli
