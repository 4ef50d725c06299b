#include "vigilo/ivf/lvq_kernels.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "lvq_kernels_internal.h"
#include "vigilo/ivf/lvq.h"

namespace vigilo::ivf {
namespace {

constexpr double kU = 0x1p-24;  // float32 unit roundoff

// One list's row group, laid out as a postings row group is.
struct Group {
  Metric metric = Metric::kL2Squared;
  Encoding enc = Encoding::kLvq8;
  size_t d = 0;
  std::vector<float> q, centroid;  // centroid = ĉ, already the decoded LVQ8 centroid
  std::vector<float> offsets, scales;
  std::vector<uint8_t> codes;  // n × CodeBytes(enc, d)
  size_t n() const { return offsets.size(); }
  size_t bytes() const { return static_cast<size_t>(CodeBytes(enc, d)); }
  const uint8_t* code(size_t r) const { return codes.data() + r * bytes(); }
};

std::vector<KernelPath> AvailablePaths() {
  std::vector<KernelPath> out;
  for (KernelPath p : {KernelPath::kScalar, KernelPath::kPortable, KernelPath::kAvx2, KernelPath::kAvx512}) {
    if (KernelPathAvailable(p)) out.push_back(p);
  }
  return out;
}

std::vector<float> Normal(std::mt19937& gen, size_t d, float mean, float sigma) {
  std::normal_distribution<float> dist(mean, sigma);
  std::vector<float> v(d);
  for (float& x : v) x = dist(gen);
  return v;
}

// A realistic group: ĉ the decoded LVQ8 code of a random centroid, rows
// x = centroid + noise residual-coded by the codec, q random near the list.
Group Realistic(std::mt19937& gen, Metric m, Encoding e, size_t d, size_t n) {
  Group g{m, e, d, {}, {}, {}, {}, {}};
  std::vector<float> center = Normal(gen, d, 0.0f, 1.0f);
  if (m == Metric::kCosine) {
    EXPECT_TRUE(NormalizeL2(center).ok());
  }
  auto rows = EncodeLvqRows(Encoding::kLvq8, center, d);
  EXPECT_TRUE(rows.ok());
  g.centroid = rows->decoded;
  g.q = Normal(gen, d, 0.0f, 1.0f);
  for (size_t i = 0; i < d; ++i) g.q[i] += center[i];
  if (m == Metric::kCosine) {
    EXPECT_TRUE(NormalizeL2(g.q).ok());
  }
  g.codes.resize(n * g.bytes());
  for (size_t r = 0; r < n; ++r) {
    std::vector<float> x = Normal(gen, d, 0.0f, 0.7f);
    for (size_t i = 0; i < d; ++i) x[i] += center[i];
    if (m == Metric::kCosine) {
      EXPECT_TRUE(NormalizeL2(x).ok());
    }
    auto p = EncodeResidual(e, x, g.centroid, std::span<uint8_t>(g.codes.data() + r * g.bytes(), g.bytes()));
    EXPECT_TRUE(p.ok()) << p.status().ToString();
    g.offsets.push_back(p->offset);
    g.scales.push_back(p->scale);
  }
  return g;
}

// Arbitrary bytes and parameters, as a kernel must take them: every code
// value, odd LVQ4 last high nibbles set (they must be ignored).
Group Arbitrary(std::mt19937& gen, Metric m, Encoding e, size_t d, size_t n, float off_mean, float off_sigma,
                float scale_max, float center_mean, float center_sigma) {
  Group g{m, e, d, {}, {}, {}, {}, {}};
  g.centroid = Normal(gen, d, center_mean, center_sigma);
  g.q = Normal(gen, d, center_mean + off_mean, center_sigma + off_sigma);
  std::uniform_int_distribution<int> byte(0, 255);
  std::uniform_real_distribution<float> scale(0.0f, scale_max);
  std::normal_distribution<float> offset(off_mean, off_sigma);
  g.codes.resize(n * g.bytes());
  for (uint8_t& b : g.codes) b = static_cast<uint8_t>(byte(gen));
  for (size_t r = 0; r < n; ++r) {
    g.offsets.push_back(offset(gen));
    g.scales.push_back(r % 5 == 0 ? 0.0f : scale(gen));  // scale 0: a constant residual
  }
  return g;
}

// The float64 reference: x̂ reconstructed by the normative decode
// (ReconstructResidual), then the distance in double.
double Reference(const Group& g, size_t r) {
  std::vector<float> x(g.d);
  EXPECT_TRUE(ReconstructResidual(g.enc, LvqParams{g.offsets[r], g.scales[r]},
                                  std::span<const uint8_t>(g.code(r), g.bytes()), g.centroid, x)
                  .ok());
  double sum = 0;
  for (size_t i = 0; i < g.d; ++i) {
    if (g.metric == Metric::kL2Squared) {
      const double diff = double(g.q[i]) - double(x[i]);
      sum += diff * diff;
    } else {
      sum += double(g.q[i]) * double(x[i]);
    }
  }
  return g.metric == Metric::kL2Squared ? sum : 1.0 - sum;
}

// The bound every path must meet, |got − ref| ≤ u·|ref| + A, with A from the
// data (see "Scoring kernels" in docs/format/ivf-build-algorithms.md):
//  Ta  the model gap: the kernels use q_i − ĉ_i − (offset + scale·c_i) with
//      only q' rounded, the reference rounds scale·c, offset + …, ĉ + r̂ and
//      (l2) nothing else; each rounding is ≤ u·|its result|, so per element
//      e_i ≤ u·(|s·c_i| + |r̂_i| + |x̂_i| [+ |q'_i| for l2]), which moves the
//      term by ≤ e_i(2|q_i − x̂_i| + e_i) (l2) or |q_i|·e_i (cosine);
//  Tb  the float32 dot W = Σ w_i c_i in the normative order (one for every
//      path): every term passes through at most k = ⌈d/32⌉ + 6 roundings (the
//      product, ≤ ⌈d/32⌉ adds into its lane, 2 combining the accumulators, 3
//      folding the lanes), so the error is ≤ γ_k Σ|w_i| c_i, times |s|
//      (cosine) or 2|s| (l2);
//  Td  the double arithmetic: 10⁻¹² of the magnitudes it combines.
struct Bound {
  double tol = 0;
  double terms[6] = {};  // the algebra's terms, to show each one exceeds tol
};

Bound ErrorBound(const Group& g, size_t r, double ref) {
  const size_t d = g.d;
  const double k = double((d + 31) / 32 + 6);
  const double gamma = k * kU / (1 - k * kU);
  const float off = g.offsets[r], s = g.scales[r];
  const bool l2 = g.metric == Metric::kL2Squared;
  double ta = 0, abs_dot = 0, sum_w = 0, q2 = 0, qc = 0, c_sum = 0, c_sq = 0, w_dot = 0;
  for (size_t i = 0; i < d; ++i) {
    const uint32_t c = LvqCodeAt(g.enc, g.code(r), i);
    const float product = s * static_cast<float>(c);
    const float rh = off + product;
    const float xh = g.centroid[i] + rh;
    const float w = l2 ? g.q[i] - g.centroid[i] : g.q[i];
    double e = std::fabs(double(product)) + std::fabs(double(rh)) + std::fabs(double(xh));
    if (l2) e += std::fabs(double(w));
    e *= kU * (1 + 4 * kU);
    const double a = std::fabs(double(g.q[i]) - double(xh));
    ta += l2 ? e * (2 * a + e) : std::fabs(double(g.q[i])) * e;
    abs_dot += std::fabs(double(w)) * c;
    w_dot += double(w) * c;
    sum_w += w;
    q2 += double(w) * w;
    qc += double(g.q[i]) * g.centroid[i];
    c_sum += c;
    c_sq += double(c) * c;
  }
  Bound b;
  const double tb = (l2 ? 2.0 : 1.0) * std::fabs(double(s)) * abs_dot;
  if (l2) {
    const double o = off, sc = s;
    const double t[6] = {q2, 2 * o * sum_w, 2 * sc * w_dot, double(d) * o * o, 2 * o * sc * c_sum, sc * sc * c_sq};
    std::copy(t, t + 6, b.terms);
  } else {
    const double t[3] = {qc, double(off) * sum_w, double(s) * w_dot};
    std::copy(t, t + 3, b.terms);
  }
  double td = 1 + tb;
  for (double t : b.terms) td += std::fabs(t);
  b.tol = (ta + gamma * tb + 1e-12 * td + kU * std::fabs(ref)) * (1 + 1e-6);
  return b;
}

std::vector<float> Score(KernelPath path, const Group& g) {
  auto ctx = PrepareList(g.metric, g.enc, g.q, g.centroid);
  EXPECT_TRUE(ctx.ok()) << ctx.status().ToString();
  std::vector<float> out(g.n(), -7.0f);
  EXPECT_TRUE(ScoreRowsWith(path, *ctx, g.n(), g.offsets.data(), g.scales.data(), g.codes.data(), out.data()).ok());
  return out;
}

bool BitEqual(const std::vector<float>& a, const std::vector<float>& b) {
  if (a.size() != b.size()) return false;
  return a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

bool BitEqual(const kernels_internal::RowSums& a, const kernels_internal::RowSums& b) {
  return std::memcmp(&a.dot, &b.dot, sizeof(float)) == 0 && a.code_sum == b.code_sum && a.code_sq == b.code_sq;
}

// The normative order of W as docs/format/ivf-build-algorithms.md states it,
// written here independently of the kernels (volatile: each product is rounded
// to float on its own, whatever this file is compiled with).
kernels_internal::RowSums NormativeSums(Encoding e, const std::vector<float>& w, size_t d, const uint8_t* code) {
  float acc[4][8] = {};
  uint64_t sum = 0, sq = 0;
  for (size_t i = 0; i < d; ++i) {
    const uint32_t c = e == Encoding::kLvq8 ? code[i] : (i % 2 == 0 ? code[i / 2] & 0x0F : code[i / 2] >> 4);
    size_t a = 0, lane = 0;
    if (e == Encoding::kLvq8) {
      a = (i / 8) % 4;
      lane = i % 8;
    } else {
      const size_t b = i / 16, p = i % 16;
      a = 2 * (b % 2) + p % 2;
      lane = p / 2;
    }
    volatile float product = w[i] * static_cast<float>(c);
    acc[a][lane] = acc[a][lane] + product;
    sum += c;
    sq += uint64_t{c} * c;
  }
  volatile float t[8];
  for (size_t k = 0; k < 8; ++k) {
    volatile float x = acc[0][k] + acc[1][k];
    volatile float y = acc[2][k] + acc[3][k];
    t[k] = x + y;
  }
  volatile float s[4];
  for (size_t k = 0; k < 4; ++k) s[k] = t[k] + t[k + 4];
  volatile float u0 = s[0] + s[2];
  volatile float u1 = s[1] + s[3];
  return {u0 + u1, static_cast<uint32_t>(sum), static_cast<uint32_t>(sq)};
}

kernels_internal::RowSums PathSums(KernelPath path, const ListContext& ctx, const uint8_t* code) {
  switch (path) {
    case KernelPath::kAvx512:
      return kernels_internal::RowSumsAvx512(ctx, code);
    case KernelPath::kAvx2:
      return kernels_internal::RowSumsAvx2(ctx, code);
    case KernelPath::kPortable:
      return kernels_internal::RowSumsPortable(ctx, code);
    case KernelPath::kScalar:
      break;
  }
  return kernels_internal::RowSumsScalar(ctx, code);
}

// W (and the code sums) of every row bit-identical on every path and to the
// normative order above: the distances alone could hide a last-bit change of W.
void CheckSums(const Group& g, const std::string& what) {
  auto ctx = PrepareList(g.metric, g.enc, g.q, g.centroid);
  ASSERT_TRUE(ctx.ok());
  for (size_t r = 0; r < g.n(); ++r) {
    const kernels_internal::RowSums want = NormativeSums(g.enc, ctx->weights, g.d, g.code(r));
    for (KernelPath path : AvailablePaths()) {
      const kernels_internal::RowSums got = PathSums(path, *ctx, g.code(r));
      EXPECT_TRUE(BitEqual(got, want)) << what << " " << KernelPathName(path) << " row " << r << ": W " << got.dot
                                       << " want " << want.dot << ", sums " << got.code_sum << "/" << got.code_sq
                                       << " want " << want.code_sum << "/" << want.code_sq;
      if (!BitEqual(got, want)) return;
    }
  }
}

// Every path within the bound of the reference, deterministic, and every
// path bit-identical to the scalar one (distances and W). Returns the largest
// |got − ref| / bound seen per path (how much slack the bound has).
// Indexed by KernelPath: one entry per path.
using Worst = std::array<double, static_cast<size_t>(KernelPath::kAvx512) + 1>;
Worst CheckGroup(const Group& g, const std::string& what) {
  Worst worst{};
  std::vector<double> ref(g.n());
  std::vector<Bound> bound(g.n());
  for (size_t r = 0; r < g.n(); ++r) {
    ref[r] = Reference(g, r);
    bound[r] = ErrorBound(g, r, ref[r]);
  }
  std::vector<float> scalar;
  for (KernelPath path : AvailablePaths()) {
    const std::vector<float> got = Score(path, g);
    EXPECT_TRUE(BitEqual(got, Score(path, g))) << what << " " << KernelPathName(path) << " is not deterministic";
    if (path == KernelPath::kScalar) scalar = got;  // AvailablePaths() lists it first
    EXPECT_TRUE(BitEqual(got, scalar)) << what << ": " << KernelPathName(path) << " != scalar";
    for (size_t r = 0; r < g.n(); ++r) {
      const double err = std::fabs(double(got[r]) - ref[r]);
      EXPECT_LE(err, bound[r].tol) << what << " " << KernelPathName(path) << " row " << r << " got " << got[r]
                                   << " want " << ref[r];
      if (err > bound[r].tol) return worst;
      worst[static_cast<size_t>(path)] = std::max(worst[static_cast<size_t>(path)], err / bound[r].tol);
    }
  }
  CheckSums(g, what);
  return worst;
}

void Merge(Worst& into, const Worst& from) {
  for (size_t i = 0; i < into.size(); ++i) into[i] = std::max(into[i], from[i]);
}

void PrintWorst(const char* what, const Worst& worst) {
  std::printf("%s: largest error / bound: scalar %.3g, portable %.3g, avx2 %.3g, avx512 %.3g\n", what, worst[0],
              worst[1], worst[2], worst[3]);
}

std::string Name(const Group& g) {
  return std::string(MetricName(g.metric)) + "/" + std::string(EncodingName(g.enc)) + " d=" + std::to_string(g.d) +
         " n=" + std::to_string(g.n());
}

constexpr Metric kMetrics[] = {Metric::kL2Squared, Metric::kCosine};
constexpr Encoding kEncodings[] = {Encoding::kLvq8, Encoding::kLvq4};
// Every tail shape: d mod 32, mod 16 and mod 8 all vary; odd d for LVQ4.
constexpr size_t kDims[] = {1, 2, 3, 7, 8, 15, 16, 17, 31, 32, 33, 48, 63, 64, 65, 100, 101, 784};

TEST(LvqKernelsTest, RealisticGroupsMatchTheReference) {
  std::mt19937 gen(11);
  Worst worst{};
  for (Metric m : kMetrics) {
    for (Encoding e : kEncodings) {
      for (size_t d : kDims) {
        for (size_t n : {0u, 1u, 7u, 1000u}) {
          if (n == 1000 && d == 784 && m == Metric::kCosine) continue;  // covered by l2; keeps ASan fast
          const Group g = Realistic(gen, m, e, d, n);
          Merge(worst, CheckGroup(g, Name(g)));
        }
      }
    }
  }
  PrintWorst("realistic", worst);
}

TEST(LvqKernelsTest, AdversarialGroupsMatchTheReference) {
  std::mt19937 gen(12);
  struct Case {
    const char* what;
    float off_mean, off_sigma, scale_max, center_mean, center_sigma;
  };
  const Case cases[] = {
      {"unit", 0.0f, 1.0f, 0.1f, 0.0f, 1.0f},
      {"large offset, tiny scale", 1e6f, 10.0f, 1e-3f, 0.0f, 1.0f},
      {"large negative offset", -1e6f, 1e3f, 10.0f, 5.0f, 2.0f},
      {"negative offsets", -3.0f, 0.5f, 0.05f, 0.0f, 0.1f},
      {"large centroid", 0.0f, 1.0f, 1.0f, 1e4f, 1e3f},
      {"constant residuals", 2.5f, 0.0f, 0.0f, -1.0f, 1.0f},
  };
  for (const Case& c : cases) {
    Worst worst{};
    for (Metric m : kMetrics) {
      for (Encoding e : kEncodings) {
        for (size_t d : kDims) {
          const Group g = Arbitrary(gen, m, e, d, 37, c.off_mean, c.off_sigma, c.scale_max, c.center_mean,
                                    c.center_sigma);
          Merge(worst, CheckGroup(g, std::string(c.what) + " " + Name(g)));
        }
      }
    }
    PrintWorst(c.what, worst);
  }
}

// Codes at every misalignment, ending exactly at the end of their buffer (an
// over-read is an ASan error), the float arrays off 32-byte alignment.
TEST(LvqKernelsTest, UnalignedPointers) {
  std::mt19937 gen(13);
  for (Encoding e : kEncodings) {
    for (size_t d : {1u, 2u, 7u, 8u, 15u, 16u, 17u, 33u, 63u, 101u}) {
      const Group g = Realistic(gen, Metric::kL2Squared, e, d, 9);
      const std::vector<float> want = Score(KernelPath::kScalar, g);
      auto ctx = PrepareList(g.metric, g.enc, g.q, g.centroid);
      ASSERT_TRUE(ctx.ok());
      for (size_t shift = 0; shift < 33; ++shift) {
        std::vector<uint8_t> codes(shift + g.codes.size());
        std::copy(g.codes.begin(), g.codes.end(), codes.begin() + static_cast<std::ptrdiff_t>(shift));
        std::vector<float> params(1 + 2 * g.n());
        std::copy(g.offsets.begin(), g.offsets.end(), params.begin() + 1);
        std::copy(g.scales.begin(), g.scales.end(), params.begin() + 1 + static_cast<std::ptrdiff_t>(g.n()));
        for (KernelPath path : AvailablePaths()) {
          std::vector<float> out(g.n() + 3);
          ASSERT_TRUE(ScoreRowsWith(path, *ctx, g.n(), params.data() + 1, params.data() + 1 + g.n(),
                                    codes.data() + shift, out.data() + 3)
                          .ok());
          const std::vector<float> got(out.begin() + 3, out.end());
          EXPECT_TRUE(BitEqual(got, want)) << KernelPathName(path) << " d=" << d << " shift " << shift;
        }
      }
    }
  }
}

// Rows read in place (a stride with foreign bytes between codes, as in a
// PLAIN BYTE_ARRAY page) and precomputed code sums give bit for bit the
// packed rows' distances on every path; the sums are ComputeCodeSums' and
// equal every path's own.
TEST(LvqKernelsTest, StridedBlocksAndPrecomputedSumsMatchPackedRows) {
  std::mt19937 gen(19);
  for (Metric m : kMetrics) {
    for (Encoding e : kEncodings) {
      for (size_t d : {1u, 7u, 16u, 17u, 33u, 101u, 784u}) {
        const Group g = Realistic(gen, m, e, d, 23);
        const std::vector<float> want = Score(KernelPath::kScalar, g);
        auto ctx = PrepareList(g.metric, g.enc, g.q, g.centroid);
        ASSERT_TRUE(ctx.ok());
        for (size_t gap : {0u, 3u, 4u}) {
          const size_t stride = g.bytes() + gap;
          std::vector<uint8_t> strided(g.n() * stride, 0xA5);  // the gaps hold garbage
          for (size_t r = 0; r < g.n(); ++r) std::memcpy(strided.data() + r * stride, g.code(r), g.bytes());
          std::vector<CodeSums> sums(g.n());
          ComputeCodeSums(e, d, g.n(), strided.data(), stride, sums.data());
          for (size_t r = 0; r < g.n(); ++r) {
            const auto own = kernels_internal::RowSumsScalar(*ctx, g.code(r));
            ASSERT_EQ(sums[r].sum, own.code_sum) << Name(g) << " row " << r;
            ASSERT_EQ(sums[r].squares, own.code_sq) << Name(g) << " row " << r;
          }
          for (KernelPath path : AvailablePaths()) {
            for (const CodeSums* with : {static_cast<const CodeSums*>(nullptr), static_cast<const CodeSums*>(sums.data())}) {
              std::vector<float> got(g.n(), -7.0f);
              RowBlock block{g.n(), g.offsets.data(), g.scales.data(), strided.data(), stride, with};
              ASSERT_TRUE(ScoreBlockWith(path, *ctx, block, got.data()).ok());
              EXPECT_TRUE(BitEqual(got, want)) << KernelPathName(path) << " " << Name(g) << " gap " << gap
                                               << (with ? " with sums" : "");
            }
          }
          std::vector<float> dispatched(g.n());
          ScoreBlock(*ctx, RowBlock{g.n(), g.offsets.data(), g.scales.data(), strided.data(), stride, sums.data()},
                     dispatched.data());
          EXPECT_TRUE(BitEqual(dispatched, want)) << Name(g);
        }
      }
    }
  }
}

// Sums that are not the codes' own are trusted, so they show in l2 distances
// (which is why only ComputeCodeSums' may be passed), never in cosine ones.
TEST(LvqKernelsTest, PrecomputedSumsAreUsed) {
  std::mt19937 gen(20);
  for (Metric m : kMetrics) {
    const Group g = Realistic(gen, m, Encoding::kLvq8, 33, 5);
    auto ctx = PrepareList(g.metric, g.enc, g.q, g.centroid);
    ASSERT_TRUE(ctx.ok());
    std::vector<CodeSums> sums(g.n());
    ComputeCodeSums(g.enc, g.d, g.n(), g.codes.data(), g.bytes(), sums.data());
    for (CodeSums& s : sums) s.squares += 1000;
    const std::vector<float> want = Score(KernelPath::kScalar, g);
    for (KernelPath path : AvailablePaths()) {
      std::vector<float> got(g.n());
      ASSERT_TRUE(ScoreBlockWith(path, *ctx, RowBlock{g.n(), g.offsets.data(), g.scales.data(), g.codes.data(),
                                                      g.bytes(), sums.data()},
                                 got.data())
                      .ok());
      for (size_t r = 0; r < g.n(); ++r) {
        if (m == Metric::kCosine || g.scales[r] == 0.0f) {
          EXPECT_EQ(got[r], want[r]) << KernelPathName(path);
        } else {
          EXPECT_NE(got[r], want[r]) << KernelPathName(path);
        }
      }
    }
  }
}

TEST(LvqKernelsTest, ScoreBlockRejectsAShortStride) {
  const std::vector<float> q{1, 2, 3}, c{0, 0, 0};
  auto ctx = PrepareList(Metric::kL2Squared, Encoding::kLvq8, q, c);
  ASSERT_TRUE(ctx.ok());
  const std::vector<uint8_t> codes(6);
  const std::vector<float> params(2, 1.0f);
  float out[2];
  Status s = ScoreBlockWith(KernelPath::kScalar, *ctx, RowBlock{2, params.data(), params.data(), codes.data(), 2, nullptr}, out);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "scoring: a row stride of 2 bytes is below the 3-byte code");
}

// The W checks can see an order change: on these inputs a plain sequential
// float sum (or the old 8-lane order) differs from the normative W on many
// rows, so a path that reordered anything would fail CheckSums.
TEST(LvqKernelsTest, TheOrderIsObservable) {
  std::mt19937 gen(18);
  for (Encoding e : kEncodings) {
    for (size_t d : {33u, 101u, 784u}) {
      const Group g = Realistic(gen, Metric::kL2Squared, e, d, 200);
      auto ctx = PrepareList(g.metric, g.enc, g.q, g.centroid);
      ASSERT_TRUE(ctx.ok());
      size_t differ_seq = 0, differ_lane8 = 0;
      for (size_t r = 0; r < g.n(); ++r) {
        const float w = NormativeSums(e, ctx->weights, d, g.code(r)).dot;
        volatile float seq = 0;
        float lane[8] = {};
        for (size_t i = 0; i < d; ++i) {
          volatile float product = ctx->weights[i] * static_cast<float>(LvqCodeAt(e, g.code(r), i));
          seq = seq + product;
          lane[i % 8] = lane[i % 8] + product;
        }
        differ_seq += seq != w;
        differ_lane8 += kernels_internal::FoldLanes8(lane) != w;
      }
      EXPECT_GT(differ_seq, g.n() / 10) << EncodingName(e) << " d=" << d;
      if (d > 32) {
        EXPECT_GT(differ_lane8, g.n() / 10) << EncodingName(e) << " d=" << d;
      }
    }
  }
}

TEST(LvqKernelsTest, ZeroRowsTouchNothing) {
  const std::vector<float> q{1, 2, 3}, c{0, 0, 0};
  auto ctx = PrepareList(Metric::kL2Squared, Encoding::kLvq4, q, c);
  ASSERT_TRUE(ctx.ok());
  float sentinel = 42.0f;
  for (KernelPath path : AvailablePaths()) {
    EXPECT_TRUE(ScoreRowsWith(path, *ctx, 0, nullptr, nullptr, nullptr, &sentinel).ok());
  }
  ScoreRows(*ctx, 0, nullptr, nullptr, nullptr, &sentinel);
  EXPECT_EQ(sentinel, 42.0f);
}

// The bound is tight enough to see one wrong code: with q = x̂ (reference
// distance ≈ 0) changing any single element's code changes the l2 distance
// by (scale·Δc)², and that must exceed the bound on every path. LVQ4 flips a
// whole nibble (Δc odd, ≥ 1), LVQ8 the top bit (Δc = 128).
TEST(LvqKernelsTest, OneFlippedNibbleExceedsTheBound) {
  std::mt19937 gen(14);
  for (Encoding e : kEncodings) {
    for (size_t d : {7u, 101u, 784u}) {
      Group g = Realistic(gen, Metric::kL2Squared, e, d, 1);
      ASSERT_TRUE(ReconstructResidual(e, LvqParams{g.offsets[0], g.scales[0]},
                                      std::span<const uint8_t>(g.code(0), g.bytes()), g.centroid, g.q)
                      .ok());
      const double ref = Reference(g, 0);
      const double tol = ErrorBound(g, 0, ref).tol;
      ASSERT_GT(g.scales[0], 0.0f);
      for (KernelPath path : AvailablePaths()) {
        EXPECT_LE(std::fabs(Score(path, g)[0] - ref), tol);
        double min_ratio = 1e300;
        for (size_t i = 0; i < d; ++i) {
          Group flipped = g;
          uint8_t& byte = flipped.codes[e == Encoding::kLvq8 ? i : i / 2];
          byte = static_cast<uint8_t>(e == Encoding::kLvq8 ? byte ^ 0x80 : byte ^ (0x0F << ((i & 1) * 4)));
          const double change = std::fabs(Score(path, flipped)[0] - ref);
          min_ratio = std::min(min_ratio, change / tol);
        }
        EXPECT_GT(min_ratio, 1.0) << EncodingName(e) << " d=" << d << " " << KernelPathName(path);
        std::printf("%s d=%zu %s: smallest single-flip change / bound = %.3g (bound %.3g)\n",
                    std::string(EncodingName(e)).c_str(), d, std::string(KernelPathName(path)).c_str(), min_ratio,
                    tol);
      }
    }
  }
}

// Leaving out any term of the algebra would move the result by that term;
// on realistic data every term is far above the bound, so the comparison
// above would catch it.
TEST(LvqKernelsTest, EveryTermExceedsTheBound) {
  std::mt19937 gen(15);
  for (Metric m : kMetrics) {
    for (Encoding e : kEncodings) {
      for (size_t d : {33u, 101u, 784u}) {
        const Group g = Realistic(gen, m, e, d, 20);
        for (size_t r = 0; r < g.n(); ++r) {
          const Bound b = ErrorBound(g, r, Reference(g, r));
          for (int t = 0; t < (m == Metric::kL2Squared ? 6 : 3); ++t) {
            // The Σq'·offset and Σq·offset terms hinge on the sign balance of q − ĉ: 10× is still a catch.
            EXPECT_GT(std::fabs(b.terms[t]), 10 * b.tol) << Name(g) << " row " << r << " term " << t;
          }
        }
      }
    }
  }
}

TEST(LvqKernelsTest, DispatchAndNames) {
  EXPECT_TRUE(KernelName() == "avx512" || KernelName() == "avx2" || KernelName() == "scalar" ||
              std::getenv("VIGILO_KERNEL") != nullptr);
  EXPECT_EQ(KernelName(), KernelPathName(DispatchedKernelPath()));
  EXPECT_TRUE(KernelPathAvailable(KernelPath::kScalar));
  EXPECT_TRUE(KernelPathAvailable(KernelPath::kPortable));
  std::printf("dispatched kernel: %s\n", std::string(KernelName()).c_str());

  std::mt19937 gen(16);
  const Group g = Realistic(gen, Metric::kCosine, Encoding::kLvq4, 101, 50);
  auto ctx = PrepareList(g.metric, g.enc, g.q, g.centroid);
  ASSERT_TRUE(ctx.ok());
  std::vector<float> out(g.n());
  ScoreRows(*ctx, g.n(), g.offsets.data(), g.scales.data(), g.codes.data(), out.data());
  EXPECT_TRUE(BitEqual(out, Score(DispatchedKernelPath(), g)));
  if (std::getenv("VIGILO_KERNEL") == nullptr) {  // the best available path, unless forced
    const KernelPath best = KernelPathAvailable(KernelPath::kAvx512) ? KernelPath::kAvx512
                            : KernelPathAvailable(KernelPath::kAvx2) ? KernelPath::kAvx2
                                                                     : KernelPath::kScalar;
    EXPECT_EQ(DispatchedKernelPath(), best);
  }
  if (KernelPathAvailable(KernelPath::kAvx512)) {  // AVX-512 F/BW/VL/VNNI implies AVX2
    EXPECT_TRUE(KernelPathAvailable(KernelPath::kAvx2));
  }
  if (!KernelPathAvailable(KernelPath::kAvx2)) {  // e.g. built with -DVIGILO_KERNELS_NO_AVX2
    EXPECT_FALSE(KernelPathAvailable(KernelPath::kAvx512));
    EXPECT_FALSE(ScoreRowsWith(KernelPath::kAvx2, *ctx, g.n(), g.offsets.data(), g.scales.data(), g.codes.data(),
                               out.data())
                     .ok());
  }
}

TEST(LvqKernelsTest, PrepareListRejectsBadInput) {
  const std::vector<float> q{1, 2, 3}, c2{1, 2};
  EXPECT_EQ(PrepareList(Metric::kL2Squared, Encoding::kLvq8, q, c2).status().code(), StatusCode::kInvalidArgument);
  EXPECT_FALSE(PrepareList(Metric::kCosine, Encoding::kLvq8, {}, {}).ok());
  const std::vector<float> big(65537, 0.0f);
  EXPECT_FALSE(PrepareList(Metric::kL2Squared, Encoding::kLvq4, big, big).ok());
  const std::vector<float> nan{1, NAN, 3}, inf{1, 2, INFINITY};
  EXPECT_FALSE(PrepareList(Metric::kL2Squared, Encoding::kLvq8, nan, q).ok());
  EXPECT_FALSE(PrepareList(Metric::kCosine, Encoding::kLvq8, q, inf).ok());
  ListContext unprepared;
  float out = 0;
  EXPECT_FALSE(ScoreRowsWith(KernelPath::kScalar, unprepared, 1, &out, &out, nullptr, &out).ok());
}

// Reusing one context across lists of different sizes and metrics.
TEST(LvqKernelsTest, PrepareListReusesItsContext) {
  std::mt19937 gen(17);
  ListContext ctx;
  for (size_t d : {784u, 3u, 101u}) {
    for (Metric m : kMetrics) {
      const Group g = Realistic(gen, m, Encoding::kLvq8, d, 5);
      ASSERT_TRUE(PrepareList(g.metric, g.enc, g.q, g.centroid, ctx).ok());
      std::vector<float> out(g.n());
      ScoreRows(ctx, g.n(), g.offsets.data(), g.scales.data(), g.codes.data(), out.data());
      EXPECT_TRUE(BitEqual(out, Score(DispatchedKernelPath(), g))) << Name(g);
    }
  }
}

// PrepareList's sums by their definition (double, increasing i), to check
// whichever path the dispatcher chose for PrepareList itself.
struct ReferenceSums {
  std::vector<float> weights;
  double weight_sum = 0, base = 0;
};
ReferenceSums Reference(Metric m, const std::vector<float>& q, const std::vector<float>& c) {
  ReferenceSums r;
  double dot = 0;
  for (size_t i = 0; i < q.size(); ++i) {
    const float w = m == Metric::kL2Squared ? q[i] - c[i] : q[i];
    r.weights.push_back(w);
    r.weight_sum += w;
    if (m == Metric::kL2Squared) {
      r.base += static_cast<double>(w) * w;
    } else {
      dot += static_cast<double>(q[i]) * c[i];
    }
  }
  if (m == Metric::kCosine) r.base = 1.0 - dot;
  return r;
}

// A context made with others (`together`) is PrepareList's (`alone`) and the
// sums' definition, bit for bit.
void ExpectPreparedAlike(const ListContext& together, const Result<ListContext>& alone, Metric m,
                         const std::vector<float>& q, const std::vector<float>& c, const std::string& what) {
  auto bits = [](double x) { return std::bit_cast<uint64_t>(x); };
  ASSERT_TRUE(alone.ok()) << what;
  EXPECT_EQ(together.metric, alone->metric) << what;
  EXPECT_EQ(together.encoding, alone->encoding) << what;
  EXPECT_EQ(together.dimension, q.size()) << what;
  EXPECT_TRUE(BitEqual(together.weights, alone->weights)) << what;
  EXPECT_TRUE(BitEqual(together.weights_split, alone->weights_split)) << what;
  EXPECT_EQ(bits(together.weight_sum), bits(alone->weight_sum)) << what;
  EXPECT_EQ(bits(together.base), bits(alone->base)) << what;
  const ReferenceSums want = Reference(m, q, c);
  EXPECT_TRUE(BitEqual(alone->weights, want.weights)) << what;
  EXPECT_EQ(bits(alone->weight_sum), bits(want.weight_sum)) << what;
  EXPECT_EQ(bits(alone->base), bits(want.base)) << what;
}

// PrepareLists makes each context exactly as PrepareList does, bit for bit,
// for every group size (the 4-wide groups and each remainder).
TEST(LvqKernelsTest, PrepareListsEqualsOneAtATime) {
  std::mt19937 gen(29);
  std::uniform_real_distribution<float> value(-3.0f, 3.0f);
  for (size_t d : {1u, 7u, 100u, 784u}) {
    std::vector<float> q(d);
    for (float& x : q) x = value(gen);
    for (size_t lists : {1u, 2u, 3u, 4u, 5u, 9u}) {
      std::vector<std::vector<float>> centroids(lists, std::vector<float>(d));
      for (auto& c : centroids) {
        for (float& x : c) x = value(gen);
      }
      std::vector<std::span<const float>> spans(centroids.begin(), centroids.end());
      for (Metric m : kMetrics) {
        for (Encoding e : {Encoding::kLvq8, Encoding::kLvq4}) {
          std::vector<ListContext> together(lists);
          ASSERT_TRUE(PrepareLists(m, e, q, spans, together).ok());
          for (size_t j = 0; j < lists; ++j) {
            ExpectPreparedAlike(together[j], PrepareList(m, e, q, centroids[j]), m, q, centroids[j],
                                std::to_string(d) + " " + std::to_string(lists) + " " + std::to_string(j));
          }
        }
      }
    }
  }
}

TEST(LvqKernelsTest, PrepareListsNamesTheFirstError) {
  const std::vector<float> q{1, 2, 3}, good{0, 1, 2}, short_one{1, 2}, inf{1, 2, INFINITY};
  std::vector<ListContext> out(2);
  auto status = [&](std::vector<std::span<const float>> centroids, std::vector<float> query) {
    return PrepareLists(Metric::kL2Squared, Encoding::kLvq8, query, centroids, out);
  };
  EXPECT_EQ(status({good, short_one}, q).message(), "scoring: query has 3 elements, centroid 2");
  EXPECT_EQ(status({good, inf}, q).message(), "centroid element 2 is not finite");
  EXPECT_EQ(status({inf, short_one}, q).message(), "scoring: query has 3 elements, centroid 2");  // sizes first
  EXPECT_EQ(status({good, good}, {1, NAN, 3}).message(), "query element 1 is not finite");
  EXPECT_EQ(status({good}, q).message(), "scoring: 1 centroids for 2 contexts");
  EXPECT_TRUE(status({good, good}, q).ok());
  out.clear();
  EXPECT_TRUE(status({}, q).ok());  // nothing to prepare
}

// PrepareListsOfCentroid (a row group's probers) makes each context exactly
// as PrepareList does, bit for bit, for every group size.
TEST(LvqKernelsTest, PrepareListsOfCentroidEqualsOneAtATime) {
  std::mt19937 gen(31);
  std::uniform_real_distribution<float> value(-3.0f, 3.0f);
  for (size_t d : {1u, 7u, 100u, 784u}) {
    std::vector<float> centroid(d);
    for (float& x : centroid) x = value(gen);
    for (size_t count : {1u, 2u, 3u, 4u, 5u, 9u, 70u}) {  // 70: past the 64 lists prepared at once
      std::vector<std::vector<float>> queries(count, std::vector<float>(d));
      for (auto& q : queries) {
        for (float& x : q) x = value(gen);
      }
      std::vector<std::span<const float>> spans(queries.begin(), queries.end());
      for (Metric m : kMetrics) {
        for (Encoding e : {Encoding::kLvq8, Encoding::kLvq4}) {
          std::vector<ListContext> together(count);
          ASSERT_TRUE(PrepareListsOfCentroid(m, e, spans, centroid, together).ok());
          for (size_t j = 0; j < count; ++j) {
            ExpectPreparedAlike(together[j], PrepareList(m, e, queries[j], centroid), m, queries[j], centroid,
                                std::to_string(d) + " " + std::to_string(count) + " " + std::to_string(j));
          }
        }
      }
    }
  }
}

TEST(LvqKernelsTest, PrepareListsOfCentroidNamesTheFirstError) {
  const std::vector<float> c{1, 2, 3}, good{0, 1, 2}, short_one{1, 2}, nan{1, NAN, 3};
  std::vector<ListContext> out(2);
  auto status = [&](std::vector<std::span<const float>> queries, std::vector<float> centroid) {
    return PrepareListsOfCentroid(Metric::kL2Squared, Encoding::kLvq8, queries, centroid, out);
  };
  EXPECT_EQ(status({good, short_one}, c).message(), "scoring: query has 2 elements, centroid 3");
  EXPECT_EQ(status({good, nan}, c).message(), "query element 1 is not finite");
  EXPECT_EQ(status({nan, short_one}, c).message(), "scoring: query has 2 elements, centroid 3");  // sizes first
  EXPECT_EQ(status({good, good}, {1, 2, INFINITY}).message(), "centroid element 2 is not finite");
  EXPECT_EQ(status({nan, good}, {1, 2, INFINITY}).message(), "query element 1 is not finite");  // queries first
  EXPECT_EQ(status({good}, c).message(), "scoring: 1 queries for 2 contexts");
  EXPECT_EQ(status({{}, {}}, {}).message(), "scoring: dimension 0 is outside 1…65536");
  EXPECT_TRUE(status({good, good}, c).ok());
  out.clear();
  EXPECT_TRUE(status({}, c).ok());  // nothing to prepare
}

// Four lists at a time (the AVX2 path checks the inputs as it goes): a NaN
// or ±Inf anywhere, in the four-wide part or the last d mod 4 elements, is
// named as PrepareList's checks name it, before an overflow of another list.
TEST(LvqKernelsTest, PreparingFourListsAtOnceNamesTheFirstNonFiniteInput) {
  const size_t d = 7;
  const std::vector<float> q{1, 2, 3, 4, 5, 6, 7};
  std::vector<std::vector<float>> centroids(5, std::vector<float>{0, 1, 2, 3, 4, 5, 6});
  auto lists = [&](std::vector<float> query) {
    std::vector<std::span<const float>> spans(centroids.begin(), centroids.end());
    std::vector<ListContext> out(spans.size());
    return PrepareLists(Metric::kL2Squared, Encoding::kLvq8, query, spans, out);
  };
  auto probers = [&](size_t bad_query, size_t at, float value, std::vector<float> centroid) {
    std::vector<std::vector<float>> queries(5, q);
    queries[bad_query][at] = value;
    std::vector<std::span<const float>> spans(queries.begin(), queries.end());
    std::vector<ListContext> out(spans.size());
    return PrepareListsOfCentroid(Metric::kL2Squared, Encoding::kLvq8, spans, centroid, out);
  };
  for (size_t at : {size_t{1}, size_t{6}}) {  // in the four-wide part, in the tail
    for (float value : {NAN, INFINITY, -INFINITY}) {
      for (Metric m : kMetrics) {
        centroids[2][at] = value;
        std::vector<std::span<const float>> spans(centroids.begin(), centroids.end());
        std::vector<ListContext> out(spans.size());
        EXPECT_EQ(PrepareLists(m, Encoding::kLvq8, q, spans, out).message(),
                  "centroid element " + std::to_string(at) + " is not finite");
        centroids[2][at] = 2;
      }
      std::vector<float> bad_q = q;
      bad_q[at] = value;
      EXPECT_EQ(lists(bad_q).message(), "query element " + std::to_string(at) + " is not finite");
      EXPECT_EQ(probers(3, at, value, centroids[0]).message(), "query element " + std::to_string(at) + " is not finite");
      std::vector<float> bad_c = centroids[0];
      bad_c[at] = value;
      EXPECT_EQ(probers(0, 0, 1, bad_c).message(), "centroid element " + std::to_string(at) + " is not finite");
    }
  }
  // List 0 overflows (q − c beyond float) and list 4 holds a NaN: the NaN is named.
  centroids[0][3] = -3e38f;
  std::vector<float> big = q;
  big[3] = 3e38f;
  centroids[4][5] = NAN;
  EXPECT_EQ(lists(big).message(), "centroid element 5 is not finite");
  centroids[4][5] = 5;
  EXPECT_EQ(lists(big).message(), "scoring: query − centroid overflows");
  ASSERT_EQ(d, q.size());
}

}  // namespace
}  // namespace vigilo::ivf
