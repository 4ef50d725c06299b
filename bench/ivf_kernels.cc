// Residual-LVQ scoring kernels: rows/s on one core, per path, for d = 100 and
// 784, lvq8 and lvq4, l2_squared and cosine, with the row group in cache
// (4096 rows, scored repeatedly) and streamed from DRAM (256 MB of codes,
// scored in 4096-row groups), next to a memory-bandwidth ceiling: a plain
// streaming read (sum of 64-bit words) of the same bytes, codes plus the
// 8 bytes of offset and scale per row. It also checks that every available
// path returns bit-identical distances on the in-cache group (the float
// order is normative, docs/format/ivf-build-algorithms.md "Scoring kernels").
//
// Usage: ivf_kernels [seconds per measurement, default 0.3]
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "vigilo/ivf/lvq_kernels.h"

namespace {

using namespace vigilo::ivf;
using Clock = std::chrono::steady_clock;

volatile float g_sink_f = 0;
volatile uint64_t g_sink_u = 0;

uint64_t SplitMix(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

float Uniform(uint64_t& state, float lo, float hi) {
  return lo + (hi - lo) * static_cast<float>(SplitMix(state) >> 40) * 0x1p-24f;
}

// Seconds per call of fn: the best of three runs, each repeating fn until it
// has taken at least `seconds`.
template <typename Fn>
double SecondsPerCall(Fn&& fn, double seconds) {
  double best = 1e300;
  for (int run = 0; run < 3; ++run) {
    size_t calls = 0;
    const auto start = Clock::now();
    double elapsed = 0;
    do {
      fn();
      ++calls;
      elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    } while (elapsed < seconds);
    best = std::min(best, elapsed / static_cast<double>(calls));
  }
  return best;
}

struct Rows {
  size_t n = 0, bytes = 0;
  std::vector<uint8_t> codes;
  std::vector<float> offsets, scales;
};

Rows MakeRows(Encoding e, size_t d, size_t n, uint64_t seed) {
  Rows r;
  r.n = n;
  r.bytes = static_cast<size_t>(CodeBytes(e, d));
  r.codes.resize(n * r.bytes);
  uint64_t state = seed;
  size_t i = 0;
  for (; i + 8 <= r.codes.size(); i += 8) {
    const uint64_t x = SplitMix(state);
    std::memcpy(r.codes.data() + i, &x, 8);
  }
  for (; i < r.codes.size(); ++i) r.codes[i] = static_cast<uint8_t>(SplitMix(state));
  r.offsets.resize(n);
  r.scales.resize(n);
  for (size_t k = 0; k < n; ++k) {
    r.offsets[k] = Uniform(state, -1.0f, 0.0f);
    r.scales[k] = Uniform(state, 0.0f, 0.01f);
  }
  return r;
}

// Every 64-bit word of the buffer, four independent sums (the compiler
// vectorizes it): the read bandwidth a kernel touching the same bytes could reach.
uint64_t StreamSum(const uint8_t* p, size_t bytes) {
  uint64_t s[4] = {0, 0, 0, 0};
  size_t i = 0;
  for (; i + 32 <= bytes; i += 32) {
    for (int k = 0; k < 4; ++k) {
      uint64_t w;
      std::memcpy(&w, p + i + 8 * k, 8);
      s[k] += w;
    }
  }
  for (; i < bytes; ++i) s[0] += p[i];
  return s[0] + s[1] + s[2] + s[3];
}

void ScoreAll(KernelPath path, const ListContext& ctx, const Rows& r, size_t group, std::vector<float>& out) {
  for (size_t start = 0; start < r.n; start += group) {
    const size_t m = std::min(group, r.n - start);
    if (!ScoreRowsWith(path, ctx, m, r.offsets.data() + start, r.scales.data() + start,
                       r.codes.data() + start * r.bytes, out.data())
             .ok()) {
      std::fprintf(stderr, "ivf_kernels: path %s unavailable\n", std::string(KernelPathName(path)).c_str());
      std::exit(1);
    }
    g_sink_f = g_sink_f + out[0];
  }
}

std::string LoadAverage() {
  std::ifstream f("/proc/loadavg");
  std::string a, b, c;
  f >> a >> b >> c;
  return a + " " + b + " " + c;
}

}  // namespace

int main(int argc, char** argv) {
  const double seconds = argc > 1 ? std::atof(argv[1]) : 0.3;
  constexpr size_t kGroup = 4096;
  constexpr size_t kDramBytes = size_t{256} << 20;
  std::printf("dispatched kernel: %s; load average at start: %s\n\n", std::string(KernelName()).c_str(),
              LoadAverage().c_str());
  std::printf("| d | encoding | metric | path | in cache (4096 rows), rows/s | DRAM (256 MB), rows/s | DRAM GB/s "
              "| streaming-read ceiling, rows/s (GB/s) |\n");
  std::printf("|---:|---|---|---|---:|---:|---:|---:|\n");
  std::vector<float> out(kGroup);
  bool all_identical = true;
  for (size_t d : {size_t{100}, size_t{784}}) {
    for (Encoding e : {Encoding::kLvq8, Encoding::kLvq4}) {
      const size_t bytes = static_cast<size_t>(CodeBytes(e, d));
      const Rows cache = MakeRows(e, d, kGroup, 1);
      const Rows dram = MakeRows(e, d, kDramBytes / bytes, 2);
      // The ceiling reads the same bytes the DRAM pass reads: codes, offsets, scales.
      const double stream_s = SecondsPerCall(
          [&] {
            g_sink_u = g_sink_u + StreamSum(dram.codes.data(), dram.codes.size()) +
                       StreamSum(reinterpret_cast<const uint8_t*>(dram.offsets.data()), dram.n * 4) +
                       StreamSum(reinterpret_cast<const uint8_t*>(dram.scales.data()), dram.n * 4);
          },
          seconds);
      const double row_bytes = static_cast<double>(bytes + 8);
      const double stream_gbs = static_cast<double>(dram.n) * row_bytes / stream_s / 1e9;
      uint64_t state = 3;
      std::vector<float> q(d), centroid(d);
      for (size_t i = 0; i < d; ++i) {
        q[i] = Uniform(state, -1.0f, 1.0f);
        centroid[i] = Uniform(state, -1.0f, 1.0f);
      }
      for (Metric m : {Metric::kL2Squared, Metric::kCosine}) {
        auto ctx = PrepareList(m, e, q, centroid);
        if (!ctx.ok()) {
          std::fprintf(stderr, "ivf_kernels: %s\n", ctx.status().ToString().c_str());
          return 1;
        }
        std::vector<float> first;
        for (KernelPath path : {KernelPath::kAvx2, KernelPath::kScalar, KernelPath::kPortable}) {
          if (!KernelPathAvailable(path)) continue;
          ScoreAll(path, *ctx, cache, kGroup, out);
          if (first.empty()) {
            first = out;
          } else if (std::memcmp(first.data(), out.data(), kGroup * sizeof(float)) != 0) {
            std::printf("ivf_kernels: %s differs from the first path at d=%zu\n",
                        std::string(KernelPathName(path)).c_str(), d);
            all_identical = false;
          }
          const double cache_s = SecondsPerCall([&] { ScoreAll(path, *ctx, cache, kGroup, out); }, seconds);
          const double dram_s = SecondsPerCall([&] { ScoreAll(path, *ctx, dram, kGroup, out); }, seconds);
          const double dram_rows = static_cast<double>(dram.n) / dram_s;
          std::printf("| %zu | %s | %s | %s | %.3g M | %.3g M | %.2f | %.3g M (%.1f) |\n", d,
                      std::string(EncodingName(e)).c_str(), std::string(MetricName(m)).c_str(),
                      std::string(KernelPathName(path)).c_str(), static_cast<double>(kGroup) / cache_s / 1e6,
                      dram_rows / 1e6, dram_rows * row_bytes / 1e9,
                      static_cast<double>(dram.n) / stream_s / 1e6, stream_gbs);
          std::fflush(stdout);
        }
      }
    }
  }
  std::printf("\nall paths bit-identical: %s\nload average at end: %s\n", all_identical ? "yes" : "NO",
              LoadAverage().c_str());
  return all_identical ? 0 : 1;
}
