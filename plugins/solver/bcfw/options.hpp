// Options of the bcfw solver: each parameter declared once (dualgap/options.hpp binder: the
// schema `dualgap describe bcfw` prints and the reader), cross-parameter rules in validate().
#pragma once

#include <algorithm>
#include <string>
#include <thread>

#include "dualgap/options.hpp"

namespace dualgap_bcfw {

enum class Sampling { automatic, permutation, uniform, cyclic, gap, chunked };
enum class Inner { pairwise, fw };
enum class Blocks { automatic, marginals, dense };
enum class BlockStep { automatic, fw, exact };
enum class BatchStep { common, sequential };
/// How an exact step reaches w: serial (one thread, plain loads and stores); on the threads of
/// asynchronous exact steps (option async_updates; simplex_blocks.hpp, detail::add), a w shared
/// by the threads and changed by atomic read-modify-writes (atomic) or by wild load-and-store
/// pairs (wild), or each thread's own copy of w, changed by plain stores, the other threads
/// applying its changes from its log (copies; async_exact_steps.hpp).
enum class Access { serial, atomic, wild, copies };

struct Options {
  bool multiplane = false;
  bool averaging = false;
  int N = 1000;  ///< max planes per working set
  int M = 1000;  ///< max approximate passes per outer iteration
  int T = 10;    ///< drop planes inactive for T outer iterations
  bool auto_rule = true;
  Sampling sample = Sampling::automatic;
  int gap_refresh = 10;  ///< sample: gap -- every gap_refresh-th exact pass is a full permutation
  int gram_max_units = 64;
  int inner_steps = 0;  ///< block-local steps over W_i after every block step
  Blocks blocks = Blocks::automatic;
  bool support_scores = true;  ///< approximate calls compute only the scores a step reads
  Inner inner = Inner::pairwise;
  BlockStep block_step = BlockStep::automatic;
  int shrinking = 100;  ///< block_step exact: a pass over all blocks every `shrinking` passes (0 = off)
  bool class_shrinking = true;  ///< with shrinking: steps of passes that skip blocks see only active classes
  int threads = 1;  ///< exact steps: asynchronous (async_exact_steps.hpp); FW steps: a mini-batch's oracle calls (minibatch.hpp)
  int batch = 0;    ///< FW steps: blocks per mini-batch of an exact pass, 0: the thread count; exact steps: 0 or 1
  BatchStep batch_step = BatchStep::common;  ///< how the blocks of a mini-batch step (minibatch.hpp)
  Access async_updates = Access::copies;     ///< exact steps on threads > 1: how the steps reach w

