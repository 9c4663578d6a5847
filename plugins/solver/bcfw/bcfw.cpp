// Structural SVM training by (multi-plane) block-coordinate Frank-Wolfe on the dual:
//   min_w  lambda/2 ||w||^2 + (1/n) sum_i max_y [Delta(y_i,y) + c(y) - c(y_i) + <w, phi(x_i,y) - phi(x_i,y_i)>]
// Algorithm 3 (MP-BCFW) of Shah, Kolmogorov, Lampert, CVPR 2015, which is Algorithm 2 (BCFW,
// Lacoste-Julien et al., ICML 2013) when multiplane is off (N = M = 0), with the weighted
// averaging of section 3.5 as an option (BCFW-avg, MP-BCFW-avg).
// Works with any "structured" oracle (dualgap/oracles/structured.hpp).
//
// One recorder pass = one exact pass over the data; approximate passes are reported in the
// column approx_passes. Formulas: README.md, dual_state.hpp, averages.hpp, working_set.hpp.
#include <algorithm>
#include <numeric>
#include <random>
#include <stdexcept>

#include "averages.hpp"
#include "dual_state.hpp"
#include "dualgap/oracles/structured.hpp"
#include "dualgap/plugin.hpp"
#include "working_set.hpp"

namespace {

using namespace dualgap_bcfw;
using dualgap::Action;
using dualgap::Labeling;
using dualgap::Iterate;
using dualgap::SsvmDualPoint;

enum class Sampling { permutation, uniform, cyclic, gap };
enum class Inner { pairwise, fw };
enum class Blocks { automatic, marginals, dense };

struct Options {
  bool multiplane = false;
  bool averaging = false;
  int N = 1000;  ///< max planes per working set
  int M = 1000;  ///< max approximate passes per outer iteration
  int T = 10;    ///< drop planes inactive for T outer iterations
  bool auto_rule = true;
  Sampling sample = Sampling::permutation;
  int gap_refresh = 10;  ///< sample: gap -- every gap_refresh-th exact pass is a full permutation
  int gram_max_units = 64;
  int inner_steps = 0;  ///< block-local steps over W_i after every block step
  Blocks blocks = Blocks::automatic;
  bool support_scores = true;  ///< approximate calls compute only the scores a step reads
  Inner inner = Inner::pairwise;

  bool working_sets() const { return multiplane && N > 0; }
  bool approximate_passes() const { return working_sets() && M > 0; }

  static void bind(dualgap::Binder<Options>& b) {
    b.field(&Options::multiplane, "multiplane", "MP-BCFW: keep working sets and run approximate passes (Algorithm 3)");
    b.field(&Options::averaging, "averaging",
            "report the weighted average of iterates (section 3.5); with multiplane, the best-dual "
            "interpolation of the exact-step and approximate-step averages");
    b.field(&Options::N, "N", "max planes per working set (multiplane only; 0 = no working sets)").min(0);
    b.field(&Options::M, "M", "max approximate passes per outer iteration (multiplane only)").min(0);
    b.field(&Options::T, "T", "drop planes not active during the last T outer iterations").min(1);
    b.field(&Options::auto_rule, "auto_rule",
            "stop approximate passes when the last one raised the dual less per second than the "
            "whole iteration (section 3.4)");
    b.choice(&Options::sample, "sample",
             {{"permutation", Sampling::permutation}, {"uniform", Sampling::uniform}, {"cyclic", Sampling::cyclic},
              {"gap", Sampling::gap}},
             "block order of each pass: a fresh random permutation, n uniform draws, 0..n-1, or n "
             "draws proportional to the block gaps of the last visits (Osokin et al., ICML 2016)");
    b.field(&Options::gap_refresh, "gap_refresh",
            "sample: gap -- every gap_refresh-th exact pass is a full permutation pass that "
            "refreshes all block gaps")
        .min(1);
    b.field(&Options::gram_max_units, "gram_max_units",
            "keep the Gram matrix of examples with at most this many units (units^2 doubles each) "
            "for the step's norm; longer examples build the change densely per touched class")
        .min(0);
    b.field(&Options::inner_steps, "inner_steps",
            "block-local steps over the working set W_i after every block step (0 = the paper's "
            "algorithms; needs multiplane); each is counted as an approximate oracle call")
        .min(0);
    b.choice(&Options::blocks, "blocks",
             {{"auto", Blocks::automatic}, {"marginals", Blocks::marginals}, {"dense", Blocks::dense}},
             "dual block storage: units x K marginal tables (steps cost O(touched units x d)), dense "
             "feature-space vectors of dim doubles per block and per working-set plane (steps cost "
             "O(dim); no transition features, no inner_steps), or auto: dense when 8 dim <= mean "
             "units x d and n dim doubles fit in 256 MB, without transitions and inner_steps");
    b.choice(&Options::support_scores, "approx_scores", {{"support", true}, {"full", false}},
             "marginal blocks: an approximate call computes only the unary scores its step reads "
             "(labels of W_i's planes, support of the block's marginal table) when they are at most "
             "half of the table (support), or always the whole table (full); same iterates");
    b.choice(&Options::inner, "inner", {{"pairwise", Inner::pairwise}, {"fw", Inner::fw}},
             "kind of the block-local steps: pairwise (move weight from the worst plane holding "
             "weight to the best plane of W_i) or plain Frank-Wolfe towards the best plane");
  }
  /// Rules across parameters (single values are checked by the schema).
  bool validate(std::string* error) const {
    if (blocks == Blocks::dense && inner_steps > 0) *error = "inner_steps needs blocks: marginals (or auto)";
    else if (inner_steps > 0 && !working_sets()) *error = "inner_steps > 0 needs working sets (multiplane: true, N > 0)";
    return error->empty();
  }
};

class Bcfw final : public dualgap::Solver {
 public:
  using Options = ::Options;
  explicit Bcfw(const Options& o) : opt_(o) {}

