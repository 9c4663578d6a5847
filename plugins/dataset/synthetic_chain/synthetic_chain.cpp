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
  struct Options {
    int n_train = 50;
    int n_test = 50;
    int K = 4;
    int d = 8;
    int min_length = 3;
    int max_length = 8;
    double noise = 1.0;
    double stay = 0.6;

    static void bind(dualgap::Binder<Options>& b) {
      b.field(&Options::n_train, "n_train", "training sequences").min(1);
      b.field(&Options::n_test, "n_test", "test sequences").min(0);
      b.field(&Options::K, "K", "number of labels").min(2);
      b.field(&Options::d, "d", "features per unit").min(1);
      b.field(&Options::min_length, "min_length", "shortest sequence (lengths are uniform in min_length..max_length)").min(1);
      b.field(&Options::max_length, "max_length", "longest sequence (at least min_length)").min(1);
      b.field(&Options::noise, "noise", "standard deviation of the feature noise").min(0);
      b.field(&Options::stay, "stay", "probability that a label repeats at the next position").range(0, 1);
    }
    bool validate(std::string* error) const {
      if (min_length > max_length) *error = "min_length > max_length";
      return error->empty();
    }
  };

  explicit SyntheticChain(const Options& o)
      : n_train_(o.n_train), n_test_(o.n_test), K_(o.K), d_(o.d), min_len_(o.min_length), max_len_(o.max_length),
        noise_(o.noise), stay_(o.stay) {}

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
  return dualgap::describe_dataset<SyntheticChain>(
      "synthetic_chain", "1.0.0",
      "Synthetic Markov-chain sequence labeling data (tests of chain oracles and SSVM solvers)");
}

}  // namespace

DUALGAP_PLUGIN(describe)
