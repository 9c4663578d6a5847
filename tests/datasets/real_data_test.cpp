// Real data sets of shared/data (counts from shared/data/README.md). Skipped locally when
// DUALGAP_DATA is unset; failures in CI.
#include "helpers.hpp"

using namespace dstest;

TEST_CASE("real: USPS (dense_text, gzip, labels '6.0000' and '9')" * dualgap::test::needs_real_data()) {
  auto tr = test::real_data("usps/zip.train.gz");
  auto te = test::real_data("usps/zip.test.gz");
  Data d = load("dense_text", {{"train", tr}, {"test", te}});
  CHECK(d.train.num_examples() == 7291);
  CHECK(d.test.num_examples() == 2007);
  CHECK(d.train.num_features() == 256);
  CHECK(class_counts(d.train) == std::vector<std::int64_t>{1194, 1005, 731, 658, 652, 556, 664, 645, 542, 644});
  CHECK(class_counts(d.test) == std::vector<std::int64_t>{359, 264, 198, 166, 200, 160, 170, 147, 166, 177});
  CHECK(d.train.X.dense().maxCoeff() <= 1.0);
  CHECK(d.train.X.dense().minCoeff() >= -1.0);
}

TEST_CASE("real: vowel (CSV, header, row id dropped)" * dualgap::test::needs_real_data()) {
  auto tr = test::real_data("vowel/vowel.train");
  auto te = test::real_data("vowel/vowel.test");
  Data d = load("dense_text", {{"train", tr}, {"test", te}, {"label_column", "1"}, {"drop_columns", {0}}});
  CHECK(d.train.num_examples() == 528);
  CHECK(d.test.num_examples() == 462);
  CHECK(d.train.num_features() == 10);
  CHECK(class_counts(d.train) == std::vector<std::int64_t>(11, 48));
  CHECK(class_counts(d.test) == std::vector<std::int64_t>(11, 42));
}

TEST_CASE("real: optdigits and iris (dense_text, label last)" * dualgap::test::needs_real_data()) {
  auto tr = test::real_data("optdigits/optdigits.tra");
  auto ir = test::real_data("iris/iris.data");
  Data d = load("dense_text", {{"train", tr}, {"label_column", "last"}});
  CHECK(d.train.num_examples() == 3823);
  CHECK(d.train.num_features() == 64);
  CHECK(class_counts(d.train) == std::vector<std::int64_t>{376, 389, 380, 389, 387, 376, 377, 387, 380, 382});
  Data i = load("dense_text", {{"train", ir}, {"label_column", "last"}});
  CHECK(class_counts(i.train) == std::vector<std::int64_t>{50, 50, 50});
}

TEST_CASE("real: dna (libsvm, CRLF, trailing spaces)" * dualgap::test::needs_real_data()) {
  auto tr = test::real_data("dna/dna.scale");
  auto te = test::real_data("dna/dna.scale.t");
  Data d = load("libsvm", {{"train", tr}, {"test", te}});
  CHECK(d.train.num_examples() == 2000);
  CHECK(d.test.num_examples() == 1186);
  CHECK(d.train.num_features() == 180);
  CHECK(d.train.X.nonzeros() == 91233);
  CHECK(d.test.X.nonzeros() == 53669);
  CHECK(class_counts(d.train) == std::vector<std::int64_t>{464, 485, 1051});
  CHECK(class_counts(d.test) == std::vector<std::int64_t>{303, 280, 603});
}

TEST_CASE("real: pendigits (libsvm)" * dualgap::test::needs_real_data()) {
  auto tr = test::real_data("pendigits/pendigits");
  auto te = test::real_data("pendigits/pendigits.t");
  Data d = load("libsvm", {{"train", tr}, {"test", te}});
  CHECK(d.train.num_examples() == 7494);
  CHECK(d.test.num_examples() == 3498);
  CHECK(d.train.num_features() == 16);
  CHECK(d.train.X.nonzeros() == 104535);
  CHECK(d.test.X.nonzeros() == 48773);
  CHECK(class_counts(d.train) == std::vector<std::int64_t>{780, 779, 780, 719, 780, 720, 720, 778, 719, 719});
  CHECK(class_counts(d.test) == std::vector<std::int64_t>{363, 364, 364, 336, 364, 335, 336, 364, 336, 336});
}

TEST_CASE("real: sector (libsvm, bzip2, 55197 features, unit rows) and its cache" * dualgap::test::needs_real_data()) {
  auto tr = test::real_data("sector/sector.scale.bz2");
  auto te = test::real_data("sector/sector.t.scale.bz2");
  test::TempDir cache;
  Data d = load("libsvm", {{"train", tr}, {"test", te}}, 0, cache.str());
  CHECK(d.train.num_examples() == 6412);
  CHECK(d.test.num_examples() == 3207);
  CHECK(d.train.num_features() == 55197);
  CHECK(d.train.X.nonzeros() == 1045412);
  CHECK(d.test.X.nonzeros() == 524492);
  CHECK(d.train.num_classes == 105);
  auto counts = class_counts(d.train);
  CHECK(*std::min_element(counts.begin(), counts.end()) == 10);
  CHECK(*std::max_element(counts.begin(), counts.end()) == 80);
  for (Eigen::Index r = 0; r < d.train.X.rows(); ++r) CHECK(std::abs(d.train.X.row_sq_norm(r) - 1.0) < 1e-4);
  Data again = load("libsvm", {{"train", tr}, {"test", te}}, 0, cache.str());
  CHECK(source_of(again)["cache"] == "hit");
  CHECK((again.train.X.sparse() - d.train.X.sparse()).norm() == 0.0);
  CHECK(again.test.y == d.test.y);
}

TEST_CASE("real: MNIST t10k (idx, gzip) re-split 70/30 stratified" * dualgap::test::needs_real_data()) {
  auto img = test::real_data("mnist/t10k-images-idx3-ubyte.gz");
  auto lab = test::real_data("mnist/t10k-labels-idx1-ubyte.gz");
  Data all = load("idx", {{"train", img}, {"train_labels", lab}});
  CHECK(all.train.num_examples() == 10000);
  CHECK(all.train.num_features() == 784);
  CHECK(class_counts(all.train) == std::vector<std::int64_t>{980, 1135, 1032, 1010, 982, 892, 958, 1028, 974, 1009});
  CHECK(all.train.X.dense().maxCoeff() == 1.0);
  CHECK(all.train.X.dense().minCoeff() == 0.0);
  Data s = load("idx", {{"train", img}, {"train_labels", lab}, {"test_fraction", 0.3}}, 5);
  CHECK(s.test.num_examples() == 3000);
  CHECK(s.train.num_examples() == 7000);
  auto c = class_counts(s.test), a = class_counts(all.train);
  for (std::size_t k = 0; k < 10; ++k) CHECK(std::abs(static_cast<double>(c[k]) - 0.3 * static_cast<double>(a[k])) < 1.0);
}
