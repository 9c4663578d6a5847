// Blocks of raw features ordered by the magnitude of the residual gradient, for sparse text
// (appendix A.2.2 of Agarwal et al., "Least Squares Revisited", ICML 2014: "we ordered the
// features by the magnitude of the gradient"). With R = Y - Yhat the residual of the training
// units, the score of feature j is ||X_j^T R||_2 (the norm of row j of the least-squares
// gradient). Each pass over the d features walks one ordering in chunks of p; the ordering is
// recomputed at the start of every pass ("we recomputed the ordering between the first and
// second pass") or, with reorder = stage, before every block among the features not yet used
// in this pass. Before any residual is seen the order is by decreasing column norm (frequent
// words first). Blocks already drawn keep their columns, so test rows get the same features.
#include "dualgap/plugin.hpp"
#include "features/random_features.hpp"

namespace {

using namespace dualgap;

class GradientOrdered final : public FeatureGenerator {
 public:
  struct Options {
    int num_features = 1000;
    bool per_stage = false;
    static void bind(Binder<Options>& b) {
      b.field(&Options::num_features, "num_features", "features kept by transform() (the most frequent ones)").min(1);
      b.choice(&Options::per_stage, "reorder", {{"pass", false}, {"stage", true}},
               "recompute the ordering at the start of each pass, or before each block");
    }
  };
  explicit GradientOrdered(const Options& o) : num_features_(o.num_features), per_stage_(o.per_stage) {}

  void fit(const Examples& train, std::uint64_t) override {
    Xt_ = train.X.csc();  // column access for X^T R; the copy lives as long as the generator
    d_ = Xt_.cols();
    Vector norms(d_);
    for (Eigen::Index j = 0; j < d_; ++j) norms[j] = Xt_.col(j).squaredNorm();
    orders_.assign(1, order_by(norms, 0, identity()));
    prepared_passes_ = 0;
    fitted_ = true;
  }
  FeatureMatrix transform(const FeatureMatrix& X) const override {
    return block(0, static_cast<std::size_t>(std::min<Eigen::Index>(num_features_, d_)), X);
  }
  bool supports_blocks() const override { return true; }

  void observe_residual(std::size_t next_block, std::size_t p, const DenseMatrix& R) override {
    if (!fitted_) throw std::logic_error("gradient_ordered: used before fit()");
    if (R.rows() != Xt_.rows())
      throw std::runtime_error("gradient_ordered: residual has " + std::to_string(R.rows()) +
                               " rows, training data " + std::to_string(Xt_.rows()));
    const std::size_t per_pass = (static_cast<std::size_t>(d_) + p - 1) / p;
    const std::size_t pass = next_block / per_pass, j = next_block % per_pass;
    const bool new_pass = pass >= prepared_passes_;
    if (!new_pass && !per_stage_) return;
    const DenseMatrix G = Xt_.transpose() * R;  // d x K
    const Vector score = G.rowwise().squaredNorm();
    if (new_pass) {
      // First pass reuses slot 0 (the frequency order before any residual).
      while (orders_.size() <= pass) orders_.push_back(orders_.back());
      orders_[pass] = order_by(score, 0, orders_[pass]);
      prepared_passes_ = pass + 1;
    } else {
      orders_[pass] = order_by(score, j * p, orders_[pass]);
    }
  }

  FeatureMatrix block(std::size_t b, std::size_t p, const FeatureMatrix& X) const override {
    if (!fitted_) throw std::logic_error("gradient_ordered: used before fit()");
    if (X.cols() != d_)
      throw std::runtime_error("gradient_ordered: fitted on " + std::to_string(d_) + " features, got " +
                               std::to_string(X.cols()));
    const std::size_t d = static_cast<std::size_t>(d_);
    const std::size_t per_pass = (d + p - 1) / p;
    const std::size_t pass = std::min(b / per_pass, orders_.size() - 1), j = b % per_pass;
    const auto& order = orders_[pass];
    std::vector<Eigen::Index> cols(order.begin() + static_cast<std::ptrdiff_t>(j * p),
                                   order.begin() + static_cast<std::ptrdiff_t>(std::min(d, (j + 1) * p)));
    return lsr::select_columns(X, cols);
  }

 private:
  std::vector<Eigen::Index> identity() const {
    std::vector<Eigen::Index> v(static_cast<std::size_t>(d_));
    std::iota(v.begin(), v.end(), 0);
    return v;
  }
  /// `base` with positions [from, d) re-sorted by decreasing score (ties: lower index first).
  static std::vector<Eigen::Index> order_by(const Vector& score, std::size_t from, std::vector<Eigen::Index> base) {
    std::stable_sort(base.begin() + static_cast<std::ptrdiff_t>(from), base.end(),
                     [&](Eigen::Index a, Eigen::Index b) { return score[a] > score[b]; });
    return base;
  }

  int num_features_;
  bool per_stage_;
  bool fitted_ = false;
  SparseColMatrix Xt_;
  Eigen::Index d_ = 0;
  std::vector<std::vector<Eigen::Index>> orders_;
  std::size_t prepared_passes_ = 0;
};

PluginDescription describe() {
  return describe_features<GradientOrdered>(
      "gradient_ordered", "1.0.0",
      "Blocks of raw features by residual-gradient magnitude, for sparse text (Agarwal et al., ICML 2014, A.2.2)");
}

}  // namespace

DUALGAP_PLUGIN(describe)
