// Levels to rows: each data page's repetition and definition levels become
// row validity, list offsets and element validity. Pages whose definition
// levels are all the maximum (the common no-null case: required-in-practice
// columns, lists of present elements) take a run-at-a-time path that never
// materialises a level per value; everything else, and every malformed
// stream, goes through the per-value path, which is the reference.
#include "chunk_decoder.h"
#include "level_scan.h"
#include "levels_reader.h"

namespace vigilo::parquet::decode {

Status ChunkDecoder::PageLevels(size_t n, bool length_prefixed, std::span<const uint8_t> rep,
                                std::span<const uint8_t> def, const PageSpot& rep_spot, const PageSpot& def_spot,
                                int64_t* started, size_t* non_null) {
  const int16_t max_rep = column_.max_repetition_level;
  const int16_t max_def = column_.max_definition_level;
  if (options_.level_fast_paths && max_def > 0) {
    // The callers validated the length prefixes already.
    std::span<const uint8_t> rep_stream;
    std::span<const uint8_t> def_stream;
    size_t used = 0;
    if (max_rep > 0) VIGILO_RETURN_IF_ERROR(LevelStream(rep, length_prefixed, &rep_stream, &used));
    VIGILO_RETURN_IF_ERROR(LevelStream(def, length_prefixed, &def_stream, &used));
    bool handled = false;
    VIGILO_RETURN_IF_ERROR(Locate(FastLevels(n, rep_stream, def_stream, started, non_null, &handled), rep_spot));
    if (handled) return Status::Ok();
  }
  size_t used = 0;
  if (max_rep > 0) {
    VIGILO_ASSIGN_OR_RETURN(std::span<uint16_t> r, Scratch(rep_, n, budget_));
    VIGILO_RETURN_IF_ERROR(Locate(DecodeLevels(rep, length_prefixed, max_rep, r, &used), rep_spot));
  }
  if (max_def > 0) {
    VIGILO_ASSIGN_OR_RETURN(std::span<uint16_t> d, Scratch(def_, n, budget_));
    VIGILO_RETURN_IF_ERROR(Locate(DecodeLevels(def, length_prefixed, max_def, d, &used), def_spot));
  }
  return Locate(Levels(n, started, non_null), rep_spot);
}

// Every definition level is the maximum, so every level is a present value
// (no repetition) or a present element, and rows start exactly at the
// repetition levels equal to 0. Validity is all ones. A page that would be
// an error (it continues a row the previous page left empty, or the chunk
// starts mid-row) is left to the per-value path, which words the error.
Status ChunkDecoder::FastLevels(size_t n, std::span<const uint8_t> rep_stream, std::span<const uint8_t> def_stream,
                                int64_t* started, size_t* non_null, bool* handled) {
  *handled = false;
  const int16_t max_def = column_.max_definition_level;
  const auto top = static_cast<uint16_t>(max_def);
  if (!levels::AllEqual(def_stream, BitWidthFor(top), n, top)) return Status::Ok();
  if (column_.max_repetition_level == 0) {
    VIGILO_RETURN_IF_ERROR(GrowFill(out_.row_valid, static_cast<size_t>(rows_) + n, uint8_t{1}, budget_));
    rows_ += n;
    *started = static_cast<int64_t>(n);
    *non_null = n;
    *handled = true;
    return Status::Ok();
  }
  size_t new_rows = 0;
  bool first_starts_row = false;
  if (!levels::CountRowStarts(rep_stream, n, &new_rows, &first_starts_row)) return Status::Ok();
  if (n > 0 && !first_starts_row && (rows_ == 0 || !row_has_elements_)) return Status::Ok();
  const int32_t d_rep = column_.repeated_definition_level;
  auto rows0 = static_cast<size_t>(rows_);
  auto slots0 = static_cast<size_t>(slots_);
  // The same sizes, in the same order, as the per-value path grows them.
  VIGILO_RETURN_IF_ERROR(Grow(out_.list_offsets, rows0 + new_rows + 1, budget_));
  if (d_rep >= 2) VIGILO_RETURN_IF_ERROR(GrowFill(out_.row_valid, rows0 + new_rows, uint8_t{1}, budget_));
  if (max_def > d_rep) VIGILO_RETURN_IF_ERROR(GrowFill(out_.element_valid, slots0 + n, uint8_t{1}, budget_));
  levels::WriteRowStarts(rep_stream, n, slots_, out_.list_offsets.data() + rows0);
  rows_ += new_rows;
  slots_ += n;
  if (n > 0) row_has_elements_ = true;
  *started = static_cast<int64_t>(new_rows);
  *non_null = n;
  *handled = true;
  return Status::Ok();
}

// Turns the page's first n levels (rep_/def_) into rows, list offsets and
// validity; counts rows started and non-null values.
Status ChunkDecoder::Levels(size_t n, int64_t* rows_started, size_t* non_null) {
  const int16_t max_def = column_.max_definition_level;
  size_t valid = 0;
  if (column_.max_repetition_level == 0) {
    if (max_def > 0) {
      size_t base = static_cast<size_t>(rows_);
      VIGILO_RETURN_IF_ERROR(Grow(out_.row_valid, base + n, budget_));
      uint8_t* rv = out_.row_valid.data() + base;
      const uint16_t* def = def_.data();
      const auto top = static_cast<uint16_t>(max_def);
      for (size_t i = 0; i < n; ++i) {
        uint8_t v = def[i] == top;
        rv[i] = v;
        valid += v;
      }
    } else {
      valid = n;
    }
    rows_ += n;
    *rows_started = static_cast<int64_t>(n);
    *non_null = valid;
    return Status::Ok();
  }

  // One repeated ancestor. Worst case every level starts a row and an element.
  const int32_t d_rep = column_.repeated_definition_level;
  const bool nullable_rows = d_rep >= 2;
  const bool nullable_elements = max_def > d_rep;
  size_t rows0 = static_cast<size_t>(rows_);
  size_t slots0 = static_cast<size_t>(slots_);
  // Count first (a branch-free pass) so the outputs grow exactly, not by
  // the worst case of one row and one element per level.
  size_t new_rows = 0;
  size_t new_slots = 0;
  for (size_t i = 0; i < n; ++i) {
    new_rows += rep_[i] == 0;
    new_slots += def_[i] >= d_rep;
  }
  VIGILO_RETURN_IF_ERROR(Grow(out_.list_offsets, rows0 + new_rows + 1, budget_));
  if (nullable_rows) VIGILO_RETURN_IF_ERROR(Grow(out_.row_valid, rows0 + new_rows, budget_));
  if (nullable_elements) VIGILO_RETURN_IF_ERROR(Grow(out_.element_valid, slots0 + new_slots, budget_));
  uint64_t rows = rows_;
  uint64_t slots = slots_;
  int64_t started = 0;
  for (size_t i = 0; i < n; ++i) {
    int32_t d = def_[i];
    if (rep_[i] == 0) {
      out_.list_offsets[static_cast<size_t>(rows)] = slots;
      if (nullable_rows) out_.row_valid[static_cast<size_t>(rows)] = d >= d_rep - 1;
      ++rows;
      ++started;
      row_has_elements_ = d >= d_rep;
      row_start_def_ = d;
    } else {
      if (rows == 0) return InvalidFormat("the column chunk starts with repetition level 1").WithOffset(0);
      // DuckDB writes a NULL fixed-size array (FLOAT[4]) as one entry per
      // slot, every one at the null's definition level, and reads it back as
      // NULL: such padding adds no element and leaves the list as it began.
      if (!row_has_elements_ && d == row_start_def_) continue;
      if (!row_has_elements_) {
        return InvalidFormat("repetition level 1 continues an empty or null list (value " + std::to_string(i) +
                             ")")
            .WithOffset(0);
      }
      if (d < d_rep) {
        return InvalidFormat("a continued list entry has definition level " + std::to_string(d) + " (value " +
                             std::to_string(i) + ")")
            .WithOffset(0);
      }
    }
    if (d >= d_rep) {
      bool v = d == max_def;
      if (nullable_elements) out_.element_valid[static_cast<size_t>(slots)] = v;
      valid += v;
      ++slots;
    }
  }
  // Shrink to the real sizes (capacity stays charged).
  out_.list_offsets.resize(static_cast<size_t>(rows) + 1);
  if (nullable_rows) out_.row_valid.resize(static_cast<size_t>(rows));
  if (nullable_elements) out_.element_valid.resize(static_cast<size_t>(slots));
  rows_ = rows;
  slots_ = slots;
  *rows_started = started;
  *non_null = valid;
  return Status::Ok();
}

}  // namespace vigilo::parquet::decode
