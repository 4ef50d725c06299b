// The CID of a postings row group (postings_cid.h).
#include "vigilo/ivf/postings_cid.h"

#include <optional>

namespace vigilo::ivf {
namespace {

std::optional<int32_t> Int32Stat(const std::optional<std::string>& v) {
  if (!v || v->size() != 4) return std::nullopt;
  uint32_t u = 0;
  for (int i = 3; i >= 0; --i) u = (u << 8) | static_cast<uint8_t>((*v)[static_cast<size_t>(i)]);
  return static_cast<int32_t>(u);
}

}  // namespace

Result<int32_t> PostingsRowGroupCid(const parquet::RowGroup& rg, const std::string& where) {
  const auto& meta = rg.columns[0].meta_data;
  if (!meta || !meta->statistics) return InvalidFormat("cid has no statistics").WithPath(where);
  const parquet::Statistics& s = *meta->statistics;
  auto min = Int32Stat(s.min_value), max = Int32Stat(s.max_value);
  if (!min || !max) return InvalidFormat("cid statistics lack min_value/max_value").WithPath(where);
  if (*min != *max) {
    return InvalidFormat("row group holds CIDs " + std::to_string(*min) + " to " + std::to_string(*max) +
                         "; exactly one is allowed")
        .WithPath(where);
  }
  if (s.null_count != 0) return InvalidFormat("cid statistics must record null_count 0").WithPath(where);
  if (s.is_min_value_exact == false || s.is_max_value_exact == false) {
    return InvalidFormat("cid statistics are not exact").WithPath(where);
  }
  if ((s.min && Int32Stat(s.min) != min) || (s.max && Int32Stat(s.max) != max)) {
    return InvalidFormat("legacy cid statistics disagree with min_value/max_value").WithPath(where);
  }
  return *min;
}

}  // namespace vigilo::ivf
