// Calibrated least squares (Algorithm 2 of Agarwal et al., "Least Squares Revisited:
// Scalable Approaches for Multi-class Prediction", ICML 2014). Learns the weights and the
// link together by alternating two least-squares fits, starting from Yhat = 0:
//
//   (18) W_t  = argmin_W  (1/2n) sum_i ||y_i - yhat_i - W^T x_i||^2 + (lambda/2)||W||^2,
//        ytilde_i = yhat_i + W_t^T x_i;
//   (19) Wc_t = argmin_Wc (1/2n) sum_i ||y_i - Wc^T G(ytilde_i)||^2,
//        yhat_i  = Proj_simplex(Wc_t^T G(ytilde_i)),
//
// G(y) = [y^p1, y^p2, ..., 1] element-wise (the paper: y, y^2, y^3). Sigma of (18) is factored
// once. The model is not "proper": predictions on new rows replay the sequence of (W_t, Wc_t),
// which the checkpoint evaluation does lazily for the test split (evaluation time).
// Reported loss: the square loss (1/2n) ||Yhat - Y||^2 of the projected predictions.
// One recorder "pass" = one iteration (18)+(19). No certified dual.
//
// calibration: crossfit (our option; the paper's Algorithm 2 is `train`) fits Wc_t on
// out-of-fold predictions instead of the training predictions: with more features than the
// residual fit needs to interpolate the training set, G(ytilde) on training rows is nearly
// one-hot and the fitted map does not transfer to new rows. The out-of-fold predictions of
// (18) come from the leave-fold-out identity (lsr::FoldOutResiduals) without refitting, and
// the out-of-fold chain is carried through the iterations like the test replay:
//   ytilde_oof = yhat_oof + (R - E_oof),  yhat_oof = Proj(Wc_t^T G(ytilde_oof)),
// where R = Y - Yhat and E_oof are the out-of-fold residuals of (18). The final model is the
// same kind of sequence (W_t on all rows, Wc_t); the stop rule uses the out-of-fold loss.
#include <memory>

#include "dualgap/plugin.hpp"
#include "lsr/least_squares.hpp"

namespace {

using namespace dualgap;

class CalibratedLs final : public Solver {
 public:
  struct Options {
    std::vector<int> powers = {1, 2, 3};
    bool intercept = true;
    double rel_ridge = 1e-8;
    double tol = 1e-7;
    bool crossfit = false;
    int folds = 5;
    static void bind(Binder<Options>& b) {
      b.field(&Options::powers, "powers",
              "element-wise powers of the predictions in the calibration basis G (plus a constant)")
          .range(1, 9);
      b.field(&Options::intercept, "intercept", "append a constant feature to X");
      b.field(&Options::rel_ridge, "rel_ridge", "numerical ridge, relative to the mean diagonal of the Gram matrix")
          .min(0.0);
      b.field(&Options::tol, "tol",
              "stop when the square-loss decrease (out-of-fold loss with crossfit) is below tol * max(1, loss); "
              "0: never")
          .min(0.0);
      b.choice(&Options::crossfit, "calibration", {{"train", false}, {"crossfit", true}},
               "fit the calibration map on the training predictions (the paper) or on out-of-fold ones");
      b.field(&Options::folds, "folds", "folds of the crossfit calibration (stratified, seeded by the solver stream)")
          .range(2, 1000);
    }
    bool validate(std::string* error) const {
      if (powers.empty()) *error = "'powers' must not be empty";
      return error->empty();
    }
  };
  explicit CalibratedLs(const Options& o)
      : powers_(o.powers), intercept_(o.intercept), rel_ridge_(o.rel_ridge), tol_(o.tol), crossfit_(o.crossfit),
        folds_(o.folds) {}

  /// The square loss of the calibrated predictions (no ridge: the model has no single W).
  ObjectiveSpec objective(const Problem&) const override { return {"least_squares", "square", {{"ridge", 0.0}}}; }

