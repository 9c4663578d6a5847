// Stagewise regression (Algorithm 3 of Agarwal et al., "Least Squares Revisited: Scalable
// Approaches for Multi-class Prediction", ICML 2014). Starting from Yhat = 0, stage t asks a
// feature generator (GEN) for block t of p new features Xt (n x p), fits the residual
// Y - Yhat on it and adds the block's predictions:
//
//   linear:     W_t = argmin (1/2n) ||Y - Yhat - [Xt 1] W||^2 + (lambda/2)||W||^2,  Yhat += [Xt 1] W_t
//   calibrated: the same on [Xt, Yhat^p1, ..., 1] (the previous predictions as extra features,
//               the paper's "simplest" calibration of Section 3.1), optionally projected
//               onto the simplex (Algorithm 2's clip)
//   logistic:   scores F; `inner_iterations` updates (14) of Algorithm 1 with the softmax link on
//               the block: W <- W - M^{-1} [(1/n) [Xt 1]^T (softmax(F + [Xt 1] W) - Y) + lambda W],
//               then F += [Xt 1] W (the paper: 50 inner loops)
//
// Sigma of each block is factored once per stage. Only one block of generated features
// exists at a time: the training block is dropped before the next is drawn, and the test
// predictions are replayed lazily inside the checkpoint evaluation (block by block, from the
// stored per-stage weights), so test feature generation is evaluation time, not training time.
// Loss reported as primal: square loss (1/2n)||Yhat - Y||^2 (linear, calibrated) or
// multiclass logistic loss (logistic). One recorder "pass" = one stage. No certified dual.
#include <memory>

#include "dualgap/plugin.hpp"
#include "lsr/least_squares.hpp"

namespace {

using namespace dualgap;

enum class Fit { linear, calibrated, logistic };

class Stagewise final : public Solver {
 public:
  struct Options {
    std::string generator = "random_fourier";
    json generator_params = json::object();
    int block_size = 512;
    Fit fit = Fit::linear;
    int inner_iterations = 50;
    double L = 1.0;
    bool intercept = true;
    double rel_ridge = 1e-8;
    int max_stages = 0;
    int passes = 0;
    std::vector<int> calibration_powers = {1};
    bool project = true;
    static void bind(Binder<Options>& b) {
      b.field(&Options::generator, "generator", "features plugin that generates the blocks (GEN)");
      b.field(&Options::generator_params, "generator_params", "parameters of the generator plugin (e.g. {pca_dims: 50})");
      b.field(&Options::block_size, "block_size", "features per block (p); the paper uses 300-1024").min(1);
      b.choice(&Options::fit, "fit",
               {{"linear", Fit::linear}, {"calibrated", Fit::calibrated}, {"logistic", Fit::logistic}},
               "per-stage fit: Algorithm 1 identity link, Algorithm 1 on [block, predictions], "
               "or Algorithm 1 softmax link");
      b.field(&Options::inner_iterations, "inner_iterations", "fit = logistic: updates (14) per stage").min(1);
      b.field(&Options::L, "L", "fit = logistic: Lipschitz constant of the softmax (1 or 1/2)").min(1e-6);
      b.field(&Options::intercept, "intercept", "append a constant feature to each block");
      b.field(&Options::rel_ridge, "rel_ridge", "numerical ridge, relative to the mean diagonal of each block's Gram matrix")
          .min(0.0);
      b.field(&Options::max_stages, "max_stages", "stop after this many stages (0: until a budget stops the run)").min(0);
      b.field(&Options::passes, "passes",
              "stop after this many passes of ceil(d / p) blocks over the input features (0: none)")
          .min(0);
      b.field(&Options::calibration_powers, "calibration_powers",
              "fit = calibrated: powers of the current predictions appended to each block")
          .range(1, 9);
      b.field(&Options::project, "project", "fit = calibrated: project the predictions onto the simplex");
    }
    bool validate(std::string* error) const {
      if (fit == Fit::calibrated && calibration_powers.empty())
        *error = "fit = calibrated needs at least one calibration power";
      return error->empty();
    }
  };
  explicit Stagewise(const Options& o)
      : generator_(o.generator), generator_params_(o.generator_params),
        p_(static_cast<std::size_t>(o.block_size)), inner_(o.inner_iterations), L_(o.L), intercept_(o.intercept),
        rel_ridge_(o.rel_ridge), max_stages_(o.max_stages), passes_(o.passes), powers_(o.calibration_powers),
        project_(o.project), fit_(o.fit) {}
  /// The loss of its fit on the predictions (no ridge: the stages' features are drawn inside).
  ObjectiveSpec objective(const Problem&) const override {
    return {"least_squares", fit_ == Fit::logistic ? "logistic" : "square", {{"ridge", 0.0}}};
  }

