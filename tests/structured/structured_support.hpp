// Helpers of the structured-oracle tests: tiny random instances and brute-force enumeration.
#pragma once

#include <cmath>
#include <functional>
#include <random>
#include <vector>

#include "dualgap/oracles/structured.hpp"

namespace structured_test {

using dualgap::Examples;
using dualgap::Vector;

/// n chain examples with U units each, K labels, d dense Gaussian features.
inline Examples chain_examples(int n, int U, int K, int d, std::mt19937_64& rng) {
  std::normal_distribution<double> g(0, 1);
  std::uniform_int_distribution<int> lab(0, K - 1);
  Examples ex;
  ex.num_classes = K;
  ex.unit_offset.push_back(0);
  dualgap::DenseMatrix X(n * U, d);
  for (int r = 0; r < n * U; ++r) {
    for (int j = 0; j < d; ++j) X(r, j) = g(rng);
    ex.y.push_back(lab(rng));
  }
  for (int i = 0; i < n; ++i) ex.unit_offset.push_back((i + 1) * U);
  ex.X = dualgap::FeatureMatrix(std::move(X));
  return ex;
}

/// n graph examples: U units, random edges (each pair present with probability p).
inline Examples graph_examples(int n, int U, int K, int d, double p, std::mt19937_64& rng) {
  Examples ex = chain_examples(n, U, K, d, rng);
  std::uniform_real_distribution<double> unif(0, 1);
  ex.edge_offset.push_back(0);
  for (int i = 0; i < n; ++i) {
    for (int a = 0; a < U; ++a)
      for (int b = a + 1; b < U; ++b)
        if (unif(rng) < p) ex.edges.emplace_back(a, b);
    ex.edge_offset.push_back(static_cast<std::int64_t>(ex.edges.size()));
  }
  return ex;
}

inline Vector random_w(std::size_t dim, double scale, std::mt19937_64& rng) {
  std::normal_distribution<double> g(0, scale);
  Vector w(static_cast<Eigen::Index>(dim));
  for (Eigen::Index k = 0; k < w.size(); ++k) w[k] = g(rng);
  return w;
}

/// The objective the oracle maximizes, through the joint feature map:
/// <w, phi(x_i, y)> + c(y) + (loss_augmented ? Delta(y_i, y) : 0).
inline double value(dualgap::StructuredOracle& o, const Examples& ex, std::size_t i,
                    const Vector& w, const int* y, bool loss_augmented) {
  Vector phi = Vector::Zero(w.size());
  o.add_joint_features(ex, i, y, 1.0, phi);
  return w.dot(phi) + o.constant(ex, i, y) + (loss_augmented ? o.loss(ex, i, y) : 0.0);
}

/// Maximum of value() over all K^U labelings of example i.
inline double brute_force_max(dualgap::StructuredOracle& o, const Examples& ex, std::size_t i,
                              const Vector& w, bool loss_augmented) {
  const int U = ex.units_of(i), K = ex.num_classes;
  std::vector<int> y(static_cast<std::size_t>(U), 0);
  double best = -INFINITY;
  for (;;) {
    best = std::max(best, value(o, ex, i, w, y.data(), loss_augmented));
    int u = 0;
    while (u < U && ++y[static_cast<std::size_t>(u)] == K) y[static_cast<std::size_t>(u++)] = 0;
    if (u == U) break;
  }
  return best;
}

}  // namespace structured_test
