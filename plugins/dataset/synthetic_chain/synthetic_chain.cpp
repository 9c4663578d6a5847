// Synthetic sequence-labeling data for tests: labels follow a random Markov chain (sticky
// transition matrix), each unit's features are its class prototype plus Gaussian noise.
// Layout: one example per sequence, one unit per position, no edges (chain pairs are
// consecutive units), as the chain_viterbi oracle expects.
#include <string>

#include "dualgap/plugin.hpp"
#include "dualgap/random.hpp"

namespace {

class SyntheticChain final : public dualgap::DatasetPlugin {
 public:
  explicit SyntheticChain(const dualgap::Params& p)
      : n_train_(p.get<int>("n_train")), n_test_(p.get<int>("n_test")), K_(p.get<int>("K")),
        d_(p.get<int>("d")), min_len_(p.get<int>("min_length")), max_len_(p.get<int>("max_length")),
        noise_(p.get<double>("noise")), stay_(p.get<double>("stay")) {
    if (min_len_ > max_len_) throw dualgap::ParamError("synthetic_chain: min_length > max_length");
  }

  dualgap::Data load(const dualgap::DatasetContext& ctx) override {
    dualgap::SplitMix64 rng(dualgap::derive_seed(ctx.seed, "synthetic_chain", 0));
    dualgap::DenseMatrix proto(K_, d_);
    for (int k = 0; k < K_; ++k)
      for (int j = 0; j < d_; ++j) proto(k, j) = rng.normal();
    dualgap::Data data;
    data.name = "synthetic_chain";
    data.train = make(n_train_, proto, rng);
    data.test = make(n_test_, proto, rng);
    data.source = "synthetic_chain(K=" + std::to_string(K_) + ", d=" + std::to_string(d_) +
                  ", length " + std::to_string(min_len_) + ".." + std::to_string(max_len_) +
                  ", noise=" + std::to_string(noise_) + ", seed=" + std::to_string(ctx.seed) + ")";
    return data;
  }

 private:
  dualgap::Examples make(int n, const dualgap::DenseMatrix& proto, dualgap::SplitMix64& rng) const {
    auto label = [&] { return static_cast<int>(rng.below(static_cast<std::uint64_t>(K_))); };
    dualgap::Examples ex;
    ex.num_classes = K_;
    ex.unit_offset.push_back(0);
    std::vector<int> y;
    for (int i = 0; i < n; ++i) {
      const int L = min_len_ + static_cast<int>(rng.below(static_cast<std::uint64_t>(max_len_ - min_len_ + 1)));
      int c = label();
      for (int u = 0; u < L; ++u) {
        if (u > 0 && rng.uniform() >= stay_) c = label();
        y.push_back(c);
      }
      ex.unit_offset.push_back(static_cast<std::int64_t>(y.size()));
    }
    dualgap::DenseMatrix X(static_cast<Eigen::Index>(y.size()), d_);
    for (Eigen::Index r = 0; r < X.rows(); ++r)
      for (int j = 0; j < d_; ++j) X(r, j) = proto(y[r], j) + noise_ * rng.normal();
    ex.X = dualgap::FeatureMatrix(std::move(X));
    ex.y = std::move(y);
    ex.check("synthetic_chain");
    return ex;
  }

  int n_train_, n_test_, K_, d_, min_len_, max_len_;
  double noise_, stay_;
};

dualgap::PluginDescription describe() {
  return dualgap::describe_plugin<SyntheticChain>(
      dualgap::Kind::dataset, "synthetic_chain", "1.0.0",
      "Synthetic Markov-chain sequence labeling data (tests of chain oracles and SSVM solvers)",
      {dualgap::int_param("n_train", 50, "training sequences", 1),
       dualgap::int_param("n_test", 50, "test sequences", 0),
       dualgap::int_param("K", 4, "number of labels", 2),
       dualgap::int_param("d", 8, "features per unit", 1),
       dualgap::int_param("min_length", 3, "shortest sequence", 1),
       dualgap::int_param("max_length", 8, "longest sequence", 1),
       dualgap::real_param("noise", 1.0, "standard deviation of the feature noise", 0.0),
       dualgap::real_param("stay", 0.6, "probability that a label repeats at the next position",
                           0.0, 1.0)});
}

}  // namespace

DUALGAP_PLUGIN(describe)
