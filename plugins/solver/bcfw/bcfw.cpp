// Structural SVM training by (multi-plane) block-coordinate Frank-Wolfe on the dual:
//   min_w  lambda/2 ||w||^2 + (1/n) sum_i max_y [Delta(y_i,y) + c(y) - c(y_i) + <w, phi(x_i,y) - phi(x_i,y_i)>]
// Algorithm 3 (MP-BCFW) of Shah, Kolmogorov, Lampert, CVPR 2015, which is Algorithm 2 (BCFW,
// Lacoste-Julien et al., ICML 2013) when multiplane is off (N = M = 0), with the weighted
// averaging of section 3.5 as an option (BCFW-avg, MP-BCFW-avg).
// Works with any "structured" oracle (dualgap/oracles/structured.hpp).
//
// This file is the plugin: it checks the problem, picks the block storage (option blocks) and
// runs the loop of mp_bcfw.hpp instantiated with it. File layout and formulas: README.md.
#include <stdexcept>

#include "dualgap/oracles/structured.hpp"
#include "dualgap/plugin.hpp"
#include "mp_bcfw.hpp"
#include "options.hpp"

namespace {

using namespace dualgap_bcfw;

class Bcfw final : public dualgap::Solver {
 public:
  explicit Bcfw(const dualgap::Params& p) : opt_(p) {}

  std::vector<std::string> accepts() const override { return {"structured"}; }

  void solve(const dualgap::Problem& pb, dualgap::SolverContext& ctx) override {
    auto* oracle = dynamic_cast<dualgap::StructuredOracle*>(pb.oracle);
    if (!oracle) throw std::runtime_error("bcfw: needs an oracle with the 'structured' interface");
    if (!pb.data) throw std::runtime_error("bcfw: no data");
    if (!(pb.lambda > 0)) throw std::runtime_error("bcfw: problem.lambda must be > 0");
    const dualgap::Examples& ex = pb.data->train;
    if (ex.num_examples() == 0) throw std::runtime_error("bcfw: no training examples");
    if (dense_blocks(ex, *oracle)) {
      DenseBlocks st(ex, *oracle, pb.lambda);
      MpBcfw<DenseBlocks>(opt_, *oracle, ex, st, ctx).run();
    } else {
      MarginalBlocks st(ex, *oracle, pb.lambda, opt_.gram_max_units);
      MpBcfw<MarginalBlocks>(opt_, *oracle, ex, st, ctx).run();
    }
  }

 private:
  /// Option blocks. auto: dense blocks when a plane's feature vector is much smaller than the
  /// unit features it sums (a step then costs O(dim), not O(units x d)), and n x dim doubles
  /// stay small; never with transitions or inner steps.
  bool dense_blocks(const dualgap::Examples& ex, const dualgap::StructuredOracle& oracle) const {
    if (opt_.blocks != Blocks::automatic) return opt_.blocks == Blocks::dense;
    const double n = static_cast<double>(ex.num_examples());
    const double dim = static_cast<double>(
        oracle.dim(static_cast<std::size_t>(ex.num_features()), ex.num_classes));
    const double mean_units = static_cast<double>(ex.num_units()) / n;
    return !oracle.uses_transitions() && opt_.inner_steps == 0 &&
           8.0 * dim <= mean_units * static_cast<double>(ex.num_features()) &&
           n * dim * 8.0 <= 256.0 * (1 << 20);
  }

  Options opt_;
};

dualgap::PluginDescription describe() {
  using namespace dualgap;
  return describe_plugin<Bcfw>(
      Kind::solver, "bcfw", "1.0.0",
      "Structural SVM by block-coordinate Frank-Wolfe: BCFW, BCFW-avg, MP-BCFW, MP-BCFW-avg "
      "(Shah, Kolmogorov, Lampert, CVPR 2015, Algorithms 2 and 3)",
      {bool_param("multiplane", false, "MP-BCFW: keep working sets and run approximate passes (Algorithm 3)"),
       bool_param("averaging", false,
                  "report the weighted average of iterates (section 3.5); with multiplane, the best-dual "
                  "interpolation of the exact-step and approximate-step averages"),
       int_param("N", 1000, "max planes per working set (multiplane only; 0 = no working sets)", 0.0),
       int_param("M", 1000, "max approximate passes per outer iteration (multiplane only)", 0.0),
       int_param("T", 10, "drop planes not active during the last T outer iterations", 1.0),
       bool_param("auto_rule", true,
                  "stop approximate passes when the last one raised the dual less per second than the "
                  "whole iteration (section 3.4)"),
       choice_param("sample", "permutation", {"permutation", "uniform", "cyclic", "gap"},
                    "block order of each pass: a fresh random permutation, n uniform draws, 0..n-1, or n "
                    "draws proportional to the block gaps of the last visits (Osokin et al., ICML 2016)"),
       int_param("gap_refresh", 10,
                 "sample: gap -- every gap_refresh-th exact pass is a full permutation pass that "
                 "refreshes all block gaps",
                 1.0),
       int_param("gram_max_units", 64,
                 "keep the Gram matrix of examples with at most this many units (units^2 doubles each) "
                 "for the step's norm; longer examples build the change densely per touched class",
                 0.0),
       int_param("inner_steps", 0,
                 "block-local steps over the working set W_i after every block step (0 = the paper's "
                 "algorithms; needs multiplane); each is counted as an approximate oracle call",
                 0.0),
       choice_param("blocks", "auto", {"auto", "marginals", "dense"},
                    "dual block storage: units x K marginal tables (steps cost O(touched units x d)), dense "
                    "feature-space vectors of dim doubles per block and per working-set plane (steps cost "
                    "O(dim); no transition features, no inner_steps), or auto: dense when 8 dim <= mean "
                    "units x d and n dim doubles fit in 256 MB, without transitions and inner_steps"),
       choice_param("approx_scores", "support", {"support", "full"},
                    "marginal blocks: an approximate call computes only the unary scores its step reads "
                    "(labels of W_i's planes, support of the block's marginal table) when they are at most "
                    "half of the table (support), or always the whole table (full); same iterates"),
       choice_param("inner", "pairwise", {"pairwise", "fw"},
                    "kind of the block-local steps: pairwise (move weight from the worst plane holding "
                    "weight to the best plane of W_i) or plain Frank-Wolfe towards the best plane")});
}

}  // namespace
DUALGAP_PLUGIN(describe)