  void solve(const dualgap::Problem& pb, dualgap::SolverContext& ctx) override {
    auto* oracle = dynamic_cast<dualgap::StructuredOracle*>(pb.oracle);
    if (!oracle) throw std::runtime_error("bcfw: needs an oracle with the 'structured' interface");
    if (!pb.data) throw std::runtime_error("bcfw: no data");
    if (!(pb.lambda > 0)) throw std::runtime_error("bcfw: problem.lambda must be > 0");
    const dualgap::Examples& ex = pb.data->train;
    const dualgap::Examples& test = pb.data->test;
    const std::size_t n = ex.num_examples();
    if (n == 0) throw std::runtime_error("bcfw: no training examples");
    auto& rec = *ctx.recorder;
    const double lambda = pb.lambda;

    DualState st(ex, *oracle, lambda, opt_.gram_max_units);
    WorkingSets ws(ex);
    const Eigen::Index dim = st.w.size();
    // Dense blocks when a plane's feature vector is much smaller than the unit features it sums
    // (a step then costs O(dim), not O(units x d)), and n x dim doubles stay small.
    const double mean_units = static_cast<double>(ex.num_units()) / static_cast<double>(n);
    const bool dense =
        opt_.blocks == Blocks::dense ||
        (opt_.blocks == Blocks::automatic && !oracle->uses_transitions() && opt_.inner_steps == 0 &&
         8.0 * static_cast<double>(dim) <= mean_units * static_cast<double>(ex.num_features()) &&
         static_cast<double>(n) * static_cast<double>(dim) * 8.0 <= 256.0 * (1 << 20));
    if (dense) {
      st.enable_dense();
      if (opt_.working_sets()) ws.keep_vectors(static_cast<std::size_t>(dim));
    }
    std::vector<double> pvec(dense ? static_cast<std::size_t>(dim) : 0);
    Average avg_exact(opt_.averaging ? dim : 0), avg_approx(opt_.averaging && opt_.multiplane ? dim : 0);
    if (opt_.working_sets())
      for (std::size_t i = 0; i < n; ++i) {  // Algorithm 3, line 3: W_i = {phi^i} = {phi^{i y_i}}
        const int* yi = ex.y.data() + ex.unit_begin(i);
        const double off = oracle->loss(ex, i, yi) + oracle->constant(ex, i, yi) - st.truth_constant(i);
        if (dense) st.plane_vector(i, yi, pvec.data());
        ws.set_weight(i, ws.add(i, yi, off, 0, static_cast<std::size_t>(opt_.N), dense ? pvec.data() : nullptr), 1.0);
      }

    std::mt19937_64 rng(ctx.seed);
    std::vector<std::size_t> order(n);
    std::iota(order.begin(), order.end(), std::size_t{0});
    // Gap sampling (Osokin et al., ICML 2016, section 3.1): block i is drawn with probability
    // proportional to its block gap measured at its last exact oracle call; every gap_refresh-th
    // exact pass is a full permutation pass, which refreshes every block's gap (and is the only
    // kind of pass whose "no block moved" certifies optimality).
    std::vector<double> block_gap(n, 1.0), cum(n);
    auto next_order = [&](bool full) {
      if (opt_.sample == Sampling::permutation) {
        std::shuffle(order.begin(), order.end(), rng);
      } else if (opt_.sample == Sampling::gap && full) {
        std::iota(order.begin(), order.end(), std::size_t{0});
        std::shuffle(order.begin(), order.end(), rng);
      } else if (opt_.sample == Sampling::uniform) {
        std::uniform_int_distribution<std::size_t> pick(0, n - 1);
        for (auto& i : order) i = pick(rng);
      } else if (opt_.sample == Sampling::gap) {
        double total = 0;
        for (std::size_t i = 0; i < n; ++i) cum[i] = (total += std::max(block_gap[i], 0.0));
        if (!(total > 0)) {
          std::iota(order.begin(), order.end(), std::size_t{0});
          std::shuffle(order.begin(), order.end(), rng);
          return;
        }
        std::uniform_real_distribution<double> u(0.0, total);
        for (auto& i : order)
          i = std::min<std::size_t>(static_cast<std::size_t>(std::upper_bound(cum.begin(), cum.end(), u(rng)) - cum.begin()), n - 1);
      }
    };

    Labeling lab;
    std::vector<double> scores;
    SupportScores support;
    // Inner steps keep the whole table up to date incrementally, so they need it complete.
    support.enable(opt_.support_scores && opt_.inner_steps == 0);
    int approx_passes_last = 0;
    bool converged = false;

    // ---- checkpoint: hand the core the iterate and its dual point (the core scores them) ----
    Vector w_eval(dim), wb(dim);
    auto eval = [&](Iterate& it) {
      it.w = &st.w;
      double circ = st.phi_circ;
      if (opt_.averaging && !converged && avg_exact.samples() > 0) {
        // Section 3.5: report the weighted average (MP-BCFW-avg: the interpolation of the exact
        // and approximate averages with the best dual value); both the primal iterate and the
        // dual point are then the averaged ones.
        avg_exact.weights(st, w_eval);
        circ = avg_exact.circ(st);
        if (opt_.multiplane && avg_approx.samples() > 0) {
          avg_approx.weights(st, wb);
          const double cb = avg_approx.circ(st);
          const double t = best_interpolation(w_eval, circ, wb, cb, lambda);
          w_eval = (1 - t) * w_eval + t * wb;
          circ = (1 - t) * circ + t * cb;
          it.set("interpolation", t);
        }
        it.set("dual_last", st.dual());
        it.w = &w_eval;
      }
      it.ssvm_dual = SsvmDualPoint{nullptr, circ};
      it.set("dense_blocks", dense ? 1.0 : 0.0);
      if (opt_.multiplane) {
        it.set("working_set", ws.mean_size());
        it.set("approx_passes", approx_passes_last);
        if (!dense) it.set("approx_scores", support.mean_computed());
      }
      const auto* c = oracle->counters();
      const double t = rec.solver_time_s();
      if (c && t > 0) it.set("exact_oracle_share", c->oracle_time_s / t);
    };

    auto after_step = [&](bool exact) {
      if (!opt_.averaging) return;
      avg_exact.after_step(st);
      if (opt_.multiplane) avg_approx.after_step(st);
      if (exact) avg_exact.sample(st);
      else if (opt_.multiplane) avg_approx.sample(st);
    };

    // Block-local steps over W_i (option inner_steps): the unary scores of example i are kept
    // up to date incrementally (w changes only along the rows of example i), so a local step
    // costs O(|W_i| units_i + touched classes x d); each is counted as an approximate oracle call.
    auto inner_steps = [&](std::size_t i, int iteration) {
      for (int s = 0; s < opt_.inner_steps; ++s) {
        double gamma;
        std::size_t best;
        {
          dualgap::Oracle::CallScope scope(*oracle, dualgap::CallKind::approximate);
          if (!st.update_scores(i, scores.data())) dualgap::StructuredOracle::unary_scores(ex, i, st.w, scores);
          if (opt_.inner == Inner::pairwise) {
            std::size_t away;
            ws.best_and_away(st, i, scores.data(), best, away);
            if (away == ws.size(i) || away == best) break;  // W_i-optimal: nothing to move
            const double gmax = ws.weight(i, away);
            gamma = st.pair_step(i, ws.labels(i, best), ws.offset(i, best), ws.labels(i, away),
                                 ws.offset(i, away), scores.data(), gmax);
            if (gamma >= gmax) ws.set_weight(i, away, 0.0), ws.set_weight(i, best, ws.weight(i, best) + gamma);
            else ws.pair_update(i, best, away, gamma);
          } else {
            best = ws.argmax(st, i, scores.data());
            gamma = st.step(i, ws.labels(i, best), ws.offset(i, best), scores.data());
            ws.fw_update(i, best, gamma);
          }
        }
        ws.mark_active(i, best, iteration);
        after_step(false);
        if (gamma <= 0) break;
      }
    };

    if (rec.checkpoint(0, eval) == Action::stop) return;
    for (int iteration = 1;; ++iteration) {
      const double passes = iteration;
      const double F_start = st.dual(), t_start = rec.solver_time_s();
      // Exact pass (Algorithm 2 lines 4-8; Algorithm 3 line 5).
      bool changed = false;
      const bool full = opt_.sample != Sampling::gap || iteration % opt_.gap_refresh == 1 || opt_.gap_refresh == 1;
      next_order(full);
      for (std::size_t t = 0; t < n; ++t) {
        const std::size_t i = order[t];
        if (t + 1 < n) prefetch_example(ex, order[t + 1]);
        oracle->max_oracle(ex, i, st.w, lab, scores);
        const double offset = lab.loss + lab.constant - st.truth_constant(i);
        double gamma;
        if (dense) {
          st.plane_vector(i, lab.labels.data(), pvec.data());
          gamma = st.step_dense(i, pvec.data(), offset);
        } else {
          gamma = st.step(i, lab.labels.data(), offset, scores.data());
        }
        changed |= gamma > 0;
        block_gap[i] = st.last_gap();
        after_step(true);
        if (opt_.working_sets()) {
          ws.fw_update(i, ws.add(i, lab.labels.data(), offset, iteration, static_cast<std::size_t>(opt_.N),
                                 dense ? pvec.data() : nullptr),
                       gamma);
          if (opt_.inner_steps > 0) inner_steps(i, iteration);
        }
      }
      if (!changed && full) {
        // No block moved: every block gap at this w is <= 0, so w is optimal.
        converged = true;
        rec.checkpoint(passes, eval);
        return;
      }
      // Approximate passes (Algorithm 3 line 6) with the automatic rule of section 3.4.
      approx_passes_last = 0;
      if (opt_.approximate_passes()) {
        for (int p = 0; p < opt_.M; ++p) {
          const double F_before = st.dual(), t_before = rec.solver_time_s();
          next_order(false);
          for (std::size_t t = 0; t < n; ++t) {
            const std::size_t i = order[t];
            // Dense blocks never read the feature rows in an approximate call; prefetching them
            // (~3600 cache lines for a horse image) would cost more than the call itself.
            if (!dense && t + 1 < n) prefetch_example(ex, order[t + 1]);
            std::size_t best;
            {
              dualgap::Oracle::CallScope scope(*oracle, dualgap::CallKind::approximate);
              if (dense) {
                best = ws.argmax_dense(i, st.w.data());
              } else {
                if (!support.fill(ex, st, ws, i, scores))
                  dualgap::StructuredOracle::unary_scores(ex, i, st.w, scores);
                best = ws.argmax(st, i, scores.data());
              }
            }
            ws.mark_active(i, best, iteration);
            ws.fw_update(i, best,
                         dense ? st.step_dense(i, ws.vec(i, best), ws.offset(i, best))
                               : st.step(i, ws.labels(i, best), ws.offset(i, best), scores.data()));
            after_step(false);
            if (opt_.inner_steps > 0) inner_steps(i, iteration);
          }
          ++approx_passes_last;
          const double F_after = st.dual(), t_after = rec.solver_time_s();
          if (rec.out_of_budget(passes)) break;
          // Continue while the last pass raised F faster per second than the whole iteration:
          // (F_after - F_before)/(t_after - t_before) >= (F_after - F_start)/(t_after - t_start).
          if (opt_.auto_rule &&
              (F_after - F_before) * (t_after - t_start) < (F_after - F_start) * (t_after - t_before))
            break;
          if (F_after <= F_before) break;  // no progress left on the working sets
        }
      }
      if (opt_.working_sets())
        ws.drop_inactive(iteration, opt_.T, opt_.inner_steps > 0 && opt_.inner == Inner::pairwise);
      if (rec.due(passes) && rec.checkpoint(passes, eval) == Action::stop) return;
    }
  }

 private:
  // Blocks are visited in random order, so the feature rows of the next block are not in cache
  // (OCR: 4.7 MB of rows): ask for them while the current block is processed. A hint only.
  static void prefetch_example(const dualgap::Examples& ex, std::size_t i) {
    if (ex.X.is_sparse()) return;
    const auto& X = ex.X.dense();
    const char* p = reinterpret_cast<const char*>(X.data() + ex.unit_begin(i) * X.outerStride());
    const char* e = reinterpret_cast<const char*>(X.data() + ex.unit_end(i) * X.outerStride());
    for (; p < e; p += 64) __builtin_prefetch(p);
  }

  Options opt_;
};

dualgap::PluginDescription describe() {
  return dualgap::describe_solver<Bcfw>(
      "bcfw", "1.0.0",
      "Structural SVM by block-coordinate Frank-Wolfe: BCFW, BCFW-avg, MP-BCFW, MP-BCFW-avg "
      "(Shah, Kolmogorov, Lampert, CVPR 2015, Algorithms 2 and 3)",
      {"structured"});
}

}  // namespace
DUALGAP_PLUGIN(describe)