  void solve(const Problem& pb, SolverContext& ctx) override {
    if (!pb.data) throw std::runtime_error("stagewise: no data");
    if (!ctx.make_features) throw std::runtime_error("stagewise: the runner gave no feature factory");
    auto& rec = *ctx.recorder;
    const Examples& train = pb.data->train;
    const Examples& test = pb.data->test;
    const int K = train.num_classes;
    const Eigen::Index n = train.X.rows();
    const double lambda = pb.lambda;

    std::shared_ptr<FeatureGenerator> gen = ctx.make_features(generator_, generator_params_);
    if (!gen->supports_blocks())
      throw std::runtime_error("stagewise: feature generator '" + generator_ + "' does not generate blocks");
    gen->fit(train, ctx.seed);

    std::size_t max_stages = max_stages_ > 0 ? static_cast<std::size_t>(max_stages_) : 0;
    if (passes_ > 0) {
      const std::size_t per_pass = (static_cast<std::size_t>(train.X.cols()) + p_ - 1) / p_;
      const std::size_t by_passes = per_pass * static_cast<std::size_t>(passes_);
      max_stages = max_stages ? std::min(max_stages, by_passes) : by_passes;
    }

    const DenseMatrix Y = lsr::one_hot(train.y, K);
    DenseMatrix S = DenseMatrix::Zero(n, K);  // Yhat (linear, calibrated) or scores F (logistic)
    std::vector<Eigen::MatrixXd> weights;     // per stage: (p_t + extra) x K
    double features_used = 0;

    DenseMatrix S_test;
    std::size_t test_done = 0;

    // The model is a sum of stages over drawn features: the core scores its predictions,
    // computed on the test split here by replaying the stages (evaluation time).
    auto eval = [&](Iterate& it) {
      it.train_scores = &S;
      if (test.num_units() > 0) {
        if (S_test.rows() != test.X.rows()) S_test = DenseMatrix::Zero(test.X.rows(), K);
        for (; test_done < weights.size(); ++test_done) {
          DenseMatrix block = dense_block(*gen, test_done, test.X);
          apply_stage(block, S_test, weights[test_done]);
        }
        it.test_scores = &S_test;
      }
      it.set("features", features_used);
    };

    if (rec.checkpoint(0, eval) == Action::stop) return;
    for (std::size_t t = 0;; ++t) {
      {
        DenseMatrix R = Y - (fit_ == Fit::logistic ? softmax_of(S) : S);
        gen->observe_residual(t, p_, R);
        DenseMatrix block = dense_block(*gen, t, train.X);
        features_used += static_cast<double>(block.cols());
        lsr::SplitDesign D = design(block, S);
        const lsr::GramFactor M(D.gram(), lambda, rel_ridge_, fit_ == Fit::logistic ? L_ : 1.0);
        Eigen::MatrixXd W;
        if (fit_ != Fit::logistic) {
          W = M.solve(D.xt(R));
        } else {
          W = Eigen::MatrixXd::Zero(D.cols(), K);
          DenseMatrix P(n, K);
          for (int k = 0; k < inner_; ++k) {
            P = S;
            D.mul(W, P, true);
            lsr::softmax_rows(P);
            P -= Y;
            Eigen::MatrixXd G = D.xt(P);
            G.noalias() += lambda * W;
            W.noalias() -= M.solve(G);
          }
        }
        D.mul(W, S, true);
        if (fit_ == Fit::calibrated && project_) lsr::project_rows_simplex(S);
        weights.push_back(std::move(W));
      }  // the training block is released here
      const double stage = static_cast<double>(t + 1);
      if (max_stages && t + 1 >= max_stages) {
        rec.checkpoint(stage, eval);
        return;
      }
      if (rec.due(stage) && rec.checkpoint(stage, eval) == Action::stop) return;
    }
  }

 private:
  static DenseMatrix softmax_of(const DenseMatrix& F) {
    DenseMatrix P = F;
    lsr::softmax_rows(P);
    return P;
  }
  DenseMatrix dense_block(const FeatureGenerator& gen, std::size_t b, const FeatureMatrix& X) const {
    FeatureMatrix B = gen.block(b, p_, X);
    if (B.rows() != X.rows())
      throw std::runtime_error("stagewise: generator '" + generator_ + "' returned a block with " +
                               std::to_string(B.rows()) + " rows for " + std::to_string(X.rows()));
    if (B.is_sparse()) return DenseMatrix(B.sparse());
    return std::move(B.dense_mut());
  }
  /// [block, calibration columns of the current predictions, 1].
  lsr::SplitDesign design(const DenseMatrix& block, const DenseMatrix& S) const {
    lsr::SplitDesign D;
    D.X = &block;
    const Eigen::Index K = S.cols();
    const Eigen::Index extra_cal = fit_ == Fit::calibrated ? static_cast<Eigen::Index>(powers_.size()) * K : 0;
    D.A.resize(block.rows(), extra_cal + (intercept_ ? 1 : 0));
    for (std::size_t q = 0; q < (fit_ == Fit::calibrated ? powers_.size() : 0); ++q)
      D.A.middleCols(static_cast<Eigen::Index>(q) * K, K) = S.array().pow(powers_[q]).matrix();
    if (intercept_) D.A.col(D.A.cols() - 1).setOnes();
    return D;
  }
  /// Replays one stage on other rows (test): S += [block, G(S), 1] W, then the projection.
  void apply_stage(const DenseMatrix& block, DenseMatrix& S, const Eigen::MatrixXd& W) const {
    lsr::SplitDesign D = design(block, S);
    D.mul(W, S, true);
    if (fit_ == Fit::calibrated && project_) lsr::project_rows_simplex(S);
  }

  std::string generator_;
  json generator_params_;
  std::size_t p_;
  int inner_;
  double L_;
  bool intercept_;
  double rel_ridge_;
  int max_stages_;
  int passes_;
  std::vector<int> powers_;
  bool project_;
  Fit fit_ = Fit::linear;
};

PluginDescription describe() {
  return describe_solver<Stagewise>(
      "stagewise", "1.0.0",
      "Stagewise regression on generated feature blocks (Agarwal et al., ICML 2014, Algorithm 3)", {});
}

}  // namespace

DUALGAP_PLUGIN(describe)
