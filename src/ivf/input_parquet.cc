// Parquet: the vector is a LIST of FLOAT or DOUBLE (DuckDB writes FLOAT[] and
// FLOAT[n] alike as a 3-level LIST), the key a top-level primitive column.
// One row group's two column chunks are decoded at a time, through the
// sans-IO reader and the local-file adapter; rows are checked as they are
// handed out, in order, so the first bad row is the one reported.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "input_internal.h"
#include "vigilo/common/utf8.h"
#include "vigilo/parquet/column_reader.h"
#include "vigilo/parquet/local_file.h"

namespace vigilo::ivf::input_internal {
namespace {

namespace pq = vigilo::parquet;
using Kind = ColumnType::Kind;

std::string PhysicalName(pq::Type t) {
  const char* name = pq::PhysicalTypeName(t);
  return name != nullptr ? name : "type " + std::to_string(static_cast<int32_t>(t));
}

// The leaves under top-level field `name`.
std::vector<pq::ColumnDescriptor> FieldLeaves(const pq::Footer& footer, const std::string& name,
                                              Status* error) {
  std::vector<pq::ColumnDescriptor> out;
  for (size_t i = 0; i < footer.schema.leaves.size(); ++i) {
    auto path = pq::LeafPath(footer.metadata.schema, footer.schema, footer.schema.leaves[i]);
    if (path.empty() || path[0] != name) continue;
    auto d = pq::DescribeColumn(footer.metadata.schema, footer.schema, i);
    if (!d.ok()) {
      *error = d.status();
      return {};
    }
    out.push_back(std::move(*d));
  }
  return out;
}

std::string TopLevelNames(const pq::Footer& footer) {
  std::string names;
  for (const auto& leaf : footer.schema.leaves) {
    auto path = pq::LeafPath(footer.metadata.schema, footer.schema, leaf);
    std::string top(path.empty() ? std::string_view() : path[0]);
    if (names.find("\"" + top + "\"") != std::string::npos) continue;
    names += (names.empty() ? "" : ", ") + ("\"" + top + "\"");
  }
  return names;
}

Result<pq::ColumnDescriptor> FindField(const std::string& path, const pq::Footer& footer, const std::string& name,
                                       const char* role) {
  Status error;
  auto leaves = FieldLeaves(footer, name, &error);
  if (!error.ok()) return std::move(error).WithPath(path);
  if (leaves.empty()) {
    return FormatError(path, std::string("no ") + role + " column \"" + name + "\" (columns: " +
                                 TopLevelNames(footer) + ")");
  }
  if (leaves.size() > 1) {
    return FormatError(path, std::string("the ") + role + " column \"" + name +
                                 "\" is a group of several columns, not a single column");
  }
  return std::move(leaves[0]);
}

Status CheckVectorColumn(const std::string& path, const pq::ColumnDescriptor& d) {
  bool floats = d.type == pq::Type::kFloat || d.type == pq::Type::kDouble;
  if (d.shape != pq::ColumnShape::kList || !floats) {
    std::string what = d.shape == pq::ColumnShape::kList ? "a list of " + PhysicalName(d.type)
                       : d.shape == pq::ColumnShape::kScalar ? "a scalar " + PhysicalName(d.type)
                                                             : "a nested " + PhysicalName(d.type) + " column";
    return FormatError(path, "the vector column \"" + d.path[0] + "\" is " + what +
                                 "; it must be a list of FLOAT or DOUBLE (DuckDB FLOAT[], FLOAT[n], DOUBLE[])");
  }
  return Status::Ok();
}

// The manifest key type of a Parquet column, or why it is not one.
Result<ColumnType> KeyTypeOf(const std::string& path, const pq::ColumnDescriptor& d) {
  auto reject = [&](const std::string& why) {
    return FormatError(path, "the key column \"" + d.path[0] + "\" (" + PhysicalName(d.type) + ") " + why +
                                 "; keys are boolean, int, long, string, binary, date or fixed(L)");
  };
  if (d.shape != pq::ColumnShape::kScalar) return reject("is not a top-level primitive column");
  const auto& lt = d.logical_type;
  const auto& ct = d.converted_type;
  auto logical_is = [&](pq::LogicalType::Kind k) { return lt && lt->kind == k; };
  auto converted_is = [&](pq::ConvertedType c) { return ct && *ct == c; };
  bool annotated = lt.has_value() || ct.has_value();
  switch (d.type) {
    case pq::Type::kBoolean:
      if (annotated) return reject("has an annotation");
      return ColumnType{Kind::kBoolean, 0};
    case pq::Type::kInt32:
      if (logical_is(pq::LogicalType::Kind::kDate) || (!lt && converted_is(pq::ConvertedType::kDate))) {
        return ColumnType{Kind::kDate, 0};
      }
      if (lt && lt->kind == pq::LogicalType::Kind::kInteger) {
        if (lt->is_signed || lt->bit_width < 32) return ColumnType{Kind::kInt, 0};
        return reject("is unsigned 32-bit (UINT_32): its values may not fit an int; cast it to BIGINT");
      }
      if (!lt && converted_is(pq::ConvertedType::kUint32)) {
        return reject("is unsigned 32-bit (UINT_32): its values may not fit an int; cast it to BIGINT");
      }
      if (!annotated || converted_is(pq::ConvertedType::kInt32) || converted_is(pq::ConvertedType::kInt16) ||
          converted_is(pq::ConvertedType::kInt8) || converted_is(pq::ConvertedType::kUint8) ||
          converted_is(pq::ConvertedType::kUint16)) {
        return ColumnType{Kind::kInt, 0};
      }
      return reject("has an annotation that is not an integer or date");
    case pq::Type::kInt64:
      if (lt && lt->kind == pq::LogicalType::Kind::kInteger) {
        if (lt->is_signed || lt->bit_width < 64) return ColumnType{Kind::kLong, 0};
        return reject("is unsigned 64-bit (UINT_64): its values may not fit a long; cast it to BIGINT if they do");
      }
      if (!lt && converted_is(pq::ConvertedType::kUint64)) {
        return reject("is unsigned 64-bit (UINT_64): its values may not fit a long; cast it to BIGINT if they do");
      }
      if (!annotated || converted_is(pq::ConvertedType::kInt64) || converted_is(pq::ConvertedType::kUint32)) {
        return ColumnType{Kind::kLong, 0};
      }
      return reject("has an annotation that is not an integer");
    case pq::Type::kByteArray:
      if (logical_is(pq::LogicalType::Kind::kString) || (!lt && converted_is(pq::ConvertedType::kUtf8))) {
        return ColumnType{Kind::kString, 0};
      }
      if (!annotated) return ColumnType{Kind::kBinary, 0};
      return reject("has an annotation that is not STRING");
    case pq::Type::kFixedLenByteArray:
      if (!annotated || logical_is(pq::LogicalType::Kind::kUuid)) {
        return ColumnType{Kind::kFixed, static_cast<uint32_t>(d.type_length)};
      }
      return reject("has an annotation (decimal, float16, …)");
    default: return reject("has no key type");
  }
}

// The one top-level column that is a list of FLOAT or DOUBLE; InvalidFormat
// listing the candidates (or every column) otherwise.
Result<std::string> DetectVectorColumn(const std::string& path, const pq::Footer& footer) {
  std::vector<std::string> candidates, all;
  for (const auto& leaf : footer.schema.leaves) {
    auto leaf_path = pq::LeafPath(footer.metadata.schema, footer.schema, leaf);
    std::string top(leaf_path.empty() ? std::string_view() : leaf_path[0]);
    if (std::find(all.begin(), all.end(), top) != all.end()) continue;
    all.push_back(top);
    Status error;
    auto leaves = FieldLeaves(footer, top, &error);
    if (error.ok() && leaves.size() == 1 && CheckVectorColumn(path, leaves[0]).ok()) candidates.push_back(top);
  }
  if (candidates.size() == 1) return candidates[0];
  auto quoted = [](const std::vector<std::string>& names) {
    std::string out;
    for (const std::string& n : names) out += (out.empty() ? "\"" : ", \"") + n + "\"";
    return out;
  };
  if (candidates.empty()) {
    return FormatError(path, "no column is a list of FLOAT or DOUBLE (columns: " + quoted(all) +
                                 "); name the vector column with `vector_field`");
  }
  return FormatError(path, "several columns are lists of FLOAT or DOUBLE (" + quoted(candidates) +
                               "); choose one with `vector_field`");
}

class ParquetInput final : public VectorInput {
 public:
  ParquetInput(const std::string& path, pq::LocalParquetFile file, const InputOptions& options,
               pq::ColumnDescriptor vector, std::optional<pq::ColumnDescriptor> key, std::optional<ColumnType> key_type)
      : file_(std::move(file)), block_rows_(options.block_rows), vector_(std::move(vector)), key_(std::move(key)) {
    path_ = path;
    format_ = InputFormat::kParquet;
    vector_field_ = options.vector_field;
    rows_ = static_cast<uint64_t>(file_.footer().metadata.num_rows);
    if (key_) key_field_ = KeyField{key_->path[0], *key_type};
  }

