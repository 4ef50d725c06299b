#include "index_io.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <string_view>

#include "context.h"
#include "vigilo/common/byte_source.h"
#include "vigilo/ivf/input.h"
#include "vigilo/json/parse.h"
#include "vigilo/json/write.h"

namespace vigilo::cli {

Result<OpenedPublication> OpenPublication(const std::string& locator, bool use_cache, uint64_t resident_max_bytes) {
  OpenedPublication opened;
  VIGILO_ASSIGN_OR_RETURN(opened.context, MakeContext());
  VIGILO_ASSIGN_OR_RETURN(opened.publication,
                          engine::Publication::Open(*opened.context, locator,
                                                    {.use_cache = use_cache, .resident_max_bytes = resident_max_bytes}));
  return opened;
}

namespace {

constexpr size_t kMaxVectorTextBytes = size_t{64} << 20;

Result<std::vector<float>> VectorFromJson(const json::Value& v, const std::string& where) {
  if (!v.is_array()) return InvalidArgument(where + ": a query vector is a JSON array of numbers");
  std::vector<float> out;
  for (const json::Value& x : v.as_array()) {
    if (!x.is_number()) return InvalidArgument(where + ": a query vector is a JSON array of numbers");
    double d = x.as_number().AsDouble();
    // Converting a double beyond the float range is undefined: refused as infinite.
    out.push_back(std::fabs(d) > static_cast<double>(std::numeric_limits<float>::max())
                      ? std::numeric_limits<float>::infinity()
                      : static_cast<float>(d));
  }
  return out;
}

// The text of --vector: itself, the file after '@', or stdin for "-".
Result<std::string> VectorText(const std::string& vector) {
  if (vector == "-") {
    VIGILO_ASSIGN_OR_RETURN(WholeFile in, WholeFile::Open("-", kMaxVectorTextBytes));
    return std::string(in.bytes());
  }
  if (vector.starts_with("@")) return ReadFileToString(vector.substr(1), kMaxVectorTextBytes);
  return vector;
}

}  // namespace

Result<std::vector<std::vector<float>>> LoadQueries(const QuerySource& source, const ivf::Manifest& manifest) {
  std::vector<std::vector<float>> out;
  if (!source.vector.empty()) {
    VIGILO_ASSIGN_OR_RETURN(std::string text, VectorText(source.vector));
    auto parsed = json::Parse(text);
    if (!parsed.ok()) return InvalidArgument("--vector: " + parsed.status().ToString());
    VIGILO_ASSIGN_OR_RETURN(std::vector<float> v, VectorFromJson(*parsed, "--vector"));
    // The input domain of `index build` (ivf::VectorDomainViolation), for queries.
    std::string violation = ivf::VectorDomainViolation(v);
    if (!violation.empty()) return InvalidArgument("--vector: " + violation);
    out.push_back(std::move(v));
    return out;
  }
  // Every query file goes through the build's readers: the same formats,
  // the same row rules (blank lines refused, naming them) and input domain.
  ivf::InputOptions options;
  options.vector_field = source.vector_field.empty() ? manifest.index.vector_field : source.vector_field;
  if (!source.format.empty()) {
    VIGILO_ASSIGN_OR_RETURN(options.format, ivf::ParseInputFormat(source.format));
  } else if (source.file == "-") {
    return InvalidArgument("--queries -: name the format of stdin with --format (jsonl, fvecs, bvecs or npy)");
  }
  VIGILO_ASSIGN_OR_RETURN(auto input, ivf::OpenVectorInput(source.file, options));
  ivf::InputBlock block;
  while (true) {
    VIGILO_ASSIGN_OR_RETURN(bool more, input->Next(&block));
    if (!more) break;
    for (size_t i = 0; i < block.rows; ++i) {
      out.emplace_back(block.vectors.begin() + static_cast<std::ptrdiff_t>(i * input->dimension()),
                       block.vectors.begin() + static_cast<std::ptrdiff_t>((i + 1) * input->dimension()));
    }
  }
  return out;
}

std::string FloatText(float f) {
  char buf[32];
  auto r = std::to_chars(buf, buf + sizeof buf, f);  // shortest text that reads back as the same float
  return std::string(buf, r.ptr);
}

Result<std::string> KeyJson(const ivf::KeyColumn& keys, size_t i) {
  using K = ivf::ColumnType::Kind;
  switch (keys.type.kind) {
    case K::kBoolean: return std::string(keys.booleans[i] ? "true" : "false");
    case K::kInt:
    case K::kLong:
    case K::kDate: return std::to_string(keys.integers[i]);
    case K::kString: return json::ToCanonical(json::Value(std::string(keys.Bytes(i))));
    default: {
      std::string_view b = keys.Bytes(i);
      static const char* kHex = "0123456789abcdef";
      std::string out = "\"";
      for (unsigned char c : b) {
        out.push_back(kHex[c >> 4]);
        out.push_back(kHex[c & 15]);
      }
      return out + "\"";
    }
  }
}

}  // namespace vigilo::cli
