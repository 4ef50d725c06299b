// A block of keys of one key type: what the builder reads from its inputs
// and what a query returns with its hits. Apart from input.h (which opens
// files) so the sans-IO read core (query_core.h) can use it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "vigilo/ivf/types.h"

namespace vigilo::ivf {

// One block's keys, by type:
//   boolean             → booleans (0 or 1)
//   int, long, date     → integers (date: days since 1970-01-01)
//   string, binary,
//   fixed(L)            → key i is bytes[offsets[i], offsets[i + 1]); offsets
//                         has size() + 1 entries starting at 0 (string keys
//                         are valid UTF-8; fixed keys are L bytes each)
struct KeyColumn {
  ColumnType type;
  std::vector<uint8_t> booleans;
  std::vector<int64_t> integers;
  std::vector<uint64_t> offsets{0};
  std::vector<uint8_t> bytes;

  size_t size() const;
  std::string_view Bytes(size_t i) const;
  void Clear(ColumnType new_type);
  friend bool operator==(const KeyColumn&, const KeyColumn&) = default;
};

}  // namespace vigilo::ivf
