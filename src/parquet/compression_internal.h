// What the page codecs' two halves share: compression.cc (decoding, in
// vigilo_parquet_read) and compression_encode.cc (Compress, in vigilo_parquet).
#pragma once

#include "vigilo/common/status.h"
#include "vigilo/parquet/compression.h"

namespace vigilo::parquet {

// Unimplemented naming a codec this build knows but was compiled without.
Status NotCompiledIn(CompressionCodec codec);

}  // namespace vigilo::parquet
