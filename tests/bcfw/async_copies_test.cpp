// AsyncExactSteps with async_updates: copies as a class: each thread steps on its own copy of w
// and the others apply its logged moves, so after every run() (a pass, the threads joined) every
// copy must be w(alpha) = (1/(lambda n)) sum_i x_i (x) (e_{y_i} - mbar_i), recomputed from the
// blocks (add_w_of_blocks). Tried with log rings of the smallest size, which fill every few
// steps: a thread then waits for the others to read its log while applying theirs (a lost or
// twice-applied entry, or two threads waiting on each other, fails here), and with the default
// ring. The plugin's runs with copies (optimum, certified gap, counts) are in async_exact_test.cpp.
#include <cstdint>

#include "async_exact_steps.hpp"
#include "bcfw_support.hpp"
#include "simplex_blocks.hpp"

namespace async_copies_test {  // named: the unity build shares a file with other tests

using namespace bcfw_test;
using Blocks = dualgap_bcfw::SimplexBlocks<std::uint16_t>;
using Async = dualgap_bcfw::AsyncExactSteps<Blocks>;

/// Largest |a - b| over the entries.
double max_diff(const dualgap::Vector& a, const dualgap::Vector& b) {
  REQUIRE(a.size() == b.size());
  return (a - b).cwiseAbs().maxCoeff();
}

TEST_CASE("copies: after every pass each thread's copy of w is w(alpha), also when the logs fill") {
  for (bool sparse : {true, false}) {
    for (int threads : {2, 3}) {
      for (std::size_t ring : {std::size_t{1}, std::size_t{1} << 14}) {
        CAPTURE(sparse);
        CAPTURE(threads);
        CAPTURE(ring);
        // d 40: dense rows stay dense (class-major w), sparse ones take the CSR path
        const Examples ex = blobs(600, 40, 6, 29, 1.5, sparse);
        const std::size_t n = ex.num_examples();
        auto oracle = multiclass();
        Blocks st(ex, *oracle, 0.01, /*class_shrinking:*/ false);
        REQUIRE(st.feature_major() == sparse);
        dualgap_bcfw::Shrinking shrink(0, n);
        dualgap_bcfw::BlockOrder order(dualgap_bcfw::Sampling::permutation, 10, n, 5);
        dualgap::SolverContext ctx;
        ctx.make_oracle = [] { return dualgap::test::make<Oracle>(Kind::oracle, "multiclass"); };
        Async async(threads, dualgap_bcfw::Access::copies, *oracle, ex, st, shrink, order, false, ctx, ring);
        std::size_t moves = 0;
        for (int pass = 1; pass <= 6; ++pass) {
          REQUIRE(shrink.begin_pass(pass));
          const auto out = async.run(order.next(true), 0, n, false);
          CHECK(out.visited == n);
          moves += out.moved ? 1 : 0;
          dualgap::Vector ref = dualgap::Vector::Zero(st.w.size());
          st.add_w_of_blocks(0, n, ref.data());
          const double scale = ref.cwiseAbs().maxCoeff();
          REQUIRE(scale > 0);
          CHECK(max_diff(st.w, ref) <= 1e-12 * scale);
          for (int t = 1; t < threads; ++t) CHECK(max_diff(async.copy(t), ref) <= 1e-12 * scale);
        }
        CHECK(moves == 6);  // every pass moved blocks: the logs carried changes each time
        CHECK(async.others_share() > 0);
        // the smallest ring (4 K = 24 entries, 32 as a power of 2) fills: the waiting path ran
        if (ring == 1) CHECK(async.log_waits() > 0);
        // after a checkpoint every copy is set to the w that was scored
        async.copies_from_w();
        for (int t = 1; t < threads; ++t) CHECK(max_diff(async.copy(t), st.w) == 0.0);
      }
    }
  }
}

}  // namespace async_copies_test
