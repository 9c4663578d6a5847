// Plugin glue shared by multiboost_cw (class-wise weak learners, eq. 4) and multiboost (shared
// weak learners, eq. 6): the options, the parameter schema and the solver class. Both run the
// same column generation (column_generation.hpp) and master solvers (master_problem.hpp).
#pragma once

#include <string>
#include <vector>

#include "boosting/column_generation.hpp"
#include "dualgap/plugin.hpp"

namespace dualgap::boosting {

/// The solver options from validated parameters.
inline CgOptions options(const Params& p, bool shared) {
  CgOptions o;
  o.shared = shared;
  o.master = p.get<std::string>("master");
  o.fcd.eps = p.get<double>("eps");
  o.fcd.tau_max = p.get<int>("tau_max");
  o.fcd.large_c = p.get<std::string>("update") == "large_c";
  const auto order = p.get<std::string>("order");
  o.fcd.order = order == "random"   ? FcdOrder::random
                : order == "cyclic" ? FcdOrder::cyclic
                                    : FcdOrder::permutation;
  o.fcd.shrinking = p.get<bool>("shrinking");
  o.lbfgsb.m = p.get<int>("lbfgs_m");
  o.lbfgsb.factr = p.get<double>("lbfgs_factr");
  o.lbfgsb.pgtol = p.get<double>("lbfgs_pgtol");
  o.lbfgsb.max_iterations = p.get<int>("lbfgs_max_iterations");
  o.rel_tol = p.get<double>("rel_tol");
  o.master_only = p.get<int>("master_only");
  o.max_iterations = p.get<int>("max_iterations");
  return o;
}


/// Column-generation boosting; Shared selects one weak learner for all classes per iteration.
template <bool Shared>
class ColumnGenerationSolver final : public Solver {
 public:
  explicit ColumnGenerationSolver(const Params& p) : o_(options(p, Shared)) {}
  std::vector<std::string> accepts() const override { return {"weak_learner"}; }
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

/// The parameter schema; `default_master` is "fcd" (MultiBoost-CW) or "lbfgsb" (MultiBoost).
inline std::vector<ParamSpec> column_generation_params(const std::string& default_master) {
  std::vector<ParamSpec> params = {choice_param("master", default_master, {"fcd", "lbfgsb"}, "master-problem solver"),
       real_param("eps", 0.1, "KKT tolerance of the working set (17) and stop rule (18)", 0.0),
       int_param("tau_max", 2, "maximum FCD working-set iterations per boosting iteration (1: CW-1); 0: until the stop rule (18)", 0),
       choice_param("order", "permutation", {"permutation", "random", "cyclic"},
                    "FCD order of working-set iterations tau >= 2: a fresh random permutation of S per "
                    "sweep, |S| uniform picks with replacement, or index order"),
       bool_param("shrinking", true,
                  "FCD: rebuild S from the violations of S only, with a full KKT check when S is clean"),
       choice_param("update", "exact", {"exact", "large_c"},
                    "coordinate update: exact closed form (12) or large-C form (13) (CW-1)"),
       int_param("lbfgs_m", 5, "L-BFGS-B stored corrections (master: lbfgsb)", 1),
       real_param("lbfgs_factr", 1e7, "L-BFGS-B factr (master: lbfgsb)", 0.0),
       real_param("lbfgs_pgtol", 1e-5, "L-BFGS-B pgtol (master: lbfgsb)", 0.0),
       int_param("lbfgs_max_iterations", 15000, "L-BFGS-B iterations per master solve", 1),
       real_param("rel_tol", 0.0, "stop when the relative change of the primal is below (0: off)", 0.0),
       int_param("max_iterations", 0,
                 "stop after this many boosting iterations (0: off; stop.max_passes applies to all "
                 "solvers, this to one)",
                 0),
       int_param("master_only", 0,
                 "Fig. 6 mode: >0 builds a fixed restricted problem from this many stage-wise "
                 "iterations and records the master solver on it from w = 0",
                 0)};
  return params;
}

}  // namespace dualgap::boosting
