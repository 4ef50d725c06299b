#include "vigilo/ivf/eval.h"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <cstring>
#include <unordered_map>

#include "input_internal.h"
#include "vigilo/ivf/publication_check.h"
#include "vigilo/ivf/source_lookup.h"
#include "vigilo/json/write.h"
#include "vigilo/parquet/column_reader.h"

namespace vigilo::ivf {
namespace {

// The calling thread's CPU time in seconds (EvalPoint::cpu_seconds).
double ThreadCpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

using input_internal::FormatError;
using input_internal::FormatErrorAt;
using input_internal::SequentialFile;

bool EndsWith(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Reads exactly buf.size() bytes or says where the file ended.
Status ReadExactly(const std::string& path, SequentialFile& file, std::span<char> buf, const std::string& what) {
  uint64_t at = file.offset();
  VIGILO_ASSIGN_OR_RETURN(size_t got, file.ReadUpTo(buf));
  if (got != buf.size()) return FormatErrorAt(path, at + got, what + " is truncated");
  return Status::Ok();
}

Result<GroundTruth> ReadIvecs(const std::string& path) {
  VIGILO_ASSIGN_OR_RETURN(SequentialFile file, SequentialFile::Open(path));
  GroundTruth gt;
  std::vector<int32_t> row;
  while (true) {
    const uint64_t at = file.offset();
    int32_t count = 0;
    VIGILO_ASSIGN_OR_RETURN(size_t got, file.ReadUpTo({reinterpret_cast<char*>(&count), 4}));
    if (got == 0) break;
    const std::string name = "row " + std::to_string(gt.queries);
    if (got != 4) return FormatErrorAt(path, at + got, name + " is truncated");
    if (count <= 0) return FormatErrorAt(path, at, name + " declares " + std::to_string(count) + " ids");
    if (gt.queries == 0) gt.k = static_cast<size_t>(count);
    if (static_cast<size_t>(count) != gt.k) {
      return FormatErrorAt(path, at, name + " has " + std::to_string(count) + " ids; row 0 has " + std::to_string(gt.k));
    }
    row.resize(gt.k);
    VIGILO_RETURN_IF_ERROR(ReadExactly(path, file, {reinterpret_cast<char*>(row.data()), gt.k * 4}, name));
    for (size_t j = 0; j < gt.k; ++j) {
      if (row[j] < 0) return FormatErrorAt(path, at + 4 + 4 * j, name + " has a negative id");
      gt.ids.push_back(row[j]);
    }
    ++gt.queries;
  }
  if (gt.queries == 0) return FormatError(path, "the ground-truth file holds no rows");
  return gt;
}

Result<GroundTruth> ReadNpyIds(const std::string& path) {
  VIGILO_ASSIGN_OR_RETURN(SequentialFile file, SequentialFile::Open(path));
  VIGILO_ASSIGN_OR_RETURN(input_internal::NpyArrayHeader h, input_internal::ReadNpyArrayHeader(path, file));
  const bool is_signed = h.descr == "<i4" || h.descr == "<i8";
  const size_t width = (h.descr == "<i4" || h.descr == "<u4") ? 4 : (h.descr == "<i8" || h.descr == "<u8") ? 8 : 0;
  if (width == 0) {
    return FormatError(path, "npy dtype '" + h.descr + "' is not an id type (accepted: '<i4', '<i8', '<u4', '<u8')");
  }
  if (h.rows == 0 || h.columns == 0) return FormatError(path, "the ground-truth file holds no ids");
  std::vector<char> header_rest(h.data_offset - file.offset());
  VIGILO_RETURN_IF_ERROR(ReadExactly(path, file, header_rest, "the npy header"));
  GroundTruth gt;
  gt.queries = h.rows;
  gt.k = h.columns;
  std::vector<char> raw(gt.k * width);
  for (size_t q = 0; q < gt.queries; ++q) {
    const uint64_t at = file.offset();
    VIGILO_RETURN_IF_ERROR(ReadExactly(path, file, raw, "row " + std::to_string(q)));
    for (size_t j = 0; j < gt.k; ++j) {
      int64_t id = 0;
      uint64_t u = 0;
      if (width == 4) {
        uint32_t v;
        std::memcpy(&v, raw.data() + 4 * j, 4);
        u = v;
        id = is_signed ? static_cast<int32_t>(v) : static_cast<int64_t>(v);
      } else {
        std::memcpy(&u, raw.data() + 8 * j, 8);
        id = static_cast<int64_t>(u);
      }
      if (id < 0 || (!is_signed && u > static_cast<uint64_t>(INT64_MAX))) {
        return FormatErrorAt(path, at + width * j, "row " + std::to_string(q) + " has a negative or too large id");
      }
      gt.ids.push_back(id);
    }
  }
  char extra;
  VIGILO_ASSIGN_OR_RETURN(size_t more, file.ReadUpTo({&extra, 1}));
  if (more != 0) return FormatErrorAt(path, file.offset() - 1, "bytes after the rows the npy shape declares");
  return gt;
}

// Per line a JSON array of ids: all strings or all integers (the kind of
// row 0's first id), every line as long as the first.
Result<IdGroundTruth> ReadJsonlIds(const std::string& path) {
  VIGILO_ASSIGN_OR_RETURN(auto lines, input_internal::JsonlLines::Open(path));
  IdGroundTruth gt;
  json::Value line;
  uint64_t row = 0, offset = 0;
  std::optional<json::Kind> kind;
  while (true) {
    VIGILO_ASSIGN_OR_RETURN(bool more, lines->Next(&line, &row, &offset));
    if (!more) break;
    if (!line.is_array() || line.as_array().empty()) {
      return input_internal::JsonlRowError(path, row, offset, "a ground-truth line is a non-empty JSON array of ids");
    }
    const json::Array& ids = line.as_array();
    if (gt.queries == 0) gt.k = ids.size();
    if (ids.size() != gt.k) {
      return input_internal::JsonlRowError(path, row, offset, "it has " + std::to_string(ids.size()) +
                                                                  " ids; row 0 has " + std::to_string(gt.k));
    }
    for (size_t j = 0; j < ids.size(); ++j) {
      const json::Value& id = ids[j];
      const bool integer = id.is_number() && id.as_number().AsInt64().ok();
      if (!id.is_string() && !integer) {
        return input_internal::JsonlRowError(path, row, offset,
                                             "id " + std::to_string(j) + " is neither a string nor an integer");
      }
      if (!kind) kind = id.kind();
      if (id.kind() != *kind) {
        return input_internal::JsonlRowError(
            path, row, offset,
            "id " + std::to_string(j) + " is " + (integer ? "an integer" : "a string") + "; row 0's ids are " +
                (integer ? "strings" : "integers") + " (the ids of one file are of one kind)");
      }
      VIGILO_ASSIGN_OR_RETURN(std::string text, json::ToCanonical(id));
      gt.ids.push_back(std::move(text));
    }
    ++gt.queries;
  }
  if (gt.queries == 0) return FormatError(path, "the ground-truth file holds no rows");
  return gt;
}

}  // namespace

Result<GroundTruth> ReadGroundTruth(const std::string& path) {
  if (EndsWith(path, ".ivecs")) return ReadIvecs(path);
  if (EndsWith(path, ".npy")) return ReadNpyIds(path);
  if (EndsWith(path, ".jsonl")) {
    VIGILO_ASSIGN_OR_RETURN(IdGroundTruth ids, ReadJsonlIds(path));
    GroundTruth gt;
    gt.queries = ids.queries;
    gt.k = ids.k;
    gt.ids.reserve(ids.ids.size());
    for (size_t i = 0; i < ids.ids.size(); ++i) {
      const std::string& text = ids.ids[i];
      if (text.empty() || text[0] == '"') {
        return FormatError(path, "row " + std::to_string(i / ids.k) + " holds the string id " + text +
                                     "; ids other than row positions are compared by the source column that "
                                     "holds them (`id_column`)");
      }
      int64_t id = std::stoll(text);
      if (id < 0) return FormatError(path, "row " + std::to_string(i / ids.k) + " has a negative id");
      gt.ids.push_back(id);
    }
    return gt;
  }
  return InvalidArgument("ground truth must be a .ivecs, .npy or .jsonl file: " + path);
}

Result<IdGroundTruth> ReadGroundTruthIds(const std::string& path) {
  if (EndsWith(path, ".jsonl")) return ReadJsonlIds(path);
  VIGILO_ASSIGN_OR_RETURN(GroundTruth rows, ReadGroundTruth(path));
  IdGroundTruth gt;
  gt.queries = rows.queries;
  gt.k = rows.k;
  gt.ids.reserve(rows.ids.size());
  for (int64_t id : rows.ids) gt.ids.push_back(std::to_string(id));
  return gt;
}

Result<GroundTruth> GroundTruthInRows(PublicationReader& reader, store::ObjectStore& store, const IdGroundTruth& truth,
                                      const std::string& id_column, size_t k, const store::CancelToken* cancel) {
  const Manifest& m = reader.manifest();
  if (!m.source) {
    return InvalidArgument("`id_column` \"" + id_column + "\": the publication has no source table to find ids in");
  }
  const SourceSpec& source = *m.source;
  auto column = std::find_if(source.columns.begin(), source.columns.end(),
                             [&](const Field& f) { return f.name == id_column; });
  if (column == source.columns.end() || column->name == source.key) {
    std::string names;
    for (const Field& f : source.columns) {
      if (f.name != source.key) names += (names.empty() ? "\"" : ", \"") + f.name + "\"";
    }
    return InvalidArgument("`id_column` \"" + id_column + "\" is not a payload column of the publication's source "
                           "table (its columns: " + names + ")");
  }
  if (source.key != m.index.source_key[0].name || m.index.source_key[0].type.kind != ColumnType::Kind::kLong) {
    return InvalidArgument("`id_column`: the publication's source table is not keyed by its index key");
  }
  const size_t kept = std::min(k, truth.k);
  // The row of each id the ground truth names (-1: not found yet).
  std::unordered_map<std::string, int64_t> row_of;
  for (size_t q = 0; q < truth.queries; ++q) {
    for (size_t j = 0; j < kept; ++j) row_of.emplace(truth.ids[q * truth.k + j], -1);
  }
  // Every row's id, one source row group at a time (the lookup reads only
  // the row groups the keys fall in).
  const uint64_t group = std::max<uint64_t>(source.row_group_rows, 1);
  const uint64_t step = group * std::max<uint64_t>(1, 65536 / group);
  for (uint64_t begin = 0; begin < source.rows; begin += step) {
    if (cancel != nullptr && cancel->cancelled()) return Cancelled("the ground truth's ids were being looked up");
    const uint64_t end = std::min<uint64_t>(source.rows, begin + step);
    std::vector<int64_t> keys;
    keys.reserve(end - begin);
    for (uint64_t r = begin; r < end; ++r) keys.push_back(static_cast<int64_t>(r));
    VIGILO_ASSIGN_OR_RETURN(SourceRows rows, LookupSource(reader, store, std::move(keys), {id_column}));
    for (uint64_t r = begin; r < end; ++r) {
      auto it = row_of.find(rows.Value(r - begin, 0));
      if (it == row_of.end()) continue;
      if (it->second >= 0) {
        return InvalidArgument("`id_column` \"" + id_column + "\" holds " + it->first + " at rows " +
                               std::to_string(it->second) + " and " + std::to_string(r) +
                               "; recall by id needs the ids the ground truth names to be unique");
      }
      it->second = static_cast<int64_t>(r);
    }
  }
  GroundTruth out;
  out.queries = truth.queries;
  out.k = kept;
  out.ids.reserve(truth.queries * kept);
  for (size_t q = 0; q < truth.queries; ++q) {
    for (size_t j = 0; j < kept; ++j) {
      const std::string& id = truth.ids[q * truth.k + j];
      const int64_t row = row_of.at(id);
      if (row < 0) {
        return InvalidArgument("ground-truth row " + std::to_string(q) + " names the id " + id + ", which `id_column` \"" +
                               id_column + "\" (" + column->type.ToString() + ") does not hold");
      }
      out.ids.push_back(row);
    }
  }
  return out;
}

double RecallAtK(std::span<const int64_t> found, std::span<const int64_t> truth, size_t k) {
  if (k == 0) return 0;
  std::vector<int64_t> want(truth.begin(), truth.begin() + static_cast<std::ptrdiff_t>(std::min(k, truth.size())));
  std::sort(want.begin(), want.end());
  std::vector<int64_t> got(found.begin(), found.end());
  std::sort(got.begin(), got.end());
  got.erase(std::unique(got.begin(), got.end()), got.end());
  size_t hits = 0;
  for (int64_t id : got) hits += std::binary_search(want.begin(), want.end(), id) ? 1 : 0;
  return static_cast<double>(hits) / static_cast<double>(k);
}

Result<std::unordered_map<int64_t, uint32_t>> ReadListOfEveryKey(const Manifest& m, store::ObjectStore& store) {
  std::unordered_map<int64_t, uint32_t> list_of;
  list_of.reserve(m.index.ntotal);
  for (const PostingsFile& file : m.postings) {
    VIGILO_ASSIGN_OR_RETURN(parquet::Footer footer, ReadObjectFooter(store, file.object, nullptr));
    for (size_t rg = 0; rg < footer.metadata.row_groups.size(); ++rg) {
      VIGILO_ASSIGN_OR_RETURN(std::vector<parquet::ColumnChunkPlan> plan, parquet::PlanRowGroup(footer, rg));
      // The cid and key chunks in one read (each read of the local store maps the object).
      const uint64_t begin = std::min(plan[0].range.offset, plan[1].range.offset);
      const uint64_t end = std::max(plan[0].range.offset + plan[0].range.length,
                                    plan[1].range.offset + plan[1].range.length);
      VIGILO_ASSIGN_OR_RETURN(store::Bytes bytes, ReadObjectRange(store, file.object, begin, end - begin));
      parquet::DecodedColumn columns[2];
      for (size_t leaf = 0; leaf < 2; ++leaf) {
        auto decoded = parquet::DecodeColumnChunk(
            footer, rg, leaf, bytes.span().subspan(plan[leaf].range.offset - begin, plan[leaf].range.length));
        if (!decoded.ok()) return Status(decoded.status()).PrependPath(file.object.path + ": ");
        columns[leaf] = std::move(*decoded);
      }
      const std::vector<int32_t>& cids = columns[0].values.int32s;
      const std::vector<int64_t>& keys = columns[1].values.int64s;
      if (cids.size() != keys.size()) {
        return InvalidFormat("postings columns differ in length").WithPath(file.object.path);
      }
      for (size_t i = 0; i < keys.size(); ++i) list_of[keys[i]] = static_cast<uint32_t>(cids[i]);
    }
  }
  return list_of;
}

double ListRecallAtK(std::span<const uint32_t> probed, std::span<const int64_t> truth, size_t k,
                     const std::unordered_map<int64_t, uint32_t>& list_of) {
  if (k == 0) return 0;
  size_t in_probed = 0;
  for (size_t i = 0; i < std::min(k, truth.size()); ++i) {
    auto it = list_of.find(truth[i]);
    if (it != list_of.end() && std::find(probed.begin(), probed.end(), it->second) != probed.end()) ++in_probed;
  }
  return static_cast<double>(in_probed) / static_cast<double>(k);
}

namespace {

Status CheckEvalInputs(const Manifest& m, const std::vector<std::vector<float>>& queries, const GroundTruth& truth,
                       const EvalOptions& options) {
  if (m.index.source_key[0].type.kind != ColumnType::Kind::kLong) {
    return InvalidArgument("eval needs a long key (the ground truth holds row ids); this publication's key '" +
                           m.index.source_key[0].name + "' is not long");
  }
  if (queries.empty()) return InvalidArgument("no queries");
  if (truth.queries < queries.size()) {
    return InvalidArgument("the ground truth has " + std::to_string(truth.queries) + " rows for " +
                           std::to_string(queries.size()) + " queries");
  }
  if (truth.k < options.k) {
    return InvalidArgument("the ground truth has " + std::to_string(truth.k) + " ids per query; k is " +
                           std::to_string(options.k));
  }
  return Status::Ok();
}

// The passes of a sweep: its warm-ups and timed passes, every query run
// through one reader, `batch` queries a run.
class Passes {
 public:
  Passes(PublicationReader& reader, store::ObjectStore& store, const std::vector<std::vector<float>>& queries,
         const EvalOptions& options)
      : reader_(reader),
        store_(store),
        queries_(queries),
        options_(options),
        batch_(options.batch == 0 ? queries.size() : options.batch) {}

