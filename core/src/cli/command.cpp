// The parsing, help and dispatch of the command table (command.hpp).
#include "cli/command.hpp"

#include <charconv>
#include <cmath>
#include <iostream>
#include <sstream>

#include <fmt/format.h>

#include "base/util.hpp"
#include "experiment/schema.hpp"
#include "run/lock.hpp"

namespace dualgap::cli {

UsageError bad_value(const std::string& subject, const std::string& value, const std::string& expected) {
  return UsageError(fmt::format("{} '{}': expected {}", subject, printable(value), expected));
}

void throw_configuration_error(const std::exception& e) { throw ConfigError(e.what()); }

namespace {

template <class I>
std::optional<I> to_whole(const std::string& s, I lo, I hi) {
  I v{};
  const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || r.ec != std::errc() || r.ptr != s.data() + s.size() || v < lo || v > hi) return std::nullopt;
  return v;
}

std::optional<double> to_real(const std::string& s) {
  double v = 0;
  const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || r.ec != std::errc() || r.ptr != s.data() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::string headed(const std::string& what, const std::string& plain, const std::string& range) {
  return (what.empty() ? plain : what) + range;
}

}  // namespace

Checked<int>* whole(int lo, int hi, const std::string& what) {
  return new Checked<int>(headed(what, "a whole number", fmt::format(" from {} to {}", lo, hi)),
                          [lo, hi](const std::string& s) { return to_whole<int>(s, lo, hi); });
}

Checked<long long>* whole64(long long lo, long long hi, const std::string& what) {
  return new Checked<long long>(headed(what, "a whole number", fmt::format(" from {} to {}", lo, hi)),
                                [lo, hi](const std::string& s) { return to_whole<long long>(s, lo, hi); });
}

Checked<double>* positive(const std::string& what) {
  return new Checked<double>(headed(what, "a finite number", " greater than 0"),
                             [](const std::string& s) -> std::optional<double> {
                               auto v = to_real(s);
                               return v && *v > 0 ? v : std::nullopt;
                             });
}

Checked<double>* real_in(double lo, double hi, const std::string& what) {
  return new Checked<double>(headed(what, "a number", fmt::format(" from {} to {}", lo, hi)),
                             [lo, hi](const std::string& s) -> std::optional<double> {
                               auto v = to_real(s);
                               return v && *v >= lo && *v <= hi ? v : std::nullopt;
                             });
}

Checked<std::string>* output_path() {
  return text_if([](const std::string& s) { return !s.empty(); }, "a file or folder name, not an empty string");
}

Checked<std::string>* text_if(std::function<bool(const std::string&)> ok, const std::string& expected) {
  return new Checked<std::string>(expected, [ok = std::move(ok)](const std::string& s) -> std::optional<std::string> {
    if (!ok(s)) return std::nullopt;
    return s;
  });
}

Checked<std::string>* choice(const std::vector<std::string>& names, bool with_default) {
  std::vector<std::pair<std::string, std::string>> pairs;
  for (const auto& n : names) pairs.emplace_back(n, n);
  return choice<std::string>(std::move(pairs), with_default);
}

std::vector<std::string> Args::list(const std::string& key) const {
  return has(key) ? vm_[key].as<std::vector<std::string>>() : std::vector<std::string>{};
}

std::string Args::text(const std::string& key) const { return has(key) ? vm_[key].as<std::string>() : std::string(); }

namespace {

struct Parser {
  po::options_description visible{"options"};
  po::options_description all;
  po::positional_options_description order;
};

/// The command's options (with --help) and its positional arguments as hidden options.
void describe(const Command& c, Parser& p) {
  p.visible.add_options()("help,h", "this help");
  if (c.options) c.options(p.visible);
  po::options_description hidden;
  if (c.internal_options) c.internal_options(hidden);
  for (const auto& pos : c.positionals) {
    po::value_semantic* v = pos.many ? po::value<std::vector<std::string>>()
                            : pos.value ? pos.value()
                                        : po::value<std::string>();
    hidden.add_options()(pos.key.c_str(), v, pos.what.c_str());
    p.order.add(pos.key.c_str(), pos.many ? -1 : 1);
  }
  p.all.add(p.visible).add(hidden);
}

std::string usage_line(const Command& c) { return fmt::format("dualgap {} {}", c.name, c.arguments); }

/// The name a message gives an option or a positional argument ("--jobs", "KIND").
std::string subject(const Command& c, std::string option) {
  const std::string key = option.rfind("--", 0) == 0 ? option.substr(2) : option;
  for (const auto& pos : c.positionals)
    if (pos.key == key) return pos.name;
  return option;
}

/// What the value of `option` must be, when its value type says so.
std::string expected_of(const Parser& p, const std::string& option) {
  const std::string key = option.rfind("--", 0) == 0 ? option.substr(2) : option;
  if (const auto* d = p.all.find_nothrow(key, false))
    if (const auto* e = dynamic_cast<const Expects*>(d->semantic().get())) return e->expected();
  return "";
}

/// A program_options error in the one form of a usage error.
UsageError usage_error(const Command& c, const Parser& p, const po::error& e) {
  if (const auto* bad = dynamic_cast<const detail::BadToken*>(&e))
    return bad_value(subject(c, bad->get_option_name()), bad->value, bad->expected);
  if (const auto* unknown = dynamic_cast<const po::unknown_option*>(&e))
    return UsageError(fmt::format("unknown option '{}'", printable(unknown->get_option_name())));
  if (const auto* syntax = dynamic_cast<const po::invalid_command_line_syntax*>(&e)) {
    const std::string option = syntax->get_option_name(), expected = expected_of(p, option);
    if (syntax->kind() == po::invalid_command_line_syntax::missing_parameter)
      return UsageError(fmt::format("{} needs a value{}", option, expected.empty() ? "" : ": expected " + expected));
    if (syntax->kind() == po::invalid_command_line_syntax::empty_adjacent_parameter)  // --out=
      return bad_value(option, "", expected.empty() ? "a value after '='" : expected);
  }
  if (dynamic_cast<const po::too_many_positional_options_error*>(&e))
    return UsageError(fmt::format("too many arguments: expected {}", usage_line(c)));
  if (const auto* twice = dynamic_cast<const po::multiple_occurrences*>(&e))
    return UsageError(fmt::format("{} given more than once: expected it once", subject(c, twice->get_option_name())));
  return UsageError(printable(e.what()));
}

}  // namespace

std::optional<Args> parse_args(const Command& c, const std::vector<std::string>& args) {
  Parser p;
  describe(c, p);
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(p.all).positional(p.order).run(), vm);
    if (vm.count("help")) {
      std::cout << help_text(c);
      return std::nullopt;
    }
    po::notify(vm);
  } catch (const po::error& e) {
    throw usage_error(c, p, e);
  }
  for (const auto& pos : c.positionals)
    if (pos.required && !vm.count(pos.key)) throw UsageError(fmt::format("{} missing: expected {}", pos.name, pos.what));
  return Args(std::move(vm));
}

