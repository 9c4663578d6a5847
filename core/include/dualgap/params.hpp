// Parameter schemas and validated parameter values.
//
// A plugin declares its parameters once, in an options struct (options.hpp: name, type,
// default, range or choices, doc), from which the Binder makes the ParamSpecs. The core validates
// the YAML against that schema (unknown key, wrong type, out-of-range value, missing required
// value are errors with file:line:column) and hands the plugin a Params object in which every
// declared parameter has a value of the declared type. Rules that depend on the data (a list
// with one value per class, a count bounded by the number of features) are checked against the
// prepared data's DataShape (options.hpp: Options::validate_data) by `dualgap validate` and before
// each run; a ParamIssue names the parameter, and the core names its line in the experiment.
#pragma once

#include <charconv>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "dualgap/api.hpp"
#include "dualgap/json.hpp"

namespace dualgap {

using json = nlohmann::json;

/// The integer that `text` spells whole ("2", "-3"), else nullopt: how an integer parameter given
/// as text is read, both where the core checks an experiment (a quoted YAML number) and where a
/// plugin reads recorded parameters (a run recorded when the parameter was a string).
inline std::optional<long long> integer_from_text(std::string_view text) {
  long long x = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), x);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return x;
}

enum class ParamType {
  boolean,
  integer,
  real,      ///< a number; also accepts expressions in n, d, K ("1/n", "10/n") evaluated at run time
  string,
  choice,    ///< one string of `choices`
  path,      ///< a file path; ${VAR} expanded, checked to exist when `required`
  real_list,
  int_list,
  string_list,
  object,    ///< free-form mapping, passed through as JSON (e.g. nested plugin parameters)
};

DUALGAP_API const char* to_string(ParamType t);

struct ParamSpec {
  std::string name;
  ParamType type = ParamType::real;
  json default_value;             ///< null: required (unless `optional`)
  std::optional<double> min;      ///< inclusive bounds for numbers
  std::optional<double> max;
  std::vector<std::string> choices;
  std::string doc;
  bool optional = false;          ///< may be absent (no default); then Params::has() is false
  /// integer: names accepted in place of a number, each with the number it stands for where the
  /// plugin runs (bcfw's {"auto": the machine's hardware threads}). The experiment's config keeps
  /// the name; run.json's params_resolved records the number.
  json named = json::object();
};

/// The prepared training data a plugin's parameters are checked against, as the plugin receives
/// it: a features plugin the input of its step of the feature chain; an oracle and a solver the
/// output of the whole chain.
struct DataShape {
  std::int64_t n = 0;       ///< training examples
  std::int64_t N = 0;       ///< training units (= n for multi-class data)
  std::int64_t d = 0;       ///< features
  int K = 0;                ///< classes
  bool structured = false;  ///< examples of several units (sequences, graphs)
  bool edges = false;       ///< examples with edges between their units (graphs)
  bool sparse = false;      ///< a sparse feature matrix
  /// The data's name of class k, k < K: its label in the data file where the dataset names them
  /// ("A".."Z", "-1"/"+1"), else the class index ("0", "1", ...).
  std::vector<std::string> class_names;
};

/// What Options::validate_data found wrong: the parameter at fault (its key; empty: the plugin's
/// section as a whole), which the core locates in the experiment file, and what was expected.
struct ParamIssue {
  std::string param;
  std::string message;
};

class ParamError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Validated parameters. Values are stored as JSON; numeric expressions are already evaluated.
class DUALGAP_API Params {
 public:
  Params() = default;
  explicit Params(json values) : values_(std::move(values)) {}

  bool has(const std::string& key) const { return values_.contains(key) && !values_[key].is_null(); }
  template <class T>
  T get(const std::string& key) const {
    if (!has(key)) throw ParamError("parameter '" + key + "' is not set");
    return values_.at(key).get<T>();
  }
  template <class T>
  T get_or(const std::string& key, T fallback) const {
    return has(key) ? values_.at(key).get<T>() : fallback;
  }
  const json& raw() const { return values_; }
  json& raw() { return values_; }

 private:
  json values_ = json::object();
};

/// Evaluates a numeric expression such as "1/n", "0.1/n", "1e-3", "2*K", "(n-1)*K".
/// Variables: n (training examples), d (features), K (classes), N (training units).
/// Throws ParamError with the expression and the position of the problem.
DUALGAP_API double evaluate_expression(const std::string& expr, const json& vars);

}  // namespace dualgap
