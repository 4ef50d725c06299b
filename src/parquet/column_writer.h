// Private to src/parquet: one column's chunk within the open row group.
// It turns validated batches into levels and PLAIN (or dictionary) values,
// cuts pages at row boundaries, compresses them and keeps the encoded chunk
// until the file writer emits it at EndRowGroup.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "statistics_builder.h"
#include "vigilo/parquet/writer.h"

namespace vigilo::parquet {

class ColumnChunkWriter {
 public:
  ColumnChunkWriter(const ColumnSpec& spec, const WriterOptions& options);

  const ColumnSpec& spec() const { return spec_; }
  Type physical_type() const { return type_; }
  int64_t rows() const { return chunk_rows_; }
  // An encoding failure (compression, a size past int32) while appending;
  // the chunk is then unusable and the file writer stops.
  const Status& error() const { return error_; }

  // Each checks the whole batch before changing any state, so a rejected
  // batch leaves the chunk as it was.
  Status WriteBoolean(std::span<const uint8_t> values, std::span<const uint8_t> validity);
  Status WriteInt32(std::span<const int32_t> values, std::span<const uint8_t> validity);
  Status WriteInt64(std::span<const int64_t> values, std::span<const uint8_t> validity);
  Status WriteFloat(std::span<const float> values, std::span<const uint8_t> validity);
  Status WriteDouble(std::span<const double> values, std::span<const uint8_t> validity);
  Status WriteByteArray(std::span<const std::string_view> values, std::span<const uint8_t> validity);
  Status WriteFloatList(std::span<const int64_t> offsets, std::span<const float> elements,
                        std::span<const uint8_t> validity, std::span<const uint8_t> element_validity);

  // Encodes what is pending and returns the chunk's bytes; *md gets the
  // chunk's metadata with page offsets relative to `file_offset`, where the
  // caller will put the bytes. Resets the writer for the next row group.
  Result<std::vector<uint8_t>> FinishChunk(int64_t file_offset, ColumnMetaData* md);

 private:
  // A dictionary-encoded page waits for the dictionary page, which comes first.
  struct PendingPage {
    std::vector<uint8_t> rep, def;
    std::vector<uint32_t> indices;
    int64_t num_values = 0;
    StatisticsBuilder stats;
  };

  Status CheckValidity(size_t rows, std::span<const uint8_t> validity, std::string_view what) const;
  // Level bookkeeping for one top-level value or null.
  void AddRowLevel(bool present);
  void AddValueBytes(std::string_view plain);  // PLAIN bytes of one value
  void AddByteArray(std::string_view v);
  void EndRow();
  Status FlushPage();
  void FallBackToPlain();
  Status EncodeDataPage(const std::vector<uint8_t>& rep, const std::vector<uint8_t>& def, int64_t num_values,
                        Encoding encoding, const std::vector<uint8_t>& values, const StatisticsBuilder& stats);
  Status EncodePage(PageHeader header, const std::vector<uint8_t>& body);
  void ResetPage();

  ColumnSpec spec_;
  const WriterOptions& options_;
  Type type_;
  int16_t max_def_ = 0;
  int16_t max_rep_ = 0;
  bool dictionary_ = false;  // this chunk is (still) dictionary-encoded
  Status error_;             // the first encoding failure

  // The open page.
  std::vector<uint8_t> rep_, def_;
  std::vector<uint8_t> values_;     // PLAIN values (booleans: one byte each, packed at flush)
  std::vector<uint32_t> indices_;   // dictionary mode
  int64_t page_values_ = 0;         // level entries
  uint64_t page_plain_size_ = 0;
  StatisticsBuilder page_stats_;

  // The dictionary and the pages that use it.
  std::unordered_map<std::string, uint32_t> dict_index_;
  std::vector<std::string> dict_values_;
  uint64_t dict_plain_size_ = 0;
  std::vector<PendingPage> pending_;

  // The chunk so far.
  std::vector<uint8_t> bytes_;
  int64_t chunk_rows_ = 0;
  int64_t chunk_values_ = 0;
  int64_t uncompressed_size_ = 0;
  int32_t data_pages_ = 0;
  int64_t dictionary_page_size_ = 0;  // its compressed size including the header
  StatisticsBuilder chunk_stats_;
};

}  // namespace vigilo::parquet