  // Reads the first row group to learn the dimension from row 0.
  Status Init() {
    VIGILO_RETURN_IF_ERROR(AdvanceRowGroup());
    if (loaded_ == kNone) return FormatError(path_, "the file holds no vectors");
    uint64_t d = RowLength(0);
    Status st = CheckRow(0, /*first_row_defines=*/true);
    if (!st.ok()) return st;
    VIGILO_RETURN_IF_ERROR(CheckDimension(path_, d, RowName(0)));
    dimension_ = static_cast<uint32_t>(d);
    return Status::Ok();
  }

  Status Restart() override {
    pos_ = 0;
    // Row group 0 stays decoded when it is the one held (small files).
    if (loaded_ == first_group_) return Status::Ok();
    loaded_ = kNone;
    next_group_ = 0;
    return AdvanceRowGroup();
  }

 private:
  static constexpr size_t kNone = SIZE_MAX;

  // Loads the next row group with rows (loaded_ = kNone past the last).
  Status AdvanceRowGroup() {
    const auto& groups = file_.footer().metadata.row_groups;
    pos_ = 0;
    while (next_group_ < groups.size()) {
      size_t g = next_group_++;
      if (groups[g].num_rows == 0) continue;
      auto vectors = file_.ReadColumnChunk(g, vector_.leaf);
      if (!vectors.ok()) return InFile(path_, vectors.status());
      vectors_ = std::move(vectors).value();
      if (key_) {
        auto keys = file_.ReadColumnChunk(g, key_->leaf);
        if (!keys.ok()) return InFile(path_, keys.status());
        keys_ = std::move(keys).value();
      }
      loaded_ = g;
      if (first_group_ == kNone) first_group_ = g;
      return Status::Ok();
    }
    loaded_ = kNone;
    return Status::Ok();
  }

