// Residual-LVQ scoring kernels: rows/s on one core, per path, for d = 100 and
// 784, lvq8 and lvq4, l2_squared and cosine, with the row group in cache
// (4096 rows, scored repeatedly) and streamed from DRAM (256 MB of codes,
// scored in 4096-row groups), next to a memory-bandwidth ceiling: a plain
// streaming read (sum of 64-bit words) of the same bytes, codes plus the
// 8 bytes of offset and scale per row. It also checks that every available
// path returns bit-identical distances on the in-cache group (the float
// order is normative, docs/format/ivf-build-algorithms.md "Scoring kernels").
// Per path (avx512, avx2, portable, scalar: every one this CPU has) two
// passes: `score`, the exact kernels (ScoreRows), and for LVQ8 `screen`, the
// integer bounds a query computes for every probed row (ScreenBlock; "Screening"),
// each with its DRAM rate as a fraction of the ceiling (the median of 5
// rounds measuring the kernel and the ceiling in turn: PairedRounds). That table's memory
// is on 4 KiB pages (what `index query` reads through a file mapping); a
// second one streams the dispatched LVQ8 kernels from 2 MiB pages (what
// `index eval` reads, its objects resident). A third ("Probed lists") reads
// rows the way a one-at-a-time query does: 64 row groups of 64 or 256 rows at
// random places on 2 MiB pages a call, the dispatched LVQ8 screen against a
// streaming read of the same rows, whose rate is an `index eval` query's
// memory floor (bench/ivf_query.sh divides a query's rows by it). The CPU's
// model name heads the output: the rates belong to it.
//
// Time is the thread's CPU time (CLOCK_THREAD_CPUTIME_ID), not wall time: on
// a machine shared with other jobs the wall clock also counts the slices the
// thread waited for a core. (Memory bandwidth taken by others still counts.)
//
// Usage: ivf_kernels [seconds per measurement, default 0.3] [d, default both 100 and 784]
#include <sys/mman.h>

#include <algorithm>
#include <ctime>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <new>
#include <string>
#include <vector>

#include "../src/ivf/lvq_screen_internal.h"
#include "vigilo/ivf/lvq_kernels.h"

