// Synthetic grid-graph segmentation data for tests: each example is an H x W 4-connected grid
// of units; labels are piecewise constant (a few random axis-aligned rectangles painted over a
// background label), features are the label's prototype plus Gaussian noise and a constant 1.
// Layout: one example per image, one unit per grid cell, edges between 4-neighbours (local
// indices), as the graph_cut / potts_expansion oracles expect.
#include <string>

#include "dualgap/plugin.hpp"
#include "dualgap/random.hpp"

namespace {

class SyntheticGrid final : public dualgap::DatasetPlugin {
 public:
  struct Options {
    int n_train = 20;
    int n_test = 20;
    int K = 2;
    int d = 4;
    int height = 8;
    int width = 8;
    double noise = 1.5;

    static void bind(dualgap::Binder<Options>& b) {
      b.field(&Options::n_train, "n_train", "training images").min(1);
      b.field(&Options::n_test, "n_test", "test images").min(0);
      b.field(&Options::K, "K", "number of labels (2 for graph_cut, more for potts_expansion)").min(2);
      b.field(&Options::d, "d", "noisy features per unit (a constant 1 is appended)").min(1);
      b.field(&Options::height, "height", "grid rows").min(1);
      b.field(&Options::width, "width", "grid columns").min(1);
      b.field(&Options::noise, "noise", "standard deviation of the feature noise").min(0);
    }
  };

  explicit SyntheticGrid(const Options& o)
      : n_train_(o.n_train), n_test_(o.n_test), K_(o.K), d_(o.d), H_(o.height), W_(o.width), noise_(o.noise) {}

  dualgap::Data load(const dualgap::DatasetContext& ctx) override {
    dualgap::SplitMix64 rng(dualgap::derive_seed(ctx.seed, "synthetic_grid", 0));
    dualgap::DenseMatrix proto(K_, d_);
    for (int k = 0; k < K_; ++k)
      for (int j = 0; j < d_; ++j) proto(k, j) = rng.normal();
    dualgap::Data data;
    data.name = "synthetic_grid";
    data.train = make(n_train_, proto, rng);
    data.test = make(n_test_, proto, rng);
    data.source = "synthetic_grid(" + std::to_string(H_) + "x" + std::to_string(W_) +
                  ", K=" + std::to_string(K_) + ", d=" + std::to_string(d_) +
                  ", noise=" + std::to_string(noise_) + ", seed=" + std::to_string(ctx.seed) + ")";
    return data;
  }

 private:
  dualgap::Examples make(int n, const dualgap::DenseMatrix& proto, dualgap::SplitMix64& rng) const {
    auto draw = [&](int m) { return static_cast<int>(rng.below(static_cast<std::uint64_t>(m))); };
    dualgap::Examples ex;
    ex.num_classes = K_;
    ex.unit_offset.push_back(0);
    ex.edge_offset.push_back(0);
    std::vector<int> y;
    const int U = H_ * W_;
    for (int i = 0; i < n; ++i) {
      std::vector<int> img(static_cast<std::size_t>(U), draw(K_));
      for (int r = 0; r < 3; ++r) {  // three painted rectangles
        int r0 = draw(H_), r1 = draw(H_), c0 = draw(W_), c1 = draw(W_);
        if (r0 > r1) std::swap(r0, r1);
        if (c0 > c1) std::swap(c0, c1);
        const int k = draw(K_);
        for (int a = r0; a <= r1; ++a)
          for (int b = c0; b <= c1; ++b) img[static_cast<std::size_t>(a * W_ + b)] = k;
      }
      y.insert(y.end(), img.begin(), img.end());
      for (int a = 0; a < H_; ++a)
        for (int b = 0; b < W_; ++b) {
          if (b + 1 < W_) ex.edges.emplace_back(a * W_ + b, a * W_ + b + 1);
          if (a + 1 < H_) ex.edges.emplace_back(a * W_ + b, (a + 1) * W_ + b);
        }
      ex.unit_offset.push_back(static_cast<std::int64_t>(y.size()));
      ex.edge_offset.push_back(static_cast<std::int64_t>(ex.edges.size()));
    }
    dualgap::DenseMatrix X(static_cast<Eigen::Index>(y.size()), d_ + 1);
    for (Eigen::Index r = 0; r < X.rows(); ++r) {
      for (int j = 0; j < d_; ++j) X(r, j) = proto(y[r], j) + noise_ * rng.normal();
      X(r, d_) = 1.0;
    }
    ex.X = dualgap::FeatureMatrix(std::move(X));
    ex.y = std::move(y);
    ex.check("synthetic_grid");
    return ex;
  }

  int n_train_, n_test_, K_, d_, H_, W_;
  double noise_;
};

dualgap::PluginDescription describe() {
  return dualgap::describe_dataset<SyntheticGrid>(
      "synthetic_grid", "1.0.0", "Synthetic 4-connected grid segmentation data (tests of graph-cut / Potts oracles)");
}

}  // namespace

DUALGAP_PLUGIN(describe)
