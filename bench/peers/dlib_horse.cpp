// dlib peer on the horse segmentation SSVM: trains dlib's graph-labeling structural SVM (1
// thread) on the same superpixel graphs as dualgap's segmentation + graph_cut + bcfw, and
// evaluates OUR primal at dlib's learned w, so both sides are measured on one objective.
//
// Models. dualgap (graph_cut): score(y) = sum_u <w_{y_u}, x_u> - beta #cut(y), beta FIXED (not
// in w), w = (w_0, w_1) in R^{2d}; P(w) = lambda/2 ||w||^2 + (1/n) sum_i H_i(w), Delta = Hamming
// normalized by the number of superpixels U_i. dlib (structural_svm_graph_labeling_problem):
// w = [E ; v], psi(y) = [ -sum_{cut edges} e_ab ; sum_{u: y_u = 1} x_u ], E >= 0 LEARNED, with
// f = 1/2 ||[E; v]||^2 + C (1/n) sum_i H_i, and per-node losses (here 1/U_i: exactly the
// normalized Hamming loss).
// Exact mapping ("pinned", default): edge vector e_ab = [beta] (1-dim) and E pinned to 1 with
// oca's documented force_weight_to_1 (which removes the pinned weight from the regularizer).
// oca pins "index k and all later indices", and the graph problem puts E first, so a 30-line
// adapter (PinE) presents dlib's problem with the order [v ; E]; everything else (problem,
// cache of 5 labelings per sample, Potts max-flow find_max_factor_graph_potts, oca solver and
// its stopping rule) is dlib's, exactly as structural_graph_labeling_trainer::train uses them.
// Only w_1 - w_0 matters to dualgap's risk, so dualgap's optimum has w_0 = -w_1 = -v/2 and
// P = lambda/4 ||v||^2 + (1/n) sum H_i(v) = (lambda/2) f(v) with C = 2/lambda (= 2n).
// "trainer" mode (--trainer): the stock structural_graph_labeling_trainer with e_ab = [1]: it
// LEARNS a nonnegative, regularized Potts weight E (a different model); we print E and OUR
// primal (beta fixed) at dlib's node weights.
//
// Usage: dlib_horse WEIZMANN_DIR PLUGIN_DIR NUM_IMAGES CACHE_DIR [--trainer] [eps ...]
//   (test_fraction 0: the first NUM_IMAGES images all train, the same set as dualgap's run with
//   num_images NUM_IMAGES, test_fraction 0; superpixels slic, size 12, beta 1; one JSON line per eps)
#include <dlib/graph.h>
#include <dlib/graph_cuts.h>
#include <dlib/svm_threaded.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "dualgap/dataset.hpp"
#include "dualgap/oracles/structured.hpp"
#include "loader.hpp"
#include "schema.hpp"

namespace {

using vec = dlib::matrix<double, 0, 1>;
using graph_type = dlib::graph<vec, vec>::kernel_1a_c;

// dlib's problem with the weight order [v (d) ; E (1)] instead of [E ; v], so that oca's
// force_weight_to_1 = d pins E = 1 (and nothing after it).
class PinE : public dlib::oca_problem<vec> {
 public:
  PinE(const dlib::oca_problem<vec>& in, long d) : in_(in), d_(d) {}
  bool risk_has_lower_bound(double& lb) const override { return in_.risk_has_lower_bound(lb); }
  bool optimization_status(double obj, double obj_gap, double risk, double risk_gap,
                           unsigned long planes, unsigned long iter) const override {
    return in_.optimization_status(obj, obj_gap, risk, risk_gap, planes, iter);
  }
  double get_c() const override { return in_.get_c(); }
  long get_num_dimensions() const override { return in_.get_num_dimensions(); }
  void get_risk(vec& w, double& risk, vec& grad) const override {
    ++risk_evals;
    wi_.set_size(d_ + 1);
    wi_(0) = w(d_);
    dlib::set_rowm(wi_, dlib::range(1, d_)) = dlib::rowm(w, dlib::range(0, d_ - 1));
    in_.get_risk(wi_, risk, gi_);
    grad.set_size(d_ + 1);
    dlib::set_rowm(grad, dlib::range(0, d_ - 1)) = dlib::rowm(gi_, dlib::range(1, d_));
    grad(d_) = gi_(0);
  }

  mutable unsigned long risk_evals = 0;  // oca iterations: passes over the n samples (via dlib's cache)

 private:
  const dlib::oca_problem<vec>& in_;
  long d_;
  mutable vec wi_, gi_;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 5) {
    std::cerr << "usage: dlib_horse WEIZMANN_DIR PLUGIN_DIR NUM_IMAGES CACHE_DIR [--trainer] [eps ...]\n";
    return 2;
  }
  bool stock = false;
  std::vector<double> eps_list;
  for (int a = 5; a < argc; ++a) {
    if (std::strcmp(argv[a], "--trainer") == 0)
      stock = true;
    else
      eps_list.push_back(std::stod(argv[a]));
  }
  if (eps_list.empty()) eps_list = {0.1, 0.03, 0.01};
  const double beta = 1.0;

  dualgap::PluginRegistry reg;
  reg.scan({argv[2]});
  auto& dp = reg.get(dualgap::Kind::dataset, "segmentation");
  auto ds = dualgap::create_object<dualgap::DatasetPlugin>(
      dp, dualgap::make_params(dp.description->params,
                               {{"dir", argv[1]}, {"num_images", std::stoi(argv[3])},
                                {"test_fraction", 0.0}, {"superpixels", "slic"},
                                {"superpixel_size", 12}}));
  dualgap::DatasetContext ctx;
  ctx.cache_dir = argv[4];
  const dualgap::Data data = ds->load(ctx);
  const dualgap::Examples& ex = data.train;
  auto& op = reg.get(dualgap::Kind::oracle, "graph_cut");
  auto make_oracle = [&](double b) {
    return dualgap::create_object<dualgap::StructuredOracle>(
        op, dualgap::make_params(op.description->params, {{"beta", b}, {"loss", "normalized"}}));
  };
  auto oracle = make_oracle(beta);

