#include "vigilo/ivf/publication_inspect.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace vigilo::ivf {

SizeSummary Summarize(std::vector<uint64_t> values) {
  SizeSummary s;
  s.count = values.size();
  if (values.empty()) return s;
  std::sort(values.begin(), values.end());
  auto rank = [&](double p) {  // nearest rank: the smallest value with at least p of the values at or below it
    auto i = static_cast<size_t>(std::ceil(p * static_cast<double>(values.size())));
    return values[std::max<size_t>(i, 1) - 1];
  };
  s.min = values.front();
  s.max = values.back();
  s.p50 = rank(0.50);
  s.p90 = rank(0.90);
  s.p99 = rank(0.99);
  s.mean = static_cast<double>(std::accumulate(values.begin(), values.end(), uint64_t{0})) /
           static_cast<double>(values.size());
  return s;
}

Result<PublicationShape> InspectPublication(const Manifest& m, store::ObjectStore& store) {
  PublicationShape shape;
  shape.list_rows.assign(m.index.nlist, 0);
  shape.centroids_bytes = m.hierarchy.centroids.size;
  for (const PostingsFile& file : m.postings) {
    shape.postings_bytes += file.object.size;
    VIGILO_ASSIGN_OR_RETURN(parquet::Footer f, ReadObjectFooter(store, file.object, &shape.footer_bytes_read));
    for (size_t g = 0; g < f.metadata.row_groups.size(); ++g) {
      const parquet::RowGroup& rg = f.metadata.row_groups[g];
      VIGILO_ASSIGN_OR_RETURN(int32_t cid,
                              PostingsRowGroupCid(rg, file.object.path + ": row group " + std::to_string(g)));
      if (cid < 0 || static_cast<uint64_t>(cid) >= m.index.nlist) {
        return InvalidFormat("row group holds CID " + std::to_string(cid) + ", beyond nlist")
            .WithPath(file.object.path + ": row group " + std::to_string(g));
      }
      shape.list_rows[static_cast<size_t>(cid)] += static_cast<uint64_t>(rg.num_rows);
      ++shape.postings_row_groups;
    }
  }
  if (m.source) {
    for (const SourceFile& f : m.source->files) shape.source_bytes += f.object.size;
  }
  if (m.embedding) {
    for (const ObjectDescriptor& a : m.embedding->assets) shape.embedding_bytes += a.size;
  }
  for (uint64_t n : shape.list_rows) shape.empty_lists += n == 0;
  shape.lists = Summarize(shape.list_rows);
  std::vector<uint64_t> buckets;
  const auto& off = m.hierarchy.cid_offsets;
  for (size_t r = 0; r + 1 < off.size(); ++r) {
    buckets.push_back(std::accumulate(shape.list_rows.begin() + static_cast<std::ptrdiff_t>(off[r]),
                                      shape.list_rows.begin() + static_cast<std::ptrdiff_t>(off[r + 1]), uint64_t{0}));
  }
  shape.buckets = Summarize(std::move(buckets));
  return shape;
}

}  // namespace vigilo::ivf