  void solve(const Problem& pb, SolverContext& ctx) override {
    if (!pb.data) throw std::runtime_error("calibrated_ls: no data");
    auto& rec = *ctx.recorder;
    const Examples& train = pb.data->train;
    const Examples& test = pb.data->test;
    const int K = train.num_classes;

    DenseMatrix storage;
    lsr::SplitDesign X;
    X.X = &lsr::dense_view(train.X, storage, "calibrated_ls");
    if (intercept_) X.A = DenseMatrix::Ones(train.X.rows(), 1);
    const DenseMatrix Y = lsr::one_hot(train.y, K);
    const lsr::GramFactor M(X.gram(), pb.lambda, rel_ridge_);

    DenseMatrix Yhat = DenseMatrix::Zero(train.X.rows(), K);
    // Cross-fitted calibration: out-of-fold residual operator (built once, solver time) and
    // the out-of-fold prediction chain.
    std::unique_ptr<lsr::FoldOutResiduals> oof;
    DenseMatrix Yhat_oof;
    if (crossfit_) {
      if (static_cast<Eigen::Index>(folds_) > train.X.rows())
        throw std::runtime_error("calibrated_ls: folds (" + std::to_string(folds_) + ") exceeds the " +
                                 std::to_string(train.X.rows()) + " training rows");
      oof = std::make_unique<lsr::FoldOutResiduals>(X, M, lsr::stratified_folds(train.y, folds_, ctx.seed), folds_);
      Yhat_oof = DenseMatrix::Zero(train.X.rows(), K);
    }
    std::vector<std::pair<Eigen::MatrixXd, Eigen::MatrixXd>> history;  // (W_t, Wc_t)

    // Test replay state (advanced only inside evaluation).
    DenseMatrix test_storage, Yhat_test;
    lsr::SplitDesign T;
    std::size_t test_done = 0;

    auto step = [&](const lsr::SplitDesign& D, DenseMatrix& Yh, const Eigen::MatrixXd& W,
                    const Eigen::MatrixXd& Wc) {
      D.mul(W, Yh, true);  // ytilde
      DenseMatrix G = lsr::calibration_basis(Yh, powers_);
      Yh.noalias() = G * Wc;
      lsr::project_rows_simplex(Yh);
    };
    // The model is a chain of calibrated stages: the core scores its predictions, computed on
    // the test split here by replaying the stages (evaluation time, not solver time).
    auto eval = [&](Iterate& it) {
      it.train_scores = &Yhat;
      if (test.num_units() > 0) {
        if (!T.X) {
          T.X = &lsr::dense_view(test.X, test_storage, "calibrated_ls");
          if (intercept_) T.A = DenseMatrix::Ones(test.X.rows(), 1);
          Yhat_test = DenseMatrix::Zero(test.X.rows(), K);
        }
        for (; test_done < history.size(); ++test_done)
          step(T, Yhat_test, history[test_done].first, history[test_done].second);
        it.test_scores = &Yhat_test;
      }
      it.set("features", static_cast<double>(train.X.cols()));
      if (oof) {
        it.set("oof_loss", lsr::square_loss(Yhat_oof, Y));
        it.set("oof_error", argmax_error(Yhat_oof, train.y));
      }
    };

    if (rec.checkpoint(0, eval) == Action::stop) return;
    double prev = lsr::square_loss(Yhat, Y);
    for (double it = 1;; it += 1) {
      // (18) residual fit with the factored Sigma.
      const DenseMatrix R = Y - Yhat;
      Eigen::MatrixXd W = M.solve(X.xt(R));
      DenseMatrix DW;
      X.mul(W, DW, false);
      if (oof) Yhat_oof += R - oof->out_of_fold(R - DW);  // out-of-fold ytilde
      Yhat += DW;                                          // ytilde
      // (19) calibration on G(ytilde) (crossfit: on the out-of-fold G, the map then applied to
      // both chains) and projection onto the simplex.
      const DenseMatrix G = lsr::calibration_basis(Yhat, powers_);
      Eigen::MatrixXd Wc;
      if (oof) {
        const DenseMatrix Go = lsr::calibration_basis(Yhat_oof, powers_);
        Wc = lsr::ls_fit(Go, Y, rel_ridge_);
        Yhat_oof.noalias() = Go * Wc;
        lsr::project_rows_simplex(Yhat_oof);
      } else {
        Wc = lsr::ls_fit(G, Y, rel_ridge_);
      }
      Yhat.noalias() = G * Wc;
      lsr::project_rows_simplex(Yhat);
      history.emplace_back(std::move(W), std::move(Wc));

      const double cur = oof ? lsr::square_loss(Yhat_oof, Y) : lsr::square_loss(Yhat, Y);
      const bool converged = tol_ > 0 && prev - cur <= tol_ * std::max(1.0, cur);
      prev = cur;
      if (converged) {
        rec.checkpoint(it, eval);
        return;
      }
      if (rec.due(it) && rec.checkpoint(it, eval) == Action::stop) return;
    }
  }

 private:
  std::vector<int> powers_;
  bool intercept_;
  double rel_ridge_;
  double tol_;
  bool crossfit_;
  int folds_;
};

PluginDescription describe() {
  return describe_solver<CalibratedLs>("calibrated_ls", "1.0.0",
                                       "Calibrated least squares: residual fit, polynomial calibration, simplex "
                                       "projection (Agarwal et al., ICML 2014, Algorithm 2)",
                                       {});
}

}  // namespace

DUALGAP_PLUGIN(describe)
