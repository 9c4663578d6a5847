// Writes the train and test split of an experiment, after its feature chain, as LIBSVM files,
// loading the data exactly as `dualgap run` does (same plugins, same data and feature seeds of
// repeat 0), so that a peer (LIBLINEAR) trains on the very features our solvers see.
//   lsr_export EXPERIMENT.yaml OUT_DIR [key=value ...]   -> OUT_DIR/train.svm, OUT_DIR/test.svm
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>

#include "data/pipeline.hpp"
#include "experiment/config.hpp"
#include "plugins/loader.hpp"
#include "experiment/schema.hpp"
#include "base/util.hpp"

using namespace dualgap;

namespace {

void write_libsvm(const Examples& e, const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f) throw std::runtime_error("cannot write " + path);
  const DenseMatrix D = e.X.to_dense();
  for (Eigen::Index i = 0; i < D.rows(); ++i) {
    std::fprintf(f, "%d", e.y[static_cast<std::size_t>(i)]);
    for (Eigen::Index j = 0; j < D.cols(); ++j)
      if (D(i, j) != 0) std::fprintf(f, " %ld:%.9g", static_cast<long>(j + 1), D(i, j));
    std::fputc('\n', f);
  }
  std::fclose(f);
}

double count(const Examples& e, const char* what) {
  std::string w = what;
  if (w == "n") return static_cast<double>(e.num_examples());
  if (w == "N") return static_cast<double>(e.num_units());
  if (w == "d") return static_cast<double>(e.num_features());
  return e.num_classes;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: lsr_export EXPERIMENT.yaml OUT_DIR [key=value ...]\n";
    return 2;
  }
  try {
    PluginRegistry reg;
    reg.scan(PluginRegistry::default_search_path());
    ExpandOptions opts;
    for (int a = 3; a < argc; ++a) opts.sets.push_back(argv[a]);
    const std::vector<RunSpec> runs = expand_experiment(argv[1], opts, reg);
    if (runs.empty()) throw std::runtime_error("the experiment expands to no run");
    const json& cfg = runs.front().config;

    const auto t0 = std::chrono::steady_clock::now();
    const LoadedPlugin& dp = reg.get(Kind::dataset, cfg["data"]["plugin"]);
    DatasetContext dctx;
    dctx.seed = cfg["seeds"]["data"].get<std::uint64_t>();
    Data data = load_data(dp, cfg["data"]["params"], dctx);
    const std::uint64_t fseed = cfg["seeds"]["features"].get<std::uint64_t>();
    std::size_t fidx = 0;
    for (auto& f : cfg["features"]) {
      const LoadedPlugin& fp = reg.get(Kind::features, f["plugin"]);
      json vars = {{"n", count(data.train, "n")}, {"N", count(data.train, "N")},
                   {"d", count(data.train, "d")}, {"K", count(data.train, "K")}};
      auto fg = create_object<FeatureGenerator>(
          fp, Params(resolve_expressions(fp.description->params, f["params"], vars)));
      fg->fit(data.train, derive_seed(fseed, "features", fidx++));
      data.train.X = fg->transform(data.train.X);
      if (data.test.num_units() > 0) data.test.X = fg->transform(data.test.X);
    }
    const double prep = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const std::string out = argv[2];
    write_libsvm(data.train, out + "/train.svm");
    write_libsvm(data.test, out + "/test.svm");
    std::cout << "{\"train\": " << data.train.num_units() << ", \"test\": " << data.test.num_units()
              << ", \"features\": " << data.train.num_features() << ", \"classes\": " << data.train.num_classes
              << ", \"prepare_s\": " << prep << "}\n";
  } catch (const std::exception& e) {
    std::cerr << "lsr_export: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
