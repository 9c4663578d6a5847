// The performance ledger (bench/ledger/README.md): a fixed set of small deterministic workloads,
// one per solver family, run as whole `dualgap run` processes. For each, the work it took to
// reach a fixed target (passes, exact and approximate oracle calls, and the primal there) is
// checked exactly against counts.json, so that an algorithmic change shows up as a failing count
// its commit must update and explain; its solver time is printed as a ratio to a ruler (LIBLINEAR
// on USPS) measured in the same run, and `--record` keeps the ratios per commit in history.jsonl.
//
//   dualgap-ledger check [--dualgap BIN] [--out DIR] [--update] [--record]
//   dualgap-ledger history
//
// Why counts and not times: a count is the same on every machine (the workloads are serial and
// seeded, and stop at pass budgets, not at time limits), so CI can hold it exactly; a time is
// only comparable to another time measured beside it, hence the ruler.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "base/files.hpp"
#include "base/json_text.hpp"
#include "base/process.hpp"
#include "base/util.hpp"
#include "base/yaml.hpp"
#include "dualgap/json.hpp"
#include "run/run_files.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

/// A usage or ledger-file error: exit 2, as dualgap's own configuration errors.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// The target a workload's work is counted at: the first checkpoint whose `column` is at most
/// `value` (`rel_gap` is gap / |primal|).
struct Target {
  std::string column;
  double value = 0;
  std::string text() const { return fmt::format("{} <= {:g}", column, value); }
};

struct Workload {
  std::string name;  ///< workloads/<name>.yaml
  Target to;
};

struct Ledger {
  fs::path dir;
  std::string ruler;  ///< the ruler's workload name (it has no target: its time is the unit)
  int ruler_repeats = 3;
  std::vector<Workload> workloads;
};

const std::vector<std::string> kTargetColumns = {"gap", "rel_gap", "primal", "test_error", "train_error"};
/// The counts held exactly, in the order they are printed.
const std::vector<std::string> kCounts = {"passes", "oracle_calls", "approx_oracle_calls", "primal"};

fs::path workload_file(const Ledger& l, const std::string& name) { return l.dir / "workloads" / (name + ".yaml"); }

[[noreturn]] void ledger_error(const fs::path& file, const YAML::Node& node, const std::string& what) {
  const auto m = node.Mark();
  if (m.line >= 0) throw UsageError(fmt::format("{}:{}: {}", file.string(), m.line + 1, what));
  throw UsageError(fmt::format("{}: {}", file.string(), what));
}

Ledger read_ledger(const fs::path& dir) {
  const fs::path file = dir / "ledger.yaml";
  const YAML::Node root = dualgap::yaml::load_file(file.string());
  Ledger l;
  l.dir = dir;
  if (!root.IsMap()) ledger_error(file, root, "expected a mapping with keys ruler and workloads");
  for (const auto& kv : root) {
    const auto key = kv.first.as<std::string>();
    if (key != "ruler" && key != "workloads") ledger_error(file, kv.first, "unknown key '" + key + "' (expected ruler, workloads)");
  }
  const YAML::Node ruler = root["ruler"];
  if (!ruler.IsMap() || !ruler["workload"] || !ruler["workload"].IsScalar())
    ledger_error(file, ruler ? ruler : root, "ruler: expected {workload: NAME, repeats: N}");
  l.ruler = ruler["workload"].as<std::string>();
  if (ruler["repeats"]) {
    try {
      l.ruler_repeats = ruler["repeats"].as<int>();
    } catch (const YAML::Exception&) {
      ledger_error(file, ruler["repeats"], "ruler.repeats: expected an integer");
    }
    if (l.ruler_repeats < 1 || l.ruler_repeats > 15) ledger_error(file, ruler["repeats"], "ruler.repeats: expected 1..15");
  }
  const YAML::Node list = root["workloads"];
  if (!list.IsSequence() || list.size() == 0) ledger_error(file, list ? list : root, "workloads: expected a non-empty list");
  for (const auto& w : list) {
    if (!w.IsMap() || !w["name"] || !w["to"] || !w["to"].IsMap() || w["to"].size() != 1)
      ledger_error(file, w, "expected {name: NAME, to: {COLUMN: VALUE}} (one target column)");
    Workload wl;
    wl.name = w["name"].as<std::string>();
    const auto t = *w["to"].begin();
    wl.to.column = t.first.as<std::string>();
    if (std::find(kTargetColumns.begin(), kTargetColumns.end(), wl.to.column) == kTargetColumns.end())
      ledger_error(file, t.first, "target column '" + wl.to.column + "': expected one of gap, rel_gap, primal, test_error, train_error");
    try {
      wl.to.value = t.second.as<double>();
    } catch (const YAML::Exception&) {
      ledger_error(file, t.second, "target value: expected a number");
    }
    for (const auto& other : l.workloads)
      if (other.name == wl.name) ledger_error(file, w, "workload '" + wl.name + "' listed twice");
    l.workloads.push_back(wl);
  }
  std::vector<std::string> names{l.ruler};
  for (const auto& w : l.workloads) names.push_back(w.name);
  for (const auto& name : names)
    if (!fs::is_regular_file(workload_file(l, name)))
      throw UsageError(fmt::format("{}: workload '{}' has no file {}", file.string(), name, workload_file(l, name).string()));
  return l;
}