  bool working_sets() const { return multiplane && N > 0; }
  /// Whether block_step auto may pick exact steps (validity for the data is the solver's check).
  /// threads > 1 keeps them (they run asynchronously); an explicit batch > 1 asks for FW steps.
  bool exact_step_allowed() const {
    return block_step == BlockStep::exact || (block_step == BlockStep::automatic && auto_exact_options() && batch <= 1);
  }
  /// None of the options that make block_step auto take the paper's FW steps (batch aside).
  bool auto_exact_options() const { return !multiplane && !averaging && inner_steps == 0 && blocks != Blocks::dense; }
  bool approximate_passes() const { return working_sets() && M > 0; }
  /// Blocks per mini-batch of an exact pass of FW steps (1: BCFW's block-by-block pass); exact
  /// steps take one block per step whatever the threads.
  int batch_size() const { return batch > 0 ? batch : threads; }

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
             {{"auto", Sampling::automatic}, {"permutation", Sampling::permutation}, {"chunked", Sampling::chunked},
              {"uniform", Sampling::uniform}, {"cyclic", Sampling::cyclic}, {"gap", Sampling::gap}},
             "block order of each pass: a fresh random permutation; chunked, a random permutation that "
             "visits 256 consecutive blocks at a time (far faster on data larger than the cache); n "
             "uniform draws; 0..n-1; or n draws proportional to the block gaps of the last visits "
             "(Osokin et al., ICML 2016). auto: chunked from 32768 examples, permutation below");
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
    b.choice(&Options::block_step, "block_step",
             {{"auto", BlockStep::automatic}, {"fw", BlockStep::fw}, {"exact", BlockStep::exact}},
             "the step on a block after its exact oracle call: fw (Frank-Wolfe towards the oracle's "
             "plane with line search: the paper's Algorithms 2 and 3), exact (the block's sub-problem "
             "solved in closed form over the K classes, as Crammer-Singer / LIBLINEAR -s 4: one unit "
             "per example, no transitions, no working sets), or auto: exact where it is valid and "
             "none of multiplane, averaging, inner_steps, blocks: dense, a batch > 1 is asked for "
             "(threads > 1 alone keeps exact steps), else fw (so BCFW-avg, MP-BCFW and MP-BCFW-avg "
             "are the paper's as written; BCFW is block_step: fw)");
    b.field(&Options::shrinking, "shrinking",
            "block_step exact: skip blocks whose last exact step left them unchanged, visiting all "
            "blocks every `shrinking`-th pass and after a pass without moves (0 = visit all, always)")
        .min(0);
    b.field(&Options::class_shrinking, "class_shrinking",
            "with shrinking > 0: a block also drops the classes that cannot enter its optimum (no "
            "weight, gradient below every class holding weight), and the steps of passes that skip "
            "blocks score only its remaining classes (counted as approximate oracle calls); a pass "
            "over all blocks restores every class (as LIBLINEAR -s 4)");
    b.field(&Options::threads, "threads",
            "threads of a pass: a positive integer, or auto (the machine's hardware threads). Exact "
            "steps: asynchronous block steps (PASSCoDe, Hsieh et al., ICML 2015; see "
            "async_updates); the iterates then depend on the scheduling (1 is the "
            "deterministic mode), oracle counts stay exact. FW steps: each mini-batch's oracle calls "
            "run in parallel (Wang et al., ICML 2016), approximate passes stay serial; the numbers "
            "depend on batch, not on threads (but batch 0 follows threads)")
        .range(1, 4096)
        .named("auto", std::clamp<long long>(std::thread::hardware_concurrency(), 1, 4096));
    b.field(&Options::batch, "batch",
            "FW steps: blocks per mini-batch of an exact pass, whose oracle calls are made at the "
            "same w (0 = the thread count; 1 = BCFW's block-by-block pass). Exact steps take one "
            "block per step (0 or 1); with block_step auto a batch > 1 asks for FW steps (a warning "
            "where exact steps apply)")
        .min(0);
    b.choice(&Options::batch_step, "batch_step", {{"common", BatchStep::common}, {"sequential", BatchStep::sequential}},
             "how the blocks of a mini-batch step after their oracle calls: common (all with one step "
             "size along their summed change: the synchronous mini-batch of Wang et al., ICML 2016) or "
             "sequential (one after another, each with BCFW's exact line search at the w the earlier "
             "steps left, towards the corner its oracle call found at the batch's w)");
    b.choice(&Options::async_updates, "async_updates",
             {{"copies", Access::copies}, {"wild", Access::wild}, {"atomic", Access::atomic}},
             "exact steps on threads > 1: how the steps of the threads reach w. copies: each thread "
             "steps on its own copy of w and logs its moves, which the other threads apply to theirs "
             "after every few dozen of their steps; no line of w is written by one core and read by "
             "another, no change is lost, (threads - 1) x d x K doubles more memory. wild "
             "(PASSCoDe-Wild, Hsieh et al., ICML "
             "2015): one shared w, a plain load and store per entry, so two threads changing one entry "
             "at once may lose a change; w is then rebuilt from the dual variables before every "
             "checkpoint and before the stopping rule accepts a pass, so the recorded dual stays "
             "certified. atomic (PASSCoDe-Atomic): one shared w, one atomic add per entry, no change "
             "lost, each several times the cost");
  }
  /// Rules across parameters (single values are checked by the schema).
  bool validate(std::string* error) const {
    if (blocks == Blocks::dense && inner_steps > 0) *error = "inner_steps needs blocks: marginals (or auto)";
    else if (inner_steps > 0 && !working_sets()) *error = "inner_steps > 0 needs working sets (multiplane: true, N > 0)";
    else if (block_step == BlockStep::exact && (multiplane || inner_steps > 0 || blocks == Blocks::dense))
      *error = "block_step: exact has no working sets, inner steps or dense blocks (multiplane: false, inner_steps: 0, blocks: auto)";
    else if (batch_size() > 1 && inner_steps > 0) *error = "inner_steps needs batch: 1 (one block per exact step)";
    else if (block_step == BlockStep::exact && batch > 1)
      *error = "block_step: exact takes one block per step: batch: 1 (or 0, the default); with threads > 1 the "
               "exact steps run asynchronously on the threads, not in mini-batches";
    else if (block_step == BlockStep::exact && threads > 1 && averaging)
      *error = "block_step: exact with threads > 1 has no averaging (asynchronous steps have no order to weight "
               "the iterates by); use threads: 1";
    return error->empty();
  }
};

}  // namespace dualgap_bcfw
