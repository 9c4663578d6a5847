// Block coordinate descent for  F(W) = L(W) + lambda sum_j ||W_j:||_2  (W is d x K, block j =
// row W_j:). Algorithms 1-3 of Blondel, Seki and Uematsu, "Block coordinate descent algorithms
// for large-scale sparse multiclass classification", Machine Learning 2013:
//  - line_search:   cyclic blocks, L_j = max(||h_j||_inf, 1e-12), Armijo rule (7) with
//                   sigma, omega (Tseng and Yun 2009);
//  - constant_step: uniformly random blocks, L_j = K_j, alpha = 1 (Richtarik and Takac 2012).
// Block step: V = W_j - G_j / L_j, W*_j = max(1 - (lambda/L_j)/||V||, 0) V (4). Stopping rule
// (10) on the violations (9) of each outer iteration relative to the first. One recorder pass =
// one outer iteration (d block updates). Optional shrinking of zero blocks (Sect. 5.2.4).
#include <cmath>
#include <vector>

#include "dualgap/plugin.hpp"
#include "dualgap/random.hpp"
#include "sparse/sparse_common.hpp"

namespace {

using dualgap::DenseMatrix;

class Bcd final : public dualgap::Solver {
 public:
  struct Options {
    bool line_search = true;
    double tau = 1e-3;
    int max_outer = 200;
    double sigma = 0.01;
    double omega = 0.5;
    bool shrinking = true;
    int recheck = 10;
    std::string stop_norm = "auto";
    static void bind(dualgap::Binder<Options>& b) {
      b.choice(&Options::line_search, "variant", {{"line_search", true}, {"constant_step", false}},
               "line_search: cyclic, L_j from curvature, Armijo (Tseng-Yun); "
               "constant_step: uniform random blocks, L_j = K_j, alpha = 1 (Richtarik-Takac)");
      b.field(&Options::tau, "tau", "stopping rule (10) tolerance; 0 disables it").range(0.0, 1.0);
      b.field(&Options::max_outer, "max_outer", "maximum outer iterations K_max; 0: unlimited").min(0);
      b.field(&Options::sigma, "sigma", "Armijo sufficient-decrease constant of (7)").range(1e-12, 0.5);
      b.field(&Options::omega, "omega", "line-search step shrink factor").range(1e-3, 0.999);
      b.field(&Options::shrinking, "shrinking", "skip zero blocks with ||G_j|| < lambda - (previous max violation)");
      b.field(&Options::recheck, "recheck",
              "with shrinking: bring every shrunk block back every this many outer iterations (0: only when rule "
              "(10) is met)")
          .min(0);
      b.choice(&Options::stop_norm, "stop_norm", {"auto", "sum", "max"},
               "norm of the violations in rule (10); auto: sum for cyclic, max for random");
    }
  };
  explicit Bcd(const Options& o)
      : line_search_(o.line_search),
        tau_(o.tau),
        max_outer_(o.max_outer),
        sigma_(o.sigma),
        omega_(o.omega),
        shrinking_(o.shrinking),
        recheck_(o.recheck),
        stop_norm_(o.stop_norm) {}

