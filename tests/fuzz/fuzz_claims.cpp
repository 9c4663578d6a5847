// libFuzzer: claims files (read_claims, as `dualgap check --claims` and the HTML report read
// them): a bad file is a std::runtime_error naming the file; a file that is read gives claims
// whose every number is finite (a NaN bound would make a claim hold or fail by accident).
#include <cmath>

#include "check/claims.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = fuzz::write_input("claims.yaml", data, size);
  dualgap::check::ClaimsFile f;
  try {
    f = dualgap::check::read_claims(path);
  } catch (const std::runtime_error& e) {
    if (std::string(e.what()).rfind(path, 0) != 0) __builtin_trap();
    return 0;
  }
  if (f.claims.empty()) __builtin_trap();
  for (const auto& c : f.claims) {
    for (double v : {c.rel, c.by})
      if (!std::isfinite(v)) __builtin_trap();
    for (double v : {c.to_value, c.below, c.above})
      if (std::isinf(v)) __builtin_trap();
    for (double v : c.at)
      if (!std::isfinite(v) || v < 0) __builtin_trap();
    if (!(c.by > 0) || c.rel < 0 || c.id.empty() || c.kind.empty()) __builtin_trap();
    // every kind but `external` (a sentence saying where it is measured) reads at least one series
    if ((c.kind == "external") != c.a.empty()) __builtin_trap();
    if (c.kind == "external" && c.note.empty()) __builtin_trap();
  }
  return 0;
}