  size_t batch() const { return batch_; }
  Status CancelledIfAsked() const {
    return options_.cancel != nullptr && options_.cancel->cancelled() ? Cancelled("the evaluation was cancelled")
                                                                      : Status::Ok();
  }

  // options_.warmup untimed queries at nprobe.
  Status WarmUp(uint32_t nprobe) {
    for (auto& part : Runs(std::min(options_.warmup, queries_.size()))) {
      VIGILO_RETURN_IF_ERROR(CancelledIfAsked());
      VIGILO_RETURN_IF_ERROR(RunQuery(reader_, store_, std::move(part), At(nprobe)).status());
    }
    return Status::Ok();
  }

  // Every query at nprobe, timed (p's seconds, cpu_seconds and qps).
  Result<std::vector<QueryResult>> Timed(uint32_t nprobe, EvalPoint& p) {
    // The copies are made before the clock starts: the timed pass is the query core and its reads.
    std::vector<std::vector<std::vector<float>>> runs = Runs(queries_.size());
    const QueryOptions qo = At(nprobe);
    std::vector<QueryResult> results;
    results.reserve(runs.size());
    const auto start = std::chrono::steady_clock::now();
    const double cpu_start = ThreadCpuSeconds();
    for (auto& part : runs) {
      VIGILO_RETURN_IF_ERROR(CancelledIfAsked());
      VIGILO_ASSIGN_OR_RETURN(QueryResult r, RunQuery(reader_, store_, std::move(part), qo));
      results.push_back(std::move(r));
    }
    p.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    p.cpu_seconds = ThreadCpuSeconds() - cpu_start;
    p.qps = p.seconds > 0 ? static_cast<double>(queries_.size()) / p.seconds : 0;
    return results;
  }

