// Structured max-oracles against brute-force enumeration of all K^U labelings on tiny
// instances, loss-augmented and plain; ties are compared by value, not by labeling.
#include <doctest/doctest.h>

#include "oracles/unary_kernels.hpp"
#include "structured_support.hpp"
#include "test_support.hpp"

using namespace structured_test;
using dualgap::Kind;
using dualgap::StructuredOracle;

namespace {

std::shared_ptr<StructuredOracle> oracle(const std::string& name, const dualgap::json& p = {}) {
  return dualgap::test::make<StructuredOracle>(Kind::oracle, name,
                                               p.is_null() ? dualgap::json::object() : p);
}

// Checks the oracle's labeling reaches the brute-force maximum on every example (exact
// oracles) or stays below it (approximate); also checks out.loss / out.constant.
void check_against_brute_force(StructuredOracle& o, const Examples& ex, double wscale,
                               std::mt19937_64& rng, bool expect_exact, int* strict_below) {
  const auto dim = o.dim(static_cast<std::size_t>(ex.num_features()), ex.num_classes);
  for (int rep = 0; rep < 4; ++rep) {
    const Vector w = random_w(dim, wscale, rng);
    for (std::size_t i = 0; i < ex.num_examples(); ++i)
      for (bool aug : {true, false}) {
        dualgap::Labeling out;
        std::vector<double> scores;
        if (aug) o.max_oracle(ex, i, w, out, scores);
        else o.decode(ex, i, w, out, scores);
        REQUIRE(out.labels.size() == static_cast<std::size_t>(ex.units_of(i)));
        const double got = value(o, ex, i, w, out.labels.data(), aug);
        const double best = brute_force_max(o, ex, i, w, aug);
        CHECK(out.loss == doctest::Approx(o.loss(ex, i, out.labels.data())));
        CHECK(out.constant == doctest::Approx(o.constant(ex, i, out.labels.data())));
        CHECK(got <= best + 1e-9);
        if (expect_exact) {
          CHECK(got == doctest::Approx(best).epsilon(1e-9));
        } else if (got < best - 1e-9 && strict_below) {
          ++*strict_below;
        }
      }
  }
}

}  // namespace

TEST_CASE("chain_viterbi equals brute force (normalized and count loss)") {
  std::mt19937_64 rng(1);
  for (const char* loss : {"normalized", "count"}) {
    auto o = oracle("chain_viterbi", {{"loss", loss}});
    CHECK(o->uses_transitions());
    CHECK(o->exact());
    for (int U : {1, 2, 5}) {
      // Small weights make the loss term decisive, large ones the scores: both regimes.
      for (double scale : {0.05, 1.0}) {
        Examples ex = chain_examples(6, U, 3, 4, rng);
        check_against_brute_force(*o, ex, scale, rng, true, nullptr);
      }
    }
    Examples ex = chain_examples(3, 4, 4, 3, rng);  // K = 4, U = 4: 256 labelings
    check_against_brute_force(*o, ex, 0.5, rng, true, nullptr);
  }
}

TEST_CASE("chain_viterbi loss values") {
  std::mt19937_64 rng(2);
  Examples ex = chain_examples(1, 4, 3, 2, rng);
  std::vector<int> y(ex.y.begin(), ex.y.end());
  auto norm = oracle("chain_viterbi", {{"loss", "normalized"}});
  auto cnt = oracle("chain_viterbi", {{"loss", "count"}});
  CHECK(norm->loss(ex, 0, y.data()) == 0.0);
  y[0] = (y[0] + 1) % 3;
  y[2] = (y[2] + 1) % 3;
  CHECK(norm->loss(ex, 0, y.data()) == doctest::Approx(0.5));
  CHECK(cnt->loss(ex, 0, y.data()) == doctest::Approx(2.0));
  CHECK(norm->dim(2, 3) == 2 * 3 + 9);
}

