// MultiBoost: min_{w >= 0} ||w||_1 + (C/p) sum_i sum_{y != y_i} exp(F_y(x_i) - F_{y_i}(x_i)) with
// weak learners shared by all classes, F_c(x) = sum_j w_{c,j} h_j(x): column generation with one
// weak learner per iteration chosen by eq. (6) (best over weak learners and classes), master
// problem solved by L-BFGS-B (Debian liblbfgsb, the reference Fortran code) as in Shen & Hao,
// "A direct formulation for totally-corrective multi-class boosting", CVPR 2011, the baseline
// of Lin et al., ACCV 2012. The column-generation and master code is shared with multiboost_cw.
#include "boosting/column_generation_plugin.hpp"

namespace {

dualgap::PluginDescription describe() {
  return dualgap::describe_solver<dualgap::boosting::ColumnGenerationSolver<true>>(
      "multiboost", "1.0.0",
      "MultiBoost: shared weak learners by column generation, master by L-BFGS-B (Shen & Hao, CVPR 2011)",
      {"weak_learner"});
}

}  // namespace

DUALGAP_PLUGIN(describe)
