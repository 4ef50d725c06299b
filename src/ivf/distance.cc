// Scalar reference kernels. Compiled with -ffp-contract=off so x̂_i is the
// normative decode (product rounded before the sum).
#include "vigilo/ivf/distance.h"

#include <cassert>

namespace vigilo::ivf {
namespace {

// x̂_i of a plain or residual code, exactly as lvq.cc decodes it.
struct Decoded {
  Encoding e;
  LvqParams p;
  const uint8_t* code;
  const float* centroid;  // null for a plain code

  float operator()(size_t i) const {
    const float product = p.scale * static_cast<float>(LvqCodeAt(e, code, i));
    const float r = p.offset + product;
    return centroid == nullptr ? r : centroid[i] + r;
  }
};

double L2(std::span<const float> q, const Decoded& x) {
  double sum = 0;
  for (size_t i = 0; i < q.size(); ++i) {
    const double diff = static_cast<double>(q[i]) - static_cast<double>(x(i));
    sum += diff * diff;
  }
  return sum;
}

double Dot(std::span<const float> q, const Decoded& x) {
  double sum = 0;
  for (size_t i = 0; i < q.size(); ++i) sum += static_cast<double>(q[i]) * static_cast<double>(x(i));
  return sum;
}

}  // namespace

float L2SquaredFloat(std::span<const float> q, std::span<const float> x) {
  assert(q.size() == x.size());
  double sum = 0;
  for (size_t i = 0; i < q.size(); ++i) {
    const double diff = static_cast<double>(q[i]) - static_cast<double>(x[i]);
    sum += diff * diff;
  }
  return static_cast<float>(sum);
}

float DotFloat(std::span<const float> q, std::span<const float> x) {
  assert(q.size() == x.size());
  double sum = 0;
  for (size_t i = 0; i < q.size(); ++i) sum += static_cast<double>(q[i]) * static_cast<double>(x[i]);
  return static_cast<float>(sum);
}

float FloatDistance(Metric m, std::span<const float> q, std::span<const float> x) {
  if (m == Metric::kL2Squared) return L2SquaredFloat(q, x);
  assert(q.size() == x.size());
  double sum = 0;
  for (size_t i = 0; i < q.size(); ++i) sum += static_cast<double>(q[i]) * static_cast<double>(x[i]);
  return static_cast<float>(1.0 - sum);
}

float L2SquaredLvq(Encoding e, std::span<const float> q, LvqParams p, std::span<const uint8_t> code) {
  assert(code.size() == CodeBytes(e, q.size()));
  return static_cast<float>(L2(q, Decoded{e, p, code.data(), nullptr}));
}

float DotLvq(Encoding e, std::span<const float> q, LvqParams p, std::span<const uint8_t> code) {
  assert(code.size() == CodeBytes(e, q.size()));
  return static_cast<float>(Dot(q, Decoded{e, p, code.data(), nullptr}));
}

float L2SquaredLvqResidual(Encoding e, std::span<const float> q, LvqParams p, std::span<const uint8_t> code,
                           std::span<const float> centroid_decoded) {
  assert(code.size() == CodeBytes(e, q.size()) && centroid_decoded.size() == q.size());
  return static_cast<float>(L2(q, Decoded{e, p, code.data(), centroid_decoded.data()}));
}

float DotLvqResidual(Encoding e, std::span<const float> q, LvqParams p, std::span<const uint8_t> code,
                     std::span<const float> centroid_decoded) {
  assert(code.size() == CodeBytes(e, q.size()) && centroid_decoded.size() == q.size());
  return static_cast<float>(Dot(q, Decoded{e, p, code.data(), centroid_decoded.data()}));
}

float LvqDistance(Metric m, Encoding e, std::span<const float> q, LvqParams p, std::span<const uint8_t> code,
                  std::span<const float> centroid_decoded) {
  assert(code.size() == CodeBytes(e, q.size()));
  assert(centroid_decoded.empty() || centroid_decoded.size() == q.size());
  const Decoded x{e, p, code.data(), centroid_decoded.empty() ? nullptr : centroid_decoded.data()};
  if (m == Metric::kL2Squared) return static_cast<float>(L2(q, x));
  // 1 - dot in double, rounded once.
  return static_cast<float>(1.0 - Dot(q, x));
}

}  // namespace vigilo::ivf
