// bcfw's block orders (block_order.hpp) as a class: every full pass of permutation and chunked
// order visits each block once; chunked order visits the blocks chunk by chunk (kChunk
// consecutive indices, the chunks and the blocks in each in a random order); a skipping pass
// (shrinking) keeps that form on the blocks it visits.
#include <doctest/doctest.h>

#include <algorithm>
#include <numeric>
#include <set>
#include <vector>

#include "block_order.hpp"

namespace block_order_test {  // named: the unity build shares a file with other tests

using dualgap_bcfw::BlockIndex;
using dualgap_bcfw::BlockOrder;
using dualgap_bcfw::Sampling;

bool is_permutation_of(std::vector<BlockIndex> order, std::vector<BlockIndex> blocks) {
  std::sort(order.begin(), order.end());
  std::sort(blocks.begin(), blocks.end());
  return order == blocks;
}

/// Whether `order` is its blocks grouped by chunk: each chunk's blocks (index / kChunk) in one
/// unbroken run.
bool grouped_by_chunk(const std::vector<BlockIndex>& order) {
  std::set<BlockIndex> seen;
  for (std::size_t k = 0; k < order.size(); ++k) {
    const BlockIndex chunk = order[k] / BlockOrder::kChunk;
    if (k > 0 && chunk == order[k - 1] / BlockOrder::kChunk) continue;
    if (!seen.insert(chunk).second) return false;  // the chunk came back after another
  }
  return true;
}

TEST_CASE("bcfw block order: chunked passes are permutations grouped by chunk, each pass a new draw") {
  for (std::size_t n : {std::size_t{1}, std::size_t{255}, std::size_t{256}, std::size_t{700}, std::size_t{5000}}) {
    CAPTURE(n);
    std::vector<BlockIndex> all(n);
    std::iota(all.begin(), all.end(), BlockIndex{0});
    BlockOrder chunked(Sampling::chunked, 1, n, 7);
    const std::vector<BlockIndex> first = chunked.next(true);
    CHECK(is_permutation_of(first, all));
    CHECK(grouped_by_chunk(first));
    const std::vector<BlockIndex> second = chunked.next(true);
    CHECK(is_permutation_of(second, all));
    CHECK(grouped_by_chunk(second));
    if (n >= 256) {
      CHECK(first != second);
      CHECK(first != all);  // shuffled inside the chunks too
    }
    if (n >= 5000) {  // the chunks themselves in a random order: the first is not always chunk 0
      std::set<BlockIndex> first_chunks;
      for (int pass = 0; pass < 8; ++pass) first_chunks.insert(chunked.next(true).front() / BlockOrder::kChunk);
      CHECK(first_chunks.size() > 1);
    }
    // the same seed draws the same passes
    BlockOrder again(Sampling::chunked, 1, n, 7);
    CHECK(again.next(true) == first);
  }
}

TEST_CASE("bcfw block order: permutation passes are not grouped by chunk; a skipping pass keeps each order's form") {
  const std::size_t n = 5000;
  BlockOrder permutation(Sampling::permutation, 1, n, 7);
  CHECK_FALSE(grouped_by_chunk(permutation.next(true)));
  // the blocks shrinking leaves active: every third one, in index order as shrinking keeps them
  std::vector<BlockIndex> active;
  for (BlockIndex i = 0; i < n; i += 3) active.push_back(i);
  const std::vector<BlockIndex> kept = active;
  BlockOrder chunked(Sampling::chunked, 1, n, 9);
  std::vector<BlockIndex> blocks = active;
  const std::vector<BlockIndex> order = chunked.permute(blocks);
  CHECK(is_permutation_of(order, kept));
  CHECK(grouped_by_chunk(order));
  CHECK(order != kept);
  blocks = active;
  std::reverse(blocks.begin(), blocks.end());  // whatever order the caller holds them in
  CHECK(grouped_by_chunk(chunked.permute(blocks)));
}

TEST_CASE("bcfw block order: auto is chunked from kChunkedFrom examples, permutation below; a named order is kept") {
  CHECK(BlockOrder::resolve(Sampling::automatic, BlockOrder::kChunkedFrom - 1) == Sampling::permutation);
  CHECK(BlockOrder::resolve(Sampling::automatic, BlockOrder::kChunkedFrom) == Sampling::chunked);
  CHECK(BlockOrder::resolve(Sampling::permutation, 10 * BlockOrder::kChunkedFrom) == Sampling::permutation);
  CHECK(BlockOrder::resolve(Sampling::chunked, 10) == Sampling::chunked);
  CHECK(BlockOrder(Sampling::automatic, 1, BlockOrder::kChunkedFrom, 1).sampling() == Sampling::chunked);
  CHECK_FALSE(BlockOrder(Sampling::chunked, 1, 1000, 1).repeats());
  CHECK(BlockOrder(Sampling::uniform, 1, 1000, 1).repeats());
}

}  // namespace block_order_test
