// Structured data sets: layout (units, edges, labels), fold selection, generators.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "data/options.hpp"
#include "data/pipeline.hpp"
#include "dualgap/dataset.hpp"
#include "experiment/schema.hpp"
#include "test_support.hpp"

using dualgap::Kind;

namespace {
dualgap::Data load(const std::string& name, const dualgap::json& p, std::uint64_t seed = 0,
                   const std::string& cache = "") {
  // Through the core's data pipeline (cache included), as a run loads them.
  const dualgap::LoadedPlugin& lp = dualgap::test::plugins().get(Kind::dataset, name);
  dualgap::DatasetContext ctx;
  ctx.seed = seed;
  ctx.cache_dir = cache;
  return dualgap::load_data(lp, dualgap::make_params(dualgap::data_schema(lp.description->params), p).raw(), ctx);
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

TEST_CASE("ocr_letters: folds, words and letters (real data)" * dualgap::test::needs_real_data()) {
  const auto file = dualgap::test::real_data("ocr/ocr_letters.tsv.gz");
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

TEST_CASE("segmentation: superpixel graphs of horse images (real data)" * dualgap::test::needs_real_data()) {
  const auto dir = dualgap::test::real_data("weizmann_horse/gray/horse001.jpg");
  if (dir.empty()) return;
  const std::string root = std::filesystem::path(dir).parent_path().parent_path().string();
  dualgap::test::TempDir cache;
  for (const char* method : {"slic", "grid"}) {
    CAPTURE(method);
    auto d = load("segmentation", {{"dir", root}, {"num_images", 4}, {"test_fraction", 0.25},
                                   {"superpixels", method}}, 3, cache.str());
    REQUIRE(d.train.num_examples() == 3);
    REQUIRE(d.test.num_examples() == 1);
    CHECK(d.train.num_classes == 2);
    std::size_t fg = 0;
    for (int v : d.train.y) fg += (v == 1);
    const double frac = double(fg) / double(d.train.num_units());
    CHECK(frac > 0.03);  // README: 5-43 % of the pixels are horse
    CHECK(frac < 0.6);
    for (std::size_t i = 0; i < d.train.num_examples(); ++i) {
      const int U = d.train.units_of(i);
      CHECK(U > 50);
      auto [eb, ee] = d.train.edge_range(i);
      CHECK(ee - eb >= U - 1);  // a region-adjacency graph of a connected image
      std::set<std::pair<int, int>> seen;
      std::vector<int> degree(static_cast<std::size_t>(U), 0);
      for (auto k = eb; k < ee; ++k) {
        auto [a, b] = d.train.edges[k];
        CHECK(a < b);
        CHECK(b < U);
        CHECK(seen.insert({a, b}).second);
        ++degree[a], ++degree[b];
      }
      CHECK(*std::min_element(degree.begin(), degree.end()) >= 1);
    }
    // Same seed and cache: identical; another seed: another split of the same 4 images.
    auto again = load("segmentation", {{"dir", root}, {"num_images", 4}, {"test_fraction", 0.25},
                                       {"superpixels", method}}, 3, cache.str());
    CHECK(again.train.y == d.train.y);
    CHECK(again.train.edges == d.train.edges);
  }
  auto bands = load("segmentation", {{"dir", root}, {"num_images", 2}, {"test_fraction", 0.0},
                                     {"labels", "bands"}, {"bands", 2}});
  CHECK(bands.train.num_classes == 4);
  std::set<int> used(bands.train.y.begin(), bands.train.y.end());
  CHECK(used.size() >= 3);
}
