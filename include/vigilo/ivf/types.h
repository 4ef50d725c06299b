// The publication format's enumerations (docs/format/publication-v1.md):
// distance metric, postings encoding, and the source-key and source-column
// types, with their exact manifest spellings.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "vigilo/common/result.h"

namespace vigilo::ivf {

enum class Metric : uint8_t { kL2Squared, kCosine };
enum class Encoding : uint8_t { kLvq4, kLvq8 };

// "l2_squared" | "cosine"; "lvq4" | "lvq8". Parse fails with InvalidFormat
// naming the accepted spellings.
std::string_view MetricName(Metric m);
Result<Metric> ParseMetric(std::string_view text);
std::string_view EncodingName(Encoding e);
Result<Encoding> ParseEncoding(std::string_view text);

// Bits per coded element and bytes per coded vector of `dimension` elements
// (LVQ4 packs two elements per byte, an odd last nibble is 0).
int EncodingBits(Encoding e);
uint64_t CodeBytes(Encoding e, uint64_t dimension);

// A column type as the manifest spells it. Source keys may use the first
// seven kinds; source columns also float, double and list<float>.
struct ColumnType {
  enum class Kind : uint8_t { kBoolean, kInt, kLong, kBinary, kString, kDate, kFixed, kFloat, kDouble, kFloatList };
  Kind kind = Kind::kLong;
  uint32_t fixed_length = 0;  // L of fixed(L), 1…2^31-1; 0 otherwise

  bool is_key_type() const { return kind <= Kind::kFixed; }
  std::string ToString() const;  // "fixed(16)", "list<float>", …
  friend bool operator==(const ColumnType&, const ColumnType&) = default;
};

// Parses the exact spelling: fixed(L) with L a canonical positive decimal
// (no sign, no leading zero, ≤ 2147483647). InvalidFormat otherwise.
Result<ColumnType> ParseColumnType(std::string_view text);

// JavaScript's Number.MAX_SAFE_INTEGER: the bound on ntotal, row positions,
// row counts and object sizes.
inline constexpr uint64_t kMaxSafeInteger = 9007199254740991ull;

}  // namespace vigilo::ivf
