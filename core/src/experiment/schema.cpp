#include "experiment/schema.hpp"
#include "base/json_text.hpp"

#include <cmath>
#include <fmt/format.h>

namespace dualgap {
namespace {

// Values of n, d, K, N for checking an expression's syntax before the data is loaded (and for
// make_params, which has no data): never used for a value a plugin receives in a run.
const json& syntax_check_vars() {
  static const json vars = {{"n", 1.0}, {"d", 1.0}, {"K", 2.0}, {"N", 1.0}};
  return vars;
}

std::string valid_keys(const std::vector<ParamSpec>& schema) {
  std::string s;
  for (auto& p : schema) s += (s.empty() ? "" : ", ") + p.name;
  return s.empty() ? "none" : s;
}

std::string loc(const Locator& where, const std::string& key) {
  std::string l = where ? where(key) : "";
  return l.empty() ? "" : l + ": ";
}

bool is_integer_value(const json& v) {
  if (v.is_number_integer()) return true;
  if (v.is_number_float()) {
    double x = v.get<double>();
    return std::isfinite(x) && std::floor(x) == x;
  }
  return false;
}

// "auto" or "a, b or c": the names an integer parameter accepts in place of a number.
std::string named_list(const ParamSpec& p) {
  std::vector<std::string> names;
  for (auto& [name, value] : p.named.items()) names.push_back(name);
  std::string s;
  for (std::size_t k = 0; k < names.size(); ++k) s += (k == 0 ? "" : k + 1 == names.size() ? " or " : ", ") + names[k];
  return s;
}

// Checks one value; returns it converted to the canonical JSON form of the type.
json check_value(const ParamSpec& p, const json& v_in, const std::string& what, const Locator& where,
                 const json* vars) {
  // A plain YAML scalar such as `index_base: 1` arrives as a number: for string-like
  // parameters take its text, so that users need not quote it.
  json v = v_in;
  if ((p.type == ParamType::string || p.type == ParamType::choice || p.type == ParamType::path) && v.is_number())
    v = is_integer_value(v) ? std::to_string(static_cast<long long>(v.get<double>())) : json_text(v);
  auto fail = [&](const std::string& expected) -> json {
    throw ConfigError(fmt::format("{}{}: parameter '{}' expects {}, got {}", loc(where, p.name),
                                  what, p.name, expected, json_text(v)));
  };
  auto check_range = [&](double x) {
    if ((p.min && x < *p.min) || (p.max && x > *p.max)) {
      std::string range = fmt::format("[{}, {}]", p.min ? fmt::format("{}", *p.min) : "-inf",
                                      p.max ? fmt::format("{}", *p.max) : "inf");
      throw ConfigError(fmt::format("{}{}: parameter '{}' = {} is out of range {}", loc(where, p.name),
                                    what, p.name, x, range));
    }
  };
  switch (p.type) {
    case ParamType::boolean:
      if (!v.is_boolean()) return fail("true or false");
      return v;
    case ParamType::integer:
      // A name the plugin accepts in place of a number (threads: auto) stays a name here: its
      // number is the one of the machine the run runs on (resolve_expressions).
      if (v.is_string() && p.named.contains(v.get<std::string>())) return v;
      // The text of an integer ("2", as YAML gives a quoted number) is that integer: the
      // string-like types take a number's text the other way round.
      if (v.is_string())
        if (const auto x = integer_from_text(v.get_ref<const std::string&>())) v = *x;
      if (!is_integer_value(v)) return fail(p.named.empty() ? "an integer" : "an integer or " + named_list(p));
      check_range(v.get<double>());
      return json(static_cast<std::int64_t>(v.get<double>()));
    case ParamType::real: {
      if (v.is_number()) {
        check_range(v.get<double>());
        return json(v.get<double>());
      }
      if (!v.is_string()) return fail("a number or an expression such as 1/n");
      if (vars) {
        double x = 0;
        try {
          x = evaluate_expression(v.get<std::string>(), *vars);
        } catch (const ParamError& e) {
          throw ConfigError(fmt::format("{}{}: parameter '{}': {}", loc(where, p.name), what, p.name, e.what()));
        }
        check_range(x);
        return json(x);
      }
      // Parse now with placeholder values so that syntax errors surface at validation time.
      try {
        evaluate_expression(v.get<std::string>(), syntax_check_vars());
      } catch (const ParamError& e) {
        throw ConfigError(fmt::format("{}{}: parameter '{}': {}", loc(where, p.name), what, p.name, e.what()));
      }
      return v;
    }
    case ParamType::string:
    case ParamType::path:
      if (!v.is_string()) return fail("a string");
      return v;
    case ParamType::choice: {
      std::string c;
      for (auto& s : p.choices) c += (c.empty() ? "" : ", ") + s;
      if (!v.is_string()) return fail("one of: " + c);
      for (auto& s : p.choices)
        if (s == v.get<std::string>()) return v;
      throw ConfigError(fmt::format("{}{}: parameter '{}' = '{}' is not one of: {}", loc(where, p.name),
                                    what, p.name, v.get<std::string>(), c));
    }
    case ParamType::real_list: {
      if (!v.is_array()) return fail("a list of numbers");
      for (auto& x : v) {
        if (!x.is_number()) return fail("a list of numbers");
        check_range(x.get<double>());
      }
      return v;
    }
    case ParamType::int_list: {
      if (!v.is_array()) return fail("a list of integers");
      json out = json::array();
      for (auto& x : v) {
        if (!is_integer_value(x)) return fail("a list of integers");
        check_range(x.get<double>());
        out.push_back(static_cast<std::int64_t>(x.get<double>()));
      }
      return out;
    }
    case ParamType::string_list:
      if (!v.is_array()) return fail("a list of strings");
      for (auto& x : v)
        if (!x.is_string()) return fail("a list of strings");
      return v;
    case ParamType::object:
      if (!v.is_object()) return fail("a mapping");
      return v;
  }
  return v;
}

}  // namespace

json apply_schema(const std::vector<ParamSpec>& schema, const json& given, const std::string& what,
                  const Locator& where, const json* vars) {
  if (!given.is_null() && !given.is_object())
    throw ConfigError(fmt::format("{}{}: parameters must be a mapping of key: value, got {}",
                                  loc(where, ""), what, json_text(given)));
  json out = json::object();
  if (given.is_object()) {
    for (auto& [k, v] : given.items()) {
      const ParamSpec* spec = nullptr;
      for (auto& p : schema)
        if (p.name == k) spec = &p;
      if (!spec)
        throw ConfigError(fmt::format("{}{}: unknown key '{}' (valid keys: {})", loc(where, k), what, k,
                                      valid_keys(schema)));
      out[k] = check_value(*spec, v, what, where, vars);
    }
  }
  for (auto& p : schema) {
    if (out.contains(p.name)) continue;
    if (!p.default_value.is_null()) {
      out[p.name] = check_value(p, p.default_value, what + " (default)", nullptr, vars);
    } else if (!p.optional) {
      throw ConfigError(fmt::format("{}{}: missing required parameter '{}' ({}: {}) (valid keys: {})",
                                    loc(where, ""), what, p.name, to_string(p.type), p.doc,
                                    valid_keys(schema)));
    }
  }
  return out;
}

json resolve_expressions(const std::vector<ParamSpec>& schema, const json& values, const json& vars) {
  json out = values;
  for (auto& p : schema) {
    if (!out.contains(p.name) || !out[p.name].is_string()) continue;
    if (p.type == ParamType::real) out[p.name] = check_value(p, out[p.name], "parameter", nullptr, &vars);
    else if (p.named.contains(out[p.name].get<std::string>())) out[p.name] = p.named.at(out[p.name].get<std::string>());
  }
  return out;
}

Params make_params(const std::vector<ParamSpec>& schema, const json& given) {
  return Params(apply_schema(schema, given, "parameters", nullptr, &syntax_check_vars()));
}

}  // namespace dualgap
