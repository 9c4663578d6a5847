// Solvers of the least-squares-revisited family against references: gls identity against
// Eigen's direct least squares, gls softmax against plain gradient descent on the same
// objective, the simplex projection against brute-force enumeration of supports,
// calibrated_ls and stagewise against gls.
#include "lsr/least_squares.hpp"
#include "lsr_support.hpp"

using namespace dualgap;
using namespace lsr_test;

namespace {

Data make_data(int n, int d, int K, double sep) {
  Data data;
  data.name = "blobs";
  data.train = blobs(n, d, K, sep, 21);
  data.test = blobs(n / 2, d, K, sep, 22);
  return data;
}

DenseMatrix with_ones(const DenseMatrix& X) {
  DenseMatrix A(X.rows(), X.cols() + 1);
  A << X, DenseMatrix::Ones(X.rows(), 1);
  return A;
}

/// Brute-force Euclidean projection onto the simplex: over every support S, the projection
/// onto the affine hull {sum = 1, p_j = 0 off S}; keep the feasible one closest to v.
Eigen::VectorXd brute_simplex(const Eigen::VectorXd& v) {
  const int K = static_cast<int>(v.size());
  Eigen::VectorXd best;
  double best_d = 1e300;
  for (int mask = 1; mask < (1 << K); ++mask) {
    int cnt = 0;
    double sum = 0;
    for (int k = 0; k < K; ++k)
      if (mask >> k & 1) ++cnt, sum += v[k];
    Eigen::VectorXd p = Eigen::VectorXd::Zero(K);
    bool ok = true;
    for (int k = 0; k < K; ++k)
      if (mask >> k & 1) {
        p[k] = v[k] - (sum - 1.0) / cnt;
        ok &= p[k] >= -1e-15;
      }
    if (ok && (p - v).norm() < best_d) best_d = (p - v).norm(), best = p;
  }
  return best;
}

}  // namespace

TEST_CASE("lsr simplex projection: equals brute force; sums to 1, nonnegative, idempotent") {
  std::mt19937_64 rng(3);
  std::normal_distribution<double> N(0, 1.5);
  std::vector<double> buf;
  for (int trial = 0; trial < 300; ++trial) {
    const int K = 1 + trial % 7;
    Eigen::VectorXd v(K);
    for (int k = 0; k < K; ++k) v[k] = N(rng);
    Eigen::VectorXd p = v;
    lsr::project_simplex(p, buf);
    CHECK((p - brute_simplex(v)).cwiseAbs().maxCoeff() < 1e-12);
    CHECK(std::abs(p.sum() - 1.0) < 1e-12);
    CHECK(p.minCoeff() >= 0.0);
    Eigen::VectorXd q = p;
    lsr::project_simplex(q, buf);
    CHECK((q - p).cwiseAbs().maxCoeff() < 1e-14);
  }
}

TEST_CASE("lsr gls identity: one update equals Eigen's direct least-squares solution") {
  Data data = make_data(300, 8, 4, 1.0);
  TestRecorder rec = run_solver("gls", {{"link", "identity"}, {"rel_ridge", 0.0}}, data, 0.0, 100);
  REQUIRE(rec.rows.size() == 2);  // checkpoint 0 and the converged one
  CHECK(rec.passes.back() == 1);
  const DenseMatrix A = with_ones(data.train.X.dense());
  const DenseMatrix Y = lsr::one_hot(data.train.y, 4);
  Eigen::MatrixXd W = A.colPivHouseholderQr().solve(Eigen::MatrixXd(Y));
  const double ref = 0.5 * (A * W - Y).squaredNorm() / A.rows();
  CHECK(*rec.last().primal == doctest::Approx(ref).epsilon(1e-10));
  CHECK(*rec.last().train_error == doctest::Approx(argmax_error(A * W, data.train.y)));
  const DenseMatrix At = with_ones(data.test.X.dense());
  CHECK(*rec.last().test_error == doctest::Approx(argmax_error(At * W, data.test.y)));
  CHECK(!rec.last().dual.has_value());

  // With lambda: the ridge solution (A^T A / n + lambda I)^{-1} A^T Y / n.
  const double lambda = 0.3;
  TestRecorder rr = run_solver("gls", {{"link", "identity"}, {"rel_ridge", 0.0}}, data, lambda, 100);
  Eigen::MatrixXd H = A.transpose() * A / A.rows();
  H.diagonal().array() += lambda;
  Eigen::MatrixXd Wr = H.ldlt().solve(Eigen::MatrixXd(A.transpose() * Y / A.rows()));
  CHECK(*rr.rows[1].primal ==
        doctest::Approx(0.5 * (A * Wr - Y).squaredNorm() / A.rows() + 0.5 * lambda * Wr.squaredNorm()).epsilon(1e-10));
  // The ridge square loss has a certified Fenchel dual: below the primal, tight at the solution.
  REQUIRE(rr.rows[0].dual.has_value());
  for (auto& row : rr.rows) CHECK(*row.dual <= *row.primal + 1e-12);
  CHECK(*rr.rows[1].primal - *rr.rows[1].dual <= 1e-10 * std::abs(*rr.rows[1].primal));
}

