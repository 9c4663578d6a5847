// dlib's structural SVM trainers (King, "Dlib-ml: A Machine Learning Toolkit", JMLR 10, 2009;
// Debian's libdlib-dev) as a solver: the 1-slack cutting-plane method with dlib's oca QP solver
// (Teo et al., "Bundle methods for regularized risk minimization", JMLR 11, 2010), on
//   chain data, oracle chain_viterbi (loss: count): the sequence labeling problem of
//     structural_sequence_labeling_trainer, C = 1/lambda, P = lambda f_dlib (sequence_peer.cpp);
//   binary graph data, oracle graph_cut: the graph labeling problem of
//     structural_graph_labeling_trainer with the Potts weight pinned to the oracle's beta,
//     C = 2/lambda, P = (lambda/2) f_dlib (graph_peer.cpp).
// dlib trains to its risk-gap tolerance and returns, with no callback, so it runs in sampling
// mode (dualgap/sampling.hpp): from scratch once per eps = eps_first, eps_first * eps_factor,
// ...; each model is handed to the core in the oracle's joint feature layout and scored with
// the same objective as BCFW. dlib's own objective at that model, times the scale above, is
// the column dlib_objective (equal to the core's primal: README).
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "dualgap/oracles/structured.hpp"
#include "dualgap/plugin.hpp"
#include "dualgap/sampling.hpp"
#include "peers.hpp"

namespace {

using dualgap::Examples;

struct Options {
  dualgap::EpsSchedule eps{1.0, 0.5, 10, {}};  ///< dlib's tolerance (set_epsilon) of each restart
  int threads = 1;  ///< dlib's threads for the separation oracle (set_num_threads)
  static void bind(dualgap::Binder<Options>& b) {
    dualgap::EpsSchedule::bind(b, &Options::eps, "dlib's risk-gap tolerance (units of P)");
    b.field(&Options::threads, "threads", "dlib's threads for the separation oracle").range(1, 256);
  }
  bool validate(std::string* error) const { return eps.validate(error); }
};

/// The Potts weight of a graph_cut-like oracle, read off its constant score c(y) = -beta #cut(y)
/// (checked on every example: a single node flipped to 1 cuts its degree's edges).
double potts_weight(const dualgap::StructuredOracle& oracle, const Examples& ex) {
  double beta = std::nan("");
  for (std::size_t i = 0; i < ex.num_examples(); ++i) {
    const auto [eb, ee] = ex.edge_range(i);
    if (eb == ee) continue;
    const int a = ex.edges[static_cast<std::size_t>(eb)].first;
    int degree = 0;
    for (auto k = eb; k < ee; ++k)
      degree += (ex.edges[static_cast<std::size_t>(k)].first == a) + (ex.edges[static_cast<std::size_t>(k)].second == a);
    std::vector<int> y(static_cast<std::size_t>(ex.units_of(i)), 0);
    if (oracle.constant(ex, i, y.data()) != 0) throw std::runtime_error("dlib_ssvm: c(y) != 0 for a labeling without cuts");
    y[static_cast<std::size_t>(a)] = 1;
    const double b = -oracle.constant(ex, i, y.data()) / degree;
    if (std::isnan(beta)) beta = b;
    if (std::abs(b - beta) > 1e-12 * std::max(1.0, std::abs(beta)) || b < 0)
      throw std::runtime_error("dlib_ssvm: the oracle's pairwise term is not a Potts term -beta #cut with one beta >= 0");
  }
  return std::isnan(beta) ? 0.0 : beta;
}

/// Loss of one wrong node of example i; checks that the loss is that times the number of wrong nodes.
std::vector<double> node_losses(const dualgap::StructuredOracle& oracle, const Examples& ex) {
  std::vector<double> out;
  for (std::size_t i = 0; i < ex.num_examples(); ++i) {
    std::vector<int> y(ex.y.begin() + ex.unit_begin(i), ex.y.begin() + ex.unit_end(i));
    if (oracle.loss(ex, i, y.data()) != 0) throw std::runtime_error("dlib_ssvm: the loss of the truth is not 0");
    std::vector<int> wrong = y;
    wrong[0] = 1 - wrong[0];
    const double one = oracle.loss(ex, i, wrong.data());
    for (std::size_t u = 0; u < y.size(); ++u) wrong[u] = 1 - y[u];  // every node wrong
    const double all = oracle.loss(ex, i, wrong.data());
    if (std::abs(all - one * static_cast<double>(y.size())) > 1e-12 * std::max(1.0, all))
      throw std::runtime_error("dlib_ssvm: the loss is not a per-node (Hamming) loss");
    out.push_back(one);
  }
  return out;
}

class DlibSsvm final : public dualgap::Solver {
 public:
  using Options = ::Options;
  explicit DlibSsvm(const Options& o) : opt_(o) {}

