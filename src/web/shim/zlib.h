// WebAssembly build only (docs/format/wasm.md): the part of zlib the read
// core uses, CRC-32 for page checksums (src/web/shims.cc). Emscripten's zlib
// port downloads its sources at build time, which this build does not do;
// GZIP pages are declined by parquet/compression.cc (built with no codec library here).
#pragma once

#include <stddef.h>

typedef unsigned char Bytef;
typedef unsigned int uInt;
typedef unsigned long uLong;

#ifdef __cplusplus
extern "C" {
#endif
uLong crc32(uLong crc, const Bytef* buf, uInt len);
#ifdef __cplusplus
}
#endif
