// Batch validation and the typed appends of ColumnChunkWriter.
#include <cstring>

#include "column_writer.h"
#include "vigilo/common/utf8.h"

namespace vigilo::parquet {
namespace {

template <typename T>
std::string_view Bytes(const T& v) {
  return {reinterpret_cast<const char*>(&v), sizeof(T)};  // PLAIN is little-endian, as is the host
}

bool IsNull(std::span<const uint8_t> validity, size_t i) { return !validity.empty() && validity[i] == 0; }

}  // namespace

Status ColumnChunkWriter::CheckValidity(size_t rows, std::span<const uint8_t> validity, std::string_view what) const {
  if (validity.empty()) return Status::Ok();
  if (validity.size() != rows) {
    return InvalidArgument(std::string(what) + " validity has " + std::to_string(validity.size()) +
                           " entries for " + std::to_string(rows) + " values");
  }
  bool nullable = what == "element" ? spec_.element_optional : spec_.optional;
  if (!nullable) {
    for (size_t i = 0; i < validity.size(); ++i) {
      if (validity[i] == 0) {
        return InvalidArgument("required " + std::string(what) + " " + std::to_string(i) + " is null");
      }
    }
  }
  return Status::Ok();
}

Status ColumnChunkWriter::WriteBoolean(std::span<const uint8_t> values, std::span<const uint8_t> validity) {
  VIGILO_RETURN_IF_ERROR(CheckValidity(values.size(), validity, "row"));
  for (size_t i = 0; i < values.size(); ++i) {
    if (!IsNull(validity, i) && values[i] > 1) {
      return InvalidArgument("boolean value at row " + std::to_string(i) + " is " + std::to_string(values[i]) +
                             ", not 0 or 1");
    }
  }
  for (size_t i = 0; i < values.size(); ++i) {
    bool present = !IsNull(validity, i);
    AddRowLevel(present);
    if (present) {
      values_.push_back(values[i]);
      page_plain_size_ += 1;  // the cut rule counts a boolean as one byte
      page_stats_.AddBoolean(values[i] != 0);
    }
    EndRow();
  }
  return error_;
}

Status ColumnChunkWriter::WriteInt32(std::span<const int32_t> values, std::span<const uint8_t> validity) {
  VIGILO_RETURN_IF_ERROR(CheckValidity(values.size(), validity, "row"));
  for (size_t i = 0; i < values.size(); ++i) {
    bool present = !IsNull(validity, i);
    AddRowLevel(present);
    if (present) {
      AddValueBytes(Bytes(values[i]));
      page_stats_.AddInteger(values[i]);
    }
    EndRow();
  }
  return error_;
}

Status ColumnChunkWriter::WriteInt64(std::span<const int64_t> values, std::span<const uint8_t> validity) {
  VIGILO_RETURN_IF_ERROR(CheckValidity(values.size(), validity, "row"));
  for (size_t i = 0; i < values.size(); ++i) {
    bool present = !IsNull(validity, i);
    AddRowLevel(present);
    if (present) {
      AddValueBytes(Bytes(values[i]));
      page_stats_.AddInteger(values[i]);
    }
    EndRow();
  }
  return error_;
}

Status ColumnChunkWriter::WriteFloat(std::span<const float> values, std::span<const uint8_t> validity) {
  VIGILO_RETURN_IF_ERROR(CheckValidity(values.size(), validity, "row"));
  for (size_t i = 0; i < values.size(); ++i) {
    bool present = !IsNull(validity, i);
    AddRowLevel(present);
    if (present) {
      AddValueBytes(Bytes(values[i]));
      page_stats_.AddFloating(static_cast<double>(values[i]));
    }
    EndRow();
  }
  return error_;
}

Status ColumnChunkWriter::WriteDouble(std::span<const double> values, std::span<const uint8_t> validity) {
  VIGILO_RETURN_IF_ERROR(CheckValidity(values.size(), validity, "row"));
  for (size_t i = 0; i < values.size(); ++i) {
    bool present = !IsNull(validity, i);
    AddRowLevel(present);
    if (present) {
      AddValueBytes(Bytes(values[i]));
      page_stats_.AddFloating(values[i]);
    }
    EndRow();
  }
  return error_;
}

Status ColumnChunkWriter::WriteByteArray(std::span<const std::string_view> values, std::span<const uint8_t> validity) {
  VIGILO_RETURN_IF_ERROR(CheckValidity(values.size(), validity, "row"));
  for (size_t i = 0; i < values.size(); ++i) {
    if (IsNull(validity, i)) continue;
    std::string_view v = values[i];
    if (type_ == Type::kFixedLenByteArray && v.size() != static_cast<size_t>(spec_.type_length)) {
      return InvalidArgument("value at row " + std::to_string(i) + " has " + std::to_string(v.size()) +
                             " bytes; FIXED_LEN_BYTE_ARRAY(" + std::to_string(spec_.type_length) + ") needs exactly " +
                             std::to_string(spec_.type_length));
    }
    // A PLAIN length prefix is 4 bytes, and a page must fit int32.
    if (v.size() > static_cast<size_t>(INT32_MAX) - 4) {
      return LimitExceeded("value at row " + std::to_string(i) + " is longer than a page can hold");
    }
    if (spec_.kind == ColumnKind::kString && !IsValidUtf8(v)) {
      return InvalidArgument("STRING value at row " + std::to_string(i) + " is not valid UTF-8");
    }
  }
  for (size_t i = 0; i < values.size(); ++i) {
    bool present = !IsNull(validity, i);
    AddRowLevel(present);
    if (present) AddByteArray(values[i]);
    EndRow();
  }
  return error_;
}

Status ColumnChunkWriter::WriteFloatList(std::span<const int64_t> offsets, std::span<const float> elements,
                                         std::span<const uint8_t> validity,
                                         std::span<const uint8_t> element_validity) {
  if (offsets.empty()) return InvalidArgument("list offsets need rows + 1 entries (at least one)");
  size_t rows = offsets.size() - 1;
  VIGILO_RETURN_IF_ERROR(CheckValidity(rows, validity, "row"));
  if (offsets[0] < 0) return InvalidArgument("list offsets[0] is negative");
  for (size_t i = 0; i < rows; ++i) {
    if (offsets[i + 1] < offsets[i]) {
      return InvalidArgument("list offsets decrease at row " + std::to_string(i) + " (" +
                             std::to_string(offsets[i]) + " then " + std::to_string(offsets[i + 1]) + ")");
    }
    if (IsNull(validity, i) && offsets[i + 1] != offsets[i]) {
      return InvalidArgument("null list at row " + std::to_string(i) + " has elements");
    }
  }
  if (static_cast<uint64_t>(offsets[rows]) > elements.size()) {
    return InvalidArgument("list offsets end at " + std::to_string(offsets[rows]) + " but there are " +
                           std::to_string(elements.size()) + " elements");
  }
  VIGILO_RETURN_IF_ERROR(CheckValidity(elements.size(), element_validity, "element"));

  // Levels: a null list is def 0; an empty list def d_list; a null element
  // def d_list + 1; a present element max_def. Each list starts at rep 0.
  const auto d_list = static_cast<uint8_t>(spec_.optional ? 1 : 0);
  const auto d_slot = static_cast<uint8_t>(d_list + 1);
  const auto d_max = static_cast<uint8_t>(max_def_);
  for (size_t i = 0; i < rows; ++i) {
    auto begin = static_cast<size_t>(offsets[i]);
    auto end = static_cast<size_t>(offsets[i + 1]);
    if (begin == end) {
      rep_.push_back(0);
      def_.push_back(IsNull(validity, i) ? 0 : d_list);
      ++page_values_;
      page_stats_.AddNulls(1);
    }
    for (size_t k = begin; k < end; ++k) {
      rep_.push_back(k == begin ? 0 : 1);
      ++page_values_;
      if (IsNull(element_validity, k)) {
        def_.push_back(d_slot);
        page_stats_.AddNulls(1);
        continue;
      }
      def_.push_back(d_max);
      AddValueBytes(Bytes(elements[k]));
      page_stats_.AddFloating(static_cast<double>(elements[k]));
    }
    EndRow();
  }
  return error_;
}

}  // namespace vigilo::parquet
