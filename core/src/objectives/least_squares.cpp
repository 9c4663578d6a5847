// The least-squares objective (family "least_squares": solvers without an oracle that fit the
// scores of a multi-class model, Agarwal, Kakade, Karampatziakis, Song, Valiant, ICML 2014).
//
// With S the n x K scores of the model on the training split, Y the one-hot labels:
//   loss "square":    P = (1/(2n)) ||S - Y||_F^2   + (ridge/2) (||W||_F^2 + ||b||^2)
//   loss "logistic":  P = (1/n) sum_i [ log sum_k exp(S_ik) - S_{i,y_i} ] + (ridge/2) (||W||^2 + ||b||^2)
// where ridge is ObjectiveSpec params.ridge (the problem's lambda for generalized least squares,
// 0 for models known only through their scores, which have no W to penalize).
//
// Certified dual (square loss with ridge > 0 and a linear model S = X W + 1 b^T): Fenchel
// duality with f_i(s) = (1/2n)||s - y_i||^2, f_i^*(u) = <u, y_i> + (n/2)||u||^2, gives for any
// n x K matrix U
//   D(U) = <U, Y> - (n/2) ||U||^2 - (1/(2 ridge)) ||[X 1]^T U||^2  <=  min P,
// tight at U = (Y - S*)/n. The core takes U = (Y - S)/n at the iterate, so P - D -> 0 as W
// converges. The logistic loss and score-only models have no dual here: compare plots them
// against problem.reference or the group's best primal.
//
// Errors: argmax of the scores against the labels, on the training and the test split.
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "dualgap/metrics.hpp"
#include "objectives/families.hpp"

namespace dualgap {
namespace {

DenseMatrix one_hot(const std::vector<int>& y, int K) {
  DenseMatrix Y = DenseMatrix::Zero(static_cast<Eigen::Index>(y.size()), K);
  for (std::size_t i = 0; i < y.size(); ++i) Y(static_cast<Eigen::Index>(i), y[i]) = 1.0;
  return Y;
}

/// S = X W (+ 1 b^T) for dense or sparse X.
DenseMatrix scores(const FeatureMatrix& X, const DenseMatrix& W, const Vector* b) {
  DenseMatrix S = X.is_sparse() ? DenseMatrix(X.sparse() * W) : DenseMatrix(X.dense() * W);
  if (b) S.rowwise() += b->transpose();
  return S;
}

double logistic_loss(const DenseMatrix& S, const std::vector<int>& y) {
  double s = 0;
  for (Eigen::Index i = 0; i < S.rows(); ++i) {
    const double m = S.row(i).maxCoeff();
    s += m + std::log((S.row(i).array() - m).exp().sum()) - S(i, y[static_cast<std::size_t>(i)]);
  }
  return s / std::max<double>(1, static_cast<double>(S.rows()));
}

class LeastSquaresObjective final : public Objective {
 public:
  LeastSquaresObjective(const Problem& pb, std::string loss, double ridge)
      : data_(*pb.data), loss_(std::move(loss)), ridge_(ridge), Y_(one_hot(data_.train.y, data_.train.num_classes)) {}

  json describe() const override { return {{"family", "least_squares"}, {"loss", loss_}, {"ridge", ridge_}}; }
  const char* model_kind() const override { return "W or scores"; }

  void score(const Iterate& it, Scores& out) override {
    const Examples& train = data_.train;
    const Examples& test = data_.test;
    const int K = train.num_classes;
    DenseMatrix S, St;
    double penalty = 0;
    if (it.W) {
      const DenseMatrix& W = *it.W;
      if (W.rows() != train.num_features() || W.cols() != K)
        throw std::runtime_error(fmt::format("W is {} x {}; the problem has d = {} features and K = {} classes",
                                             W.rows(), W.cols(), train.num_features(), K));
      if (it.intercept && it.intercept->size() != K)
        throw std::runtime_error(fmt::format("the intercept has {} entries; the problem has K = {} classes",
                                             it.intercept->size(), K));
      S = scores(train.X, W, it.intercept);
      if (test.num_units() > 0) St = scores(test.X, W, it.intercept);
      penalty = W.squaredNorm() + (it.intercept ? it.intercept->squaredNorm() : 0.0);
    } else if (it.train_scores) {
      if (ridge_ != 0)
        throw std::runtime_error("a least-squares objective with a ridge term needs the model's W, not only its scores");
      S = *it.train_scores;
      if (S.rows() != static_cast<Eigen::Index>(train.num_units()) || S.cols() != K)
        throw std::runtime_error(fmt::format("train_scores is {} x {}; expected n = {} by K = {}", S.rows(), S.cols(),
                                             train.num_units(), K));
      if (it.test_scores) St = *it.test_scores;  // absent: no test error is recorded
      if (it.test_scores && St.rows() != static_cast<Eigen::Index>(test.num_units()))
        throw std::runtime_error(fmt::format("test_scores has {} rows; the test split has {} examples", St.rows(),
                                             test.num_units()));
    } else {
      throw std::runtime_error("the least_squares objective scores W (d x K) or train/test scores; the checkpoint set another model");
    }
    const double n = std::max<double>(1, static_cast<double>(S.rows()));
    const double loss = loss_ == "square" ? 0.5 * (S - Y_).squaredNorm() / n : logistic_loss(S, train.y);
    out.primal = loss + 0.5 * ridge_ * penalty;
    if (loss_ == "square" && ridge_ > 0 && it.W) {
      const DenseMatrix U = (Y_ - S) / n;
      DenseMatrix XtU = train.X.is_sparse() ? DenseMatrix(train.X.sparse().transpose() * U)
                                            : DenseMatrix(train.X.dense().transpose() * U);
      double xtu = XtU.squaredNorm();
      if (it.intercept) xtu += U.colwise().sum().squaredNorm();
      out.dual = (U.array() * Y_.array()).sum() - 0.5 * n * U.squaredNorm() - 0.5 * xtu / ridge_;
    }
    out.train_error = argmax_error(S, train.y);
    if (test.num_units() > 0 && St.rows() > 0) out.test_error = argmax_error(St, test.y);
  }

 private:
  const Data& data_;
  std::string loss_;
  double ridge_;
  DenseMatrix Y_;
};

}  // namespace

std::unique_ptr<Objective> make_least_squares_objective(const Problem& pb, const ObjectiveSpec& spec,
                                                        const ScoreOptions&) {
  if (spec.loss != "square" && spec.loss != "logistic")
    throw std::runtime_error("the least_squares objective has the losses square and logistic, not '" + spec.loss + "'");
  if (pb.data->train.structured())
    throw std::runtime_error("the least_squares objective is for multi-class data (one unit per example)");
  const double ridge = spec.params.value("ridge", 0.0);
  if (!(ridge >= 0)) throw std::runtime_error("least_squares: params.ridge must be >= 0");
  return std::make_unique<LeastSquaresObjective>(pb, spec.loss, ridge);
}

}  // namespace dualgap
