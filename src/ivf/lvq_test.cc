#include "vigilo/ivf/lvq.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace vigilo::ivf {
namespace {

using Bytes = std::vector<uint8_t>;

struct Encoded {
  LvqParams params;
  Bytes code;
};

Encoded Encode(Encoding e, const std::vector<float>& v) {
  Encoded out;
  out.code.resize(CodeBytes(e, v.size()));
  auto params = EncodeLvq(e, v, out.code);
  EXPECT_TRUE(params.ok()) << params.status().ToString();
  if (params.ok()) out.params = *params;
  return out;
}

std::vector<float> Decode(Encoding e, const Encoded& x, size_t d) {
  std::vector<float> out(d);
  EXPECT_TRUE(DecodeLvq(e, x.params, x.code, out).ok());
  return out;
}

// Expected values below were computed by hand in float32 arithmetic
// (t = (v - offset) / scale, then round half away from zero).
TEST(LvqTest, Lvq8HandComputed) {
  const Encoded x = Encode(Encoding::kLvq8, {-1.0f, 0.5f, 1.5f, 3.0f});
  EXPECT_EQ(x.params.offset, -1.0f);
  EXPECT_EQ(x.params.scale, 0x1.010102p-6f);  // (float)4 / 255
  EXPECT_EQ(x.code, (Bytes{0, 96, 159, 255}));  // 95.625 → 96, 159.375 → 159
  EXPECT_EQ(Decode(Encoding::kLvq8, x, 4), (std::vector<float>{-1.0f, 0x1.030308p-1f, 0x1.7e7e8p+0f, 3.0f}));
}

TEST(LvqTest, RoundsHalfAwayFromZero) {
  // t = 126.5 exactly: lround gives 127 where nearbyint would give 126.
  const Encoded x = Encode(Encoding::kLvq8, {0.0f, 126.5f, 255.0f});
  EXPECT_EQ(x.params, (LvqParams{0.0f, 1.0f}));
  EXPECT_EQ(x.code, (Bytes{0, 127, 255}));
}

TEST(LvqTest, Lvq4PacksLowNibbleFirst) {
  const Encoded x = Encode(Encoding::kLvq4, {0.0f, 1.0f, 2.0f, 3.0f});
  EXPECT_EQ(x.params, (LvqParams{0.0f, 0x1.99999ap-3f}));  // 3 / 15
  EXPECT_EQ(x.code, (Bytes{0x50, 0xFA}));                   // codes 0, 5 | 10, 15
  EXPECT_EQ(Decode(Encoding::kLvq4, x, 4), (std::vector<float>{0.0f, 1.0f, 2.0f, 3.0f}));
}

// The LVQ4 values below are the rule of ivf-build-algorithms.md "LVQ encode"
// (min/max, then least-squares refits) computed independently by
// tools/lvq4_reference.py, a float32 emulation in Python.
TEST(LvqTest, Lvq4OddDimensionLeavesLastHighNibbleZero) {
  const Encoded x = Encode(Encoding::kLvq4, {2.0f, 0.0f, 1.5f, 6.0f, 4.5f});
  // min/max would give offset 0, scale 6/15, codes 5, 0, 4, 15, 11; one refit lowers the error.
  EXPECT_EQ(x.params, (LvqParams{-0x1.1aae84p-5f, 0x1.9ea5dcp-2f}));
  EXPECT_EQ(x.code, (Bytes{0x05, 0xF4, 0x0B}));  // codes 5, 0 | 4, 15 | 11, (0)
  EXPECT_EQ(Decode(Encoding::kLvq4, x, 5),
            (std::vector<float>{0x1.fd79ep+0f, -0x1.1aae84p-5f, 0x1.95d068p+0f, 0x1.82862p+2f, 0x1.1adcaap+2f}));
  EXPECT_EQ(LvqCodeAt(Encoding::kLvq4, x.code.data(), 4), 11u);
}

TEST(LvqTest, Lvq4NegativeValues) {
  const Encoded x = Encode(Encoding::kLvq4, {0.1f, -0.35f, 0.7f, 0.2f, -0.9f});
  EXPECT_EQ(x.params, (LvqParams{-0x1.c5ef86p-1f, 0x1.b7519p-4f}));
  EXPECT_EQ(x.code, (Bytes{0x59, 0xAF, 0x00}));  // codes 9, 5 | 15, 10 | 0
  EXPECT_EQ(Decode(Encoding::kLvq4, x, 5),
            (std::vector<float>{0x1.4261ep-4f, -0x1.66b918p-2f, 0x1.71c96ap-1f, 0x1.7cd9b8p-3f, -0x1.c5ef86p-1f}));
}

TEST(LvqTest, ConstantVectorsHaveZeroScaleAndCodes) {
  for (Encoding e : {Encoding::kLvq4, Encoding::kLvq8}) {
    for (const std::vector<float>& v : {std::vector<float>{2.5f, 2.5f, 2.5f}, std::vector<float>{-7.0f},
                                        std::vector<float>(8, 0.0f)}) {
      const Encoded x = Encode(e, v);
      EXPECT_EQ(x.params, (LvqParams{v[0], 0.0f}));
      EXPECT_EQ(x.code, Bytes(CodeBytes(e, v.size()), 0));
      EXPECT_EQ(Decode(e, x, v.size()), v);
    }
  }
}

TEST(LvqTest, DecodeRoundsProductBeforeSum) {
  // fma(scale, 202, offset) would give 0x1.e4219ep+0; the normative
  // offset + (float)(scale * 202) gives 0x1.e421ap+0.
  const LvqParams p{0x1.025352p-1f, 0x1.c1dc76p-8f};
  const Bytes code{202};
  float out = 0;
  ASSERT_TRUE(DecodeLvq(Encoding::kLvq8, p, code, std::span<float>(&out, 1)).ok());
  EXPECT_EQ(out, 0x1.e421ap+0f);
}

TEST(LvqTest, Lvq8RoundTripErrorAtMostHalfAStep) {
  std::mt19937 gen(7);
  std::normal_distribution<float> normal(0.0f, 3.0f);
  for (size_t d : {1u, 2u, 7u, 64u, 101u}) {
    for (int trial = 0; trial < 50; ++trial) {
      std::vector<float> v(d);
      for (float& x : v) x = normal(gen);
      const Encoded x = Encode(Encoding::kLvq8, v);
      const std::vector<float> back = Decode(Encoding::kLvq8, x, d);
      float max_abs = 0;
      for (float f : v) max_abs = std::max(max_abs, std::fabs(f));
      // Half a quantization step plus a few float32 roundings.
      const float bound = x.params.scale / 2 * (1 + 1e-5f) + 4 * std::numeric_limits<float>::epsilon() * max_abs;
      for (size_t i = 0; i < d; ++i) EXPECT_LE(std::fabs(back[i] - v[i]), bound) << "d=" << d << " i=" << i;
    }
  }
}

// LVQ4's refits never lose to the plain min/max code, and win clearly on
// heavy-tailed vectors (a few outliers stretching the range).
TEST(LvqTest, Lvq4RefitNeverIncreasesTheError) {
  std::mt19937 gen(11);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::student_t_distribution<float> heavy(2.0f);
  double refined_total = 0, plain_total = 0;
  for (size_t d : {2u, 7u, 64u, 101u, 784u}) {
    for (int trial = 0; trial < 40; ++trial) {
      std::vector<float> v(d);
      for (float& x : v) x = trial % 2 ? heavy(gen) : normal(gen);
      const Encoded x = Encode(Encoding::kLvq4, v);
      const std::vector<float> back = Decode(Encoding::kLvq4, x, d);
      // The plain code, by the rule's first step.
      const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
      const float scale = (*hi - *lo) / 15.0f;
      double refined = 0, plain = 0;
      for (size_t i = 0; i < d; ++i) {
        const long c = std::clamp<long>(std::lround((v[i] - *lo) / scale), 0, 15);
        const float p = *lo + scale * static_cast<float>(c);
        plain += (static_cast<double>(v[i]) - p) * (static_cast<double>(v[i]) - p);
        refined += (static_cast<double>(v[i]) - back[i]) * (static_cast<double>(v[i]) - back[i]);
        // Codes are what the stored parameters quantize to (the refit re-coded).
        const float t = std::clamp((v[i] - x.params.offset) / x.params.scale, 0.0f, 15.0f);
        EXPECT_EQ(LvqCodeAt(Encoding::kLvq4, x.code.data(), i), static_cast<uint32_t>(std::lround(t)));
      }
      EXPECT_LE(refined, plain) << "d=" << d << " trial " << trial;
      if (d >= 64 && trial % 2) {
        refined_total += refined;
        plain_total += plain;
      }
    }
  }
  EXPECT_LT(refined_total, 0.8 * plain_total);
}

TEST(LvqTest, EncodeLvqVectorMatchesSpanApi) {
  const std::vector<float> v{0.25f, -1.0f, 3.5f};
  auto vec = EncodeLvqVector(Encoding::kLvq4, v);
  ASSERT_TRUE(vec.ok());
  const Encoded x = Encode(Encoding::kLvq4, v);
  EXPECT_EQ(vec->params, x.params);
  EXPECT_EQ(Bytes(vec->code.begin(), vec->code.end()), x.code);
}

TEST(LvqTest, ResidualReconstruction) {
  std::mt19937 gen(11);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  const size_t d = 33;
  std::vector<float> centroid(d), x(d);
  for (float& c : centroid) c = 5 * normal(gen);
  for (size_t i = 0; i < d; ++i) x[i] = centroid[i] + 0.1f * normal(gen);
  // The residual is taken against the *decoded* LVQ8 centroid.
  const Encoded c8 = Encode(Encoding::kLvq8, centroid);
  const std::vector<float> c_hat = Decode(Encoding::kLvq8, c8, d);
  for (Encoding e : {Encoding::kLvq4, Encoding::kLvq8}) {
    auto r = EncodeResidualVector(e, x, c_hat);
    ASSERT_TRUE(r.ok());
    std::vector<float> residual(d);
    for (size_t i = 0; i < d; ++i) residual[i] = x[i] - c_hat[i];
    const Encoded direct = Encode(e, residual);
    EXPECT_EQ(r->params, direct.params);
    EXPECT_EQ(Bytes(r->code.begin(), r->code.end()), direct.code);

    std::vector<float> x_hat(d);
    const std::span<const uint8_t> code(reinterpret_cast<const uint8_t*>(r->code.data()), r->code.size());
    ASSERT_TRUE(ReconstructResidual(e, r->params, code, c_hat, x_hat).ok());
    const std::vector<float> r_hat = Decode(e, direct, d);
    for (size_t i = 0; i < d; ++i) {
      EXPECT_EQ(x_hat[i], c_hat[i] + r_hat[i]);
      EXPECT_LE(std::fabs(x_hat[i] - x[i]), r->params.scale / 2 * (1 + 1e-4f) + 1e-5f);
    }
  }
}

TEST(LvqTest, RejectsNonFiniteAndBadSizes) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  Bytes code(3);
  EXPECT_EQ(EncodeLvq(Encoding::kLvq8, std::vector<float>{1, nan, 2}, code).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(EncodeLvq(Encoding::kLvq8, std::vector<float>{1, 2, -inf}, code).status().message(),
            "vector element 2 is not finite");
  EXPECT_EQ(EncodeLvq(Encoding::kLvq8, std::vector<float>{-3e38f, 0, 3e38f}, code).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(EncodeLvq(Encoding::kLvq4, std::vector<float>{1, 2, 3}, code).status().code(),
            StatusCode::kInvalidArgument);  // LVQ4 needs 2 bytes
  Bytes none;
  EXPECT_EQ(EncodeLvq(Encoding::kLvq8, std::vector<float>{}, none).status().code(), StatusCode::kInvalidArgument);
  std::vector<float> out(4);
  EXPECT_EQ(DecodeLvq(Encoding::kLvq8, {}, code, out).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(EncodeResidual(Encoding::kLvq8, std::vector<float>{1, 2, 3}, std::vector<float>{0, nan, 0}, code)
                .status()
                .message(),
            "centroid element 1 is not finite");
  EXPECT_EQ(EncodeResidual(Encoding::kLvq8, std::vector<float>{1, 2, 3}, std::vector<float>{0, 0}, code)
                .status()
                .code(),
            StatusCode::kInvalidArgument);
}

TEST(LvqTest, EncodeRowsMatchesPerRow) {
  const std::vector<float> rows{0, 1, 2, 3, -1, -1, -1, -1, 5, 0, 0, 0};
  auto coded = EncodeLvqRows(Encoding::kLvq8, rows, 4);
  ASSERT_TRUE(coded.ok());
  ASSERT_EQ(coded->params.size(), 3u);
  for (size_t r = 0; r < 3; ++r) {
    const std::vector<float> row(rows.begin() + static_cast<long>(r * 4), rows.begin() + static_cast<long>(r * 4 + 4));
    const Encoded x = Encode(Encoding::kLvq8, row);
    EXPECT_EQ(coded->params[r], x.params);
    EXPECT_EQ(Bytes(coded->codes.begin() + static_cast<long>(r * 4), coded->codes.begin() + static_cast<long>(r * 4 + 4)),
              x.code);
    const std::vector<float> decoded = Decode(Encoding::kLvq8, x, 4);
    EXPECT_EQ(std::vector<float>(coded->decoded.begin() + static_cast<long>(r * 4),
                                 coded->decoded.begin() + static_cast<long>(r * 4 + 4)),
              decoded);
  }
  std::vector<float> bad = rows;
  bad[9] = std::numeric_limits<float>::infinity();
  EXPECT_EQ(EncodeLvqRows(Encoding::kLvq8, bad, 4).status().message(), "row 2: vector element 1 is not finite");
}

TEST(LvqTest, NormalizeL2) {
  std::vector<float> v{3, 4};
  ASSERT_TRUE(NormalizeL2(v).ok());
  EXPECT_EQ(v, (std::vector<float>{0.6f, 0.8f}));
  std::vector<float> rows{1, 0, 0, 0, 0, 0, 0, 2, 0};
  Status s = NormalizeL2Rows(rows, 3);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "vector 1: cosine metric: a zero vector cannot be normalized");
  std::vector<float> nan{1, std::numeric_limits<float>::quiet_NaN()};
  EXPECT_EQ(NormalizeL2(nan).code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace vigilo::ivf
