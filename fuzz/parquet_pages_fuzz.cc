// Parquet column-chunk decoding on arbitrary bytes, two ways:
//  - as a whole file: parse the footer, decode every column chunk of every
//    row group, print every row and statistic through the JSON mapping;
//  - as one raw column chunk: byte 0 picks a column type and codec, bytes 1-2
//    are num_values (u16 LE), the rest is the chunk (this reaches the page
//    decoders without a valid footer).
// Invariants: no crash or sanitizer report; a decoded column is internally
// consistent (offsets monotonic, one value per non-null slot); the in-place
// view (column_view.h) of a raw chunk, where it says yes, lies within the
// bytes and gives exactly the decoder's values (so the decoder succeeded).
#include <cstdint>
#include <cstdlib>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "vigilo/parquet/column_reader.h"
#include "vigilo/parquet/column_view.h"
#include "vigilo/parquet/footer.h"
#include "vigilo/parquet/value_json.h"

namespace {

namespace pq = vigilo::parquet;
using pq::FieldRepetitionType;
using pq::Type;

constexpr uint64_t kBudget = 32 << 20;

void CheckConsistent(const pq::ColumnDescriptor& c, const pq::DecodedColumn& d) {
  size_t valid = 0;
  if (c.max_repetition_level == 0) {
    if (!d.row_valid.empty() && d.row_valid.size() != d.num_rows) std::abort();
    for (size_t r = 0; r < d.num_rows; ++r) valid += d.row_valid.empty() || d.row_valid[r];
  } else {
    if (d.list_offsets.size() != d.num_rows + 1 || d.list_offsets[0] != 0) std::abort();
    for (size_t r = 0; r < d.num_rows; ++r) {
      if (d.list_offsets[r] > d.list_offsets[r + 1]) std::abort();
      if (!d.row_valid.empty() && !d.row_valid[r] && d.list_offsets[r] != d.list_offsets[r + 1]) std::abort();
    }
    uint64_t slots = d.list_offsets[d.num_rows];
    if (!d.element_valid.empty() && d.element_valid.size() != slots) std::abort();
    for (size_t s = 0; s < slots; ++s) valid += d.element_valid.empty() || d.element_valid[s];
  }
  if (d.values.size() != valid) std::abort();
  if (c.type == Type::kByteArray && valid > 0 && d.values.binary_offsets.back() != d.values.binary.size()) std::abort();
}

void PrintRows(const pq::ColumnDescriptor& c, const pq::DecodedColumn& d) {
  auto cursor = pq::RowJsonCursor::Make(c, d);
  if (!cursor.ok()) return;
  std::string out;
  while (cursor->rows_left() > 0) {
    if (!cursor->AppendNext(&out).ok()) return;
    out.clear();
  }
}

void FuzzFile(std::span<const uint8_t> bytes) {
  pq::FooterOptions fo;
  fo.max_footer_bytes = 1 << 20;
  fo.decode.max_decoded_bytes = 16 << 20;
  auto parsed = pq::ParseFooter(bytes, bytes.size(), fo);
  if (!parsed.ok()) return;
  const auto* footer = std::get_if<pq::Footer>(&*parsed);
  if (footer == nullptr) return;
  pq::ColumnReadOptions options;
  options.max_decoded_bytes = kBudget;
  for (size_t g = 0; g < footer->metadata.row_groups.size(); ++g) {
    auto plan = pq::PlanRowGroup(*footer, g);
    if (!plan.ok()) continue;
    for (const pq::ColumnChunkPlan& p : *plan) {
      if (p.range.offset + p.range.length > bytes.size()) std::abort();  // validated by the footer
      auto column = pq::DescribeColumn(footer->metadata.schema, footer->schema, p.leaf);
      if (!column.ok()) continue;
      if (p.meta->statistics) {
        std::string s;
        for (const auto* v : {&p.meta->statistics->min_value, &p.meta->statistics->max_value,
                              &p.meta->statistics->min, &p.meta->statistics->max}) {
          if (*v) {
            (void)pq::AppendPlainValueJson(*column, std::span(reinterpret_cast<const uint8_t*>((*v)->data()), (*v)->size()),
                                           &s);
          }
        }
      }
      auto decoded = pq::DecodeColumnChunk(*footer, g, p.leaf, bytes.subspan(p.range.offset, p.range.length), options);
      if (!decoded.ok()) continue;
      CheckConsistent(*column, *decoded);
      PrintRows(*column, *decoded);
    }
  }
}

pq::ColumnDescriptor Described(std::vector<pq::SchemaElement> schema) {
  auto tree = pq::ResolveSchema(schema);
  if (!tree.ok()) std::abort();
  auto d = pq::DescribeColumn(schema, *tree, 0);
  if (!d.ok()) std::abort();
  return *d;
}

pq::SchemaElement El(const char* name, std::optional<Type> type, FieldRepetitionType rep, int children = -1) {
  pq::SchemaElement e;
  e.name = name;
  e.type = type;
  e.repetition_type = rep;
  if (children >= 0) e.num_children = children;
  return e;
}

const std::vector<pq::ColumnDescriptor>& Columns() {
  static const std::vector<pq::ColumnDescriptor> columns = [] {
    auto root = [] {
      pq::SchemaElement r;
      r.name = "schema";
      r.num_children = 1;
      return r;
    };
    auto opt = FieldRepetitionType::kOptional;
    auto req = FieldRepetitionType::kRequired;
    auto rep = FieldRepetitionType::kRepeated;
    auto scalar = [&](Type t, FieldRepetitionType r) { return Described({root(), El("x", t, r)}); };
    auto list = [&](Type t) {
      pq::SchemaElement g = El("v", std::nullopt, opt, 1);
      g.converted_type = pq::ConvertedType::kList;
      return Described({root(), g, El("list", std::nullopt, rep, 1), El("element", t, opt)});
    };
    pq::SchemaElement s = El("s", Type::kByteArray, opt);
    s.converted_type = pq::ConvertedType::kUtf8;
    pq::SchemaElement f = El("f", Type::kFixedLenByteArray, req);
    f.type_length = 16;
    return std::vector<pq::ColumnDescriptor>{
        scalar(Type::kInt32, opt),  scalar(Type::kInt64, opt), scalar(Type::kFloat, opt),
        scalar(Type::kDouble, opt), scalar(Type::kBoolean, opt), Described({root(), s}),
        list(Type::kFloat),         list(Type::kDouble),       scalar(Type::kInt32, req),
        Described({root(), f}),     scalar(Type::kFloat, req), scalar(Type::kByteArray, req),
        scalar(Type::kInt64, req),
    };
  }();
  return columns;
}

// The decoder's values as bytes, `width` each.
std::vector<uint8_t> ValueBytes(const pq::ColumnValues& v) {
  auto raw = [](const auto& vec) {
    const auto* p = reinterpret_cast<const uint8_t*>(vec.data());
    return std::vector<uint8_t>(p, p + vec.size() * sizeof(vec[0]));
  };
  switch (v.type) {
    case Type::kFloat: return raw(v.floats);
    case Type::kInt32: return raw(v.int32s);
    case Type::kDouble: return raw(v.doubles);
    case Type::kInt64: return raw(v.int64s);
    default: return v.binary;
  }
}

void CheckView(const pq::ColumnDescriptor& column, const pq::ColumnMetaData& meta, std::span<const uint8_t> chunk,
               const vigilo::Result<pq::DecodedColumn>& decoded) {
  size_t width = 0;
  switch (column.type) {
    case Type::kFloat:
    case Type::kInt32: width = 4; break;
    case Type::kDouble:
    case Type::kInt64: width = 8; break;
    case Type::kFixedLenByteArray: width = static_cast<size_t>(column.type_length); break;
    case Type::kByteArray:  // the first value's length, when there is one
      width = decoded.ok() && decoded->values.size() > 0 ? decoded->values.Binary(0).size() : chunk.size() % 5;
      break;
    default: return;
  }
  for (auto lengths : {pq::ByteArrayLengths::kChecked, pq::ByteArrayLengths::kDeferred}) {
    std::vector<pq::ValueRun> runs;
    if (!pq::ViewFixedWidthChunk(column, meta, chunk, width, runs, {}, lengths)) {
      if (!runs.empty()) std::abort();
      continue;
    }
    std::vector<uint8_t> viewed;
    for (const pq::ValueRun& run : runs) {
      if (run.count == 0 || run.first < chunk.data() ||
          run.first + (run.count - 1) * run.stride + width > chunk.data() + chunk.size()) {
        std::abort();
      }
      for (size_t i = 0; i < run.count; ++i) viewed.insert(viewed.end(), run.first + i * run.stride, run.first + i * run.stride + width);
    }
    if (lengths == pq::ByteArrayLengths::kDeferred && column.type == Type::kByteArray &&
        !pq::ByteArrayLengthsAre(runs, width)) {
      continue;
    }
    // A yes is the decoder's yes, to the same values (its memory budget aside).
    if (!decoded.ok()) {
      if (decoded.status().code() == vigilo::StatusCode::kLimitExceeded) continue;
      std::abort();
    }
    if (viewed != ValueBytes(decoded->values)) std::abort();
  }
}

void FuzzChunk(std::span<const uint8_t> bytes) {
  if (bytes.size() < 3) return;
  const auto& columns = Columns();
  const pq::ColumnDescriptor& column = columns[bytes[0] % columns.size()];
  static const pq::CompressionCodec kCodecs[] = {pq::CompressionCodec::kUncompressed, pq::CompressionCodec::kSnappy,
                                                 pq::CompressionCodec::kGzip, pq::CompressionCodec::kZstd};
  pq::ColumnMetaData meta;
  meta.type = column.type;
  meta.codec = kCodecs[(bytes[0] / columns.size()) % 4];
  meta.num_values = bytes[1] | bytes[2] << 8;
  pq::ColumnReadOptions options;
  options.max_decoded_bytes = kBudget;
  auto decoded = pq::DecodeColumnChunkBytes(column, meta, bytes.subspan(3), options);
  CheckView(column, meta, bytes.subspan(3), decoded);
  if (!decoded.ok()) return;
  CheckConsistent(column, *decoded);
  PrintRows(column, *decoded);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::span<const uint8_t> bytes(data, size);
  FuzzFile(bytes);
  FuzzChunk(bytes);
  return 0;
}
