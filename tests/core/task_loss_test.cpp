// Task loss: beside train/test error (0-1 / Hamming, whatever the oracle), a run records
// train_loss / test_loss, the mean over examples of the oracle's own loss Delta(y_i, y_hat) at
// the prediction. Checked against a brute-force computation for an oracle whose loss is neither
// 0-1 nor Hamming, and end to end through run.json and compare.
#include <cmath>
#include <random>

#include "cli_support.hpp"
#include "dualgap/objective.hpp"
#include "dualgap/oracles/structured.hpp"

using namespace dualgap;
using namespace dualgap::test;
namespace fs = std::filesystem;

namespace {

/// A class-distance loss, as a hierarchy over ordered classes would give: predicting class k for
/// class c costs |k - c| / (K - 1) per unit, summed over the units of the example (not
/// normalized). Units are independent (no transitions): argmax is per unit, by enumeration.
class DistanceOracle final : public StructuredOracle {
 public:
  double loss(const Examples& ex, std::size_t i, const int* y) const override {
    double l = 0;
    const auto b = ex.unit_begin(i);
    for (int u = 0; u < ex.units_of(i); ++u)
      l += std::abs(y[u] - ex.y[static_cast<std::size_t>(b + u)]) / static_cast<double>(ex.num_classes - 1);
    return l;
  }

 protected:
  void argmax(const Examples& ex, std::size_t i, const double* unary, const double*, bool loss_augmented,
              Labeling& out) override {
    const int K = ex.num_classes;
    const auto b = ex.unit_begin(i);
    for (int u = 0; u < ex.units_of(i); ++u) {
      int best = 0;
      double best_v = -INFINITY;
      for (int k = 0; k < K; ++k) {
        const double v = unary[u * K + k] +
                         (loss_augmented ? std::abs(k - ex.y[static_cast<std::size_t>(b + u)]) / double(K - 1) : 0.0);
        if (v > best_v) best_v = v, best = k;
      }
      out.labels[static_cast<std::size_t>(u)] = best;
    }
  }
};

/// Examples of 1-3 units each, d features, K classes.
Examples random_examples(int n, int d, int K, std::mt19937_64& rng) {
  std::normal_distribution<double> g;
  std::uniform_int_distribution<int> units(1, 3), cls(0, K - 1);
  Examples ex;
  ex.num_classes = K;
  ex.unit_offset.push_back(0);
  std::vector<std::vector<double>> rows;
  for (int i = 0; i < n; ++i) {
    const int U = units(rng);
    for (int u = 0; u < U; ++u) {
      ex.y.push_back(cls(rng));
      std::vector<double> r(static_cast<std::size_t>(d));
      for (auto& v : r) v = g(rng);
      rows.push_back(r);
    }
    ex.unit_offset.push_back(static_cast<std::int64_t>(ex.y.size()));
  }
  ex.X = dense_rows(rows, d);
  return ex;
}

/// Brute force: the predicted class of each unit is argmax_k <w_k, x_u>; the loss of an example
/// sums |k - c| / (K - 1) over its units; returns (mean loss per example, Hamming error per unit).
std::pair<double, double> brute_force(const Examples& ex, const Vector& w) {
  const int K = ex.num_classes;
  const auto d = ex.num_features();
  const DenseMatrix X = ex.X.to_dense();
  double loss = 0;
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < ex.num_examples(); ++i)
    for (auto u = ex.unit_begin(i); u < ex.unit_end(i); ++u) {
      int best = 0;
      double best_v = -INFINITY;
      for (int k = 0; k < K; ++k) {
        double v = 0;
        for (Eigen::Index j = 0; j < d; ++j) v += w[k * d + j] * X(u, j);
        if (v > best_v) best_v = v, best = k;
      }
      const int truth = ex.y[static_cast<std::size_t>(u)];
      loss += std::abs(best - truth) / static_cast<double>(K - 1);
      wrong += best != truth;
    }
  return {loss / static_cast<double>(ex.num_examples()), static_cast<double>(wrong) / static_cast<double>(ex.num_units())};
}

}  // namespace

