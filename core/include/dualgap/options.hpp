// Options structs that declare their parameters once.
//
// A plugin keeps its parameters in one struct whose member initializers are the defaults
// (cf. Ceres' Solver::Options). A static `bind` names each member once, with its YAML key, its
// doc line and, where needed, its range or its choices; from that one line per field the
// Binder derives both the schema entry (name, type, default, range, choices, doc: what
// `dualgap describe` prints and the YAML is validated against) and the reader that fills the
// struct from validated parameters. Rules across several parameters go in one
// `bool validate(std::string* error) const` (cf. Ceres' Options::IsValid), which the core calls
// while it validates the experiment file and again before it creates the plugin object. Rules
// against the data go in `bool validate_data(const dualgap::DataShape&, dualgap::ParamIssue*)
// const`: the core calls it once the data are prepared (n, d, K, class names: params.hpp), in
// `dualgap validate` (which then prepares the data) and before each run, and reports a false
// return at the line of the parameter named in issue->param, with issue->message.
//
//   enum class Sampling { permutation, uniform };
//   struct Options {
//     int M = 1000;
//     double step = 0.5;
//     Sampling sample = Sampling::permutation;
//     static void bind(dualgap::Binder<Options>& b) {
//       b.field(&Options::M, "M", "max approximate passes per outer iteration").min(0);
//       b.field(&Options::step, "step", "initial step").range(0, 1);
//       b.choice(&Options::sample, "sample",
//                {{"permutation", Sampling::permutation}, {"uniform", Sampling::uniform}},
//                "block order of each pass");
//     }
//     bool validate(std::string* error) const;  // optional
//     std::vector<double> weights;  // one per class: b.field(&Options::weights, "weights", "...")
//     bool validate_data(const dualgap::DataShape& data, dualgap::ParamIssue* issue) const {  // optional
//       if (weights.empty() || weights.size() == static_cast<std::size_t>(data.K)) return true;
//       *issue = {"weights", "expected one weight per class (" + std::to_string(data.K) + ")"};
//       return false;
//     }
//   };
//
// Member types and the parameter types they declare: bool -> boolean; integers -> integer;
// float, double -> real (the YAML may also give an expression in n, d, K, N such as "1/n",
// which the core evaluates before the plugin sees it); std::string -> string (`.path()`: path);
// std::vector of double / of integers / of std::string -> real_list / int_list / string_list;
// json -> object; std::optional<T> -> T that may be absent (no default). A choice maps each
// name to a value of any type (an enum, a bool, a string). An integer may also accept names in
// place of a number (`.named("auto", n)`: `threads: auto`). Instead of a member pointer, `field`
// and `choice` also take a function `T& (Options&)` for a member of a nested struct.
#pragma once

#include <concepts>
#include <deque>
#include <functional>
#include <initializer_list>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "dualgap/params.hpp"

namespace dualgap {

namespace options_detail {

template <class T>
struct is_optional : std::false_type {};
template <class T>
struct is_optional<std::optional<T>> : std::true_type {};

template <class T>
struct is_vector : std::false_type {};
template <class T, class A>
struct is_vector<std::vector<T, A>> : std::true_type {};

template <class T>
constexpr bool is_integer_v = std::is_integral_v<T> && !std::is_same_v<T, bool>;

/// The parameter type a member of type T declares (T without std::optional).
template <class T>
constexpr ParamType param_type() {
  if constexpr (std::is_same_v<T, bool>) {
    return ParamType::boolean;
  } else if constexpr (is_integer_v<T>) {
    return ParamType::integer;
  } else if constexpr (std::is_floating_point_v<T>) {
    return ParamType::real;
  } else if constexpr (std::is_same_v<T, std::string>) {
    return ParamType::string;
  } else if constexpr (std::is_same_v<T, json>) {
    return ParamType::object;
  } else if constexpr (is_vector<T>::value) {
    using E = typename T::value_type;
    if constexpr (std::is_floating_point_v<E>) return ParamType::real_list;
    else if constexpr (is_integer_v<E>) return ParamType::int_list;
    else if constexpr (std::is_same_v<E, std::string>) return ParamType::string_list;
    else static_assert(sizeof(E) == 0, "dualgap::Binder: unsupported list element type");
  } else {
    static_assert(sizeof(T) == 0, "dualgap::Binder: unsupported member type (use choice() for an enum)");
  }
}

}  // namespace options_detail

/// Declares the parameters of an options struct O (see the top of this file).
template <class O>
class Binder {
 public:
  /// Refines the schema entry of the field just declared.
  class Field {
   public:
    explicit Field(ParamSpec& spec) : spec_(&spec) {}
    /// Inclusive bounds of a number (of each element of a list).
    Field& min(double lo) { return spec_->min = lo, *this; }
    Field& max(double hi) { return spec_->max = hi, *this; }
    Field& range(double lo, double hi) { return min(lo).max(hi); }
    /// A string that names a file: ${VAR} expanded, checked to exist by `dualgap validate`.
    Field& path() {
      if (spec_->type != ParamType::string) throw std::logic_error("Binder: path() on a non-string field " + spec_->name);
      spec_->type = ParamType::path;
      return *this;
    }
    /// An integer that also accepts `name` in place of a number, read as `value`: a number known
    /// only where the plugin runs (bcfw's `threads: auto`, the hardware threads). The
    /// experiment's config keeps the name, run.json's params_resolved the number. The range
    /// bounds numbers, not names.
    Field& named(const std::string& name, long long value) {
      if (spec_->type != ParamType::integer) throw std::logic_error("Binder: named() on a non-integer field " + spec_->name);
      spec_->named[name] = value;
      return *this;
    }
    /// No default: the experiment file must give a value (the member initializer is ignored).
    Field& required() {
      spec_->default_value = nullptr;
      spec_->optional = false;
      return *this;
    }