  void solve(const dualgap::Problem& pb, dualgap::SolverContext& ctx) override {
    auto& rec = *ctx.recorder;
    auto& oracle = dualgap::sparse::bind_oracle(pb, "bcd");
    const double lambda = pb.lambda;
    const Eigen::Index d = oracle.num_features();
    const int K = oracle.num_classes();
    DenseMatrix W = DenseMatrix::Zero(d, K);
    std::vector<double> G(K), h(K), delta(K), step(K), wnew(K);
    std::vector<char> active(static_cast<std::size_t>(d), 1);
    dualgap::SplitMix64 rng(ctx.seed);
    const bool use_max = stop_norm_ == "max" || (stop_norm_ == "auto" && !line_search_);

    auto eval = [&](dualgap::Iterate& it) { it.W = &W; };  // the core scores W (and leaves the oracle at W)
    if (rec.checkpoint(0, eval) == dualgap::Action::stop) return;

    double first = -1;                                       // violation measure of iteration 1
    double prev_max_violation = std::numeric_limits<double>::infinity();
    for (int outer = 1; max_outer_ == 0 || outer <= max_outer_; ++outer) {
      double v_sum = 0, v_max = 0;
      for (Eigen::Index t = 0; t < d; ++t) {
        const Eigen::Index j = line_search_ ? t : static_cast<Eigen::Index>(rng.below(static_cast<std::uint64_t>(d)));
        if (shrinking_ && !active[j]) continue;
        double* w = W.data() + j * K;
        oracle.block_gradient(j, G.data(), h.data());
        const double gn = dualgap::sparse::row_norm(G.data(), K);
        const double wn = dualgap::sparse::row_norm(w, K);
        const double v = dualgap::sparse::violation(gn, wn, lambda);
        v_sum += v;
        v_max = std::max(v_max, v);
        // Shrinking: a zero block whose gradient stays clearly inside the lambda-ball is likely
        // to stay zero (Yuan et al. 2010, extended to groups).
        if (shrinking_ && wn == 0 && gn < lambda - prev_max_violation) {
          active[j] = 0;
          continue;
        }
        double L;
        if (line_search_) {
          L = 1e-12;
          for (int r = 0; r < K; ++r) L = std::max(L, h[r]);
        } else {
          L = oracle.block_lipschitz(j);
          if (L <= 0) continue;  // empty column: L does not depend on this block
        }
        for (int r = 0; r < K; ++r) wnew[r] = w[r] - G[r] / L;
        dualgap::sparse::group_soft_threshold(wnew.data(), K, lambda / L, wnew.data());
        bool zero_step = true;
        for (int r = 0; r < K; ++r) {
          delta[r] = wnew[r] - w[r];
          if (delta[r] != 0) zero_step = false;
        }
        if (zero_step) continue;
        if (!line_search_) {
          oracle.update_block(j, delta.data(), false);
          for (int r = 0; r < K; ++r) w[r] = wnew[r];
          continue;
        }
        // Armijo rule (7): F(W + alpha delta) - F(W) <= sigma alpha (G.delta + lambda ||W_j +
        // delta|| - lambda ||W_j||). The loss difference comes from the margin update itself.
        double gd = 0;
        for (int r = 0; r < K; ++r) gd += G[r] * delta[r];
        const double decrease = gd + lambda * (dualgap::sparse::row_norm(wnew.data(), K) - wn);
        double alpha = 1.0;
        double change = oracle.update_block(j, delta.data(), true);
        bool accepted = false;
        for (int ls = 0; ls < 30; ++ls) {
          for (int r = 0; r < K; ++r) step[r] = w[r] + alpha * delta[r];
          const double dF = change + lambda * (dualgap::sparse::row_norm(step.data(), K) - wn);
          if (dF <= sigma_ * alpha * decrease) { accepted = true; break; }
          const double next = omega_ * alpha;
          for (int r = 0; r < K; ++r) step[r] = (next - alpha) * delta[r];
          change += oracle.update_block(j, step.data(), true);
          alpha = next;
        }
        if (!accepted) {  // no decrease found: undo (only at round-off level)
          for (int r = 0; r < K; ++r) step[r] = -alpha * delta[r];
          oracle.update_block(j, step.data(), false);
          continue;
        }
        for (int r = 0; r < K; ++r) w[r] += alpha * delta[r];
      }
      // Stopping rule (10): this iteration's violations relative to the first iteration's.
      const double measure = use_max ? v_max : v_sum;
      if (first < 0) first = measure;
      bool converged = tau_ > 0 && (first == 0 || measure < tau_ * first);
      prev_max_violation = v_max;
      // Every shrunk block comes back for one full check when rule (10) is met on the shrunk set
      // (then the run stops only if it still holds on all blocks), and every `recheck` outer
      // iterations (so that a run without the rule, tau = 0, still revisits every block).
      const bool recheck_now = shrinking_ && recheck_ > 0 && outer % recheck_ == 0;
      if ((converged || recheck_now) && shrinking_) {
        bool any_shrunk = false;
        for (auto& a : active) {
          if (!a) any_shrunk = true;
          a = 1;
        }
        if (any_shrunk) {
          converged = false;
          prev_max_violation = std::numeric_limits<double>::infinity();
        }
      }
      if (converged) {
        rec.checkpoint(outer, eval);
        return;
      }
      if (rec.due(outer) && rec.checkpoint(outer, eval) == dualgap::Action::stop) return;
    }
    rec.checkpoint(max_outer_, eval);
  }

 private:
  bool line_search_;
  double tau_;
  int max_outer_;
  double sigma_, omega_;
  bool shrinking_;
  int recheck_;
  std::string stop_norm_;
};

dualgap::PluginDescription describe() {
  return dualgap::describe_solver<Bcd>(
      "bcd", "1.0.0",
      "Block coordinate descent for L1/L2-regularized losses (Blondel et al., Machine Learning 2013, Algorithms 1-3)",
      {"block_loss"});
}

}  // namespace

DUALGAP_PLUGIN(describe)
