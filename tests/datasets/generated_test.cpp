// synthetic_multiclass and idx (with IDX files written here).
#include "helpers.hpp"

using namespace dstest;

TEST_CASE("synthetic_multiclass: shapes, balanced classes, determinism in the seed") {
  json p{{"n", 103}, {"n_test", 40}, {"d", 5}, {"K", 4}};
  Data a = load("synthetic_multiclass", p, 11);
  Data b = load("synthetic_multiclass", p, 11);
  Data c = load("synthetic_multiclass", p, 12);
  CHECK(a.train.num_examples() == 103);
  CHECK(a.test.num_examples() == 40);
  CHECK(a.train.num_features() == 5);
  CHECK(class_counts(a.train) == std::vector<std::int64_t>{26, 26, 26, 25});
  CHECK(class_counts(a.test) == std::vector<std::int64_t>{10, 10, 10, 10});
  CHECK(same_examples(a.train, b.train));
  CHECK(same_examples(a.test, b.test));
  CHECK(!same_examples(a.train, c.train));
}

TEST_CASE("synthetic_multiclass: well separated clusters are classified by the nearest class mean") {
  // separation 8, noise 1 in d = 10: nearest-mean accuracy on test should be ~1; with
  // separation 0 the classes are indistinguishable (accuracy ~ 1/K).
  auto accuracy = [](const Data& d) {
    const int K = d.train.num_classes;
    DenseMatrix mean = DenseMatrix::Zero(K, d.train.num_features());
    auto counts = class_counts(d.train);
    for (std::size_t i = 0; i < d.train.num_examples(); ++i) mean.row(d.train.y[i]) += d.train.X.dense().row(static_cast<Eigen::Index>(i));
    for (int k = 0; k < K; ++k) mean.row(k) /= static_cast<double>(counts[static_cast<std::size_t>(k)]);
    int ok = 0;
    for (std::size_t i = 0; i < d.test.num_examples(); ++i) {
      Eigen::Index best;
      (mean.rowwise() - d.test.X.dense().row(static_cast<Eigen::Index>(i))).rowwise().squaredNorm().minCoeff(&best);
      ok += best == d.test.y[i];
    }
    return static_cast<double>(ok) / static_cast<double>(d.test.num_examples());
  };
  CHECK(accuracy(load("synthetic_multiclass", {{"n", 400}, {"n_test", 400}, {"d", 10}, {"K", 5}, {"separation", 8.0}}, 1)) > 0.97);
  CHECK(accuracy(load("synthetic_multiclass", {{"n", 400}, {"n_test", 400}, {"d", 10}, {"K", 5}, {"separation", 0.0}}, 1)) < 0.4);
}

TEST_CASE("synthetic_multiclass: sparse option and common options") {
  Data s = load("synthetic_multiclass", {{"n", 200}, {"n_test", 0}, {"d", 50}, {"K", 3}, {"sparse", true}, {"density", 0.1},
                                         {"test_fraction", 0.5}}, 3);
  REQUIRE(s.train.X.is_sparse());
  // 200 balanced over 3 classes = 67/67/66; the stratified split holds exactly 100 in test,
  // floor or ceil of half of each class (the one extra goes to class 0: tie, lower index).
  CHECK(class_counts(s.test) == std::vector<std::int64_t>{34, 33, 33});
  CHECK(class_counts(s.train) == std::vector<std::int64_t>{33, 34, 33});
  const double density = static_cast<double>(s.train.X.nonzeros()) / (100.0 * 50.0);
  CHECK(density > 0.07);
  CHECK(density < 0.13);
  for (Eigen::Index r = 0; r < s.train.X.rows(); ++r) CHECK(s.train.X.row_sq_norm(r) > 0);
}

namespace {
std::string idx_bytes(std::vector<std::uint32_t> dims, const std::vector<unsigned char>& values) {
  std::string b{0, 0, 0x08, static_cast<char>(dims.size())};
  for (auto d : dims)
    for (int s = 24; s >= 0; s -= 8) b.push_back(static_cast<char>((d >> s) & 0xff));
  b.append(values.begin(), values.end());
  return b;
}
}  // namespace

TEST_CASE("idx: images and labels, gzip, pixel scale, label remap, errors") {
  test::TempDir dir;
  std::vector<unsigned char> px;
  for (int i = 0; i < 3 * 2 * 2; ++i) px.push_back(static_cast<unsigned char>(i * 20));
  auto img = write_file(dir, "img.gz", idx_bytes({3, 2, 2}, px), Compression::gzip);
  auto lab = write_file(dir, "lab", idx_bytes({3}, {7, 3, 7}));
  Data d = load("idx", {{"train", img}, {"train_labels", lab}});
  CHECK(d.train.num_examples() == 3);
  CHECK(d.train.num_features() == 4);
  CHECK(d.train.y == std::vector<int>{1, 0, 1});
  CHECK(d.train.X.dense()(1, 2) == doctest::Approx(6 * 20 / 255.0));
  CHECK(source_of(d)["label_map"] == json::array({3, 7}));
  Data raw = load("idx", {{"train", img}, {"train_labels", lab}, {"pixel_scale", 1.0}});
  CHECK(raw.train.X.dense()(2, 3) == 220.0);
  // sparse: true stores the same values without the zero pixel (pixel 0 of image 0)
  Data sp = load("idx", {{"train", img}, {"train_labels", lab}, {"sparse", true}});
  REQUIRE(sp.train.X.is_sparse());
  CHECK(sp.train.X.nonzeros() == 11);
  CHECK(sp.train.X.to_dense() == d.train.X.dense());
  CHECK(sp.train.y == d.train.y);
  CHECK(source_of(sp)["storage"] == "sparse");

  auto short_lab = write_file(dir, "lab2", idx_bytes({2}, {1, 2}));
  CHECK(error_of([&] { load("idx", {{"train", img}, {"train_labels", short_lab}}); }).find("holds 3 images but") != std::string::npos);
  std::string cut = idx_bytes({3, 2, 2}, px);
  cut.pop_back();
  auto bad = write_file(dir, "cut", cut);
  CHECK(error_of([&] { load("idx", {{"train", bad}, {"train_labels", lab}}); }).find("cut: header says 3x2x2 values") != std::string::npos);
  auto text = write_file(dir, "text", "1 2 3\n");
  CHECK(error_of([&] { load("idx", {{"train", text}, {"train_labels", lab}}); }).find("text: not an IDX file") != std::string::npos);
  CHECK(error_of([&] { load("idx", {{"train", img}, {"train_labels", lab}, {"test", img}}); }).find("test_labels") != std::string::npos);
}
