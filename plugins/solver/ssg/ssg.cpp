// Structural SVM training by stochastic subgradient descent:
//   min_w  P(w) = lambda/2 ||w||^2 + (1/n) sum_i H_i(w),
//   H_i(w) = max_y [Delta(y_i,y) + c(y) - c(y_i) + <w, phi(x_i,y) - phi(x_i,y_i)>]
// The subgradient method of Ratliff, Bagnell, Zinkevich (AISTATS 2007) with the Pegasos step
// 1/(lambda t) (Shalev-Shwartz, Singer, Srebro, Cotter, Math. Programming 2011, Fig. 1, without
// the projection step), as the stochastic subgradient baseline of the BCFW paper (Lacoste-Julien,
// Jaggi, Schmidt, Pletscher, ICML 2013); averaging of the iterates optional, uniform or weighted
// by t (Lacoste-Julien, Schmidt, Bach, "A simpler approach to obtaining an O(1/t) convergence
// rate for the projected stochastic subgradient method", 2012).
// Works with any "structured" oracle (dualgap/oracles/structured.hpp). No dual: the core records
// only the primal (compare measures it against the group's best bound).
//
// One recorder pass = n steps (n exact oracle calls).
#include <algorithm>
#include <numeric>
#include <stdexcept>

#include "dualgap/oracles/structured.hpp"
#include "dualgap/plugin.hpp"
#include "dualgap/random.hpp"

namespace {

using dualgap::Action;
using dualgap::Iterate;
using dualgap::Labeling;
using dualgap::Vector;

enum class Averaging { none, uniform, weighted };
enum class Sampling { uniform, permutation };

struct Options {
  Averaging averaging = Averaging::none;
  Sampling sample = Sampling::uniform;

  static void bind(dualgap::Binder<Options>& b) {
    b.choice(&Options::averaging, "averaging",
             {{"none", Averaging::none}, {"uniform", Averaging::uniform}, {"weighted", Averaging::weighted}},
             "report the last iterate, the uniform average of the iterates, or their average "
             "weighted by the step number t (Lacoste-Julien, Schmidt, Bach 2012)");
    b.choice(&Options::sample, "sample", {{"uniform", Sampling::uniform}, {"permutation", Sampling::permutation}},
             "examples drawn uniformly with replacement (the methods' analyses), or a fresh random "
             "permutation every pass");
  }
};

class Ssg final : public dualgap::Solver {
 public:
  using Options = ::Options;
  explicit Ssg(const Options& o) : opt_(o) {}

  void solve(const dualgap::Problem& pb, dualgap::SolverContext& ctx) override {
    auto* oracle = dynamic_cast<dualgap::StructuredOracle*>(pb.oracle);
    if (!oracle) throw std::runtime_error("ssg: needs an oracle with the 'structured' interface");
    if (!pb.data) throw std::runtime_error("ssg: no data");
    if (!(pb.lambda > 0)) throw std::runtime_error("ssg: problem.lambda must be > 0");
    const dualgap::Examples& ex = pb.data->train;
    const std::size_t n = ex.num_examples();
    if (n == 0) throw std::runtime_error("ssg: no training examples");
    auto& rec = *ctx.recorder;
    const double lambda = pb.lambda;
    const auto dim = static_cast<Eigen::Index>(oracle->dim(static_cast<std::size_t>(ex.num_features()), ex.num_classes));

    Vector w = Vector::Zero(dim), wbar = Vector::Zero(dim);
    dualgap::SplitMix64 rng(ctx.seed);
    std::vector<std::size_t> order(n);
    std::iota(order.begin(), order.end(), std::size_t{0});
    Labeling lab;
    std::vector<double> scores;
    double t = 0;  // steps taken

    auto eval = [&](Iterate& it) {
      it.w = opt_.averaging == Averaging::none ? &w : &wbar;
      if (t > 0) it.set("step_size", 1.0 / (lambda * t));
    };

    if (rec.checkpoint(0, eval) == Action::stop) return;
    for (int pass = 1;; ++pass) {
      if (opt_.sample == Sampling::permutation) dualgap::shuffle(order, rng);
      for (std::size_t s = 0; s < n; ++s) {
        const std::size_t i = opt_.sample == Sampling::permutation ? order[s] : rng.below(n);
        t += 1;
        // Subgradient of lambda/2 ||w||^2 + H_i(w): lambda w + phi(x_i, yhat) - phi(x_i, y_i), with
        // yhat the loss-augmented argmax (H_i is an unbiased estimate of (1/n) sum_i H_i).
        oracle->max_oracle(ex, i, w, lab, scores);
        const int* yi = ex.y.data() + ex.unit_begin(i);
        const double eta = 1.0 / (lambda * t);
        w *= 1.0 - 1.0 / t;  // w - eta lambda w
        if (!std::equal(lab.labels.begin(), lab.labels.end(), yi)) {
          oracle->add_joint_features(ex, i, lab.labels.data(), -eta, w);
          oracle->add_joint_features(ex, i, yi, eta, w);
        }
        // Averages of w_1..w_t: weights 1 (uniform) or proportional to t (weighted:
        // wbar_t = (1 - rho) wbar_{t-1} + rho w_t with rho = 2/(t+1)).
        if (opt_.averaging == Averaging::uniform) wbar += (w - wbar) / t;
        else if (opt_.averaging == Averaging::weighted) wbar += (2.0 / (t + 1)) * (w - wbar);
      }
      if (rec.due(pass) && rec.checkpoint(pass, eval) == Action::stop) return;
    }
  }

 private:
  Options opt_;
};

dualgap::PluginDescription describe() {
  return dualgap::describe_solver<Ssg>(
      "ssg", "1.0.0",
      "Structural SVM by stochastic subgradient descent, step 1/(lambda t) (Ratliff et al. 2007; Pegasos), "
      "with uniform or weighted averaging (Lacoste-Julien, Schmidt, Bach 2012); primal only",
      {"structured"});
}

}  // namespace
DUALGAP_PLUGIN(describe)