TEST_CASE("lsr gls softmax: reaches the objective of a long gradient-descent reference; monotone") {
  Data data = make_data(240, 6, 3, 0.7);
  const double lambda = 1e-2;
  TestRecorder rec = run_solver("gls", {{"link", "softmax"}, {"tol", 0.0}}, data, lambda, 300);
  // Reference: gradient descent with step 1/Lg, Lg = ||A||^2/n + lambda (>= the Hessian norm).
  const DenseMatrix A = with_ones(data.train.X.dense());
  const DenseMatrix Y = lsr::one_hot(data.train.y, 3);
  const double n = A.rows();
  Eigen::JacobiSVD<Eigen::MatrixXd> svd(A);
  const double Lg = svd.singularValues()[0] * svd.singularValues()[0] / n + lambda;
  Eigen::MatrixXd W = Eigen::MatrixXd::Zero(A.cols(), 3);
  for (int it = 0; it < 200000; ++it) {
    DenseMatrix P = A * W;
    lsr::softmax_rows(P);
    Eigen::MatrixXd G = A.transpose() * (P - Y) / n + lambda * W;
    W -= G / Lg;
    if (G.norm() < 1e-12) break;
  }
  const DenseMatrix F = A * W;
  const double ref = lsr::logistic_loss(F, data.train.y) + 0.5 * lambda * W.squaredNorm();
  const double got = *rec.rows[rec.rows.size() - 1].primal;
  MESSAGE("gls softmax objective " << got << " vs gradient descent " << ref);
  CHECK(got == doctest::Approx(ref).epsilon(1e-8));
  for (std::size_t r = 1; r < rec.rows.size(); ++r)
    CHECK(*rec.rows[r].primal <= *rec.rows[r - 1].primal + 1e-12);
  // L = 1/2 is also a majorizer (footnote 3): monotone too, and faster.
  TestRecorder half = run_solver("gls", {{"link", "softmax"}, {"L", 0.5}, {"tol", 0.0}}, data, lambda, 20);
  for (std::size_t r = 1; r < half.rows.size(); ++r)
    CHECK(*half.rows[r].primal <= *half.rows[r - 1].primal + 1e-12);
  CHECK(*half.rows[20].primal <= *rec.rows[20].primal);
}

TEST_CASE("lsr calibrated_ls: square loss decreases every iteration and beats plain least squares") {
  Data data = make_data(400, 6, 4, 0.8);
  TestRecorder lin = run_solver("gls", {{"link", "identity"}}, data, 0.0, 10);
  TestRecorder cal = run_solver("calibrated_ls", {{"tol", 0.0}}, data, 0.0, 15);
  REQUIRE(cal.rows.size() == 16);
  CHECK(*cal.rows[1].primal <= *lin.last().primal + 1e-12);
  for (std::size_t r = 1; r < cal.rows.size(); ++r) CHECK(*cal.rows[r].primal <= *cal.rows[r - 1].primal + 1e-10);
  CHECK(*cal.last().primal < *lin.last().primal * 0.98);
  MESSAGE("train square loss: linear " << *lin.last().primal << ", calibrated " << *cal.last().primal
                                        << "; test error linear " << *lin.last().test_error << ", calibrated "
                                        << *cal.last().test_error);
  CHECK(cal.last().test_error.has_value());
  // Basis {y} only still runs and still projects.
  TestRecorder c1 = run_solver("calibrated_ls", {{"powers", {1}}, {"tol", 0.0}}, data, 0.0, 3);
  CHECK(*c1.last().primal <= *lin.last().primal + 1e-12);
}