  void solve(const dualgap::Problem& pb, dualgap::SolverContext& ctx) override {
    auto* oracle = dynamic_cast<dualgap::StructuredOracle*>(pb.oracle);
    if (!oracle) throw std::runtime_error("dlib_ssvm: needs a structured oracle");
    const Examples& ex = pb.data->train;
    if (pb.lambda <= 0) throw std::runtime_error("dlib_ssvm: needs lambda > 0");
    const auto threads = static_cast<unsigned long>(opt_.threads);
    std::unique_ptr<dlib_ssvm::Peer> peer;
    double scale = 0;  // P = scale * dlib's objective
    if (oracle->uses_transitions()) {
      // dlib's sequence loss is the number of wrong positions: the chain oracle's count loss.
      std::vector<int> y(ex.y.begin() + ex.unit_begin(0), ex.y.begin() + ex.unit_end(0));
      y[0] = (y[0] + 1) % ex.num_classes;
      if (oracle->loss(ex, 0, y.data()) != 1.0 || oracle->constant(ex, 0, y.data()) != 0.0)
        throw std::runtime_error("dlib_ssvm: dlib's sequence problem counts wrong positions; set the chain "
                                 "oracle's loss: count");
      peer = dlib_ssvm::make_sequence_peer(ex, 1.0 / pb.lambda, threads);
      scale = pb.lambda;
    } else if (ex.has_edges() && ex.num_classes == 2 &&
               oracle->dim(static_cast<std::size_t>(ex.num_features()), 2) == 2 * static_cast<std::size_t>(ex.num_features())) {
      peer = dlib_ssvm::make_graph_peer(ex, node_losses(*oracle, ex), potts_weight(*oracle, ex), 2.0 / pb.lambda,
                                        threads);
      scale = pb.lambda / 2;
    } else {
      throw std::runtime_error("dlib_ssvm: needs chain data (chain_viterbi) or binary graph data (graph_cut)");
    }
    if (!oracle->exact())
      throw std::runtime_error("dlib_ssvm: the oracle is approximate; dlib solves the problem exactly");

    dlib_ssvm::Trained model;
    auto train = [&](double eps) {
      model = peer->train(eps);
      if (model.w.size() != static_cast<Eigen::Index>(oracle->dim(static_cast<std::size_t>(ex.num_features()), ex.num_classes)))
        throw std::runtime_error("dlib_ssvm: dlib's w does not have the oracle's dimension");
      return model.risk_evals;
    };
    auto fill = [&](dualgap::Iterate& it) {
      it.w = &model.w;
      it.set("dlib_objective", scale * model.objective);
    };
    dualgap::run_sampled(ctx, opt_.eps.schedule(),
                         train, fill);
  }

 private:
  Options opt_;
};

dualgap::PluginDescription describe() {
  return dualgap::describe_solver<DlibSsvm>(
      "dlib_ssvm", "1.0.0",
      "dlib's structural SVM trainers (1-slack cutting plane, oca) in sampling mode: sequence labeling for "
      "chain_viterbi (loss count), graph labeling with the Potts weight pinned for graph_cut",
      {"structured"});
}

}  // namespace

DUALGAP_PLUGIN(describe)
