// MultiBoost-CW: min_{w >= 0} ||w||_1 + (C/p) sum_i sum_{y != y_i} exp(F_y(x_i) - F_{y_i}(x_i))
// with a separate weak-learner set per class, by column generation (Algorithm 1) with K weak
// learners per iteration (eq. 4) and the master problem solved by fast coordinate descent
// (Algorithm 2, updates (12)/(13), KKT working sets (16)-(18)) of Lin, Shen, van den Hengel and
// Suter, ACCV 2012. CW-1 is tau_max = 1 with update: large_c.
#include "boosting/column_generation_plugin.hpp"

namespace {

dualgap::PluginDescription describe() {
  return dualgap::describe_solver<dualgap::boosting::ColumnGenerationSolver<false>>(
      "multiboost_cw", "1.0.0",
      "MultiBoost-CW: class-wise column generation with FCD (Lin et al., ACCV 2012, Algorithms 1-2)",
      {"weak_learner"});
}

}  // namespace

DUALGAP_PLUGIN(describe)