TEST_CASE("multiclass with class_cost equals brute force; its loss is the cost of each wrong unit") {
  std::mt19937_64 rng(4);
  const dualgap::json cost = {{"class_cost", {0.5, 2.0, 1.0}}};
  auto o = oracle("multiclass", cost);
  for (int U : {1, 3}) {  // multi-class examples, and examples of several independent units
    for (double scale : {0.05, 1.0}) {
      Examples ex = chain_examples(6, U, 3, 4, rng);
      check_against_brute_force(*o, ex, scale, rng, true, nullptr);
    }
  }
  Examples ex = chain_examples(1, 4, 3, 2, rng);
  std::vector<int> y(ex.y.begin(), ex.y.end());
  CHECK(o->loss(ex, 0, y.data()) == 0.0);
  const double costs[] = {0.5, 2.0, 1.0};
  y[0] = (y[0] + 1) % 3;
  y[2] = (y[2] + 2) % 3;
  CHECK(o->loss(ex, 0, y.data()) == doctest::Approx((costs[ex.y[0]] + costs[ex.y[2]]) / 4));
  // Without costs, the 0-1 (normalized Hamming) loss as before.
  CHECK(oracle("multiclass")->loss(ex, 0, y.data()) == doctest::Approx(0.5));
  // An object handed data with another number of classes refuses it instead of reading past
  // the list.
  Examples four = chain_examples(2, 1, 4, 2, rng);
  dualgap::Labeling out;
  std::vector<double> s;
  CHECK_THROWS_WITH(o->max_oracle(four, 0, Vector::Zero(o->dim(2, 4)), out, s),
                    doctest::Contains("class_cost has 3 values for 4 classes"));
}

TEST_CASE("multiclass: the data check wants one class_cost per class and names the classes") {
  const auto& d = *dualgap::test::plugins().get(Kind::oracle, "multiclass").description;
  REQUIRE(static_cast<bool>(d.validate_data));
  dualgap::DataShape shape;
  shape.n = shape.N = 10;
  shape.d = 4;
  shape.K = 3;
  shape.class_names = {"cat", "dog", "eel"};
  auto check = [&](const dualgap::json& params) {
    return d.validate_data(dualgap::make_params(d.params, params), shape);
  };
  CHECK(check(dualgap::json::object()).message.empty());
  CHECK(check({{"class_cost", {1.0, 2.0, 3.0}}}).message.empty());
  const auto issue = check({{"class_cost", {1.0, 2.0}}});
  CHECK(issue.param == "class_cost");
  CHECK(issue.message == "2 values for 3 classes: expected one per class, in the data's class order (cat, dog, eel)");
}

TEST_CASE("chain_viterbi refuses graph data") {
  std::mt19937_64 rng(3);
  Examples ex = graph_examples(1, 3, 2, 2, 0.5, rng);
  auto o = oracle("chain_viterbi");
  dualgap::Labeling out;
  std::vector<double> s;
  CHECK_THROWS(o->max_oracle(ex, 0, Vector::Zero(o->dim(2, 2)), out, s));
}

TEST_CASE("graph_cut equals brute force on random binary graphs") {
  std::mt19937_64 rng(4);
  for (double beta : {0.0, 0.3, 1.0}) {
    for (const char* loss : {"normalized", "count"}) {
      auto o = oracle("graph_cut", {{"beta", beta}, {"loss", loss}});
      CHECK_FALSE(o->uses_transitions());
      for (int U : {1, 3, 6, 9}) {
        for (double p : {0.3, 0.8}) {
          Examples ex = graph_examples(4, U, 2, 3, p, rng);
          check_against_brute_force(*o, ex, 0.2, rng, true, nullptr);
          check_against_brute_force(*o, ex, 1.5, rng, true, nullptr);
        }
      }
    }
  }
}

TEST_CASE("graph_cut constant is -beta times the cut edges") {
  std::mt19937_64 rng(5);
  Examples ex = graph_examples(1, 4, 2, 2, 1.0, rng);  // complete graph: 6 edges
  auto o = oracle("graph_cut", {{"beta", 0.5}});
  int y[4] = {0, 1, 1, 0};  // cut edges: (0,1),(0,2),(1,3),(2,3)
  CHECK(o->constant(ex, 0, y) == doctest::Approx(-2.0));
  int z[4] = {1, 1, 1, 1};
  CHECK(o->constant(ex, 0, z) == 0.0);
}

TEST_CASE("graph_cut rejects more than two labels") {
  std::mt19937_64 rng(6);
  Examples ex = graph_examples(1, 3, 3, 2, 0.5, rng);
  auto o = oracle("graph_cut");
  dualgap::Labeling out;
  std::vector<double> s;
  CHECK_THROWS(o->decode(ex, 0, Vector::Zero(6), out, s));
}