  uint64_t RowLength(uint64_t r) const { return vectors_.list_offsets[r + 1] - vectors_.list_offsets[r]; }

  // Row r of the loaded group (global row next_row_): not null, no null
  // elements, the key not null. Earlier rows passed, so slot = value index.
  Status CheckRow(uint64_t r, bool first_row_defines = false) const {
    uint64_t row = next_row_;
    if (!vectors_.row_valid.empty() && vectors_.row_valid[r] == 0) {
      return FormatError(path_, RowName(row) + ": the vector \"" + vector_field_ + "\" is null");
    }
    uint64_t length = RowLength(r);
    if (!first_row_defines && length != dimension_) {
      return FormatError(path_, RowName(row) + ": the vector has " + std::to_string(length) +
                                    " elements, the first row " + std::to_string(dimension_));
    }
    if (!vectors_.element_valid.empty()) {
      for (uint64_t s = vectors_.list_offsets[r]; s < vectors_.list_offsets[r + 1]; ++s) {
        if (vectors_.element_valid[s] == 0) {
          return FormatError(path_, RowName(row) + ": element " + std::to_string(s - vectors_.list_offsets[r]) +
                                        " of the vector is null");
        }
      }
    }
    if (key_ && !keys_.row_valid.empty() && keys_.row_valid[r] == 0) {
      return FormatError(path_, RowName(row) + ": the key \"" + key_field_->name + "\" is null");
    }
    return Status::Ok();
  }

  Status AppendKey(uint64_t r, KeyColumn* keys) const {
    const pq::ColumnValues& v = keys_.values;
    switch (key_field_->type.kind) {
      case Kind::kBoolean: keys->booleans.push_back(v.booleans[r]); break;
      case Kind::kInt:
      case Kind::kDate: keys->integers.push_back(v.int32s[r]); break;
      case Kind::kLong: keys->integers.push_back(v.int64s[r]); break;
      default: {
        auto bytes = v.Binary(r);
        if (key_field_->type.kind == Kind::kString &&
            !IsValidUtf8({reinterpret_cast<const char*>(bytes.data()), bytes.size()})) {
          return FormatError(path_, RowName(next_row_) + ": the string key \"" + key_field_->name +
                                        "\" is not valid UTF-8");
        }
        keys->bytes.insert(keys->bytes.end(), bytes.begin(), bytes.end());
        keys->offsets.push_back(keys->bytes.size());
      }
    }
    return Status::Ok();
  }