/// What one workload's run shows at its target.
struct Measured {
  std::string status;           ///< the run's status
  std::optional<std::size_t> row;  ///< the first checkpoint at the target; none: not reached
  std::map<std::string, double> counts;
  double solver_time = NAN;     ///< solver seconds to the target (evaluation excluded)
  double wall = NAN;            ///< the whole process
};

double cell(const dualgap::RunFile& r, const std::string& column, std::size_t row) {
  const auto it = r.columns.find(column);
  return it == r.columns.end() ? 0.0 : it->second[row];
}

double target_value(const dualgap::RunFile& r, const std::string& column, std::size_t row) {
  if (column == "rel_gap") return cell(r, "gap", row) / std::abs(cell(r, "primal", row));
  if (!r.columns.count(column)) return NAN;
  return cell(r, column, row);
}

/// 6 significant digits: the primal is held to the value a changed algorithm would move, not to
/// the last bits a changed compiler might.
double six_digits(double v) { return std::stod(fmt::format("{:.6g}", v)); }

double load_average() {
  try {
    return std::stod(dualgap::read_file("/proc/loadavg"));
  } catch (const std::exception&) {
    return NAN;
  }
}

/// Runs workloads/<name>.yaml into a fresh folder and reads its one run.
dualgap::RunFile run_workload(const Ledger& l, const std::string& dualgap, const fs::path& out,
                              const std::string& name, double* wall) {
  fs::remove_all(out);
  const std::vector<std::string> argv = {dualgap, "run", workload_file(l, name).string(),
                                         "--out", out.string(), "--no-report"};
  dualgap::ProcessOptions opts;
  opts.timeout_s = 600;
  const auto t0 = std::chrono::steady_clock::now();
  const auto res = dualgap::run_process(argv, opts);
  *wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!res.ok())
    throw std::runtime_error(fmt::format("workload {}: {} {}:\n{}{}", name, dualgap::describe_command(argv),
                                         res.how_ended(), res.out, res.err));
  const auto files = dualgap::find_run_files({out.string()});
  if (files.size() != 1)
    throw std::runtime_error(fmt::format("workload {}: expected one run in {}, found {} (one solver, one repeat)",
                                         name, out.string(), files.size()));
  return dualgap::read_run_file(files[0].string(), dualgap::CurveMode::columns);
}

Measured measure(const dualgap::RunFile& r, const Target& to, double wall) {
  Measured m;
  m.status = r.doc.value("status", "");
  m.wall = wall;
  for (std::size_t row = 0; row < r.rows; ++row)
    if (target_value(r, to.column, row) <= to.value) {
      m.row = row;
      break;
    }
  if (!m.row) return m;
  for (const auto& c : kCounts) m.counts[c] = cell(r, c, *m.row);
  m.counts["primal"] = six_digits(m.counts["primal"]);
  m.solver_time = cell(r, "time", *m.row);
  return m;
}

std::string count_text(double v) { return fmt::format("{:.12g}", v); }

std::string git_commit(const fs::path& dir) {
  dualgap::ProcessOptions opts;
  opts.cwd = dir.string();
  opts.err = dualgap::ProcessOptions::Stream::discard;
  try {
    const auto head = dualgap::run_process({"git", "rev-parse", "--short=10", "HEAD"}, opts);
    if (!head.ok()) return "unknown";
    std::string commit = head.out.substr(0, head.out.find('\n'));
    const auto dirty = dualgap::run_process({"git", "status", "--porcelain", "--untracked-files=no"}, opts);
    if (dirty.ok() && !dirty.out.empty()) commit += "+";  // uncommitted changes
    return commit;
  } catch (const std::exception&) {
    return "unknown";
  }
}

/// The exit status CTest reads as "skipped" (bench/ledger/CMakeLists.txt: SKIP_RETURN_CODE).
constexpr int kSkipped = 77;

