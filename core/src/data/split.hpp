// Seeded splits of a data set: train/test (and the validation hold-out), per-class subsamples.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "dualgap/api.hpp"
#include "dualgap/data.hpp"

namespace dualgap {

/// Splits the examples into (train, test) index lists, each in increasing order.
/// stratified: the test side holds round(test_fraction * n) examples and each class contributes
/// floor or ceil of test_fraction * its count (largest remainders get the ceil); it applies to
/// single-label examples only: structured ones (several units) are split at random. by_group: whole groups (Examples::group) go to one side, the test
/// side receiving groups until it holds about test_fraction of the examples.
DUALGAP_API std::pair<std::vector<std::size_t>, std::vector<std::size_t>> split_indices(
    const Examples& ex, double test_fraction, std::uint64_t seed, bool stratified, bool by_group);

/// At most `per_class` random examples of each class (all of a smaller class), increasing order.
DUALGAP_API std::vector<std::size_t> per_class_indices(const Examples& ex, std::int64_t per_class,
                                                       std::uint64_t seed);

}  // namespace dualgap
