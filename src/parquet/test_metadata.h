// Test fixtures shared by the parquet tests: a metadata value that uses every
// modelled field, and a fake file laid out to match it.
#pragma once

#include <cstdint>
#include <vector>

#include "vigilo/parquet/metadata.h"

namespace vigilo::parquet::testing {

// Two row groups over a schema with nested lists, decimals, timestamps, an
// unmodelled logical type and statistics; chunk offsets describe a file
// whose data area is [4, 4 + RichDataSize()).
FileMetaData RichMetaData();
uint64_t RichDataSize();

// A minimal valid metadata: one INT32 column "cid", one row group of `rows`.
FileMetaData SingleColumnMetaData(int64_t rows, int64_t chunk_size);

// "PAR1" + data_size zero bytes + EncodeFooter(metadata).
std::vector<uint8_t> BuildFile(const FileMetaData& metadata, uint64_t data_size);

// Offset of the encoded FileMetaData inside BuildFile's result.
inline uint64_t FooterOffset(uint64_t data_size) { return 4 + data_size; }

}  // namespace vigilo::parquet::testing
