// Seeded train/test splits and per-class subsampling (split.hpp).
#include "data/split.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "dualgap/parse.hpp"
#include "dualgap/random.hpp"

namespace dualgap {

namespace {
int example_class(const Examples& ex, std::size_t i) {
  return ex.y[static_cast<std::size_t>(ex.unit_begin(i))];
}
}  // namespace

std::pair<std::vector<std::size_t>, std::vector<std::size_t>> split_indices(
    const Examples& ex, double test_fraction, std::uint64_t seed, bool stratified, bool by_group) {
  if (!(test_fraction >= 0.0 && test_fraction <= 1.0))
    throw DataError("test_fraction must be in [0, 1], got " + std::to_string(test_fraction));
  const std::size_t n = ex.num_examples();
  SplitMix64 rng(seed);
  std::vector<char> in_test(n, 0);
  if (by_group) {
    if (ex.group.size() != n) throw DataError("split_by_group: the data set has no group ids");
    std::vector<int> groups(ex.group.begin(), ex.group.end());
    std::sort(groups.begin(), groups.end());
    groups.erase(std::unique(groups.begin(), groups.end()), groups.end());
    shuffle(groups, rng);
    std::map<int, std::size_t> size;
    for (int g : ex.group) ++size[g];
    const double target = test_fraction * static_cast<double>(n);
    std::size_t taken = 0;
    std::vector<int> test_groups;
    for (int g : groups) {
      // Take a group while it brings the test size closer to the target.
      const double before = std::abs(static_cast<double>(taken) - target);
      const double after = std::abs(static_cast<double>(taken + size[g]) - target);
      if (after < before) {
        taken += size[g];
        test_groups.push_back(g);
      }
    }
    std::sort(test_groups.begin(), test_groups.end());
    for (std::size_t i = 0; i < n; ++i)
      in_test[i] = std::binary_search(test_groups.begin(), test_groups.end(), ex.group[i]) ? 1 : 0;
  } else if (stratified && ex.num_units() == n) {  // structured examples have no one class
    std::vector<std::vector<std::size_t>> by_class(static_cast<std::size_t>(std::max(ex.num_classes, 1)));
    for (std::size_t i = 0; i < n; ++i) by_class[static_cast<std::size_t>(example_class(ex, i))].push_back(i);
    // Largest-remainder allocation: the test set has exactly round(test_fraction * n) examples
    // and each class floor or ceil of test_fraction * count (ties: lower class index first).
    const std::size_t K = by_class.size();
    std::vector<std::size_t> take(K);
    std::vector<std::pair<double, std::size_t>> rem;
    std::size_t total = 0;
    for (std::size_t k = 0; k < K; ++k) {
      const double want = test_fraction * static_cast<double>(by_class[k].size());
      take[k] = static_cast<std::size_t>(std::floor(want));
      total += take[k];
      rem.emplace_back(-(want - std::floor(want)), k);
    }
    std::sort(rem.begin(), rem.end());
    const auto target = static_cast<std::size_t>(std::llround(test_fraction * static_cast<double>(n)));
    for (std::size_t r = 0; total < target && r < rem.size(); ++r)
      if (take[rem[r].second] < by_class[rem[r].second].size()) {
        ++take[rem[r].second];
        ++total;
      }
    for (std::size_t k = 0; k < K; ++k) {
      shuffle(by_class[k], rng);
      for (std::size_t j = 0; j < take[k]; ++j) in_test[by_class[k][j]] = 1;
    }
  } else {
    std::vector<std::size_t> all(n);
    for (std::size_t i = 0; i < n; ++i) all[i] = i;
    shuffle(all, rng);
    const auto k = static_cast<std::size_t>(std::llround(test_fraction * static_cast<double>(n)));
    for (std::size_t j = 0; j < k; ++j) in_test[all[j]] = 1;
  }
  std::pair<std::vector<std::size_t>, std::vector<std::size_t>> out;
  for (std::size_t i = 0; i < n; ++i) (in_test[i] ? out.second : out.first).push_back(i);
  return out;
}

std::vector<std::size_t> per_class_indices(const Examples& ex, std::int64_t per_class, std::uint64_t seed) {
  const std::size_t n = ex.num_examples();
  std::vector<std::size_t> keep;
  if (per_class <= 0) {
    keep.resize(n);
    for (std::size_t i = 0; i < n; ++i) keep[i] = i;
    return keep;
  }
  SplitMix64 rng(seed);
  std::vector<std::vector<std::size_t>> by_class(static_cast<std::size_t>(std::max(ex.num_classes, 1)));
  for (std::size_t i = 0; i < n; ++i) by_class[static_cast<std::size_t>(example_class(ex, i))].push_back(i);
  for (auto& members : by_class) {
    shuffle(members, rng);
    const auto k = std::min<std::size_t>(members.size(), static_cast<std::size_t>(per_class));
    keep.insert(keep.end(), members.begin(), members.begin() + static_cast<std::ptrdiff_t>(k));
  }
  std::sort(keep.begin(), keep.end());
  return keep;
}

}  // namespace dualgap
