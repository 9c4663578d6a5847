// The commands of `dualgap` as one table, and the one way every command reads its arguments.
//
// Each command is an entry {name, arguments, summary, options, positionals, details, run}
// (commands.cpp). From the table come the general usage text, `dualgap help CMD` and
// `dualgap CMD --help`, and the dispatch. Every command's words are parsed against its entry by
// parse_args(): an unknown option, an option without its value, a bad value or a missing
// argument is a UsageError, printed in one form,
//   dualgap CMD: --jobs '0': expected the number of runs at once, 1 to 4096 (see 'dualgap help CMD')
// and exit 2. Values are checked while they are read, by the value types below (whole numbers
// and reals in a range, a choice among names, a non-empty output path), so the run functions
// receive checked, typed values.
#pragma once

#include <functional>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <boost/program_options.hpp>

#include "dualgap/api.hpp"

namespace dualgap::cli {

namespace po = boost::program_options;

/// Bad usage of a command: exit 2, printed as "dualgap CMD: <what> (see 'dualgap help CMD')".
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The one form of a bad value: "SUBJECT 'VALUE': expected EXPECTED" (the value printable).
DUALGAP_API UsageError bad_value(const std::string& subject, const std::string& value, const std::string& expected);

/// What a value of an option (or positional argument) must be, for messages.
class Expects {
 public:
  virtual ~Expects() = default;
  virtual const std::string& expected() const = 0;
};

namespace detail {
/// Thrown by a checked value while the command line is read; program_options adds the
/// option's name, parse_args() makes it a bad_value().
class BadToken : public po::error_with_option_name {
 public:
  BadToken(std::string value, std::string expected)
      : po::error_with_option_name("%canonical_option%"), value(std::move(value)), expected(std::move(expected)) {}
  std::string value, expected;
};
}  // namespace detail

/// An option's value type: its text converted (and checked) by `convert`, which returns
/// std::nullopt for a text it refuses; the refusal names `expected`. (Not a po::typed_value:
/// that one would need every T to be read by a stream, an enum too.)
template <class T>
class Checked : public po::value_semantic_codecvt_helper<char>, public Expects {
 public:
  using Convert = std::function<std::optional<T>(const std::string&)>;
  Checked(std::string expected, Convert convert) : expected_(std::move(expected)), convert_(std::move(convert)) {}
  /// The value when the option is not given, and its text for help.
  Checked* default_value(T v, std::string text) {
    default_ = std::move(v);
    default_text_ = std::move(text);
    return this;
  }
  Checked* default_value(T v) {
    std::ostringstream text;
    text << v;
    return default_value(std::move(v), text.str());
  }
  /// The value of the option given without one (--json: stdout).
  Checked* implicit_value(T v, std::string text) {
    implicit_ = std::move(v);
    implicit_text_ = std::move(text);
    return this;
  }
  std::string name() const override {
    std::string n = implicit_ ? "[=arg(=" + implicit_text_ + ")]" : "arg";
    return default_ ? n + " (=" + default_text_ + ")" : n;
  }
  unsigned min_tokens() const override { return implicit_ ? 0 : 1; }
  unsigned max_tokens() const override { return 1; }
  bool is_composing() const override { return false; }
  bool is_required() const override { return false; }
  bool apply_default(boost::any& value) const override {
    if (!default_) return false;
    value = *default_;
    return true;
  }
  void notify(const boost::any&) const override {}
  const std::string& expected() const override { return expected_; }

 protected:
  void xparse(boost::any& value, const std::vector<std::string>& tokens) const override {
    po::validators::check_first_occurrence(value);  // given twice: a usage error
    if (tokens.empty() && implicit_) {
      value = *implicit_;
      return;
    }
    const std::string& text = po::validators::get_single_string(tokens);
    std::optional<T> v = convert_(text);
    if (!v) throw detail::BadToken(text, expected_);
    value = *v;
  }

 private:
  std::string expected_;
  Convert convert_;
  std::optional<T> default_, implicit_;
  std::string default_text_, implicit_text_;
};

/// A repeatable option (its values in order), each value a text that `ok` accepts.
class CheckedList : public po::value_semantic_codecvt_helper<char>, public Expects {
 public:
  CheckedList(std::function<bool(const std::string&)> ok, std::string expected)
      : ok_(std::move(ok)), expected_(std::move(expected)) {}
  std::string name() const override { return "arg"; }
  unsigned min_tokens() const override { return 1; }
  unsigned max_tokens() const override { return 1; }
  bool is_composing() const override { return true; }
  bool is_required() const override { return false; }
  bool apply_default(boost::any&) const override { return false; }
  void notify(const boost::any&) const override {}
  const std::string& expected() const override { return expected_; }

 protected:
  void xparse(boost::any& value, const std::vector<std::string>& tokens) const override {
    if (value.empty()) value = std::vector<std::string>();
    auto& list = boost::any_cast<std::vector<std::string>&>(value);
    for (const auto& t : tokens) {
      if (!ok_(t)) throw detail::BadToken(t, expected_);
      list.push_back(t);
    }
  }

