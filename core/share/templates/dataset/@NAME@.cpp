// @NAME@: a data set plugin. The skeleton generates K Gaussian class clusters in d dimensions
// (class k centred at `separation` * e_{k mod d}, unit-variance noise), n training and
// n_test test examples, deterministically from the repeat's data seed. Replace load() with
// your reader or generator.
//
// The contract (dualgap/dataset.hpp, dualgap/data.hpp):
//   load(ctx) returns Data{name, train, test, source}: rows of X are units (one per example
//     for multi-class data); y holds one label per unit in 0..num_classes-1; sequence and graph
//     data also fill unit_offset (and edge_offset/edges); test may be empty.
//   It is deterministic given ctx.seed (every solver of a repeat sees the same data): draw
//     through dualgap::SplitMix64 (dualgap/random.hpp), identical on every platform, not
//     through std::*_distribution, whose outputs differ between standard libraries.
//   Errors are std::runtime_error naming the file, the line and what was expected, e.g.
//     "zip.train.gz:1042: expected 256 features, found 255"; Examples::check() verifies sizes.
//   Files are found through parameters of type path (a std::string field with .path();
//     ${DUALGAP_DATA} is expanded by the core);
//   dualgap/parse.hpp reads them (read_files, decompress, LineScanner, data_error, LabelMap).
//   Return the data as read: the core applies the common `data:` keys (test_fraction,
//   per_class, scale, validation, cache, ...) to every dataset plugin alike.
//   source is JSON: a string, or an object describing the files and parameters.
#include <string>

#include "dualgap/dataset.hpp"
#include "dualgap/plugin.hpp"
#include "dualgap/random.hpp"

namespace {

class @CLASS@ final : public dualgap::DatasetPlugin {
 public:
  // The parameters, declared once (dualgap/options.hpp): the member initializers are the
  // defaults, bind() gives each its YAML key, doc line and range; `dualgap describe @NAME@`
  // prints them and the experiment file is checked against them.
  struct Options {
    int n = 200;
    int n_test = 100;
    int d = 10;
    int K = 4;
    double separation = 3.0;

    static void bind(dualgap::Binder<Options>& b) {
      b.field(&Options::n, "n", "training examples").min(1);
      b.field(&Options::n_test, "n_test", "test examples").min(0);
      b.field(&Options::d, "d", "features").min(1);
      b.field(&Options::K, "K", "classes").min(2);
      b.field(&Options::separation, "separation", "distance of each class centre from the origin").min(0);
    }
  };

  explicit @CLASS@(const Options& o) : n_(o.n), n_test_(o.n_test), d_(o.d), K_(o.K), separation_(o.separation) {}

  dualgap::Data load(const dualgap::DatasetContext& ctx) override {
    dualgap::SplitMix64 rng(ctx.seed);
    dualgap::Data data;
    data.name = "@NAME@";
    data.train = generate(rng, n_);
    data.test = generate(rng, n_test_);
    data.source = "@NAME@ generator: n=" + std::to_string(n_) + " n_test=" + std::to_string(n_test_) +
                  " d=" + std::to_string(d_) + " K=" + std::to_string(K_) +
                  " separation=" + std::to_string(separation_) + " seed=" + std::to_string(ctx.seed);
    data.train.check("@NAME@ train");
    data.test.check("@NAME@ test");
    return data;
  }

 private:
  dualgap::Examples generate(dualgap::SplitMix64& rng, int n) const {
    dualgap::Examples ex;
    ex.num_classes = K_;
    dualgap::DenseMatrix X(n, d_);
    for (int i = 0; i < n; ++i) {
      const int k = static_cast<int>(rng.below(static_cast<std::uint64_t>(K_)));
      ex.y.push_back(k);
      for (int j = 0; j < d_; ++j) X(i, j) = rng.normal() + (j == k % d_ ? separation_ : 0.0);
    }
    ex.X = dualgap::FeatureMatrix(std::move(X));
    return ex;
  }

  int n_, n_test_, d_, K_;
  double separation_;
};

dualgap::PluginDescription describe() {
  return dualgap::describe_dataset<@CLASS@>("@NAME@", "0.1.0", "Gaussian class clusters [dualgap new-plugin skeleton]");
}

}  // namespace

DUALGAP_PLUGIN(describe)
