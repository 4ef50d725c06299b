// Every kernel path against the scalar one, bit for bit, on inputs chosen to
// break a wrong summation order or a wrong tail: every dimension remainder
// (d = 1…70 covers every d mod 32 twice; then the multiples of 32 around 128,
// 2048 and a row past the screen's four-row range), subnormal weights and
// products, ±0 everywhere, weights of wildly mixed magnitude (so any
// reordering of the float sum changes W), extreme offsets and scales, codes
// all 0, all 255 and random, rows read in place (stride + 4) and with
// precomputed code sums. The float dot W and the code sums are compared
// through the RowSums hooks (a last-bit change of W is often invisible in a
// distance), the distances bit for bit (NaN only where scalar is NaN), and
// the screen's bounds on every path bit for bit with the portable screen's,
// containing the normative distance.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "lvq_kernels_internal.h"
#include "lvq_screen_internal.h"
#include "vigilo/ivf/lvq.h"
#include "vigilo/ivf/lvq_kernels.h"

namespace vigilo::ivf {
namespace {

std::vector<KernelPath> Paths() {
  std::vector<KernelPath> out;
  for (KernelPath p : {KernelPath::kScalar, KernelPath::kPortable, KernelPath::kAvx2, KernelPath::kAvx512}) {
    if (KernelPathAvailable(p)) out.push_back(p);
  }
  return out;
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

uint32_t Bits(float x) {
  uint32_t b = 0;
  std::memcpy(&b, &x, 4);
  return b;
}

// Equal bits, or both NaN (a NaN's payload is unspecified: ivf-build-algorithms.md).
bool Same(float a, float b) { return Bits(a) == Bits(b) || (std::isnan(a) && std::isnan(b)); }

enum class Family { kSubnormal, kSignedZeros, kMixedMagnitudes, kHuge, kTiny, kRealistic };

const char* FamilyName(Family f) {
  switch (f) {
    case Family::kSubnormal: return "subnormal";
    case Family::kSignedZeros: return "signed-zeros";
    case Family::kMixedMagnitudes: return "mixed-magnitudes";
    case Family::kHuge: return "huge";
    case Family::kTiny: return "tiny";
    case Family::kRealistic: break;
  }
  return "realistic";
}

// One value of a query or centroid element in the family.
float Element(Family f, std::mt19937& gen) {
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  std::uniform_int_distribution<int> pick(0, 3);
  switch (f) {
    case Family::kSubnormal:  // weights and products below FLT_MIN (and sums of them)
      return unit(gen) * 0x1p-130f;
    case Family::kSignedZeros: {
      const int k = pick(gen);
      return k == 0 ? 0.0f : k == 1 ? -0.0f : k == 2 ? unit(gen) : -unit(gen) * 0x1p-140f;
    }
    case Family::kMixedMagnitudes: {  // 2^±40 side by side: any other order of the sum rounds differently
      const float scale = pick(gen) == 0 ? 0x1p40f : pick(gen) == 1 ? 0x1p-40f : 1.0f;
      return unit(gen) * scale;
    }
    case Family::kHuge:
      return unit(gen) * 1e30f;
    case Family::kTiny:
      return unit(gen) * 1e-30f;
    case Family::kRealistic:
      break;
  }
  return unit(gen);
}

struct Rows {
  size_t n = 0, stride = 0;
  std::vector<float> offsets, scales;
  std::vector<uint8_t> codes;  // n × stride, each code at the end of its stride
  std::vector<CodeSums> sums;
  const uint8_t* code(size_t r) const { return codes.data() + r * stride + (stride - code_bytes); }
  size_t code_bytes = 0;
};

// Nine rows: all-0 codes, all-255 codes, then random bytes (odd LVQ4 last
// high nibbles set: they must be ignored); offsets and scales from ±0 to
// extremes; the codes `pad` bytes into each stride (a PLAIN page's lengths).
Rows MakeRows(Encoding e, size_t d, size_t pad, std::mt19937& gen) {
  Rows rows;
  rows.n = 9;
  rows.code_bytes = static_cast<size_t>(CodeBytes(e, d));
  rows.stride = rows.code_bytes + pad;
  rows.codes.resize(rows.n * rows.stride);
  std::uniform_int_distribution<int> byte(0, 255);
  for (uint8_t& b : rows.codes) b = static_cast<uint8_t>(byte(gen));
  for (size_t i = 0; i < rows.code_bytes; ++i) {
    rows.codes[0 * rows.stride + pad + i] = 0;
    rows.codes[1 * rows.stride + pad + i] = 0xFF;
  }
  const float offsets[9] = {0.0f, -0.0f, 1e-40f, -3.5f, 1e30f, -1e-38f, 0.25f, 7e5f, -1e6f};
  const float scales[9] = {1.0f, -0.0f, 0.0f, 1e-40f, 1e-30f, 0.01f, 3e28f, 1e-38f, 0.5f};
  rows.offsets.assign(offsets, offsets + 9);
  rows.scales.assign(scales, scales + 9);
  rows.sums.resize(rows.n);
  ComputeCodeSums(e, d, rows.n, rows.codes.data() + pad, rows.stride, rows.sums.data());
  return rows;
}

// Bounds of the screen on one path.
void ScreenOn(KernelPath path, const screen::ScreenContext& sctx, const RowBlock& block, std::vector<float>& lower,
              std::vector<float>& upper) {
  lower.assign(block.n, 0.0f);
  upper.assign(block.n, 0.0f);
  ASSERT_TRUE(screen::ScreenBlockWith(path, sctx, block, lower.data(), upper.data()).ok());
}

void CheckCase(Metric metric, Encoding e, size_t d, Family family, uint32_t seed) {
  std::mt19937 gen(seed);
  std::vector<float> q(d), centroid(d);
  for (size_t i = 0; i < d; ++i) {
    q[i] = Element(family, gen);
    centroid[i] = Element(family, gen);
  }
  auto ctx = PrepareList(metric, e, q, centroid);
  if (!ctx.ok()) return;  // e.g. q − ĉ overflows: outside the query's domain
  const std::string what = std::string(MetricName(metric)) + " " + std::string(EncodingName(e)) + " d=" +
                           std::to_string(d) + " " + FamilyName(family);
  for (size_t pad : {size_t{0}, size_t{4}}) {
    const Rows rows = MakeRows(e, d, pad, gen);
    for (size_t r = 0; r < rows.n; ++r) {
      const kernels_internal::RowSums want = kernels_internal::RowSumsScalar(*ctx, rows.code(r));
      for (KernelPath path : Paths()) {
        const kernels_internal::RowSums got = PathSums(path, *ctx, rows.code(r));
        ASSERT_TRUE(Same(got.dot, want.dot) && got.code_sum == want.code_sum && got.code_sq == want.code_sq)
            << what << " " << KernelPathName(path) << " row " << r << ": W " << got.dot << " want " << want.dot
            << ", sums " << got.code_sum << "/" << got.code_sq << " want " << want.code_sum << "/" << want.code_sq;
      }
    }
    for (bool with_sums : {false, true}) {
      const RowBlock block{rows.n, rows.offsets.data(), rows.scales.data(), rows.codes.data() + pad, rows.stride,
                           with_sums ? rows.sums.data() : nullptr};
      std::vector<float> want(rows.n), got(rows.n);
      ASSERT_TRUE(ScoreBlockWith(KernelPath::kScalar, *ctx, block, want.data()).ok());
      for (KernelPath path : Paths()) {
        ASSERT_TRUE(ScoreBlockWith(path, *ctx, block, got.data()).ok());
        for (size_t r = 0; r < rows.n; ++r) {
          ASSERT_TRUE(Same(got[r], want[r])) << what << " " << KernelPathName(path) << " pad " << pad << " row " << r
                                             << ": " << got[r] << " want " << want[r];
        }
      }
      if (e != Encoding::kLvq8) continue;
      screen::ScreenContext sctx;
      screen::PrepareScreen(*ctx, sctx);
      std::vector<float> lower0, upper0, lower, upper;
      ScreenOn(KernelPath::kPortable, sctx, block, lower0, upper0);
      for (size_t r = 0; r < rows.n; ++r) {
        if (std::isnan(want[r])) continue;
        ASSERT_LE(lower0[r], want[r]) << what << " row " << r;
        ASSERT_GE(upper0[r], want[r]) << what << " row " << r;
      }
      for (KernelPath path : Paths()) {
        ScreenOn(path, sctx, block, lower, upper);
        for (size_t r = 0; r < rows.n; ++r) {
          ASSERT_TRUE(Bits(lower[r]) == Bits(lower0[r]) && Bits(upper[r]) == Bits(upper0[r]))
              << what << " screen " << KernelPathName(path) << " row " << r << ": [" << lower[r] << ", " << upper[r]
              << "] want [" << lower0[r] << ", " << upper0[r] << "]";
        }
      }
    }
  }
}

std::vector<size_t> Dimensions() {
  std::vector<size_t> out;
  for (size_t d = 1; d <= 70; ++d) out.push_back(d);
  for (size_t d : {95, 96, 97, 100, 127, 128, 129, 255, 256, 257, 784, 2047, 2048, 2049, 4100}) out.push_back(d);
  return out;
}

TEST(LvqKernelPathsTest, EveryPathIsBitIdenticalOnAdversarialInputs) {
  std::printf("paths:");
  for (KernelPath p : Paths()) std::printf(" %s", std::string(KernelPathName(p)).c_str());
  std::printf("\n");
  uint32_t seed = 1;
  for (Metric metric : {Metric::kL2Squared, Metric::kCosine}) {
    for (Encoding e : {Encoding::kLvq8, Encoding::kLvq4}) {
      for (size_t d : Dimensions()) {
        for (Family f : {Family::kSubnormal, Family::kSignedZeros, Family::kMixedMagnitudes, Family::kHuge,
                         Family::kTiny, Family::kRealistic}) {
          CheckCase(metric, e, d, f, seed++);
          if (HasFatalFailure()) return;
        }
      }
    }
  }
}

// W's zero is +0.0: every lane starts at +0.0, so a row whose products are
// all −0.0 (negative weights, zero codes) sums to +0.0. A path that took its
// first products as the accumulators (and forgot W + 0.0) would give −0.0,
// which the families above need not produce; the distances of such rows,
// eight and more at a time, must keep their bits too.
TEST(LvqKernelPathsTest, NegativeWeightsOnZeroCodesSumToPlusZero) {
  for (Metric metric : {Metric::kL2Squared, Metric::kCosine}) {
    for (size_t d : {size_t{1}, size_t{8}, size_t{31}, size_t{32}, size_t{33}, size_t{64}, size_t{100}, size_t{784}}) {
      std::vector<float> q(d), centroid(d, 0.0f);
      for (size_t i = 0; i < d; ++i) q[i] = -0.25f - static_cast<float>(i % 7);
      auto ctx = PrepareList(metric, Encoding::kLvq8, q, centroid);
      ASSERT_TRUE(ctx.ok());
      constexpr size_t kRows = 19;  // two eight-row groups and a tail
      std::vector<uint8_t> codes(kRows * d, 0);
      std::vector<float> offsets(kRows, 0.0f), scales(kRows, 1.0f);
      const RowBlock block{kRows, offsets.data(), scales.data(), codes.data(), d, nullptr};
      std::vector<float> want(kRows), got(kRows);
      ASSERT_TRUE(ScoreBlockWith(KernelPath::kScalar, *ctx, block, want.data()).ok());
      for (KernelPath path : Paths()) {
        EXPECT_EQ(Bits(PathSums(path, *ctx, codes.data()).dot), Bits(0.0f))
            << MetricName(metric) << " d=" << d << " " << KernelPathName(path);
        ASSERT_TRUE(ScoreBlockWith(path, *ctx, block, got.data()).ok());
        for (size_t r = 0; r < kRows; ++r) {
          EXPECT_EQ(Bits(got[r]), Bits(want[r])) << MetricName(metric) << " d=" << d << " " << KernelPathName(path)
                                                 << " row " << r;
        }
      }
    }
  }
}

// The mixed-magnitude family is what makes the order observable: on it a
// plain sequential float sum differs from W (the normative order) on many
// rows, so a path that summed in another order would have been caught above.
TEST(LvqKernelPathsTest, TheMixedMagnitudeFamilySeesTheOrder) {
  size_t rows = 0, differ = 0;
  uint32_t seed = 7;
  for (size_t d : {size_t{33}, size_t{64}, size_t{100}, size_t{784}}) {
    std::mt19937 gen(seed++);
    std::vector<float> q(d), centroid(d);
    for (size_t i = 0; i < d; ++i) {
      q[i] = Element(Family::kMixedMagnitudes, gen);
      centroid[i] = Element(Family::kMixedMagnitudes, gen);
    }
    auto ctx = PrepareList(Metric::kL2Squared, Encoding::kLvq8, q, centroid);
    ASSERT_TRUE(ctx.ok());
    const Rows r = MakeRows(Encoding::kLvq8, d, 0, gen);
    for (size_t k = 2; k < r.n; ++k) {  // the random rows
      volatile float sequential = 0;
      for (size_t i = 0; i < d; ++i) {
        volatile float p = ctx->weights[i] * static_cast<float>(r.code(k)[i]);
        sequential = sequential + p;
      }
      ++rows;
      differ += Bits(sequential) != Bits(kernels_internal::RowSumsScalar(*ctx, r.code(k)).dot) ? 1 : 0;
    }
  }
  EXPECT_GT(differ * 4, rows) << differ << " of " << rows;
}

}  // namespace
}  // namespace vigilo::ivf