  const std::size_t n = ex.num_examples();
  const long d = static_cast<long>(ex.num_features());
  if (ex.num_classes != 2) throw std::runtime_error("dlib_horse: needs binary labels");
  dlib::array<graph_type> samples;
  samples.resize(n);
  std::vector<std::vector<bool>> labels(n);
  std::vector<std::vector<double>> losses(n);
  const double edge_value = stock ? 1.0 : beta;
  std::size_t units = 0, edges = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const int U = ex.units_of(i);
    graph_type& g = samples[i];
    g.set_number_of_nodes(static_cast<unsigned long>(U));
    for (int u = 0; u < U; ++u) {
      const auto row = ex.unit_begin(i) + u;
      vec x(d);
      for (long j = 0; j < d; ++j) x(j) = ex.X.dense()(row, static_cast<Eigen::Index>(j));
      g.node(static_cast<unsigned long>(u)).data = x;
      labels[i].push_back(ex.y[static_cast<std::size_t>(row)] == 1);
    }
    losses[i].assign(static_cast<std::size_t>(U), 1.0 / U);  // normalized Hamming
    auto [eb, ee] = ex.edge_range(i);
    for (auto k = eb; k < ee; ++k) {
      const auto a = static_cast<unsigned long>(ex.edges[k].first);
      const auto b = static_cast<unsigned long>(ex.edges[k].second);
      g.add_edge(a, b);
      vec e(1);
      e(0) = edge_value;
      dlib::edge(g, a, b) = e;
    }
    units += static_cast<std::size_t>(U);
    edges += static_cast<std::size_t>(ee - eb);
  }
  const double lambda = 1.0 / static_cast<double>(n);
  const double C = 2.0 / lambda;
  std::fprintf(stderr, "dlib_horse: %zu images, %zu superpixels, %zu edges, d = %ld, C = %g (%s)\n",
               n, units, edges, d, C, stock ? "stock trainer, learned Potts weight" : "Potts weight pinned to beta");

  // OUR primal at w = (-v/2, v/2): lambda/2 ||w||^2 + (1/n) sum_i [max_y (Delta + <w,phi(y)> + c(y))
  //                                                                 - <w,phi(y_i)> - c(y_i)].
  auto primal = [&](dualgap::StructuredOracle& orc, const vec& v) {
    dualgap::Vector w(2 * d);
    for (long j = 0; j < d; ++j) {
      w[j] = -0.5 * v(j);
      w[d + j] = 0.5 * v(j);
    }
    double risk = 0;
    dualgap::Labeling out;
    std::vector<double> scores;
    for (std::size_t i = 0; i < n; ++i) {
      orc.max_oracle(ex, i, w, out, scores);
      const int* truth = ex.y.data() + ex.unit_begin(i);
      dualgap::Vector diff = dualgap::Vector::Zero(w.size());
      orc.add_joint_features(ex, i, out.labels.data(), 1.0, diff);
      orc.add_joint_features(ex, i, truth, -1.0, diff);
      risk += out.loss + out.constant - orc.constant(ex, i, truth) + w.dot(diff);
    }
    return 0.5 * lambda * w.squaredNorm() + risk / static_cast<double>(n);
  };

  for (double eps : eps_list) {
    vec v;
    double obj = 0, edge_weight = 1;
    unsigned long passes = 0;
    const auto t0 = std::chrono::steady_clock::now();
    if (stock) {
      dlib::structural_graph_labeling_trainer<vec> trainer;
      trainer.set_num_threads(1);
      trainer.set_c(C);
      trainer.set_epsilon(eps);
      auto labeler = trainer.train(samples, labels, losses);
      v = labeler.get_node_weights();
      edge_weight = labeler.get_edge_weights()(0);
    } else {
      // = structural_graph_labeling_trainer::train (defaults: cache 5, default oca), E pinned.
      dlib::structural_svm_graph_labeling_problem<graph_type> prob(samples, labels, losses, 1);
      prob.set_c(C);
      prob.set_epsilon(eps);
      prob.set_max_cache_size(5);
      PinE pinned(prob, d);
      vec w;
      dlib::oca solver;
      obj = solver(pinned, w, 0, static_cast<unsigned long>(d));
      v = dlib::rowm(w, dlib::range(0, d - 1));
      edge_weight = w(d);
      passes = pinned.risk_evals;
    }
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double p = primal(*oracle, v);
    if (stock) {
      auto at_learned = make_oracle(edge_weight * edge_value);
      std::printf("{\"side\": \"dlib-trainer\", \"eps\": %g, \"C\": %g, \"time_s\": %.3f, \"potts_weight\": %.6f, "
                  "\"primal\": %.6f, \"primal_at_learned_potts\": %.6f}\n",
                  eps, C, secs, edge_weight * edge_value, p, primal(*at_learned, v));
    } else {
      std::printf("{\"side\": \"dlib\", \"eps\": %g, \"C\": %g, \"time_s\": %.3f, \"potts_weight\": %.6f, "
                  "\"primal\": %.6f, \"dlib_objective_times_lambda_over_2\": %.6f, \"risk_evals\": %lu}\n",
                  eps, C, secs, edge_weight * edge_value, p, obj * lambda / 2, passes);
    }
    std::fflush(stdout);
  }
  return 0;
}