TEST_CASE("train_loss / test_loss are the mean of the oracle's own loss at the prediction (brute force)") {
  std::mt19937_64 rng(7);
  Data data;
  data.train = random_examples(40, 3, 5, rng);
  data.test = random_examples(25, 3, 5, rng);
  DistanceOracle oracle;
  Problem pb;
  pb.data = &data;
  pb.oracle = &oracle;
  pb.lambda = 0.01;
  IdleSolver solver;
  auto objective = make_objective(pb, solver);
  std::normal_distribution<double> g;
  for (int trial = 0; trial < 5; ++trial) {
    Vector w(static_cast<Eigen::Index>(oracle.dim(3, 5)));
    for (auto& v : w) v = g(rng);
    Iterate it;
    it.w = &w;
    Scores s;
    objective->score(it, s);
    const auto [train_loss, train_error] = brute_force(data.train, w);
    const auto [test_loss, test_error] = brute_force(data.test, w);
    REQUIRE(s.column("train_loss"));
    REQUIRE(s.column("test_loss"));
    CHECK(*s.column("train_loss") == doctest::Approx(train_loss));
    CHECK(*s.column("test_loss") == doctest::Approx(test_loss));
    CHECK(*s.train_error == doctest::Approx(train_error));  // the errors stay Hamming per unit
    CHECK(*s.test_error == doctest::Approx(test_error));
    CHECK(std::abs(*s.column("test_loss") - *s.test_error) > 1e-6);  // the loss is another measure
  }
  // Without record.train_error nothing is decoded on the training set: no train_loss either.
  ScoreOptions no_train;
  no_train.train_error = false;
  auto lean = make_objective(pb, solver, no_train);
  Vector w = Vector::Ones(static_cast<Eigen::Index>(oracle.dim(3, 5)));
  Iterate it;
  it.w = &w;
  Scores s;
  lean->score(it, s);
  CHECK(!s.column("train_loss"));
  CHECK(s.column("test_loss"));
  // A solver may not report columns by these names.
  CHECK(is_core_column("train_loss"));
  CHECK(is_core_column("test_loss"));
}

TEST_CASE("a run records train_loss / test_loss of an unnormalized Hamming oracle; compare shows them") {
  TempDir dir;
  write_text(dir.path / "exp.yaml",
             "name: chain\n"
             "data: {plugin: synthetic_chain, n_train: 20, n_test: 12}\n"
             "oracle: {plugin: chain_viterbi, loss: count}\n"
             "solvers:\n"
             "  - {name: BCFW, plugin: bcfw}\n"
             "stop: {max_passes: 5}\n");
  auto r = run_cli("run " + (dir.path / "exp.yaml").string() + " --no-report --out " + (dir.path / "res").string());
  INFO(r.output);
  REQUIRE(r.code == 0);
  const auto j = read_json(dir.path / "res" / "chain" / "BCFW__r0" / "run.json");
  const auto& c = j["curve"];
  REQUIRE(c.contains("test_loss"));
  REQUIRE(c.contains("train_loss"));
  // Unnormalized Hamming: an example's loss is its number of wrong units, so the mean loss per
  // example is the per-unit error times units per example.
  const double test_units = j["data_info"]["test"]["units"].get<double>(),
               test_examples = j["data_info"]["test"]["examples"].get<double>();
  const double train_units = j["data_info"]["train"]["units"].get<double>(),
               train_examples = j["data_info"]["train"]["examples"].get<double>();
  REQUIRE(test_units > test_examples);  // words of several letters: loss and error differ
  for (std::size_t k = 0; k < c["test_loss"].size(); ++k) {
    CHECK(c["test_loss"][k].get<double>() == doctest::Approx(c["test_error"][k].get<double>() * test_units / test_examples));
    CHECK(c["train_loss"][k].get<double>() ==
          doctest::Approx(c["train_error"][k].get<double>() * train_units / train_examples));
  }
  auto t = run_cli("compare " + (dir.path / "res").string() + " --table --y test_loss");
  INFO(t.output);
  CHECK(t.code == 0);
  CHECK(t.output.find("test_loss") != std::string::npos);
  CHECK(t.output.find("train_loss") != std::string::npos);  // a final-values column
}