   private:
    ParamSpec* spec_;
  };

  /// One parameter stored in a member (a member pointer, or a function `T& (O&)`).
  template <class Member>
  Field field(Member member, std::string name, std::string doc) {
    using T = std::remove_cvref_t<std::invoke_result_t<Member, O&>>;
    O defaults{};
    Entry& e = add(std::move(name), std::move(doc));
    if constexpr (options_detail::is_optional<T>::value) {
      using V = typename T::value_type;
      e.spec.type = options_detail::param_type<V>();
      const T& d = std::invoke(member, defaults);
      e.spec.default_value = d ? json(*d) : json(nullptr);
      e.spec.optional = !d.has_value();
      e.read = [member, key = e.spec.name](O& o, const json& v) { std::invoke(member, o) = read_value<V>(key, v); };
    } else {
      e.spec.type = options_detail::param_type<T>();
      e.spec.default_value = json(std::invoke(member, defaults));
      e.read = [member, key = e.spec.name](O& o, const json& v) { std::invoke(member, o) = read_value<T>(key, v); };
    }
    return Field(e.spec);
  }

  /// One parameter whose YAML value is one of the names in `choices`, stored as the value
  /// paired with that name. The default is the name of the member initializer's value.
  template <class Member, class V = std::remove_cvref_t<std::invoke_result_t<Member, O&>>>
  Field choice(Member member, std::string name, std::initializer_list<std::pair<std::string, V>> list,
               std::string doc) {
    return choice_of(member, std::move(name), std::vector<std::pair<std::string, V>>(list), std::move(doc));
  }

  /// A choice stored as the chosen name itself (a std::string member).
  template <class Member>
  Field choice(Member member, std::string name, std::initializer_list<const char*> names, std::string doc) {
    std::vector<std::pair<std::string, std::string>> pairs;
    for (const char* c : names) pairs.emplace_back(c, c);
    return choice_of(member, std::move(name), std::move(pairs), std::move(doc));
  }

  /// The schema entries, in the order the fields were declared.
  std::vector<ParamSpec> schema() const {
    std::vector<ParamSpec> out;
    for (auto& e : entries_) out.push_back(e.spec);
    return out;
  }

  /// The options from validated parameters (absent keys keep their member initializers).
  /// A real parameter still written as an expression ("1/n": the core evaluates it once the
  /// data is loaded) keeps its initializer too: its name is appended to `unresolved`, or,
  /// when `unresolved` is null, it is an error.
  O read(const Params& params, std::vector<std::string>* unresolved = nullptr) const {
    O o{};
    for (auto& e : entries_) {
      if (!params.has(e.spec.name)) continue;
      const json& v = params.raw().at(e.spec.name);
      if (v.is_string() && e.spec.named.contains(v.get<std::string>())) {
        e.read(o, e.spec.named.at(v.get<std::string>()));
        continue;
      }
      if (e.spec.type == ParamType::real && v.is_string()) {
        if (!unresolved)
          throw ParamError("parameter '" + e.spec.name + "' = '" + v.get<std::string>() + "' was not evaluated");
        unresolved->push_back(e.spec.name);
        continue;
      }
      e.read(o, v);
    }
    return o;
  }

