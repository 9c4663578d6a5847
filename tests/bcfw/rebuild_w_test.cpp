// SimplexBlocks::add_w_of_blocks as a class: after exact steps, w recomputed from the blocks,
// w(alpha) = (1/(lambda n)) sum_i x_i (x) (e_{y_i} - mbar_i), equals the w the steps kept, in
// both layouts of sparse rows (feature-major during the passes, class-major at a checkpoint)
// and for dense rows, whatever w held before. With wild updates on threads (async_exact_test.cpp)
// this is what makes the recorded dual certified: the threads rebuild w with it before a
// checkpoint (AsyncExactSteps::rebuild_w, each thread a share of the blocks).
#include <cstdint>
#include <random>

#include "bcfw_support.hpp"
#include "simplex_blocks.hpp"

namespace rebuild_w_test {  // named: the unity build shares a file with other tests

using namespace bcfw_test;
using Blocks = dualgap_bcfw::SimplexBlocks<std::uint16_t>;

/// Largest |a - b| over the entries.
double max_diff(const dualgap::Vector& a, const dualgap::Vector& b) {
  REQUIRE(a.size() == b.size());
  return (a - b).cwiseAbs().maxCoeff();
}

/// Garbles w: a rebuild must not read what w held.
void garble(dualgap::Vector& w, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> g(0.0, 10.0);
  for (auto& v : w) v = g(rng);
}

/// w rebuilt from all the blocks, as the threads' shares sum it: zeros plus add_w_of_blocks.
void rebuild(Blocks& st, std::size_t n) {
  st.w.setZero();
  st.add_w_of_blocks(0, n, st.w.data());
}

TEST_CASE("add_w_of_blocks recomputes the w that exact steps kept (sparse rows in both layouts, dense rows)") {
  auto oracle = multiclass();
  WeightedMulticlassOracle weighted;
  for (bool sparse : {false, true}) {
    for (bool class_shrinking : {false, true}) {
      CAPTURE(sparse);
      CAPTURE(class_shrinking);
      // d 40: dense rows stay dense (more than a quarter nonzero), sparse ones take the CSR path
      const Examples ex = blobs(300, 40, 6, 17, 1.5, sparse);
      StructuredOracle& o = class_shrinking ? static_cast<StructuredOracle&>(weighted) : *oracle;
      Blocks st(ex, o, 0.02, class_shrinking);
      REQUIRE(st.feature_major() == sparse);
      // three passes of exact steps on the active classes (the serial step; its scores come
      // from the held w), so that many blocks hold weight on several classes
      int moved = 0;
      for (int pass = 0; pass < 3; ++pass)
        for (std::size_t i = 0; i < ex.num_examples(); ++i) moved += st.step_active(i) ? 1 : 0;
      REQUIRE(moved > 300);
      const double scale = st.w.cwiseAbs().maxCoeff();
      REQUIRE(scale > 0);

      const dualgap::Vector kept = st.w;  // the layout of the passes
      garble(st.w, 1);
      rebuild(st, ex.num_examples());
      CHECK(max_diff(st.w, kept) <= 1e-12 * scale);

      st.sync_w();  // the layout the core scores (a transposition for sparse rows)
      const dualgap::Vector scored = st.w;
      garble(st.w, 2);
      rebuild(st, ex.num_examples());
      CHECK(max_diff(st.w, scored) <= 1e-12 * scale);
      st.resume_passes();
      CHECK(max_diff(st.w, kept) <= 1e-12 * scale);
      // the threads' split: shares of the blocks added into separate arrays sum to w
      dualgap::Vector a = dualgap::Vector::Zero(st.w.size()), b = a;
      st.add_w_of_blocks(0, 137, a.data());
      st.add_w_of_blocks(137, ex.num_examples(), b.data());
      CHECK(max_diff(a + b, kept) <= 1e-12 * scale);
    }
  }
}

TEST_CASE("add_w_of_blocks at the start is w = 0 (every block at its label's vertex)") {
  auto oracle = multiclass();
  const Examples ex = blobs(50, 8, 4, 3, 1.0, true);
  Blocks st(ex, *oracle, 0.1, true);
  garble(st.w, 3);
  rebuild(st, ex.num_examples());
  CHECK(st.w.cwiseAbs().maxCoeff() == 0.0);
}

}  // namespace rebuild_w_test