TEST_CASE("lsr leave-fold-out residuals equal explicit refits on the other folds") {
  Data data = make_data(90, 7, 3, 0.8);
  const DenseMatrix& X = data.train.X.dense();
  const DenseMatrix Y = lsr::one_hot(data.train.y, 3);
  const double n = X.rows();
  for (double lambda : {0.0, 0.05}) {
    lsr::SplitDesign D;
    D.X = &X;
    D.A = DenseMatrix::Ones(X.rows(), 1);
    const double rel_ridge = 1e-6;
    const lsr::GramFactor M(D.gram(), lambda, rel_ridge);
    const std::vector<int> fold = lsr::stratified_folds(data.train.y, 4, 11);
    // Stratified: every fold holds floor or ceil of 1/4 of every class.
    for (int f = 0; f < 4; ++f)
      for (int c = 0; c < 3; ++c) {
        int in = 0, all = 0;
        for (std::size_t i = 0; i < fold.size(); ++i)
          if (data.train.y[i] == c) ++all, in += fold[i] == f;
        CHECK(std::abs(in - all / 4.0) < 1.0);
      }
    const lsr::FoldOutResiduals oof(D, M, fold, 4);
    const DenseMatrix R = Y - DenseMatrix::Constant(X.rows(), 3, 0.2);  // any right-hand side
    const Eigen::MatrixXd W = M.solve(D.xt(R));
    DenseMatrix DW;
    D.mul(W, DW, false);
    const DenseMatrix got = oof.out_of_fold(R - DW);
    // Reference: refit on the rows outside f with the same regularizer n (ridge + lambda) I.
    const DenseMatrix A = with_ones(X);
    for (int f = 0; f < 4; ++f) {
      std::vector<Eigen::Index> in, out;
      for (std::size_t i = 0; i < fold.size(); ++i) (fold[i] == f ? in : out).push_back(static_cast<Eigen::Index>(i));
      const DenseMatrix Ao = A(out, Eigen::all), Ro = R(out, Eigen::all);
      Eigen::MatrixXd H = Ao.transpose() * Ao;
      H.diagonal().array() += n * (M.ridge() + lambda);
      const Eigen::MatrixXd Wf = H.ldlt().solve(Eigen::MatrixXd(Ao.transpose() * Ro));
      const DenseMatrix ref = R(in, Eigen::all) - A(in, Eigen::all) * Wf;
      CHECK((got(in, Eigen::all) - ref).cwiseAbs().maxCoeff() < 1e-9);
    }
  }
}

TEST_CASE("lsr calibrated_ls crossfit: first iteration's out-of-fold loss equals explicit refits") {
  Data data = make_data(120, 5, 3, 0.8);
  const std::uint64_t seed = 7;  // run_solver's solver seed
  TestRecorder cf = run_solver("calibrated_ls", {{"calibration", "crossfit"}, {"folds", 3}, {"tol", 0.0}}, data,
                               0.01, 4, seed);
  REQUIRE(cf.rows.size() == 5);
  // Reference for iteration 1: out-of-fold linear predictions by refits, calibration fitted on
  // them, applied and projected.
  const DenseMatrix A = with_ones(data.train.X.dense());
  const DenseMatrix Y = lsr::one_hot(data.train.y, 3);
  lsr::SplitDesign D;
  D.X = &data.train.X.dense();
  D.A = DenseMatrix::Ones(A.rows(), 1);
  const lsr::GramFactor M(D.gram(), 0.01, 1e-8);
  const std::vector<int> fold = lsr::stratified_folds(data.train.y, 3, seed);
  DenseMatrix Yt(A.rows(), 3);
  for (int f = 0; f < 3; ++f) {
    std::vector<Eigen::Index> in, out;
    for (std::size_t i = 0; i < fold.size(); ++i) (fold[i] == f ? in : out).push_back(static_cast<Eigen::Index>(i));
    const DenseMatrix Ao = A(out, Eigen::all);
    Eigen::MatrixXd H = Ao.transpose() * Ao;
    H.diagonal().array() += A.rows() * (M.ridge() + 0.01);
    Yt(in, Eigen::all) = A(in, Eigen::all) * H.ldlt().solve(Eigen::MatrixXd(Ao.transpose() * Y(out, Eigen::all)));
  }
  const DenseMatrix G = lsr::calibration_basis(Yt, {1, 2, 3});
  DenseMatrix P = G * lsr::ls_fit(G, Y, 1e-8);
  lsr::project_rows_simplex(P);
  CHECK(cf.extra(1, "oof_loss") == doctest::Approx(lsr::square_loss(P, Y)).epsilon(1e-8));
  CHECK(cf.extra(1, "oof_error") == doctest::Approx(argmax_error(P, data.train.y)));
  CHECK(cf.last().test_error.has_value());
  // The training-set calibration (paper) has no out-of-fold columns.
  TestRecorder tr = run_solver("calibrated_ls", {{"tol", 0.0}}, data, 0.01, 2, seed);
  for (auto& [name, v] : tr.rows.at(1).extra) CHECK(name != "oof_loss");
}