 private:
  struct Entry {
    ParamSpec spec;
    std::function<void(O&, const json&)> read;
  };

  Entry& add(std::string name, std::string doc) {
    for (auto& e : entries_)
      if (e.spec.name == name) throw std::logic_error("Binder: parameter '" + name + "' declared twice");
    Entry& e = entries_.emplace_back();
    e.spec.name = std::move(name);
    e.spec.doc = std::move(doc);
    return e;
  }

  template <class Member, class V>
  Field choice_of(Member member, std::string name, std::vector<std::pair<std::string, V>> choices, std::string doc) {
    O defaults{};
    const V& d = std::invoke(member, defaults);
    Entry& e = add(std::move(name), std::move(doc));
    e.spec.type = ParamType::choice;
    for (auto& [label, value] : choices) {
      e.spec.choices.push_back(label);
      if (value == d && e.spec.default_value.is_null()) e.spec.default_value = label;
    }
    if (e.spec.default_value.is_null())
      throw std::logic_error("Binder: the default of choice '" + e.spec.name + "' is none of its choices");
    e.read = [member, key = e.spec.name, choices = std::move(choices)](O& o, const json& v) {
      const std::string s = v.is_string() ? v.get<std::string>() : v.dump();
      for (auto& [label, value] : choices)
        if (label == s) {
          std::invoke(member, o) = value;
          return;
        }
      std::string names;
      for (auto& c : choices) names += (names.empty() ? "" : ", ") + c.first;
      throw ParamError("parameter '" + key + "' = '" + s + "' is not one of: " + names);
    };
    return Field(e.spec);
  }

  template <class T>
  static T read_value(const std::string& key, const json& v) {
    // An integer may be given as its text (a run recorded when the parameter was a string, as
    // bcfw's threads was, is re-read by evaluate from its run.json); any other text is wrong.
    if constexpr (options_detail::is_integer_v<T>) {
      if (v.is_string()) {
        const auto x = integer_from_text(v.get_ref<const std::string&>());
        if (!x || !std::in_range<T>(*x)) throw ParamError("parameter '" + key + "' has the wrong type: " + v.dump());
        return static_cast<T>(*x);
      }
    }
    try {
      return v.get<T>();
    } catch (const json::exception&) {
      throw ParamError("parameter '" + key + "' has the wrong type: " + v.dump());
    }
  }

  std::deque<Entry> entries_;  // a deque: Field keeps a pointer into the last entry
};

/// Whether O declares parameters (`static void bind(Binder<O>&)`).
template <class O>
concept BindableOptions = std::is_default_constructible_v<O> && requires(Binder<O>& b) { O::bind(b); };

/// Whether O has cross-parameter rules (`bool validate(std::string* error) const`).
template <class O>
concept ValidatedOptions = requires(const O& o, std::string* error) {
  { o.validate(error) } -> std::convertible_to<bool>;
};

/// Whether O has rules against the data (`bool validate_data(const DataShape&, ParamIssue*) const`).
template <class O>
concept DataValidatedOptions = requires(const O& o, const DataShape& data, ParamIssue* issue) {
  { o.validate_data(data, issue) } -> std::convertible_to<bool>;
};

/// The binder of O, built once.
template <BindableOptions O>
const Binder<O>& binder_of() {
  static const Binder<O> b = [] {
    Binder<O> x;
    O::bind(x);
    return x;
  }();
  return b;
}

/// The rules of o's validate() (if it has one): "" when they hold, else the message.
template <class O>
std::string validation_error(const O& o) {
  if constexpr (ValidatedOptions<O>) {
    std::string error;
    if (!o.validate(&error)) return error.empty() ? std::string("invalid options") : error;
  }
  return {};
}

/// The rules of o's validate_data() (if it has one) on `data`: an empty message when they hold.
template <class O>
ParamIssue data_validation_issue(const O& o, const DataShape& data) {
  ParamIssue issue;
  if constexpr (DataValidatedOptions<O>) {
    if (!o.validate_data(data, &issue) && issue.message.empty()) issue.message = "invalid for this data";
    if (issue.message.empty()) issue.param.clear();
  }
  return issue;
}

/// Fills O from validated (and evaluated) parameters and checks its rules; throws ParamError.
template <BindableOptions O>
O read_options(const Params& params) {
  O o = binder_of<O>().read(params);
  if (auto error = validation_error(o); !error.empty()) throw ParamError(error);
  return o;
}

}  // namespace dualgap