 private:
  QueryOptions At(uint32_t nprobe) const {
    QueryOptions qo;
    qo.k = options_.k;
    qo.nprobe = nprobe;
    qo.screen = options_.screen;
    return qo;
  }
  // The first `count` queries in runs of batch_ (the last one shorter), copied.
  std::vector<std::vector<std::vector<float>>> Runs(size_t count) const {
    std::vector<std::vector<std::vector<float>>> runs;
    for (size_t i = 0; i < count; i += batch_) {
      runs.emplace_back(queries_.begin() + static_cast<std::ptrdiff_t>(i),
                        queries_.begin() + static_cast<std::ptrdiff_t>(std::min(count, i + batch_)));
    }
    return runs;
  }

  PublicationReader& reader_;
  store::ObjectStore& store_;
  const std::vector<std::vector<float>>& queries_;
  const EvalOptions& options_;
  const size_t batch_;
};

// A timed pass's means per query, into p.
void Summarize(const std::vector<QueryResult>& results, size_t batch, size_t n, size_t nlist, const GroundTruth& truth,
               uint32_t k, const std::unordered_map<int64_t, uint32_t>& list_of, EvalPoint& p) {
  double recall = 0, list_recall = 0, bytes = 0, requests = 0, rows = 0, rows_scored = 0, centroids_scored = 0;
  for (size_t b = 0; b < results.size(); ++b) {
    const QueryResult& r = results[b];
    for (size_t q = 0; q < r.probes.size(); ++q) list_recall += ListRecallAtK(r.probes[q], truth.Row(b * batch + q), k, list_of);
    bytes += static_cast<double>(r.bytes_fetched + r.bytes_held);
    requests += static_cast<double>(r.requests);
    rows += static_cast<double>(r.rows_probed);
    rows_scored += static_cast<double>(r.rows_probed - r.rows_screened_out);
    centroids_scored += static_cast<double>(r.probes.size() * nlist - r.centroids_screened_out);
    std::vector<std::vector<int64_t>> found(std::min(batch, n - b * batch));
    for (size_t i = 0; i < r.hits.size(); ++i) found[r.hits[i].query].push_back(r.keys.integers[i]);
    for (size_t q = 0; q < found.size(); ++q) recall += RecallAtK(found[q], truth.Row(b * batch + q), k);
  }
  const double queries = static_cast<double>(n);
  p.recall = recall / queries;
  p.list_recall = list_recall / queries;
  p.bytes_per_query = bytes / queries;
  p.requests_per_query = requests / queries;
  p.rows_per_query = rows / queries;
  p.rows_scored_per_query = rows_scored / queries;
  p.centroids_scored_per_query = centroids_scored / queries;
}

}  // namespace

Result<std::vector<EvalPoint>> EvaluateRecall(PublicationReader& reader, store::ObjectStore& store,
                                              const std::vector<std::vector<float>>& queries,
                                              const GroundTruth& truth, const EvalOptions& options) {
  const Manifest& m = reader.manifest();
  VIGILO_RETURN_IF_ERROR(CheckEvalInputs(m, queries, truth, options));
  Passes passes(reader, store, queries, options);
  VIGILO_RETURN_IF_ERROR(passes.CancelledIfAsked());
  VIGILO_ASSIGN_OR_RETURN(auto list_of, ReadListOfEveryKey(m, store));
  // A reader's first reads of a publication — the postings footers it
  // indexes, the objects a resident store takes into memory, file pages —
  // belong to no pass. The warm-up at the sweep's widest nprobe, before the
  // first pass, makes them there, untimed; each pass then warms up at its own.
  // (Before, they fell in the first timed pass: wink one at a time, objects
  // resident, a sweep 1, 2, 64, 1, 2 ran nprobe 1 at 9,381 QPS first and
  // 51,399 later; with this warm-up 36,359 and 37,922.)
  if (options.hold_postings_max_bytes > 0) {
    VIGILO_RETURN_IF_ERROR(HoldPostings(reader, store, options.hold_postings_max_bytes).status());
  }
  // (A first pass at the widest nprobe follows that warm-up directly: its
  // own would repeat it.)
  uint32_t widest = 0;
  if (!options.nprobes.empty()) {
    widest = *std::max_element(options.nprobes.begin(), options.nprobes.end());
    VIGILO_RETURN_IF_ERROR(passes.WarmUp(widest));
  }
  std::vector<EvalPoint> points;
  for (size_t i = 0; i < options.nprobes.size(); ++i) {
    const uint32_t nprobe = options.nprobes[i];
    if (i > 0 || nprobe != widest) VIGILO_RETURN_IF_ERROR(passes.WarmUp(nprobe));
    EvalPoint p;
    p.nprobe = nprobe;
    p.batch = options.batch;
    p.queries = queries.size();
    VIGILO_ASSIGN_OR_RETURN(const std::vector<QueryResult> results, passes.Timed(nprobe, p));
    Summarize(results, passes.batch(), queries.size(), m.index.nlist, truth, options.k, list_of, p);
    points.push_back(p);
  }
  return points;
}

std::vector<std::pair<std::string, json::Value>> EvalPointFields(const EvalPoint& p, uint32_t k) {
  return {
      {"nprobe", json::Value::Uint(p.nprobe)},
      {"recall", json::Value::Double(p.recall)},
      {"list_recall", json::Value::Double(p.list_recall)},
      {"qps", json::Value::Double(p.qps)},
      {"bytes_per_query", json::Value::Double(p.bytes_per_query)},
      {"requests_per_query", json::Value::Double(p.requests_per_query)},
      {"rows_per_query", json::Value::Double(p.rows_per_query)},
      {"rows_scored_per_query", json::Value::Double(p.rows_scored_per_query)},
      {"centroids_scored_per_query", json::Value::Double(p.centroids_scored_per_query)},
      {"k", json::Value::Uint(k)},
      {"batch", json::Value::Uint(p.batch)},
      {"queries", json::Value::Uint(p.queries)},
      {"seconds", json::Value::Double(p.seconds)},
      {"cpu_seconds", json::Value::Double(p.cpu_seconds)},
      {"kernel", json::Value(std::string(KernelName()))},
  };
}

}  // namespace vigilo::ivf
