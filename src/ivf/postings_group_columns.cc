#include "postings_group_columns.h"

#include <cstring>

namespace vigilo::ivf {
namespace {

using Kind = ColumnType::Kind;

// The rows in a chunk's value runs.
uint64_t RunRows(const std::vector<parquet::ValueRun>& runs) {
  uint64_t rows = 0;
  for (const parquet::ValueRun& run : runs) rows += run.count;
  return rows;
}

// Copies FLOAT runs (stride 4, any alignment) into out.
void GatherFloats(const std::vector<parquet::ValueRun>& runs, float* out) {
  for (const parquet::ValueRun& run : runs) {
    std::memcpy(out, run.first, run.count * sizeof(float));
    out += run.count;
  }
}

std::string KeyBytes(const parquet::DecodedColumn& keys, Kind kind, size_t i) {
  std::string out;
  const parquet::ColumnValues& v = keys.values;
  switch (kind) {
    case Kind::kBoolean: out.push_back(static_cast<char>(v.booleans[i])); break;
    case Kind::kInt:
    case Kind::kDate:
    case Kind::kLong: {
      int64_t x = kind == Kind::kLong ? v.int64s[i] : v.int32s[i];
      out.assign(reinterpret_cast<const char*>(&x), 8);
      break;
    }
    default: {
      auto b = v.Binary(i);
      out.assign(reinterpret_cast<const char*>(b.data()), b.size());
    }
  }
  return out;
}

}  // namespace

std::span<const uint8_t> PostingsGroupColumns::Chunk(size_t leaf) const {
  const parquet::ByteRange& br = source_.group->chunks[leaf - 1];
  return source_.bytes.subspan(br.offset - source_.bytes_offset, br.length);
}

bool PostingsGroupColumns::View(size_t leaf, size_t width, std::vector<parquet::ValueRun>& runs) const {
  // The codes' lengths are checked after the first query scores them (in cache by then): ConfirmCodes.
  return parquet::ViewFixedWidthChunk((*source_.leaves)[leaf - 1], *source_.group->meta[leaf - 1], Chunk(leaf), width,
                                      runs, {}, parquet::ByteArrayLengths::kDeferred) &&
         RunRows(runs) == source_.group->rows;
}

// A chunk's runs as an earlier query recorded them (PostingsGroup::in_place).
void PostingsGroupColumns::Recorded(size_t leaf, std::vector<parquet::ValueRun>& runs) const {
  runs.clear();
  const uint8_t* base = Chunk(leaf).data();
  for (const PostingsGroup::Run& run : source_.group->in_place[leaf - 1].get()) {
    runs.push_back(parquet::ValueRun{base + run.offset, run.count, run.stride});
  }
}

void PostingsGroupColumns::Record(size_t leaf, const std::vector<parquet::ValueRun>& runs) const {
  std::vector<PostingsGroup::Run> out;
  const uint8_t* base = Chunk(leaf).data();
  for (const parquet::ValueRun& run : runs) {
    out.push_back(PostingsGroup::Run{static_cast<uint64_t>(run.first - base), run.count, run.stride});
  }
  source_.group->in_place[leaf - 1].set(std::move(out));
}

Status PostingsGroupColumns::Decode(size_t leaf) {
  // Straight from the cached descriptor and chunk metadata: no per-chunk planning.
  auto decoded = parquet::DecodeColumnChunkBytes((*source_.leaves)[leaf - 1], *source_.group->meta[leaf - 1], Chunk(leaf));
  if (decoded.ok() && decoded->num_rows != source_.group->rows) {
    decoded = InvalidFormat("column chunk holds " + std::to_string(decoded->num_rows) + " rows, the row group " +
                            std::to_string(source_.group->rows));
  }
  if (!decoded.ok()) {
    Status failure = decoded.status();
    return std::move(failure).PrependPath(*source_.path + ": row group " + std::to_string(source_.row_group) + ": ");
  }
  cols_[leaf - 1] = std::move(*decoded);
  return Status::Ok();
}

Status PostingsGroupColumns::DifferInLength() const {
  return InvalidFormat("postings columns differ in length")
      .WithPath(*source_.path + ": row group " + std::to_string(source_.row_group));
}

// The codes decoded back to back, each checked for the right length: the
// fallback, and what names a wrong length when the in-place check finds one.
Status PostingsGroupColumns::DecodeCodes() {
  VIGILO_RETURN_IF_ERROR(Decode(4));
  if (cols_[3].values.size() != rows_) return DifferInLength();
  const std::vector<uint64_t>& code_offsets = cols_[3].values.binary_offsets;
  for (size_t i = 0; i < rows_; ++i) {
    if (code_offsets[i + 1] - code_offsets[i] != code_bytes_) {
      return InvalidFormat("postings row " + std::to_string(source_.first_row + i) + " has a " +
                           std::to_string(code_offsets[i + 1] - code_offsets[i]) + "-byte code; " +
                           std::to_string(code_bytes_) + " expected")
          .WithPath(*source_.path);
    }
  }
  return Status::Ok();
}

Result<bool> PostingsGroupColumns::Read(const Source& source) {
  source_ = source;
  rows_ = 0;
  lengths_unchecked_ = false;
  keys_ready_ = false;
  key_runs_.clear();
  const PostingsGroup& group = *source.group;
  const bool known = !group.in_place[3].empty();
  if (known) {
    Recorded(2, offset_runs_);
    Recorded(3, scale_runs_);
    Recorded(4, code_runs_);
  }
  if (known || (View(2, 4, offset_runs_) && View(3, 4, scale_runs_) && View(4, code_bytes_, code_runs_))) {
    lengths_unchecked_ = !known;
    rows_ = static_cast<size_t>(group.rows);
    offsets_.resize(rows_);
    scales_.resize(rows_);
    GatherFloats(offset_runs_, offsets_.data());
    GatherFloats(scale_runs_, scales_.data());
    return true;
  }
  for (size_t leaf = 2; leaf < 4; ++leaf) VIGILO_RETURN_IF_ERROR(Decode(leaf));
  rows_ = cols_[1].values.floats.size();
  if (cols_[2].values.floats.size() != rows_) return DifferInLength();
  VIGILO_RETURN_IF_ERROR(DecodeCodes());
  offsets_ = std::move(cols_[1].values.floats);
  scales_ = std::move(cols_[2].values.floats);
  code_runs_.assign(1, parquet::ValueRun{cols_[3].values.binary.data(), rows_, code_bytes_});
  return false;
}

Status PostingsGroupColumns::ConfirmCodes() {
  if (!lengths_unchecked_) return Status::Ok();
  lengths_unchecked_ = false;
  if (!parquet::ByteArrayLengthsAre(code_runs_, code_bytes_)) {
    VIGILO_RETURN_IF_ERROR(DecodeCodes());  // names the row
    return Internal("postings code lengths: the in-place check and the decoder disagree").WithPath(*source_.path);
  }
  Record(2, offset_runs_);
  Record(3, scale_runs_);
  Record(4, code_runs_);
  return Status::Ok();
}

// In place when the keys are INT32 or INT64 PLAIN values (int, date and long
// keys), else decoded.
Status PostingsGroupColumns::ReadKeys() {
  if (!source_.group->in_place[0].empty()) {
    Recorded(1, key_runs_);
    return Status::Ok();
  }
  const bool integer_key = key_kind_ == Kind::kLong || key_kind_ == Kind::kInt || key_kind_ == Kind::kDate;
  const parquet::Type key_type = key_kind_ == Kind::kLong ? parquet::Type::kInt64 : parquet::Type::kInt32;
  if (integer_key && (*source_.leaves)[0].type == key_type &&
      View(1, key_kind_ == Kind::kLong ? 8 : 4, key_runs_)) {
    Record(1, key_runs_);
    return Status::Ok();
  }
  key_runs_.clear();
  VIGILO_RETURN_IF_ERROR(Decode(1));
  if (cols_[0].values.size() != rows_) return DifferInLength();
  return Status::Ok();
}

Result<std::string> PostingsGroupColumns::Key(size_t i) {
  if (!keys_ready_) {
    VIGILO_RETURN_IF_ERROR(ReadKeys());
    keys_ready_ = true;
  }
  if (key_runs_.empty()) return KeyBytes(cols_[0], key_kind_, i);
  size_t row = i;
  const parquet::ValueRun* run = key_runs_.data();
  while (row >= run->count) row -= (run++)->count;  // the runs hold every row
  int64_t x = 0;
  if (key_kind_ == Kind::kLong) {
    std::memcpy(&x, run->first + row * run->stride, 8);
  } else {
    int32_t x32 = 0;
    std::memcpy(&x32, run->first + row * run->stride, 4);
    x = x32;
  }
  return std::string(reinterpret_cast<const char*>(&x), 8);
}

}  // namespace vigilo::ivf
