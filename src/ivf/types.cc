#include "vigilo/ivf/types.h"

#include <array>
#include <utility>

namespace vigilo::ivf {
namespace {

using Kind = ColumnType::Kind;

constexpr std::array<std::pair<Kind, std::string_view>, 9> kSimpleTypes = {{
    {Kind::kBoolean, "boolean"},
    {Kind::kInt, "int"},
    {Kind::kLong, "long"},
    {Kind::kBinary, "binary"},
    {Kind::kString, "string"},
    {Kind::kDate, "date"},
    {Kind::kFloat, "float"},
    {Kind::kDouble, "double"},
    {Kind::kFloatList, "list<float>"},
}};

}  // namespace

std::string_view MetricName(Metric m) { return m == Metric::kL2Squared ? "l2_squared" : "cosine"; }

Result<Metric> ParseMetric(std::string_view text) {
  if (text == "l2_squared") return Metric::kL2Squared;
  if (text == "cosine") return Metric::kCosine;
  return InvalidFormat("metric must be \"l2_squared\" or \"cosine\", got \"" + std::string(text) + "\"");
}

std::string_view EncodingName(Encoding e) { return e == Encoding::kLvq4 ? "lvq4" : "lvq8"; }

Result<Encoding> ParseEncoding(std::string_view text) {
  if (text == "lvq4") return Encoding::kLvq4;
  if (text == "lvq8") return Encoding::kLvq8;
  return InvalidFormat("encoding must be \"lvq4\" or \"lvq8\", got \"" + std::string(text) + "\"");
}

int EncodingBits(Encoding e) { return e == Encoding::kLvq4 ? 4 : 8; }

uint64_t CodeBytes(Encoding e, uint64_t dimension) {
  return e == Encoding::kLvq4 ? (dimension + 1) / 2 : dimension;
}

std::string ColumnType::ToString() const {
  if (kind == Kind::kFixed) return "fixed(" + std::to_string(fixed_length) + ")";
  for (const auto& [k, name] : kSimpleTypes) {
    if (k == kind) return std::string(name);
  }
  return "?";
}

Result<ColumnType> ParseColumnType(std::string_view text) {
  for (const auto& [k, name] : kSimpleTypes) {
    if (text == name) return ColumnType{k, 0};
  }
  constexpr std::string_view kPrefix = "fixed(";
  if (text.size() > kPrefix.size() + 1 && text.substr(0, kPrefix.size()) == kPrefix && text.back() == ')') {
    std::string_view digits = text.substr(kPrefix.size(), text.size() - kPrefix.size() - 1);
    bool canonical = !digits.empty() && digits.size() <= 10 && digits[0] >= '1' && digits[0] <= '9';
    uint64_t n = 0;
    for (char c : digits) {
      if (c < '0' || c > '9') canonical = false;
      if (canonical) n = n * 10 + static_cast<uint64_t>(c - '0');
    }
    if (canonical && n <= 2147483647u) return ColumnType{Kind::kFixed, static_cast<uint32_t>(n)};
    return InvalidFormat("fixed(L) needs L as a positive decimal without leading zeros, at most 2147483647; got \"" +
                         std::string(text) + "\"");
  }
  return InvalidFormat("unknown type \"" + std::string(text) +
                       "\" (expected boolean, int, long, binary, string, date, fixed(L), float, double or list<float>)");
}

}  // namespace vigilo::ivf
