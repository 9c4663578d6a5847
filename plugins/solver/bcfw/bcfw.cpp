// Structural SVM training by (multi-plane) block-coordinate Frank-Wolfe on the dual:
//   min_w  lambda/2 ||w||^2 + (1/n) sum_i max_y [Delta(y_i,y) + c(y) - c(y_i) + <w, phi(x_i,y) - phi(x_i,y_i)>]
// Algorithm 3 (MP-BCFW) of Shah, Kolmogorov, Lampert, CVPR 2015, which is Algorithm 2 (BCFW,
// Lacoste-Julien et al., ICML 2013) when multiplane is off (N = M = 0), with the weighted
// averaging of section 3.5 as an option (BCFW-avg, MP-BCFW-avg).
// Works with any "structured" oracle (dualgap/oracles/structured.hpp).
//
// With block_step exact (the default where valid: multi-class data, none of multiplane,
// averaging, inner_steps), each block step solves the block's sub-problem exactly, as the dual
// coordinate method of Crammer-Singer / LIBLINEAR -s 4 (simplex_blocks.hpp); with threads > 1
// asynchronously on all threads (PASSCoDe, Wild or Atomic: async_exact_steps.hpp).
//
// This file is the plugin: it checks the problem, picks the block storage (options blocks and
// block_step) and runs its loop: exact steps (SimplexBlocks) the loop of exact_steps.hpp,
// Frank-Wolfe steps (DenseBlocks, MarginalBlocks) the loop of mp_bcfw.hpp. File layout and
// formulas: README.md.
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "dense_blocks.hpp"
#include "dualgap/oracles/structured.hpp"
#include "dualgap/plugin.hpp"
#include "exact_steps.hpp"
#include "marginal_blocks.hpp"
#include "mp_bcfw.hpp"
#include "options.hpp"
#include "simplex_blocks.hpp"

namespace {

using namespace dualgap_bcfw;

// Inner steps (an option of MpBcfw) run on marginal tables, the storage with pair steps.
static_assert(PairSteps<MarginalBlocks>);

class Bcfw final : public dualgap::Solver {
 public:
  using Options = dualgap_bcfw::Options;
  explicit Bcfw(const Options& o) : opt_(o) {}

  void solve(const dualgap::Problem& pb, dualgap::SolverContext& ctx) override {
    auto* oracle = dynamic_cast<dualgap::StructuredOracle*>(pb.oracle);
    if (!oracle) throw std::runtime_error("bcfw: needs an oracle with the 'structured' interface");
    if (!pb.data) throw std::runtime_error("bcfw: no data");
    if (!(pb.lambda > 0)) throw std::runtime_error("bcfw: problem.lambda must be > 0");
    const dualgap::Examples& ex = pb.data->train;
    if (ex.num_examples() == 0) throw std::runtime_error("bcfw: no training examples");
    const bool exact_valid = simplex_blocks_apply(ex, *oracle);
    if (opt_.exact_step_allowed() && (opt_.block_step == BlockStep::exact || exact_valid)) {
      // A class index in 16 bits where it fits (the n x K class order of class shrinking).
      if (ex.num_classes < 65536) exact<std::uint16_t>(pb, *oracle, ctx);
      else exact<int>(pb, *oracle, ctx);
      return;
    }
    warn_if_slow(exact_valid);
    if (dense_blocks(ex, *oracle)) {
      DenseBlocks st(ex, *oracle, pb.lambda);
      MpBcfw<DenseBlocks>(opt_, *oracle, ex, st, ctx).run();
    } else {
      // Inner steps keep the whole score table up to date incrementally: no support scores.
      MarginalBlocks st(ex, *oracle, pb.lambda, opt_.gram_max_units, opt_.support_scores && opt_.inner_steps == 0);
      MpBcfw<MarginalBlocks>(opt_, *oracle, ex, st, ctx).run();
    }
  }

 private:
  template <class C>
  void exact(const dualgap::Problem& pb, dualgap::StructuredOracle& oracle, dualgap::SolverContext& ctx) {
    // throws if exact steps do not apply
    SimplexBlocks<C> st(pb.data->train, oracle, pb.lambda, opt_.shrinking > 0 && opt_.class_shrinking);
    ExactSteps<SimplexBlocks<C>>(opt_, oracle, pb.data->train, st, ctx).run();
  }

  /// Frank-Wolfe steps were chosen: a warning on stderr (kept in the run's stderr.log) where a
  /// setting, not the user's choice of algorithm, made them the steps of a run that pays for it:
  ///  - batch > 1 on data where block_step auto would otherwise take exact steps (FW mini-batches
  ///    there need tens of times longer to a small gap);
  ///  - threads > 1 with batch 0, which turns the FW passes into mini-batches of `threads`
  ///    blocks: another path, with less progress per oracle call (README, "Threads and
  ///    mini-batches"), so it can cost more than the second thread gains.
  /// An explicit batch on data without exact steps is a choice: no warning.
  void warn_if_slow(bool exact_valid) const {
    if (opt_.block_step == BlockStep::automatic && exact_valid && opt_.auto_exact_options() && opt_.batch > 1) {
      std::fprintf(stderr,
                   "warning: bcfw: batch: %d turns off the exact block steps that block_step auto takes on this "
                   "multi-class data: its Frank-Wolfe mini-batch steps need tens of times longer to a small gap. "
                   "Leave batch unset (with threads > 1 the exact steps then run asynchronously on the threads), "
                   "or write block_step: fw to choose Frank-Wolfe steps\n",
                   opt_.batch);
    } else if (opt_.threads > 1 && opt_.batch == 0) {
      std::string why;
      if (!exact_valid) why = "exact block steps need one unit per example and no transitions";
      else if (opt_.block_step == BlockStep::fw) why = "block_step: fw";
      else why = "multiplane, averaging, inner_steps or blocks: dense ask for Frank-Wolfe steps";
      std::fprintf(stderr,
                   "warning: bcfw: threads: %d runs Frank-Wolfe mini-batch passes of %d blocks here (batch 0 = "
                   "threads; %s): the blocks of a batch step from one w, another path than threads: 1 with less "
                   "progress per oracle call, which can cost more than the threads gain (bcfw README, \"Threads "
                   "and mini-batches\"). batch: 1 keeps the block-by-block pass; an explicit batch silences this\n",
                   opt_.threads, opt_.threads, why.c_str());
    }
  }

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
  return dualgap::describe_solver<Bcfw>(
      "bcfw", "1.0.0",
      "Structural SVM by block-coordinate Frank-Wolfe: BCFW, BCFW-avg, MP-BCFW, MP-BCFW-avg "
      "(Shah, Kolmogorov, Lampert, CVPR 2015, Algorithms 2 and 3); exact block steps on "
      "multi-class data (Crammer-Singer dual coordinate ascent)",
      {"structured"});
}

}  // namespace
DUALGAP_PLUGIN(describe)