 private:
  std::function<bool(const std::string&)> ok_;
  std::string expected_;
};

/// A whole number from `lo` to `hi`; `what` (e.g. "the number of runs at once") heads the
/// expectation, else "a whole number".
DUALGAP_API Checked<int>* whole(int lo, int hi, const std::string& what = "");
DUALGAP_API Checked<long long>* whole64(long long lo, long long hi, const std::string& what = "");
/// A finite real number greater than 0.
DUALGAP_API Checked<double>* positive(const std::string& what = "");
/// A real number in [lo, hi].
DUALGAP_API Checked<double>* real_in(double lo, double hi, const std::string& what = "");
/// A file or folder name dualgap writes: an empty one would write into the current folder (or
/// nowhere), so it is refused.
DUALGAP_API Checked<std::string>* output_path();
/// A text that `ok` accepts, `expected` naming what it must be.
DUALGAP_API Checked<std::string>* text_if(std::function<bool(const std::string&)> ok, const std::string& expected);

/// One of the names of `choices`, stored as its value (an enum, typically). The default, when
/// there is one, is the first choice.
template <class T>
Checked<T>* choice(std::vector<std::pair<std::string, T>> choices, bool with_default = true) {
  std::string expected = "one of ";
  for (std::size_t i = 0; i < choices.size(); ++i) expected += (i ? ", " : "") + choices[i].first;
  auto* v = new Checked<T>(expected, [choices](const std::string& s) -> std::optional<T> {
    for (const auto& [name, value] : choices)
      if (name == s) return value;
    return std::nullopt;
  });
  if (with_default && !choices.empty()) v->default_value(choices.front().second, choices.front().first);
  return v;
}
/// One of `names`, stored as the name itself.
DUALGAP_API Checked<std::string>* choice(const std::vector<std::string>& names,
                                         bool with_default = true);

/// `read()`'s result; what it throws is a configuration error (exit 2), for files that are
/// configuration though their readers throw std::runtime_error (claims files, the data registry).
DUALGAP_API void throw_configuration_error(const std::exception& e);
template <class F>
auto as_configuration(F read) {
  try {
    return read();
  } catch (const std::exception& e) {
    throw_configuration_error(e);
    throw;
  }
}

/// A command's arguments after parsing: the options' values (defaults applied) and the
/// positional arguments, under their keys.
class DUALGAP_API Args {
 public:
  explicit Args(po::variables_map vm) : vm_(std::move(vm)) {}
  bool has(const std::string& key) const { return vm_.count(key) > 0; }
  template <class T>
  T get(const std::string& key) const {
    return vm_[key].as<T>();
  }
  template <class T>
  std::optional<T> maybe(const std::string& key) const {
    if (!has(key)) return std::nullopt;
    return vm_[key].as<T>();
  }
  /// A repeatable option or a list of positional arguments; empty when absent.
  std::vector<std::string> list(const std::string& key) const;
  /// A text option or positional argument; "" when absent.
  std::string text(const std::string& key) const;

 private:
  po::variables_map vm_;
};

/// A positional argument: `name` as usage shows it (EXPERIMENT.yaml), stored under `key`;
/// `many`: every remaining word; `what` is what it must be, for messages and help.
struct Positional {
  std::string key;
  std::string name;
  std::string what;
  bool required = true;
  bool many = false;
  /// The value type of a single positional (default: any text).
  std::function<po::value_semantic*()> value;
};

struct Command {
  std::string name;
  std::string arguments;  ///< after the name in usage lines, e.g. "EXPERIMENT.yaml [options]"
  std::string summary;    ///< one line, for the general usage
  std::function<void(po::options_description&)> options;
  std::vector<Positional> positionals;
  std::string details;  ///< printed by help after the options
  std::function<int(const Args&)> run;
  /// Options help does not show: what dualgap passes to itself (a Slurm task's --slurm-task).
  std::function<void(po::options_description&)> internal_options = nullptr;
};

/// The table, in the order of the general usage.
DUALGAP_API const std::vector<Command>& commands();
DUALGAP_API const Command* find_command(const std::string& name);

/// The general usage text: what dualgap is, the commands with their summaries.
DUALGAP_API std::string usage();
/// `dualgap help CMD`: the command's usage line, summary, arguments, options and details.
DUALGAP_API std::string help_text(const Command& command);
/// The long names of a command's options (without "--"), in the order help lists them.
DUALGAP_API std::vector<std::string> option_names(const Command& command);

/// Parses `args` (the words after the command's name) against the command's entry; throws
/// UsageError. Returns std::nullopt for --help (the help is then printed).
DUALGAP_API std::optional<Args> parse_args(const Command& command, const std::vector<std::string>& args);

/// Runs command `name` with `args` and returns its exit status. The one error convention:
/// bad usage (UsageError) and invalid configuration (ConfigError, naming its location) exit 2,
/// as does a results folder in use; every other failure (data, I/O, a run) exits 1 with its
/// message, which names the file.
DUALGAP_API int run_command(const std::string& name, const std::vector<std::string>& args);

/// `dualgap ARGS...` as main() sees it: --help, --version, help [CMD], then the command.
DUALGAP_API int main_command(const std::vector<std::string>& argv);

}  // namespace dualgap::cli
