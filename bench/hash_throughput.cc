// Single-threaded BLAKE3 and SHA-256 throughput, best of N runs.
//
//   hash_throughput [--algo blake3|sha256|both] [--runs N] [FILE]
//
// With FILE, each run is a full DigestFile() — the path `vigilo hash` takes,
// read(2) into a 1 MiB buffer included. Without FILE, hashes an in-memory
// 256 MiB buffer (pure hashing speed). Prints one line per algorithm:
//   <algo> <MiB/s> <bytes> <best seconds>
// bench/hash.sh parses that output.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "vigilo/hash/blake3.h"
#include "vigilo/hash/file_digest.h"
#include "vigilo/hash/sha256.h"

namespace {

constexpr size_t kInMemoryBytes = size_t{256} << 20;

int Usage() {
  std::fprintf(stderr, "usage: hash_throughput [--algo blake3|sha256|both] [--runs N] [FILE]\n");
  return 2;
}

// Best wall-clock seconds of `runs` calls; `fn` returns false on error.
double BestSeconds(int runs, const std::function<bool()>& fn) {
  double best = 1e300;
  for (int i = 0; i < runs; ++i) {
    auto start = std::chrono::steady_clock::now();
    if (!fn()) std::exit(1);
    std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
    if (took.count() < best) best = took.count();
  }
  return best;
}

void Report(const char* algo, uint64_t bytes, double seconds) {
  std::printf("%s %.1f %llu %.6f\n", algo, static_cast<double>(bytes) / (1024.0 * 1024.0) / seconds,
              static_cast<unsigned long long>(bytes), seconds);
}

// Keeps the optimiser from discarding a digest nobody reads.
volatile uint8_t g_sink;

}  // namespace

int main(int argc, char** argv) {
  std::string algo = "both";
  int runs = 3;
  std::string file;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--algo" && i + 1 < argc) {
      algo = argv[++i];
    } else if (arg == "--runs" && i + 1 < argc) {
      runs = std::atoi(argv[++i]);
    } else if (!arg.empty() && arg[0] != '-' && file.empty()) {
      file = arg;
    } else {
      return Usage();
    }
  }
  if (runs < 1 || (algo != "blake3" && algo != "sha256" && algo != "both")) return Usage();
  const bool want_b3 = algo != "sha256";
  const bool want_sha = algo != "blake3";

  if (!file.empty()) {
    uint64_t bytes = 0;
    auto digest = [&](bool b3, bool sha) {
      return [&file, &bytes, b3, sha] {
        auto d = vigilo::DigestFile(file, b3, sha);
        if (!d.ok()) {
          std::fprintf(stderr, "hash_throughput: %s\n", d.status().ToString().c_str());
          return false;
        }
        bytes = d->size;
        g_sink = b3 ? (*d->blake3)[0] : (*d->sha256)[0];
        return true;
      };
    };
    if (want_b3) Report("blake3", bytes, BestSeconds(runs, digest(true, false)));
    if (want_sha) Report("sha256", bytes, BestSeconds(runs, digest(false, true)));
    return 0;
  }

  std::vector<uint8_t> buf(kInMemoryBytes);
  uint64_t x = 0x243f6a8885a308d3u;  // xorshift64: incompressible, cheap to make
  for (uint8_t& b : buf) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    b = static_cast<uint8_t>(x >> 56);
  }
  if (want_b3) {
    Report("blake3", buf.size(), BestSeconds(runs, [&] {
             g_sink = vigilo::Blake3(buf)[0];
             return true;
           }));
  }
  if (want_sha) {
    Report("sha256", buf.size(), BestSeconds(runs, [&] {
             auto d = vigilo::Sha256(buf);
             if (!d.ok()) return false;
             g_sink = (*d)[0];
             return true;
           }));
  }
  return 0;
}
