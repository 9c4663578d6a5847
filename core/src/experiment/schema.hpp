// Validation of parameter values against a plugin's schema.
#pragma once

#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "dualgap/params.hpp"

namespace dualgap {

/// A configuration error with its location ("file:line:column: message").
class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Where a key (or the mapping itself, for key "") was written: "file:line:col" or "".
using Locator = std::function<std::string(const std::string& key)>;

/// Checks `given` (a JSON object) against `schema`: unknown keys, wrong types, out-of-range
/// values, missing required values. Returns the values with defaults filled in. Strings in
/// real-typed parameters are evaluated as expressions over `vars` when `vars` holds n, d, K;
/// otherwise they are only parsed (kept as strings) to be evaluated later.
/// `what` names the owner in messages, e.g. "solver 'MP-BCFW' (plugin bcfw)".
DUALGAP_API json apply_schema(const std::vector<ParamSpec>& schema, const json& given,
                              const std::string& what, const Locator& where, const json* vars);

/// Evaluates the expressions left in real-typed parameters, once n, d, K are known, and
/// replaces the names integer parameters accept (threads: auto) by their numbers.
DUALGAP_API json resolve_expressions(const std::vector<ParamSpec>& schema, const json& values,
                                     const json& vars);

/// Convenience for tests and tools: defaults filled, errors without locations.
DUALGAP_API Params make_params(const std::vector<ParamSpec>& schema, const json& given = json::object());

}  // namespace dualgap
