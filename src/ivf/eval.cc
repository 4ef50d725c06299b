#include "vigilo/ivf/eval.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <unordered_map>

#include "input_internal.h"
#include "vigilo/ivf/publication_check.h"
#include "vigilo/parquet/column_reader.h"

namespace vigilo::ivf {
namespace {

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

}  // namespace

Result<GroundTruth> ReadGroundTruth(const std::string& path) {
  if (EndsWith(path, ".ivecs")) return ReadIvecs(path);
  if (EndsWith(path, ".npy")) return ReadNpyIds(path);
  return InvalidArgument("ground truth must be a .ivecs or .npy file: " + path);
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

Result<std::vector<EvalPoint>> EvaluateRecall(PublicationReader& reader, store::ObjectStore& store,
                                              const std::vector<std::vector<float>>& queries,
                                              const GroundTruth& truth, const EvalOptions& options) {
  const Manifest& m = reader.manifest();
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
  const size_t n = queries.size();
  const size_t batch = options.batch == 0 ? n : options.batch;
  VIGILO_ASSIGN_OR_RETURN(auto list_of, ReadListOfEveryKey(m, store));
  std::vector<EvalPoint> points;
  for (uint32_t nprobe : options.nprobes) {
    QueryOptions qo;
    qo.k = options.k;
    qo.nprobe = nprobe;
    qo.screen = options.screen;
    for (size_t i = 0; i < std::min(options.warmup, n); i += batch) {
      std::vector<std::vector<float>> part(queries.begin() + static_cast<std::ptrdiff_t>(i),
                                           queries.begin() + static_cast<std::ptrdiff_t>(std::min(n, i + batch)));
      VIGILO_RETURN_IF_ERROR(RunQuery(reader, store, std::move(part), qo).status());
    }
    // Copies of the queries are made before the clock starts; the timed pass is the query core and its reads.
    std::vector<std::vector<std::vector<float>>> parts;
    for (size_t i = 0; i < n; i += batch) {
      parts.emplace_back(queries.begin() + static_cast<std::ptrdiff_t>(i),
                         queries.begin() + static_cast<std::ptrdiff_t>(std::min(n, i + batch)));
    }
    std::vector<QueryResult> results;
    results.reserve(parts.size());
    auto start = std::chrono::steady_clock::now();
    for (auto& part : parts) {
      VIGILO_ASSIGN_OR_RETURN(QueryResult r, RunQuery(reader, store, std::move(part), qo));
      results.push_back(std::move(r));
    }
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EvalPoint p;
    p.nprobe = nprobe;
    p.batch = options.batch;
    p.queries = n;
    p.seconds = seconds;
    p.qps = seconds > 0 ? static_cast<double>(n) / seconds : 0;
    double recall = 0, list_recall = 0, bytes = 0, requests = 0;
    for (size_t b = 0; b < results.size(); ++b) {
      const QueryResult& r = results[b];
      for (size_t q = 0; q < r.probes.size(); ++q) {
        list_recall += ListRecallAtK(r.probes[q], truth.Row(b * batch + q), options.k, list_of);
      }
      bytes += static_cast<double>(r.bytes_fetched);
      requests += static_cast<double>(r.requests);
      std::vector<std::vector<int64_t>> found(std::min(batch, n - b * batch));
      for (size_t i = 0; i < r.hits.size(); ++i) found[r.hits[i].query].push_back(r.keys.integers[i]);
      for (size_t q = 0; q < found.size(); ++q) recall += RecallAtK(found[q], truth.Row(b * batch + q), options.k);
    }
    p.recall = recall / static_cast<double>(n);
    p.list_recall = list_recall / static_cast<double>(n);
    p.bytes_per_query = bytes / static_cast<double>(n);
    p.requests_per_query = requests / static_cast<double>(n);
    points.push_back(p);
  }
  return points;
}

}  // namespace vigilo::ivf