std::string help_text(const Command& c) {
  Parser p;
  describe(c, p);
  std::ostringstream out;
  out << "usage: " << usage_line(c) << "\n\n" << c.summary << "\n";
  if (!c.positionals.empty()) {
    out << "\narguments:\n";
    for (const auto& pos : c.positionals)
      out << fmt::format("  {:<22}{}{}\n", pos.name + (pos.many ? "..." : ""), pos.what,
                         pos.required ? "" : " (optional)");
  }
  out << "\n" << p.visible;
  if (!c.details.empty()) out << "\n" << c.details;
  return out.str();
}

std::vector<std::string> option_names(const Command& c) {
  Parser p;
  describe(c, p);
  std::vector<std::string> names;
  for (const auto& o : p.visible.options()) names.push_back(o->long_name());
  return names;
}

const Command* find_command(const std::string& name) {
  for (const auto& c : commands())
    if (c.name == name) return &c;
  return nullptr;
}

std::string usage() {
  std::string out =
      "dualgap — run, record and compare solvers for multi-class and structured-output learning\n\n"
      "usage: dualgap <command> [options]\n\ncommands:\n";
  for (const auto& c : commands()) {
    std::string call = c.name;
    for (const auto& pos : c.positionals)
      call += " " + (pos.required ? pos.name : "[" + pos.name) + (pos.many ? "..." : "") + (pos.required ? "" : "]");
    out += fmt::format("  {:<26} {}\n", call, c.summary);
  }
  out +=
      "\n'dualgap help COMMAND' (or 'dualgap COMMAND --help') describes a command: its arguments and options.\n"
      "Plugin path: the build tree, the install tree and the folders of DUALGAP_PLUGIN_PATH (colon-separated).\n";
  return out;
}

namespace {

std::string command_list() {
  std::string names;
  for (const auto& c : commands()) names += (names.empty() ? "" : ", ") + c.name;
  return names;
}

}  // namespace

int run_command(const std::string& name, const std::vector<std::string>& args) {
  const Command* c = find_command(name);
  if (!c) {
    std::cerr << fmt::format("dualgap: unknown command '{}': expected one of {} (see 'dualgap help')\n",
                             printable(name), command_list());
    return 2;
  }
  try {
    const std::optional<Args> parsed = parse_args(*c, args);
    return parsed ? c->run(*parsed) : 0;
  } catch (const UsageError& e) {
    std::cerr << fmt::format("dualgap {}: {} (see 'dualgap help {}')\n", name, e.what(), name);
    return 2;
  } catch (const ConfigError& e) {
    std::cerr << "error: " << printable(e.what()) << "\n";  // its location leads; a Latin-1 byte as \xNN
    return 2;
  } catch (const LockBusy& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
}

int main_command(const std::vector<std::string>& argv) {
  if (argv.empty()) {
    std::cerr << usage();
    return 2;
  }
  const std::string& first = argv.front();
  if (first == "--help" || first == "-h" || (first == "help" && argv.size() == 1)) {
    std::cout << usage();
    return 0;
  }
  if (first == "--version") {
    std::cout << "dualgap " << kVersion << " (plugin API " << kApiVersion << ")\n";
    return 0;
  }
  if (first == "help") {
    const Command* c = find_command(argv[1]);
    if (!c || argv.size() > 2) {
      std::cerr << fmt::format("dualgap help: {}: expected one command, one of {}\n",
                               c ? "too many arguments" : "unknown command '" + printable(argv[1]) + "'",
                               command_list());
      return 2;
    }
    std::cout << help_text(*c);
    return 0;
  }
  return run_command(first, std::vector<std::string>(argv.begin() + 1, argv.end()));
}

}  // namespace dualgap::cli
