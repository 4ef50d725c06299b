// Native decode throughput: reads every column chunk of FILE into memory once,
// then decodes all of them --repeat times (default 5) and prints one line:
//   parquet_decode FILE rows=R chunks=C chunk_bytes=B decoded_values=V seconds=S rows_per_s=X mb_per_s=Y
// mb_per_s counts the chunks' stored (compressed) bytes, 10^6 bytes per MB;
// rows_per_s counts file rows (all columns decoded) per second.
// Freed buffers stay in the heap between repeats (mallopt below), so the
// numbers are decoding speed, not the kernel's first-touch page faults
// (which dominate on some VMs; pass --cold to measure those too).
#include <malloc.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "vigilo/parquet/local_file.h"

namespace pq = vigilo::parquet;

int main(int argc, char** argv) {
  bool cold = argc >= 3 && std::string(argv[argc - 1]) == "--cold";
  if (cold) --argc;
  if (argc != 2 && !(argc == 4 && std::string(argv[2]) == "--repeat")) {
    std::fprintf(stderr, "usage: parquet_decode FILE [--repeat N] [--cold]\n");
    return 2;
  }
  if (!cold) {
    mallopt(M_MMAP_THRESHOLD, 1 << 30);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
  }
  int repeat = argc == 4 ? std::atoi(argv[3]) : 5;
  if (repeat < 1) repeat = 1;
  auto file = pq::LocalParquetFile::Open(argv[1]);
  if (!file.ok()) {
    std::fprintf(stderr, "parquet_decode: %s\n", file.status().ToString().c_str());
    return 1;
  }
  const pq::Footer& footer = file->footer();
  struct Chunk {
    size_t row_group;
    size_t leaf;
    std::vector<uint8_t> bytes;
  };
  std::vector<Chunk> chunks;
  uint64_t chunk_bytes = 0;
  for (size_t g = 0; g < footer.metadata.row_groups.size(); ++g) {
    auto plan = pq::PlanRowGroup(footer, g);
    if (!plan.ok()) {
      std::fprintf(stderr, "parquet_decode: %s\n", plan.status().ToString().c_str());
      return 1;
    }
    for (const pq::ColumnChunkPlan& p : *plan) {
      auto bytes = file->Read(p.range);
      if (!bytes.ok()) {
        std::fprintf(stderr, "parquet_decode: %s\n", bytes.status().ToString().c_str());
        return 1;
      }
      chunk_bytes += bytes->size();
      chunks.push_back({g, p.leaf, std::move(bytes).value()});
    }
  }
  uint64_t values = 0;
  auto start = std::chrono::steady_clock::now();
  for (int r = 0; r < repeat; ++r) {
    for (const Chunk& c : chunks) {
      auto decoded = pq::DecodeColumnChunk(footer, c.row_group, c.leaf, c.bytes);
      if (!decoded.ok()) {
        std::fprintf(stderr, "parquet_decode: %s\n", decoded.status().ToString().c_str());
        return 1;
      }
      values += decoded->values.size();
    }
  }
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  double rows = static_cast<double>(footer.metadata.num_rows) * repeat;
  double mb = static_cast<double>(chunk_bytes) * repeat / 1e6;
  std::printf("parquet_decode %s rows=%lld chunks=%zu chunk_bytes=%llu decoded_values=%llu seconds=%.6f "
              "rows_per_s=%.0f mb_per_s=%.1f\n",
              argv[1], static_cast<long long>(footer.metadata.num_rows), chunks.size(),
              static_cast<unsigned long long>(chunk_bytes), static_cast<unsigned long long>(values / repeat),
              seconds, rows / seconds, mb / seconds);
  return 0;
}
