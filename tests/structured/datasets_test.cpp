// Structured data sets: layout (units, edges, labels), fold selection, generators.
#include <doctest/doctest.h>

#include "dualgap/dataset.hpp"
#include "test_support.hpp"

using dualgap::Kind;

namespace {
dualgap::Data load(const std::string& name, const dualgap::json& p, std::uint64_t seed = 0,
                   const std::string& cache = "") {
  auto ds = dualgap::test::make<dualgap::DatasetPlugin>(Kind::dataset, name, p);
  dualgap::DatasetContext ctx;
  ctx.seed = seed;
  ctx.cache_dir = cache;
  return ds->load(ctx);
}
}  // namespace

TEST_CASE("synthetic_chain: chain layout, deterministic per seed") {
  auto a = load("synthetic_chain", {{"n_train", 7}, {"n_test", 3}, {"K", 3}, {"d", 5}}, 4);
  auto b = load("synthetic_chain", {{"n_train", 7}, {"n_test", 3}, {"K", 3}, {"d", 5}}, 4);
  CHECK(a.train.num_examples() == 7);
  CHECK(a.test.num_examples() == 3);
  CHECK(a.train.num_features() == 5);
  CHECK_FALSE(a.train.has_edges());
  CHECK(a.train.y == b.train.y);
  CHECK(a.train.X.dense() == b.train.X.dense());
  for (std::size_t i = 0; i < 7; ++i) {
    CHECK(a.train.units_of(i) >= 3);
    CHECK(a.train.units_of(i) <= 8);
  }
}

TEST_CASE("synthetic_grid: 4-connected grid edges") {
  auto d = load("synthetic_grid", {{"n_train", 2}, {"n_test", 1}, {"height", 3}, {"width", 4}, {"K", 3}});
  CHECK(d.train.num_examples() == 2);
  CHECK(d.train.units_of(0) == 12);
  auto [eb, ee] = d.train.edge_range(1);
  CHECK(ee - eb == 3 * 3 + 2 * 4);  // horizontal + vertical
  for (auto k = eb; k < ee; ++k) {
    auto [a, b] = d.train.edges[k];
    CHECK(a < b);
    CHECK(b < 12);
  }
  CHECK(d.train.num_features() == 5);  // d = 4 plus the constant
}

TEST_CASE("ocr_letters: folds, words and letters (real data)") {
  const auto file = dualgap::test::real_data("ocr/ocr_letters.tsv.gz");
  if (file.empty()) return;
  dualgap::test::TempDir cache;
  auto d = load("ocr_letters", {{"path", file}, {"max_test_words", 100}}, 0, cache.str());
  CHECK(d.train.num_examples() == 626);  // fold 0 (shared/data/README.md)
  CHECK(d.test.num_examples() == 100);
  CHECK(d.train.num_classes == 26);
  CHECK(d.train.num_features() == 128);
  CHECK_FALSE(d.train.has_edges());
  for (std::size_t i = 0; i < d.train.num_examples(); ++i) {
    CHECK(d.train.units_of(i) >= 3);
    CHECK(d.train.units_of(i) <= 14);
  }
  // The first word of the file is "ommanding".
  const std::string first = "ommanding";
  REQUIRE(d.train.units_of(0) == static_cast<int>(first.size()));
  for (int u = 0; u < 9; ++u) CHECK(d.train.y[u] == first[u] - 'a');
  // Second load from the cache gives the same data; the reverse split has 6251 train words.
  auto again = load("ocr_letters", {{"path", file}, {"max_test_words", 100}}, 0, cache.str());
  CHECK(again.train.y == d.train.y);
  auto rev = load("ocr_letters", {{"path", file}, {"train_folds", {1, 2, 3, 4, 5, 6, 7, 8, 9}}},
                  0, cache.str());
  CHECK(rev.train.num_examples() == 6251);
  CHECK(rev.test.num_examples() == 626);
  CHECK(rev.train.num_units() + rev.test.num_units() == 52152);
}
