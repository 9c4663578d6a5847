// make_objective (which family scores a run) and score_checkpoint (what every checkpoint does).
#include "dualgap/objective.hpp"

#include <array>
#include <stdexcept>
#include <string_view>

#include "dualgap/oracles/block_loss.hpp"
#include "dualgap/oracles/structured.hpp"
#include "dualgap/oracles/weak_learner.hpp"
#include "objectives/families.hpp"

namespace dualgap {

Objective::~Objective() = default;

bool is_core_column(const std::string& name) {
  static constexpr std::array<std::string_view, 18> kCore = {
      "passes", "oracle_calls", "approx_oracle_calls", "eval_oracle_calls", "time", "oracle_time", "primal",
      "dual", "gap", "train_error", "test_error", "train_loss", "test_loss", "objective", "wall_time",
      "approximate", "budget", "sampling"};
  for (auto c : kCore)
    if (c == name) return true;
  return false;
}

std::unique_ptr<Objective> make_objective(const Problem& pb, const Solver& solver, const ScoreOptions& options) {
  if (!pb.data) throw std::runtime_error("make_objective: the problem has no data");
  ObjectiveSpec spec = solver.objective(pb);
  if (spec.family.empty()) {
    if (dynamic_cast<StructuredOracle*>(pb.oracle)) spec.family = "ssvm";
    else if (dynamic_cast<BlockLossOracle*>(pb.oracle)) spec.family = "sparse_multiclass";
  }
  if (spec.family == "ssvm") return make_ssvm_objective(pb, spec, options);
  if (spec.family == "sparse_multiclass") return make_sparse_multiclass_objective(pb, spec, options);
  if (spec.family == "boosting") return make_boosting_objective(pb, spec, options);
  if (spec.family == "least_squares") return make_least_squares_objective(pb, spec, options);
  if (spec.family.empty())
    throw std::runtime_error(
        "the solver names no objective and its oracle implies none: a solver without a structured or "
        "block_loss oracle must override Solver::objective() (families: ssvm, sparse_multiclass, boosting, "
        "least_squares)");
  throw std::runtime_error("unknown objective family '" + spec.family +
                           "' (known: ssvm, sparse_multiclass, boosting, least_squares)");
}

void score_checkpoint(Objective& objective, OracleCounters* counters, const std::function<void(Iterate&)>& fill,
                      Scores& out) {
  struct Evaluating {  // restores the flag on every exit, exceptions included
    OracleCounters* c;
    explicit Evaluating(OracleCounters* c) : c(c) {
      if (c) c->evaluating = true;
    }
    ~Evaluating() {
      if (c) c->evaluating = false;
    }
  } evaluating(counters);
  Iterate it;
  fill(it);
  for (auto& [name, value] : it.extra)
    if (is_core_column(name))
      throw std::runtime_error("the solver set an extra column named '" + name +
                               "': that column is computed by the core from the iterate");
  const int models = (it.w != nullptr) + (it.W != nullptr) + (it.ensemble != nullptr) + (it.train_scores != nullptr);
  if (models != 1)
    throw std::runtime_error(std::string("a checkpoint must hand over exactly one model (the objective expects '") +
                             objective.model_kind() + "'), got " + std::to_string(models));
  objective.score(it, out);
  for (auto& [name, value] : it.extra) out.set(name, value);
}

}  // namespace dualgap