int check(const Ledger& l, const std::string& dualgap, const fs::path& out, bool update, bool record) {
  const char* data = std::getenv("DUALGAP_DATA");
  if (!data || !*data) {
    // A developer's machine may have no data: the check is skipped (CTest's SKIP_RETURN_CODE 77,
    // listed as not run), never passed; CI, which sets the data, fails on it.
    const char* ci = std::getenv("CI");
    if (ci && *ci)
      throw UsageError("DUALGAP_DATA is not set: the ledger's workloads read the real data sets (docs/data.md)");
    std::cout << "dualgap-ledger: skipped: DUALGAP_DATA is not set (the workloads read the real data sets, docs/data.md)\n";
    return kSkipped;
  }
  const fs::path counts_file = l.dir / "counts.json";
  json expected = json::object();
  if (fs::exists(counts_file)) {
    try {
      expected = json::parse(dualgap::read_file(counts_file.string()));
    } catch (const json::exception& e) {
      throw UsageError(fmt::format("{}: not JSON: {}", counts_file.string(), e.what()));
    }
    if (!expected.is_object()) throw UsageError(counts_file.string() + ": expected an object of workloads");
  } else if (!update) {
    throw UsageError(counts_file.string() + " does not exist (--update writes it)");
  }

  const double load_before = load_average();
  std::vector<double> rulers;
  std::string host;  // as the runner records it in run.json
  for (int k = 0; k < l.ruler_repeats; ++k) {
    double wall = 0;
    const auto r = run_workload(l, dualgap, out / fmt::format("{}-{}", l.ruler, k), l.ruler, &wall);
    rulers.push_back(r.doc["summary"].value("time", NAN));
    host = r.doc.value("environment", json::object()).value("host", "unknown");
  }
  std::vector<double> sorted = rulers;
  std::sort(sorted.begin(), sorted.end());
  const double ruler = sorted[sorted.size() / 2];
  fmt::print("ruler {}: solver time median {:.3f} s [{:.3f}, {:.3f}] of {} runs\n\n", l.ruler, ruler, sorted.front(),
             sorted.back(), sorted.size());

  fmt::print("{:<16} {:<18} {:>12} {:>12} {:>12} {:>12} {:>9} {:>9} {:>7}  {}\n", "workload", "target", "passes",
             "exact calls", "approx calls", "primal", "solver s", "ratio", "wall s", "counts");
  json updated = expected;
  json ratios = json::object();
  int mismatches = 0;
  std::vector<std::string> notes;
  for (const auto& w : l.workloads) {
    double wall = 0;
    const auto r = run_workload(l, dualgap, out / w.name, w.name, &wall);
    const auto m = measure(r, w.to, wall);
    if (!m.row) {
      ++mismatches;
      fmt::print("{:<16} {:<18} not reached (status {}, {} checkpoints)\n", w.name, w.to.text(), m.status, r.rows);
      notes.push_back(fmt::format("{}: the target {} was not reached", w.name, w.to.text()));
      continue;
    }
    json got = json::object();
    for (const auto& c : kCounts) {
      const double v = m.counts.at(c);
      // whole counts as integers: counts.json is read by people reviewing a commit
      if (v == std::floor(v) && std::abs(v) < 9e15) got[c] = static_cast<std::int64_t>(v);
      else got[c] = v;
    }
    std::string verdict = "same";
    if (!expected.contains(w.name)) {
      verdict = "new";
      if (!update) {
        ++mismatches;
        notes.push_back(w.name + ": no counts in counts.json (--update writes them)");
      }
    } else {
      for (const auto& c : kCounts) {
        const json& e = expected[w.name].contains(c) ? expected[w.name][c] : json(nullptr);
        if (!e.is_number() || e.get<double>() != m.counts.at(c)) {
          verdict = "CHANGED";
          notes.push_back(fmt::format("{}: {} {} (counts.json: {})", w.name, c, count_text(m.counts.at(c)),
                                      e.is_number() ? count_text(e.get<double>()) : std::string("none")));
        }
      }
      if (verdict == "CHANGED" && !update) ++mismatches;
    }
    updated[w.name] = got;
    const double ratio = m.solver_time / ruler;
    ratios[w.name] = std::round(ratio * 1e4) / 1e4;
    fmt::print("{:<16} {:<18} {:>12} {:>12} {:>12} {:>12} {:>9.3f} {:>9.3f} {:>7.2f}  {}\n", w.name, w.to.text(),
               count_text(m.counts.at("passes")), count_text(m.counts.at("oracle_calls")),
               count_text(m.counts.at("approx_oracle_calls")), count_text(m.counts.at("primal")), m.solver_time,
               ratio, m.wall, verdict);
  }
  const double load_after = load_average();
  fmt::print("\n1-minute load {:.2f} before, {:.2f} after; ratio = solver time to the target / the ruler's\n",
             load_before, load_after);
  for (const auto& n : notes) fmt::print("  {}\n", n);

  if (update) {
    // Only the listed workloads are kept: a workload taken off the ledger loses its counts.
    json kept = json::object();
    for (const auto& w : l.workloads)
      if (updated.contains(w.name)) kept[w.name] = updated[w.name];
    dualgap::write_file_atomic(counts_file.string(), dualgap::json_text(kept, 2) + "\n");
    fmt::print("wrote {}: say in the commit why the counts changed\n", counts_file.string());
  }
  if (mismatches) {
    fmt::print("{} workload(s) differ from counts.json: an algorithmic change must update them "
               "(dualgap-ledger check --update) and its commit say why\n", mismatches);
    return 1;
  }
  if (record) {
    const fs::path history = l.dir / "history.jsonl";
    std::string text = fs::exists(history) ? dualgap::read_file(history.string()) : std::string();
    json line = {{"commit", git_commit(l.dir)}, {"date", dualgap::iso_time_now()}, {"host", host},
                 {"load", {std::round(load_before * 100) / 100, std::round(load_after * 100) / 100}},
                 {"ruler_s", std::round(ruler * 1e4) / 1e4}, {"ratios", ratios}};
    text += dualgap::json_text(line) + "\n";
    dualgap::write_file_atomic(history.string(), text);
    fmt::print("recorded in {}\n", history.string());
  }
  return 0;
}

