// Plugin glue shared by multiboost_cw (class-wise weak learners, eq. 4) and multiboost (shared
// weak learners, eq. 6): the options with their parameters, and the solver class. Both run the
// same column generation (column_generation.hpp) and master solvers (master_problem.hpp).
#pragma once

#include <string>
#include <vector>

#include "boosting/column_generation.hpp"
#include "dualgap/plugin.hpp"

namespace dualgap::boosting {

/// The options of both plugins: CgOptions with the defaults of MultiBoost-CW (Shared = false)
/// or MultiBoost (Shared = true: shared weak learners, master L-BFGS-B).
template <bool Shared>
struct ColumnGenerationOptions : CgOptions {
  ColumnGenerationOptions() {
    shared = Shared;
    master = Shared ? "lbfgsb" : "fcd";
  }
  static void bind(Binder<ColumnGenerationOptions>& b) {
    using O = ColumnGenerationOptions;
    b.choice(&O::master, "master", {"fcd", "lbfgsb"}, "master-problem solver");
    b.field([](O& o) -> auto& { return o.fcd.eps; }, "eps", "KKT tolerance of the working set (17) and stop rule (18)")
        .min(0.0);
    b.field([](O& o) -> auto& { return o.fcd.tau_max; }, "tau_max",
            "maximum FCD working-set iterations per boosting iteration (1: CW-1); 0: until the stop rule (18)")
        .min(0);
    b.choice([](O& o) -> auto& { return o.fcd.order; }, "order",
             {{"permutation", FcdOrder::permutation}, {"random", FcdOrder::random}, {"cyclic", FcdOrder::cyclic}},
             "FCD order of working-set iterations tau >= 2: a fresh random permutation of S per "
             "sweep, |S| uniform picks with replacement, or index order");
    b.field([](O& o) -> auto& { return o.fcd.shrinking; }, "shrinking",
            "FCD: rebuild S from the violations of S only, with a full KKT check when S is clean");
    b.choice([](O& o) -> auto& { return o.fcd.large_c; }, "update", {{"exact", false}, {"large_c", true}},
             "coordinate update: exact closed form (12) or large-C form (13) (CW-1)");
    b.field([](O& o) -> auto& { return o.lbfgsb.m; }, "lbfgs_m", "L-BFGS-B stored corrections (master: lbfgsb)").min(1);
    b.field([](O& o) -> auto& { return o.lbfgsb.factr; }, "lbfgs_factr", "L-BFGS-B factr (master: lbfgsb)").min(0.0);
    b.field([](O& o) -> auto& { return o.lbfgsb.pgtol; }, "lbfgs_pgtol", "L-BFGS-B pgtol (master: lbfgsb)").min(0.0);
    b.field([](O& o) -> auto& { return o.lbfgsb.max_iterations; }, "lbfgs_max_iterations",
            "L-BFGS-B iterations per master solve")
        .min(1);
    b.field(&O::rel_tol, "rel_tol", "stop when the relative change of the primal is below (0: off)").min(0.0);
    b.field(&O::max_iterations, "max_iterations",
            "stop after this many boosting iterations (0: off; stop.max_passes applies to all "
            "solvers, this to one)")
        .min(0);
    b.field(&O::master_only, "master_only",
            "Fig. 6 mode: >0 builds a fixed restricted problem from this many stage-wise "
            "iterations and records the master solver on it from w = 0")
        .min(0);
  }
};

/// Column-generation boosting; Shared selects one weak learner for all classes per iteration.
template <bool Shared>
class ColumnGenerationSolver final : public Solver {
 public:
  using Options = ColumnGenerationOptions<Shared>;
  explicit ColumnGenerationSolver(const Options& o) : o_(o) {}
  /// Problem (2) with C = 1/problem.lambda, scored by the core (family boosting, loss exp).
  ObjectiveSpec objective(const Problem& pb) const override {
    if (!(pb.lambda > 0)) throw std::invalid_argument("boosting: problem.lambda = 1/C must be > 0");
    return {"boosting", "exp", {{"C", 1.0 / pb.lambda}}};
  }
  void solve(const Problem& pb, SolverContext& ctx) override {
    ColumnGeneration(pb, ctx, o_).run();
  }

 private:
  CgOptions o_;
};

}  // namespace dualgap::boosting