TEST_CASE("potts_expansion: below brute force, exact on binary instances") {
  std::mt19937_64 rng(7);
  auto o = oracle("potts_expansion", {{"beta", 1.0}});
  CHECK_FALSE(o->exact());
  for (int U : {2, 5, 7}) {
    Examples bin = graph_examples(4, U, 2, 3, 0.6, rng);
    check_against_brute_force(*o, bin, 0.5, rng, true, nullptr);
  }
  int below = 0;
  for (int U : {3, 5, 6}) {
    for (double scale : {0.1, 0.6}) {
      Examples ex = graph_examples(5, U, 3, 3, 0.7, rng);
      check_against_brute_force(*o, ex, scale, rng, false, &below);
    }
  }
  MESSAGE("alpha-expansion strictly below the optimum on " << below << " of 240 K=3 problems");
}

TEST_CASE("potts_expansion agrees with graph_cut on binary data") {
  std::mt19937_64 rng(8);
  auto pe = oracle("potts_expansion", {{"beta", 0.7}});
  auto gc = oracle("graph_cut", {{"beta", 0.7}});
  Examples ex = graph_examples(10, 12, 2, 3, 0.3, rng);
  for (int rep = 0; rep < 5; ++rep) {
    const Vector w = random_w(6, 0.5, rng);
    for (std::size_t i = 0; i < ex.num_examples(); ++i) {
      dualgap::Labeling a, b;
      std::vector<double> s;
      pe->max_oracle(ex, i, w, a, s);
      gc->max_oracle(ex, i, w, b, s);
      CHECK(value(*pe, ex, i, w, a.labels.data(), true) ==
            doctest::Approx(value(*gc, ex, i, w, b.labels.data(), true)).epsilon(1e-9));
    }
  }
}

#ifdef DUALGAP_UNARY_AVX2
TEST_CASE("unary score kernels: every SIMD level equals the naive dot products (all remainder shapes)") {
  // The dispatch picks one level per CPU, so the oracle tests above exercise only that one:
  // here each kernel the CPU can run is called directly, over unit counts 1..9 (the 3/4-unit
  // blocks and their remainders), class counts 1..27 (the 4/6/8-class blocks, then 2, then 1)
  // and feature counts that are not multiples of 4 or 8.
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> U(-1, 1);
  const int level = dualgap::detail::unary_simd_level();
  MESSAGE("SIMD level of this CPU: " << level << " (2: AVX-512F, 1: AVX2+FMA, 0: none)");
  int checked = 0;
  for (std::ptrdiff_t units : {1, 2, 3, 4, 5, 7, 9})
    for (int K : {1, 2, 3, 5, 8, 13, 26, 27})
      for (std::ptrdiff_t d : {1, 3, 4, 7, 8, 13, 128, 131}) {
        std::vector<double> X(static_cast<std::size_t>(units * d)), W(static_cast<std::size_t>(K * d));
        for (auto& v : X) v = U(rng);
        for (auto& v : W) v = U(rng);
        std::vector<double> ref(static_cast<std::size_t>(units * K));
        for (std::ptrdiff_t u = 0; u < units; ++u)
          for (int k = 0; k < K; ++k) {
            double s = 0;
            for (std::ptrdiff_t j = 0; j < d; ++j) s += X[u * d + j] * W[k * d + j];
            ref[static_cast<std::size_t>(u * K + k)] = s;
          }
        auto check = [&](const std::vector<double>& got) {
          for (std::size_t q = 0; q < ref.size(); ++q) REQUIRE(got[q] == doctest::Approx(ref[q]).epsilon(1e-12));
          ++checked;
        };
        std::vector<double> S(ref.size(), 1e300);
        if (level >= 1) {
          dualgap::detail::unary_scores_avx2(X.data(), W.data(), units, K, d, S.data());
          check(S);
        }
        if (level >= 2) {
          std::fill(S.begin(), S.end(), 1e300);
          dualgap::detail::unary_scores_avx512(X.data(), W.data(), units, K, d, S.data());
          check(S);
        }
      }
  CHECK(checked == (level >= 2 ? 2 : level) * 7 * 8 * 8);
}
#endif