int history(const Ledger& l) {
  const fs::path file = l.dir / "history.jsonl";
  if (!fs::exists(file)) {
    fmt::print("no history yet ({}): dualgap-ledger check --record adds a line\n", file.string());
    return 0;
  }
  const std::string text = dualgap::read_file(file.string());
  std::vector<std::string> names;
  for (const auto& w : l.workloads) names.push_back(w.name);
  fmt::print("{:<12} {:<20} {:<11} {:>8}", "commit", "date", "load", "ruler s");
  for (const auto& n : names) fmt::print(" {:>15}", n);
  fmt::print("\n");
  std::size_t begin = 0, line_no = 0;
  while (begin < text.size()) {
    const auto end = std::min(text.find('\n', begin), text.size());
    const std::string line = text.substr(begin, end - begin);
    begin = end + 1;
    ++line_no;
    if (line.empty()) continue;
    json e;
    try {
      e = json::parse(line);
      const auto& load = e.at("load");
      fmt::print("{:<12} {:<20} {:<11} {:>8.3f}", e.at("commit").get<std::string>(),
                 e.at("date").get<std::string>().substr(0, 19),
                 fmt::format("{:.2f}/{:.2f}", load.at(0).get<double>(), load.at(1).get<double>()),
                 e.at("ruler_s").get<double>());
      for (const auto& n : names) {
        const auto& r = e.at("ratios");
        if (r.contains(n) && r[n].is_number())
          fmt::print(" {:>15.3f}", r[n].get<double>());
        else
          fmt::print(" {:>15}", "-");
      }
      fmt::print("\n");
    } catch (const json::exception& ex) {
      throw UsageError(fmt::format("{}:{}: expected a ledger entry ({})", file.string(), line_no, ex.what()));
    }
  }
  return 0;
}

void usage(std::FILE* to) {
  std::fputs(
      "usage: dualgap-ledger check [--dualgap BIN] [--out DIR] [--update] [--record] [--ledger DIR]\n"
      "       dualgap-ledger history [--ledger DIR]\n"
      "check: run every workload of bench/ledger, compare its counts with counts.json (exit 1 when one differs)\n"
      "  --update  write this run's counts into counts.json (an algorithmic change; say why in its commit)\n"
      "  --record  when every count matches, add this run's time ratios to history.jsonl\n"
      "history: the recorded ratios, one line per recorded run\n",
      to);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty() || args[0] == "--help" || args[0] == "-h") {
      usage(args.empty() ? stderr : stdout);
      return args.empty() ? 2 : 0;
    }
    const std::string command = args[0];
    std::string dualgap = DUALGAP_LEDGER_DUALGAP;
    fs::path out = fs::temp_directory_path() / "dualgap-ledger";
    fs::path dir = DUALGAP_LEDGER_DIR;
    bool update = false, record = false;
    for (std::size_t i = 1; i < args.size(); ++i) {
      const auto value = [&]() -> std::string {
        if (i + 1 >= args.size()) throw UsageError(args[i] + ": expected a value");
        return args[++i];
      };
      if (args[i] == "--dualgap") dualgap = value();
      else if (args[i] == "--out") out = value();
      else if (args[i] == "--ledger") dir = value();
      else if (args[i] == "--update") update = true;
      else if (args[i] == "--record") record = true;
      else throw UsageError("unknown option '" + args[i] + "'");
    }
    const Ledger l = read_ledger(dir);
    if (command == "check") return check(l, dualgap, out, update, record);
    if (command == "history") return history(l);
    throw UsageError("unknown command '" + command + "' (expected check or history)");
  } catch (const UsageError& e) {
    std::cerr << "dualgap-ledger: " << e.what() << "\n";
    return 2;
  } catch (const dualgap::yaml::Error& e) {
    std::cerr << "dualgap-ledger: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "dualgap-ledger: " << e.what() << "\n";
    return 1;
  }
}
