// dlib's graph-labeling structural SVM on dualgap's binary graph data (graph_cut).
//
// dualgap (graph_cut): score(y) = sum_u <w_{y_u}, x_u> - beta #cut(y), beta fixed (not in w),
// w = (w_0, w_1); P(w) = lambda/2 ||w||^2 + (1/n) sum_i H_i(w), Delta = a per-node Hamming loss.
// dlib (structural_svm_graph_labeling_problem, what structural_graph_labeling_trainer trains):
// weights [E ; v], psi(y) = [-sum_{cut edges} e_ab ; sum_{u: y_u = 1} x_u], f = 1/2 ||[E; v]||^2 +
// C (1/n) sum_i H_i, one loss value per node. With e_ab = [beta] and E pinned to 1 (oca's
// force_weight_to_1, which also leaves E out of the regularizer) dlib's model is dualgap's with
// v = w_1 - w_0. Only v enters dualgap's risk, so its optimum has w_0 = -w_1 = -v/2 and
// P = lambda/4 ||v||^2 + (1/n) sum_i H_i = (lambda/2) f for C = 2/lambda; w = (-v/2, v/2) is
// handed to the core.
//
// oca pins index k and zeroes every later index, and the problem stores E first: OcaAdapter
// presents the weights as [v ; E] and oca pins index d. Everything else is
// structural_graph_labeling_trainer::train's (dlib 19.24): the problem, its cache of 5
// labelings per sample, its max-flow separation oracle, the default oca, the risk-gap rule.
// The stock trainer learns a non-negative, regularized E instead (a different model, README).
#include <dlib/graph.h>
#include <dlib/graph_cuts.h>
#include <dlib/svm_threaded.h>

#include <stdexcept>

#include "oca_adapter.hpp"
#include "peers.hpp"

namespace dlib_ssvm {
namespace {

using graph_type = dlib::graph<column, column>::kernel_1a_c;

class GraphPeer final : public Peer {
 public:
  GraphPeer(const dualgap::Examples& ex, const std::vector<double>& node_loss, double beta, double C,
            unsigned long threads)
      : d_(static_cast<long>(ex.num_features())), C_(C), threads_(threads) {
    const std::size_t n = ex.num_examples();
    samples_.resize(n);
    labels_.resize(n);
    losses_.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      const int U = ex.units_of(i);
      graph_type& g = samples_[i];
      g.set_number_of_nodes(static_cast<unsigned long>(U));
      for (int u = 0; u < U; ++u) {
        const auto row = ex.unit_begin(i) + u;
        column x(d_);
        x = 0;
        if (ex.X.is_sparse()) {
          for (dualgap::SparseMatrix::InnerIterator it(ex.X.sparse(), row); it; ++it) x(it.col()) = it.value();
        } else {
          for (long j = 0; j < d_; ++j) x(j) = ex.X.dense()(row, j);
        }
        g.node(static_cast<unsigned long>(u)).data = x;
        labels_[i].push_back(ex.y[static_cast<std::size_t>(row)] == 1);
      }
      losses_[i].assign(static_cast<std::size_t>(U), node_loss[i]);
      const auto [eb, ee] = ex.edge_range(i);
      for (auto k = eb; k < ee; ++k) {
        const auto a = static_cast<unsigned long>(ex.edges[static_cast<std::size_t>(k)].first);
        const auto b = static_cast<unsigned long>(ex.edges[static_cast<std::size_t>(k)].second);
        if (g.has_edge(a, b)) throw std::runtime_error("dlib_ssvm: example " + std::to_string(i) + " repeats an edge");
        g.add_edge(a, b);
        column e(1);
        e(0) = beta;
        dlib::edge(g, a, b) = e;
      }
    }
  }

  Trained train(double eps) override {
    dlib::structural_svm_graph_labeling_problem<graph_type> prob(samples_, labels_, losses_, threads_);
    prob.set_c(C_);
    prob.set_epsilon(eps);
    prob.set_max_cache_size(5);
    OcaAdapter pinned(prob, 1);  // [E ; v] presented as [v ; E]
    column w;
    dlib::oca solver;
    Trained t;
    t.objective = solver(pinned, w, 0, static_cast<unsigned long>(d_));
    t.risk_evals = static_cast<double>(pinned.risk_evals);
    t.w.resize(2 * d_);
    for (long j = 0; j < d_; ++j) {
      t.w[j] = -0.5 * w(j);
      t.w[d_ + j] = 0.5 * w(j);
    }
    return t;
  }

 private:
  long d_;
  double C_;
  unsigned long threads_;
  dlib::array<graph_type> samples_;
  std::vector<std::vector<bool>> labels_;
  std::vector<std::vector<double>> losses_;
};

}  // namespace

std::unique_ptr<Peer> make_graph_peer(const dualgap::Examples& ex, const std::vector<double>& node_loss, double beta,
                                      double C, unsigned long threads) {
  return std::make_unique<GraphPeer>(ex, node_loss, beta, C, threads);
}

}  // namespace dlib_ssvm
