
// ---- Added in the tutorial: a case computed by hand --------------------------------------
// Two units, two labels, no unary evidence (w = 0 on the unary block) and a transition block
// that rewards "1 follows 0" by 1.0: the prediction is (0, 1), with score 1.0. With the loss
// added (truth (1, 1), normalized Hamming) the best is still (0, 1): score 1 + 1/2.
TEST_CASE("my_chain: transitions decide when the units carry no evidence") {
  auto o = conformance::create<dualgap::StructuredOracle>();
  REQUIRE(o->uses_transitions());
  dualgap::Examples ex;
  ex.num_classes = 2;
  ex.unit_offset = {0, 2};
  ex.y = {1, 1};
  ex.X = dualgap::FeatureMatrix(dualgap::DenseMatrix::Ones(2, 1));
  dualgap::Vector w = dualgap::Vector::Zero(static_cast<Eigen::Index>(o->dim(1, 2)));
  w[2 + 0 * 2 + 1] = 1.0;  // T[0][1], after the K*d = 2 unary weights
  dualgap::Labeling lab;
  std::vector<double> scores;
  o->decode(ex, 0, w, lab, scores);
  CHECK(lab.labels == std::vector<int>{0, 1});
  o->max_oracle(ex, 0, w, lab, scores);
  CHECK(lab.labels == std::vector<int>{0, 1});
  CHECK(lab.loss == doctest::Approx(0.5));
}
