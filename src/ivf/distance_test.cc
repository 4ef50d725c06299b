#include "vigilo/ivf/distance.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

namespace vigilo::ivf {
namespace {

std::vector<float> RandomVector(std::mt19937& gen, size_t d, float sigma) {
  std::normal_distribution<float> normal(0.0f, sigma);
  std::vector<float> v(d);
  for (float& x : v) x = normal(gen);
  return v;
}

double BruteL2(const std::vector<float>& a, const std::vector<float>& b) {
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += (double(a[i]) - double(b[i])) * (double(a[i]) - double(b[i]));
  return s;
}

double BruteDot(const std::vector<float>& a, const std::vector<float>& b) {
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += double(a[i]) * double(b[i]);
  return s;
}

void ExpectClose(double got, double want) { EXPECT_NEAR(got, want, 1e-6 * std::max(1.0, std::fabs(want))); }

TEST(DistanceTest, FloatKernels) {
  std::mt19937 gen(3);
  for (size_t d : {1u, 5u, 96u, 129u}) {
    const auto q = RandomVector(gen, d, 1.0f);
    const auto x = RandomVector(gen, d, 1.0f);
    ExpectClose(L2SquaredFloat(q, x), BruteL2(q, x));
    ExpectClose(DotFloat(q, x), BruteDot(q, x));
    ExpectClose(FloatDistance(Metric::kL2Squared, q, x), BruteL2(q, x));
    ExpectClose(FloatDistance(Metric::kCosine, q, x), 1.0 - BruteDot(q, x));
  }
  EXPECT_EQ(L2SquaredFloat(std::vector<float>{1, 2}, std::vector<float>{4, 6}), 25.0f);
}

TEST(DistanceTest, LvqKernelsMatchDecodedBruteForce) {
  std::mt19937 gen(5);
  for (Encoding e : {Encoding::kLvq4, Encoding::kLvq8}) {
    for (size_t d : {3u, 64u, 101u}) {
      auto q = RandomVector(gen, d, 1.0f);
      auto x = RandomVector(gen, d, 1.0f);
      auto coded = EncodeLvqVector(e, x);
      ASSERT_TRUE(coded.ok());
      const std::span<const uint8_t> code(reinterpret_cast<const uint8_t*>(coded->code.data()), coded->code.size());
      std::vector<float> x_hat(d);
      ASSERT_TRUE(DecodeLvq(e, coded->params, code, x_hat).ok());
      ExpectClose(L2SquaredLvq(e, q, coded->params, code), BruteL2(q, x_hat));
      ExpectClose(LvqDistance(Metric::kL2Squared, e, q, coded->params, code), BruteL2(q, x_hat));
      ExpectClose(DotLvq(e, q, coded->params, code), BruteDot(q, x_hat));

      // Cosine on normalized vectors: 1 - q̂·x̂.
      ASSERT_TRUE(NormalizeL2(q).ok());
      ASSERT_TRUE(NormalizeL2(x).ok());
      auto unit = EncodeLvqVector(e, x);
      ASSERT_TRUE(unit.ok());
      const std::span<const uint8_t> unit_code(reinterpret_cast<const uint8_t*>(unit->code.data()), unit->code.size());
      ASSERT_TRUE(DecodeLvq(e, unit->params, unit_code, x_hat).ok());
      ExpectClose(LvqDistance(Metric::kCosine, e, q, unit->params, unit_code), 1.0 - BruteDot(q, x_hat));
      // And the quantized distance approximates the exact one.
      EXPECT_NEAR(LvqDistance(Metric::kCosine, e, q, unit->params, unit_code), 1.0 - BruteDot(q, x),
                  e == Encoding::kLvq8 ? 0.01 : 0.1);
    }
  }
}

TEST(DistanceTest, ResidualKernelsMatchReconstruction) {
  std::mt19937 gen(9);
  const size_t d = 48;
  const auto centroid = RandomVector(gen, d, 4.0f);
  auto c8 = EncodeLvqVector(Encoding::kLvq8, centroid);
  ASSERT_TRUE(c8.ok());
  std::vector<float> c_hat(d);
  ASSERT_TRUE(DecodeLvq(Encoding::kLvq8, c8->params,
                        std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(c8->code.data()), d), c_hat)
                  .ok());
  for (Encoding e : {Encoding::kLvq4, Encoding::kLvq8}) {
    const auto q = RandomVector(gen, d, 4.0f);
    auto x = centroid;
    for (float& v : x) v += std::normal_distribution<float>(0.0f, 0.3f)(gen);
    auto r = EncodeResidualVector(e, x, c_hat);
    ASSERT_TRUE(r.ok());
    const std::span<const uint8_t> code(reinterpret_cast<const uint8_t*>(r->code.data()), r->code.size());
    std::vector<float> x_hat(d);
    ASSERT_TRUE(ReconstructResidual(e, r->params, code, c_hat, x_hat).ok());
    ExpectClose(L2SquaredLvqResidual(e, q, r->params, code, c_hat), BruteL2(q, x_hat));
    ExpectClose(LvqDistance(Metric::kL2Squared, e, q, r->params, code, c_hat), BruteL2(q, x_hat));
    ExpectClose(DotLvqResidual(e, q, r->params, code, c_hat), BruteDot(q, x_hat));
    ExpectClose(LvqDistance(Metric::kCosine, e, q, r->params, code, c_hat), 1.0 - BruteDot(q, x_hat));
    // Residual coding is much finer than coding x itself.
    EXPECT_NEAR(L2SquaredLvqResidual(e, q, r->params, code, c_hat), BruteL2(q, x), 0.02 * BruteL2(q, x));
  }
}

}  // namespace
}  // namespace vigilo::ivf
