// Native decode throughput: decodes every column chunk of FILE --repeat times
// (default 5), after --warmup untimed passes (default 0), and prints one line:
//   parquet_decode FILE rows=R chunks=C chunk_bytes=B decoded_values=V seconds=S rows_per_s=X mb_per_s=Y
// mb_per_s counts the chunks' stored (compressed) bytes, 10^6 bytes per MB;
// rows_per_s counts file rows (all columns decoded) per second.
//
// Where the chunk bytes come from:
//   (default)  slices of a read-only mapping of the file (MappedFile), made
//              before timing; seconds = decoding only
//   --pread    each chunk read into its own buffer (LocalParquetFile::Read)
//              before timing; seconds = decoding only
//   --stream   each chunk read, inside the timed loop, into one buffer reused
//              from chunk to chunk (LocalParquetFile::ReadInto), then
//              decoded: what a reader that streams a file does; seconds =
//              reading + decoding
// Freed buffers stay in the heap between chunks and repeats (mallopt below),
// so the numbers are decoding speed, not the kernel's first-touch page faults
// (which dominate on some VMs; pass --cold to measure those too).
#include <malloc.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "vigilo/parquet/local_file.h"

namespace pq = vigilo::parquet;

namespace {

int Fail(const vigilo::Status& st) {
  std::fprintf(stderr, "parquet_decode: %s\n", st.ToString().c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  enum class Source { kMapped, kPread, kStream } source = Source::kMapped;
  bool cold = false;
  int repeat = 5;
  int warmup = 0;
  const char* path = nullptr;
  bool usage = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--cold") {
      cold = true;
    } else if (arg == "--pread") {
      source = Source::kPread;
    } else if (arg == "--stream") {
      source = Source::kStream;
    } else if (arg == "--repeat" && i + 1 < argc) {
      repeat = std::atoi(argv[++i]);
    } else if (arg == "--warmup" && i + 1 < argc) {
      warmup = std::atoi(argv[++i]);
    } else if (path == nullptr && arg.rfind("--", 0) != 0) {
      path = argv[i];
    } else {
      usage = true;
    }
  }
  if (path == nullptr || usage) {
    std::fprintf(stderr, "usage: parquet_decode FILE [--repeat N] [--warmup N] [--cold] [--pread | --stream]\n");
    return 2;
  }
  if (!cold) {
    mallopt(M_MMAP_THRESHOLD, 1 << 30);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
  }
  if (repeat < 1) repeat = 1;
  auto file = pq::LocalParquetFile::Open(path);
  if (!file.ok()) return Fail(file.status());
  std::optional<pq::MappedFile> mapped;
  if (source == Source::kMapped) {
    auto m = pq::MappedFile::Open(path);
    if (!m.ok()) return Fail(m.status());
    mapped.emplace(std::move(m).value());
  }
  const pq::Footer& footer = file->footer();
  struct Chunk {
    size_t row_group;
    size_t leaf;
    pq::ByteRange range;
    std::vector<uint8_t> owned;      // --pread
    std::span<const uint8_t> bytes;  // default and --pread
  };
  std::vector<Chunk> chunks;
  uint64_t chunk_bytes = 0;
  for (size_t g = 0; g < footer.metadata.row_groups.size(); ++g) {
    auto plan = pq::PlanRowGroup(footer, g);
    if (!plan.ok()) return Fail(plan.status());
    for (const pq::ColumnChunkPlan& p : *plan) {
      chunks.push_back({g, p.leaf, p.range, {}, {}});
      Chunk& c = chunks.back();
      if (source == Source::kMapped) {
        auto bytes = mapped->Slice(p.range);
        if (!bytes.ok()) return Fail(bytes.status());
        c.bytes = *bytes;
      } else if (source == Source::kPread) {
        auto bytes = file->Read(p.range);
        if (!bytes.ok()) return Fail(bytes.status());
        c.owned = std::move(bytes).value();
        c.bytes = c.owned;
      }
      chunk_bytes += p.range.length;
    }
  }
  std::vector<uint8_t> stream_buffer;
  uint64_t values = 0;
  // One pass over every chunk; returns 0 or the exit status.
  auto pass = [&]() -> int {
    for (const Chunk& c : chunks) {
      std::span<const uint8_t> bytes = c.bytes;
      if (source == Source::kStream) {
        auto read = file->ReadInto(c.range, stream_buffer);
        if (!read.ok()) return Fail(read.status());
        bytes = *read;
      }
      auto decoded = pq::DecodeColumnChunk(footer, c.row_group, c.leaf, bytes);
      if (!decoded.ok()) return Fail(decoded.status());
      values += decoded->values.size();
    }
    return 0;
  };
  for (int r = 0; r < warmup; ++r) {
    if (int rc = pass(); rc != 0) return rc;
  }
  values = 0;
  auto start = std::chrono::steady_clock::now();
  for (int r = 0; r < repeat; ++r) {
    if (int rc = pass(); rc != 0) return rc;
  }
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  double rows = static_cast<double>(footer.metadata.num_rows) * repeat;
  double mb = static_cast<double>(chunk_bytes) * repeat / 1e6;
  std::printf("parquet_decode %s rows=%lld chunks=%zu chunk_bytes=%llu decoded_values=%llu seconds=%.6f "
              "rows_per_s=%.0f mb_per_s=%.1f\n",
              path, static_cast<long long>(footer.metadata.num_rows), chunks.size(),
              static_cast<unsigned long long>(chunk_bytes), static_cast<unsigned long long>(values / repeat),
              seconds, rows / seconds, mb / seconds);
  return 0;
}