namespace {

using namespace vigilo::ivf;

// The calling thread's CPU time in seconds.
double ThreadSeconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

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

// Seconds per call of fn in one run repeating it until it has taken at least `seconds`.
template <typename Fn>
double SecondsPerCallOnce(Fn&& fn, double seconds) {
  size_t calls = 0;
  const double start = ThreadSeconds();
  double elapsed = 0;
  do {
    fn();
    ++calls;
    elapsed = ThreadSeconds() - start;
  } while (elapsed < seconds);
  return elapsed / static_cast<double>(calls);
}

// Seconds per call of fn: the best of three runs (SecondsPerCallOnce).
template <typename Fn>
double SecondsPerCall(Fn&& fn, double seconds) {
  double best = 1e300;
  for (int run = 0; run < 3; ++run) best = std::min(best, SecondsPerCallOnce(fn, seconds));
  return best;
}

// A kernel's rate over the streaming-read ceiling of the same memory, both
// in rows per second. On a host shared with other jobs the bandwidth left to
// this core drifts by tens of percent within a minute, so a ceiling measured
// once and a kernel measured later give a ratio that drifts with it. Here
// they are measured in kRounds interleaved pairs (which one goes first
// alternates), and the ratio is the median of the pairs' ratios, with its range.
struct Paired {
  double kernel_rows = 0, ceiling_rows = 0;  // medians over the rounds
  double ratio = 0, ratio_lo = 0, ratio_hi = 0;
};

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

template <typename Kernel, typename Ceiling>
Paired PairedRounds(double kernel_rows_per_call, Kernel&& kernel, double ceiling_rows_per_call, Ceiling&& ceiling,
                    double seconds) {
  constexpr int kRounds = 5;
  std::vector<double> k, c, ratio;
  for (int round = 0; round < kRounds; ++round) {
    double ks = 0, cs = 0;
    if (round % 2 == 0) {
      ks = SecondsPerCallOnce(kernel, seconds);
      cs = SecondsPerCallOnce(ceiling, seconds);
    } else {
      cs = SecondsPerCallOnce(ceiling, seconds);
      ks = SecondsPerCallOnce(kernel, seconds);
    }
    k.push_back(kernel_rows_per_call / ks);
    c.push_back(ceiling_rows_per_call / cs);
    ratio.push_back(k.back() / c.back());
  }
  Paired p;
  p.kernel_rows = Median(k);
  p.ceiling_rows = Median(c);
  p.ratio = Median(ratio);
  p.ratio_lo = *std::min_element(ratio.begin(), ratio.end());
  p.ratio_hi = *std::max_element(ratio.begin(), ratio.end());
  return p;
}

// The page size the buffers ask the kernel for: 4 KiB (MADV_NOHUGEPAGE: a
// file mapping's pages, as `index query` reads a local publication) or 2 MiB
// (MADV_HUGEPAGE: as `index eval` reads one, its objects held in memory by
// store::ResidentStore; granted where transparent huge pages are not "never").
enum class PageKind { k4KiB, k2MiB };

template <typename T>
struct Pages {
  using value_type = T;
  PageKind kind = PageKind::k4KiB;
  Pages() = default;
  explicit Pages(PageKind k) : kind(k) {}
  template <typename U>
  Pages(const Pages<U>& other) : kind(other.kind) {}
  T* allocate(size_t n) {
    constexpr size_t kPage = size_t{2} << 20;
    const size_t bytes = (n * sizeof(T) + kPage - 1) / kPage * kPage;
    void* p = std::aligned_alloc(kPage, bytes);
    if (p == nullptr) throw std::bad_alloc();
    ::madvise(p, bytes, kind == PageKind::k2MiB ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
    return static_cast<T*>(p);
  }
  void deallocate(T* p, size_t) { std::free(p); }
  template <typename U>
  bool operator==(const Pages<U>& other) const { return kind == other.kind; }
};

struct Rows {
  explicit Rows(PageKind kind) : codes(Pages<uint8_t>(kind)), offsets(Pages<float>(kind)), scales(Pages<float>(kind)) {}
  size_t n = 0, bytes = 0;
  std::vector<uint8_t, Pages<uint8_t>> codes;
  std::vector<float, Pages<float>> offsets, scales;
};

Rows MakeRows(Encoding e, size_t d, size_t n, uint64_t seed, PageKind kind = PageKind::k4KiB) {
  Rows r(kind);
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

// The query and centroid every measurement uses: d uniform values in [−1, 1) each.
void QueryAndCentroid(size_t d, std::vector<float>& q, std::vector<float>& centroid) {
  uint64_t state = 3;
  q.resize(d);
  centroid.resize(d);
  for (size_t i = 0; i < d; ++i) {
    q[i] = Uniform(state, -1.0f, 1.0f);
    centroid[i] = Uniform(state, -1.0f, 1.0f);
  }
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

// The streaming-read ceiling of r: a plain read of the bytes a DRAM pass
// reads (codes, offsets, scales), r.n rows a call.
void StreamAll(const Rows& r) {
  g_sink_u = g_sink_u + StreamSum(r.codes.data(), r.codes.size()) +
             StreamSum(reinterpret_cast<const uint8_t*>(r.offsets.data()), r.n * 4) +
             StreamSum(reinterpret_cast<const uint8_t*>(r.scales.data()), r.n * 4);
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

// Screens every row of r in groups (the bounds a query computes before it scores).
void ScreenAll(KernelPath path, const screen::ScreenContext& ctx, const Rows& r, size_t group, std::vector<float>& lower,
               std::vector<float>& upper) {
  for (size_t start = 0; start < r.n; start += group) {
    const size_t m = std::min(group, r.n - start);
    const RowBlock block{m, r.offsets.data() + start, r.scales.data() + start, r.codes.data() + start * r.bytes, r.bytes,
                         nullptr};
    if (!screen::ScreenBlockWith(path, ctx, block, lower.data(), upper.data()).ok()) {
      std::fprintf(stderr, "ivf_kernels: path %s unavailable\n", std::string(KernelPathName(path)).c_str());
      std::exit(1);
    }
    g_sink_f = g_sink_f + lower[0];
  }
}

// Row groups of `group` rows at random places in r (the starts cycle
// through a fixed random list, so every call visits new places): the
// pattern of a query's probed lists, each read once from DRAM, where the
// hardware prefetcher restarts at every list.
struct Scattered {
  std::vector<size_t> starts;
  size_t next = 0;
  size_t group = 0;
  static constexpr size_t kPerCall = 64;  // lists a call visits (a query's nprobe)
  Scattered(const Rows& r, size_t g, uint64_t seed) : group(g) {
    uint64_t state = seed;
    starts.resize(size_t{1} << 16);
    for (size_t& s : starts) s = SplitMix(state) % (r.n - g);
  }
  template <typename Fn>
  void Visit(Fn&& fn) {
    for (size_t k = 0; k < kPerCall; ++k) {
      fn(starts[next]);
      next = (next + 1) % starts.size();
    }
  }
};

std::string CpuModel() {
  std::ifstream f("/proc/cpuinfo");
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind("model name", 0) == 0) {
      const size_t colon = line.find(':');
      return colon == std::string::npos ? line : line.substr(colon + 2);
    }
  }
  return "unknown";
}

std::string LoadAverage() {
  std::ifstream f("/proc/loadavg");
  std::string a, b, c;
  f >> a >> b >> c;
  return a + " " + b + " " + c;
}

constexpr KernelPath kPaths[] = {KernelPath::kAvx512, KernelPath::kAvx2, KernelPath::kPortable, KernelPath::kScalar};

}  // namespace

int main(int argc, char** argv) {
  const double seconds = argc > 1 ? std::atof(argv[1]) : 0.3;
  const size_t only_d = argc > 2 ? static_cast<size_t>(std::atol(argv[2])) : 0;
  constexpr size_t kGroup = 4096;
  constexpr size_t kDramBytes = size_t{256} << 20;
  std::printf("cpu: %s; dispatched kernel: %s; rates per second of thread CPU time; load average at start: %s\n\n", CpuModel().c_str(),
              std::string(KernelName()).c_str(), LoadAverage().c_str());
  std::printf("| d | encoding | metric | pass | path | in cache (4096 rows), rows/s | DRAM (256 MB), rows/s | DRAM GB/s "
              "| streaming-read ceiling, rows/s (GB/s) | DRAM ÷ ceiling (range) |\n");
  std::printf("|---:|---|---|---|---|---:|---:|---:|---:|---:|\n");
  std::vector<float> out(kGroup), lower(kGroup), upper(kGroup);
  bool all_identical = true;
  for (size_t d : {size_t{100}, size_t{784}}) {
    if (only_d != 0 && d != only_d) continue;
    for (Encoding e : {Encoding::kLvq8, Encoding::kLvq4}) {
      const size_t bytes = static_cast<size_t>(CodeBytes(e, d));
      const Rows cache = MakeRows(e, d, kGroup, 1);
      const Rows dram = MakeRows(e, d, kDramBytes / bytes, 2);
      const double row_bytes = static_cast<double>(bytes + 8);
      std::vector<float> q, centroid;
      QueryAndCentroid(d, q, centroid);
      // The kernel over dram in interleaved rounds with the streaming read of it.
      auto against_ceiling = [&](auto&& kernel) {
        const double n = static_cast<double>(dram.n);
        return PairedRounds(n, kernel, n, [&] { StreamAll(dram); }, seconds);
      };
      auto report = [&](const char* pass, KernelPath path, Metric m, double cache_s, const Paired& p) {
        std::printf("| %zu | %s | %s | %s | %s | %.3g M | %.3g M | %.2f | %.3g M (%.1f) | %.2f (%.2f–%.2f) |\n", d,
                    std::string(EncodingName(e)).c_str(), std::string(MetricName(m)).c_str(), pass,
                    std::string(KernelPathName(path)).c_str(), static_cast<double>(kGroup) / cache_s / 1e6,
                    p.kernel_rows / 1e6, p.kernel_rows * row_bytes / 1e9, p.ceiling_rows / 1e6,
                    p.ceiling_rows * row_bytes / 1e9, p.ratio, p.ratio_lo, p.ratio_hi);
        std::fflush(stdout);
      };
      for (Metric m : {Metric::kL2Squared, Metric::kCosine}) {
        auto ctx = PrepareList(m, e, q, centroid);
        if (!ctx.ok()) {
          std::fprintf(stderr, "ivf_kernels: %s\n", ctx.status().ToString().c_str());
          return 1;
        }
        std::vector<float> first;
        for (KernelPath path : kPaths) {
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
          report("score", path, m, cache_s, against_ceiling([&] { ScoreAll(path, *ctx, dram, kGroup, out); }));
        }
        if (e != Encoding::kLvq8) continue;  // postings of LVQ4 are not screened
        screen::ScreenContext sctx;
        screen::PrepareScreen(*ctx, sctx, screen::PostingsScreenWeights(m, d));
        std::vector<float> first_lower;
        for (KernelPath path : kPaths) {
          if (!KernelPathAvailable(path) || path == KernelPath::kScalar) continue;  // scalar screens as portable
          ScreenAll(path, sctx, cache, kGroup, lower, upper);
          if (first_lower.empty()) {
            first_lower = lower;
          } else if (std::memcmp(first_lower.data(), lower.data(), kGroup * sizeof(float)) != 0) {
            std::printf("ivf_kernels: the %s screen differs from the first path at d=%zu\n",
                        std::string(KernelPathName(path)).c_str(), d);
            all_identical = false;
          }
          const double cache_s = SecondsPerCall([&] { ScreenAll(path, sctx, cache, kGroup, lower, upper); }, seconds);
          report("screen", path, m, cache_s,
                 against_ceiling([&] { ScreenAll(path, sctx, dram, kGroup, lower, upper); }));
        }
      }
    }
  }
  // On 2 MiB pages (what `index eval` reads, its objects resident): the
  // dispatched LVQ8 kernels streaming 256 MB against the plain read of the
  // same memory, then the probed lists. Both tables are printed after the
  // measurements (one buffer of rows serves both).
  const KernelPath dispatched = DispatchedKernelPath();
  std::vector<std::string> streamed, probed;
  auto line = [](auto... args) {
    char buffer[512];
    std::snprintf(buffer, sizeof buffer, args...);
    return std::string(buffer);
  };
  for (size_t d : {size_t{100}, size_t{784}}) {
    if (only_d != 0 && d != only_d) continue;
    const size_t bytes = static_cast<size_t>(CodeBytes(Encoding::kLvq8, d));
    const Rows dram = MakeRows(Encoding::kLvq8, d, kDramBytes / bytes, 2, PageKind::k2MiB);
    std::vector<float> q, centroid;
    QueryAndCentroid(d, q, centroid);
    {
      const double row_bytes = static_cast<double>(bytes + 8), n = static_cast<double>(dram.n);
      for (Metric m : {Metric::kL2Squared, Metric::kCosine}) {
        auto ctx = PrepareList(m, Encoding::kLvq8, q, centroid);
        if (!ctx.ok()) return 1;
        screen::ScreenContext sctx;
        screen::PrepareScreen(*ctx, sctx, screen::PostingsScreenWeights(m, d));
        for (const char* pass : {"score", "screen"}) {
          const bool screening = std::string_view(pass) == "screen";
          const Paired p = PairedRounds(
              n,
              [&] {
                if (screening) {
                  ScreenAll(dispatched, sctx, dram, kGroup, lower, upper);
                } else {
                  ScoreAll(dispatched, *ctx, dram, kGroup, out);
                }
              },
              n, [&] { StreamAll(dram); }, seconds);
          streamed.push_back(line("| %zu | %s | %s | %.3g M | %.2f | %.3g M (%.1f) | %.2f (%.2f–%.2f) |", d,
                                  std::string(MetricName(m)).c_str(), pass, p.kernel_rows / 1e6,
                                  p.kernel_rows * row_bytes / 1e9, p.ceiling_rows / 1e6,
                                  p.ceiling_rows * row_bytes / 1e9, p.ratio, p.ratio_lo, p.ratio_hi));
        }
      }
    }
    for (size_t group : {size_t{64}, size_t{256}}) {
      if (lower.size() < group) lower.resize(group), upper.resize(group);
      Scattered at(dram, group, 5);
      auto stream = [&] {
        at.Visit([&](size_t start) {
          g_sink_u = g_sink_u + StreamSum(dram.codes.data() + start * bytes, group * bytes) +
                     StreamSum(reinterpret_cast<const uint8_t*>(dram.offsets.data() + start), group * 4) +
                     StreamSum(reinterpret_cast<const uint8_t*>(dram.scales.data() + start), group * 4);
        });
      };
      const double rows = static_cast<double>(Scattered::kPerCall * group);
      for (Metric m : {Metric::kL2Squared, Metric::kCosine}) {
        auto ctx = PrepareList(m, Encoding::kLvq8, q, centroid);
        if (!ctx.ok()) return 1;
        screen::ScreenContext sctx;
        screen::PrepareScreen(*ctx, sctx, screen::PostingsScreenWeights(m, d));
        const Paired p = PairedRounds(
            rows,
            [&] {
              at.Visit([&](size_t start) {
                const RowBlock block{group, dram.offsets.data() + start, dram.scales.data() + start,
                                     dram.codes.data() + start * bytes, bytes, nullptr};
                screen::ScreenBlock(sctx, block, lower.data(), upper.data());
                g_sink_f = g_sink_f + lower[0];
              });
            },
            rows, stream, seconds);
        probed.push_back(line("| %zu | %s | %zu | %.3g M | %.3g M (%.1f) | %.2f (%.2f–%.2f) |", d,
                              std::string(MetricName(m)).c_str(), group, p.kernel_rows / 1e6, p.ceiling_rows / 1e6,
                              p.ceiling_rows * static_cast<double>(bytes + 8) / 1e9, p.ratio, p.ratio_lo, p.ratio_hi));
      }
    }
  }
  std::printf("\nStreaming from 2 MiB pages: the dispatched (%s) LVQ8 kernels over 256 MB against a streaming read of "
              "the same memory\n\n",
              std::string(KernelPathName(dispatched)).c_str());
  std::printf("| d | metric | pass | DRAM (256 MB), rows/s | DRAM GB/s | streaming-read ceiling, rows/s (GB/s) | DRAM ÷ "
              "ceiling (range) |\n");
  std::printf("|---:|---|---|---:|---:|---:|---:|\n");
  for (const std::string& row : streamed) std::printf("%s\n", row.c_str());
  // Probed lists: the dispatched screen over row groups at random places
  // (Scattered) against a streaming read of the same groups' bytes. A
  // query's memory floor is its rows over the ceiling's rate.
  std::printf("\nProbed lists: %zu row groups of G rows at random places in 256 MB on 2 MiB pages a call, the "
              "dispatched LVQ8 screen against a streaming read of the same rows (codes, offsets, scales)\n\n",
              Scattered::kPerCall);
  std::printf("| d | metric | G rows | screen, rows/s | streaming-read ceiling, rows/s (GB/s) | screen ÷ ceiling (range) |\n");
  std::printf("|---:|---|---:|---:|---:|---:|\n");
  for (const std::string& row : probed) std::printf("%s\n", row.c_str());
  std::printf("\nall paths bit-identical: %s\nload average at end: %s\n", all_identical ? "yes" : "NO",
              LoadAverage().c_str());
  return all_identical ? 0 : 1;
}