  Status Fill(InputBlock* block) override {
    block->vectors.reserve(block_rows_ * dimension_);
    while (block->rows < block_rows_) {
      if (loaded_ == kNone) break;
      if (pos_ == vectors_.num_rows) {
        VIGILO_RETURN_IF_ERROR(AdvanceRowGroup());
        continue;
      }
      uint64_t r = pos_;
      VIGILO_RETURN_IF_ERROR(CheckRow(r));
      size_t at = block->vectors.size();
      block->vectors.resize(at + dimension_);
      float* dst = block->vectors.data() + at;
      uint64_t slot = vectors_.list_offsets[r];
      if (vector_.type == pq::Type::kFloat) {
        std::memcpy(dst, vectors_.values.floats.data() + slot, size_t{dimension_} * sizeof(float));
        VIGILO_RETURN_IF_ERROR(CheckFinite(path_, {dst, dimension_}, next_row_));
      } else {
        VIGILO_RETURN_IF_ERROR(ConvertDoubleRow(
            path_, std::span<const double>(vectors_.values.doubles).subspan(slot, dimension_), dst, next_row_));
      }
      if (key_) VIGILO_RETURN_IF_ERROR(AppendKey(r, &block->keys));
      ++block->rows;
      ++next_row_;
      ++pos_;
    }
    return Status::Ok();
  }

  pq::LocalParquetFile file_;
  size_t block_rows_;
  pq::ColumnDescriptor vector_;
  std::optional<pq::ColumnDescriptor> key_;
  pq::DecodedColumn vectors_;  // the loaded row group's chunks
  pq::DecodedColumn keys_;
  size_t next_group_ = 0;
  size_t loaded_ = kNone;
  size_t first_group_ = kNone;
  uint64_t pos_ = 0;  // row within the loaded group
};

}  // namespace

Result<std::unique_ptr<VectorInput>> OpenParquetInput(const std::string& path, const InputOptions& options) {
  auto opened = pq::LocalParquetFile::Open(path);
  if (!opened.ok()) return InFile(path, opened.status());
  pq::LocalParquetFile file = std::move(opened).value();
  InputOptions resolved = options;
  if (options.detect_vector_field) {
    VIGILO_ASSIGN_OR_RETURN(resolved.vector_field, DetectVectorColumn(path, file.footer()));
    if (resolved.key_field && *resolved.key_field == resolved.vector_field) {
      return InvalidArgument("the key and the vector are the same field \"" + resolved.vector_field + "\"");
    }
  }
  VIGILO_ASSIGN_OR_RETURN(pq::ColumnDescriptor vector, FindField(path, file.footer(), resolved.vector_field, "vector"));
  VIGILO_RETURN_IF_ERROR(CheckVectorColumn(path, vector));
  std::optional<pq::ColumnDescriptor> key;
  std::optional<ColumnType> key_type;
  if (options.key_field) {
    VIGILO_ASSIGN_OR_RETURN(key, FindField(path, file.footer(), *options.key_field, "key"));
    VIGILO_ASSIGN_OR_RETURN(key_type, KeyTypeOf(path, *key));
  }
  auto input = std::make_unique<ParquetInput>(path, std::move(file), resolved, std::move(vector), std::move(key),
                                              key_type);
  VIGILO_RETURN_IF_ERROR(input->Init());
  return std::unique_ptr<VectorInput>(std::move(input));
}

Result<parquet::ColumnDescriptor> FindParquetField(const std::string& path, const parquet::Footer& footer,
                                                   const std::string& name, const char* role) {
  return FindField(path, footer, name, role);
}

Result<ColumnType> ParquetKeyType(const std::string& path, const parquet::ColumnDescriptor& column) {
  return KeyTypeOf(path, column);
}

Status CheckParquetVectorColumn(const std::string& path, const parquet::ColumnDescriptor& column) {
  return CheckVectorColumn(path, column);
}

}  // namespace vigilo::ivf::input_internal