TEST_CASE("lsr stagewise linear: one full block equals gls; small blocks converge to the LS solution") {
  Data data = make_data(300, 12, 3, 1.0);
  // lambda = 0: gls's objective then is the square loss, which is stagewise's (its model has no
  // single W to penalize).
  TestRecorder lin = run_solver("gls", {{"link", "identity"}}, data, 0.0, 10);
  // One block holding every raw feature: exactly gls (same intercept, same ridge).
  TestRecorder one = run_solver("stagewise",
                                {{"generator", "random_subset"}, {"block_size", 12}, {"max_stages", 1}}, data, 0.0, 100);
  CHECK(*one.last().primal == doctest::Approx(*lin.last().primal).epsilon(1e-9));
  CHECK(*one.last().test_error == doctest::Approx(*lin.last().test_error));
  // Blocks of 4: block coordinate descent on the same quadratic, losses decrease to gls' value.
  TestRecorder bcd = run_solver("stagewise", {{"generator", "random_subset"}, {"block_size", 4}, {"passes", 60}},
                                data, 0.0, 1000);
  for (std::size_t r = 1; r < bcd.rows.size(); ++r) CHECK(*bcd.rows[r].primal <= *bcd.rows[r - 1].primal + 1e-12);
  TestRecorder lin0 = run_solver("gls", {{"link", "identity"}}, data, 0.0, 10);
  CHECK(*bcd.last().primal == doctest::Approx(*lin0.last().primal).epsilon(1e-4));
  CHECK(bcd.passes.back() == 180);  // 60 passes of ceil(12/4) blocks
  CHECK(bcd.extra(bcd.rows.size() - 1, "features") == 180 * 4);
}

TEST_CASE("lsr stagewise on random Fourier blocks: linear, calibrated and logistic fits learn") {
  Data data = make_data(400, 5, 3, 0.6);
  const json gen = {{"generator", "random_fourier"}, {"block_size", 40}};
  json lin_p = gen, cal_p = gen, log_p = gen;
  cal_p["fit"] = "calibrated";
  log_p["fit"] = "logistic";
  log_p["inner_iterations"] = 10;
  TestRecorder lin = run_solver("stagewise", lin_p, data, 1e-4, 6);
  TestRecorder cal = run_solver("stagewise", cal_p, data, 1e-4, 6);
  TestRecorder lg = run_solver("stagewise", log_p, data, 1e-4, 6);
  for (auto* r : {&lin, &cal, &lg}) {
    REQUIRE(r->rows.size() == 7);
    for (std::size_t i = 1; i < r->rows.size(); ++i) CHECK(*r->rows[i].primal <= *r->rows[i - 1].primal + 1e-9);
    CHECK(*r->last().train_error < 0.5);
    CHECK(*r->last().test_error < 0.6);
    CHECK(!r->last().dual.has_value());
  }
  // Test replay is exact: the same run evaluated only at the end gives the same test error.
  struct EndOnly : TestRecorder {
    using dualgap::test::MemoryRecorder::MemoryRecorder;
    bool due(double p) const override { return p >= max_passes; }
  } end(6);
  auto solver = dualgap::test::make<Solver>(Kind::solver, "stagewise", cal_p);
  Problem pb;
  pb.data = &data;
  pb.lambda = 1e-4;
  end.bind(pb, *solver);
  SolverContext ctx;
  ctx.recorder = &end;
  ctx.seed = 7;
  ctx.make_features = [](const std::string& p, const json& q) { return features(p, q); };
  solver->solve(pb, ctx);
  CHECK(*end.last().test_error == doctest::Approx(*cal.last().test_error));
  CHECK(*end.last().primal == doctest::Approx(*cal.last().primal));
}

TEST_CASE("lsr stagewise on sparse text with gradient_ordered blocks") {
  Data data;
  data.train = sparse_docs(300, 200, 6, 31);
  data.test = sparse_docs(150, 200, 6, 32);
  TestRecorder rec = run_solver(
      "stagewise", {{"generator", "gradient_ordered"}, {"block_size", 25}, {"passes", 2}}, data, 1e-3, 1000);
  CHECK(rec.passes.back() == 16);
  for (std::size_t i = 1; i < rec.rows.size(); ++i) CHECK(*rec.rows[i].primal <= *rec.rows[i - 1].primal + 1e-12);
  CHECK(*rec.last().test_error < 0.3);
}
