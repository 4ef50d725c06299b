// Internal to the column reader: the state of one column chunk's decode.
// column_reader.cc has the page loop (headers, decompression, values);
// chunk_levels.cc turns each page's levels into rows, list offsets and
// validity, with run-at-a-time fast paths for pages without nulls.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "value_decoder.h"
#include "vigilo/parquet/column_reader.h"

namespace vigilo::parquet::decode {

// Where a page's bytes are: offsets inside a decompressed buffer do not
// exist in the file, so errors there point at the page header instead.
struct PageSpot {
  size_t index = 0;      // page number in the chunk
  size_t header_at = 0;  // chunk offset of the page header
  size_t data_at = 0;    // chunk offset of the bytes being decoded, if raw
  bool raw = true;       // the bytes are the chunk's own (not decompressed)
};

// Adds the page path and a chunk offset (or the page header's, with the
// decompressed offset in the message) to an error.
Status Locate(Status st, const PageSpot& spot);

class ChunkDecoder {
 public:
  ChunkDecoder(const ColumnDescriptor& column, const ColumnMetaData& meta, const ColumnReadOptions& options)
      : column_(column), meta_(meta), options_(options), budget_(options.max_decoded_bytes) {
    out_.values.type = column.type;
    out_.values.type_length = column.type_length;
    dictionary_.type = column.type;
    dictionary_.type_length = column.type_length;
  }

  Result<DecodedColumn> Run(std::span<const uint8_t> bytes);

 private:
  Status Page(std::span<const uint8_t> bytes, size_t* pos, size_t index);
  Status DictionaryPage(const PageHeader& header, std::span<const uint8_t> page, const PageSpot& spot);
  Status DataPageV1(const PageHeader& header, std::span<const uint8_t> page, PageSpot spot);
  Status DataPageV2(const PageHeader& header, std::span<const uint8_t> page, PageSpot spot);
  Result<std::span<const uint8_t>> Inflate(std::span<const uint8_t> compressed, int64_t size);
  Status Values(Encoding encoding, std::span<const uint8_t> data, size_t count);
  Status CheckLevelEncoding(Encoding encoding, const char* which);
  void ReserveHint(uint64_t num_values, size_t chunk_bytes);

  // chunk_levels.cc. One page's n levels: `rep` and `def` are the level
  // sections as stored (v1: with their length prefix; empty when the column
  // has none), errors located at rep_spot / def_spot. Counts rows started
  // and non-null values.
  Status PageLevels(size_t n, bool length_prefixed, std::span<const uint8_t> rep, std::span<const uint8_t> def,
                    const PageSpot& rep_spot, const PageSpot& def_spot, int64_t* started, size_t* non_null);
  // The no-null fast path; *handled false leaves every output untouched.
  Status FastLevels(size_t n, std::span<const uint8_t> rep_stream, std::span<const uint8_t> def_stream,
                    int64_t* started, size_t* non_null, bool* handled);
  // The per-value path over the first n decoded levels in rep_/def_.
  Status Levels(size_t n, int64_t* rows_started, size_t* non_null);

  const ColumnDescriptor& column_;
  const ColumnMetaData& meta_;
  const ColumnReadOptions& options_;
  Budget budget_;
  DecodedColumn out_;
  ColumnValues dictionary_;
  bool has_dictionary_ = false;
  bool seen_data_ = false;
  uint64_t levels_seen_ = 0;
  // Scratch reused across pages (grown, never shrunk: see Scratch()).
  PageBuffer page_buf_;
  std::vector<uint16_t> rep_;
  std::vector<uint16_t> def_;
  std::vector<uint32_t> indices_;
  std::vector<int32_t> lengths_;
  std::vector<int32_t> suffixes_;
  // Row and list state carried across pages.
  uint64_t rows_ = 0;
  uint64_t slots_ = 0;
  bool row_has_elements_ = false;
  // The definition level the current row began with: an empty or null list
  // may be continued only by entries at that same level (padding, see Levels).
  int32_t row_start_def_ = 0;
};

}  // namespace vigilo::parquet::decode
