// Generalized least squares (Algorithm 1 of Agarwal et al., "Least Squares Revisited:
// Scalable Approaches for Multi-class Prediction", ICML 2014):
//
//   min_W  (1/n) sum_i loss(W; x_i, y_i) + (lambda/2) ||W||_F^2,
//   identity link: loss = (1/2) ||W^T x_i - y_i||^2   (square loss; one update solves it),
//   softmax link:  loss = log sum_k exp(w_k . x_i) - w_{y_i} . x_i   (multiclass logistic),
//
// by the update (14) W <- W - M^{-1} [(1/n) X^T (g(X W) - Y) + lambda W] with the fixed
// preconditioner M = L Sigma + lambda I, Sigma = (1/n) X^T X (+ a tiny ridge), factored once.
// L = 1 for both links (1/2 is also a valid majorizer for the softmax, footnote 3).
// One recorder "pass" = one update (14). At a checkpoint the solver hands the core W and the
// intercept; the core records the objective above (family least_squares, ridge = lambda), with a
// certified Fenchel dual for the square loss (core/src/objectives/least_squares.cpp).
#include "dualgap/plugin.hpp"
#include "lsr/least_squares.hpp"

namespace {

using namespace dualgap;

class Gls final : public Solver {
 public:
  struct Options {
    bool softmax = false;
    double L = 1.0;
    bool intercept = true;
    double rel_ridge = 1e-8;
    double tol = 1e-9;
    static void bind(Binder<Options>& b) {
      b.choice(&Options::softmax, "link", {{"identity", false}, {"softmax", true}},
               "identity: square loss (one solve); softmax: multiclass logistic loss");
      b.field(&Options::L, "L", "Lipschitz constant of the link (step 1/L); softmax: 1 or 1/2").min(1e-6);
      b.field(&Options::intercept, "intercept", "append a constant feature");
      b.field(&Options::rel_ridge, "rel_ridge", "numerical ridge added to Sigma, relative to its mean diagonal").min(0.0);
      b.field(&Options::tol, "tol", "softmax: stop when the loss decrease is below tol * max(1, loss); 0: never")
          .min(0.0);
    }
  };
  explicit Gls(const Options& o)
      : softmax_(o.softmax), L_(o.L), intercept_(o.intercept), rel_ridge_(o.rel_ridge), tol_(o.tol) {}
  ObjectiveSpec objective(const Problem& pb) const override {
    return {"least_squares", softmax_ ? "logistic" : "square", {{"ridge", pb.lambda}}};
  }

  void solve(const Problem& pb, SolverContext& ctx) override {
    if (!pb.data) throw std::runtime_error("gls: no data");
    auto& rec = *ctx.recorder;
    const Examples& train = pb.data->train;
    const int K = train.num_classes;
    const double lambda = pb.lambda;

    DenseMatrix storage;
    lsr::SplitDesign X;
    X.X = &lsr::dense_view(train.X, storage, "gls");
    if (intercept_) X.A = DenseMatrix::Ones(train.X.rows(), 1);
    const DenseMatrix Y = lsr::one_hot(train.y, K);
    const lsr::GramFactor M(X.gram(), lambda, rel_ridge_, softmax_ ? L_ : 1.0);

    Eigen::MatrixXd W = Eigen::MatrixXd::Zero(X.cols(), K);
    DenseMatrix F = DenseMatrix::Zero(train.X.rows(), K);  // scores X W
    DenseMatrix P;                                          // g(X W)

    auto loss = [&]() {
      if (softmax_) return lsr::logistic_loss(F, train.y);
      return lsr::square_loss(F, Y);
    };
    const Eigen::Index d = train.X.cols();
    DenseMatrix W_model(d, K);
    Vector b_model(K);
    auto eval = [&](Iterate& it) {
      W_model = W.topRows(d);
      it.W = &W_model;
      if (intercept_) {
        b_model = W.row(d).transpose();
        it.intercept = &b_model;
      }
      it.set("features", static_cast<double>(train.X.cols()));
    };

    if (rec.checkpoint(0, eval) == Action::stop) return;
    double prev = loss();
    for (double it = 1;; it += 1) {
      if (softmax_) {
        P = F;
        lsr::softmax_rows(P);
      } else {
        P = F;
      }
      P -= Y;
      Eigen::MatrixXd G = X.xt(P);
      G.noalias() += lambda * W;
      W.noalias() -= M.solve(G);
      X.mul(W, F, false);
      // Identity link: M is the exact Hessian, one update is the least-squares solution.
      const double cur = loss();
      const bool converged = !softmax_ || (tol_ > 0 && prev - cur <= tol_ * std::max(1.0, std::abs(cur)));
      prev = cur;
      if (converged) {
        rec.checkpoint(it, eval);
        return;
      }
      if (rec.due(it) && rec.checkpoint(it, eval) == Action::stop) return;
    }
  }

 private:
  bool softmax_;
  double L_;
  bool intercept_;
  double rel_ridge_;
  double tol_;
};

PluginDescription describe() {
  return describe_solver<Gls>("gls", "1.0.0",
                              "Generalized least squares, identity or softmax link (Agarwal et al., ICML 2014, "
                              "Algorithm 1)",
                              {});
}

}  // namespace

DUALGAP_PLUGIN(describe)
