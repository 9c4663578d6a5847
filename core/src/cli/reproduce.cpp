// `dualgap reproduce FOLDER [--scale ci|full] [--executor slurm] [--jobs N] [--out DIR] [--from RESULTS] [--write]`
// and `dualgap results pack SRC DST`.
//
// reproduce is the other commands in sequence, through their own entry points (one table, one
// set of checks): `data fetch` for the data sets the folder's experiments name and that are not
// at hand, `run` for each experiment file (the runner resumes), then check's claims and the
// figures the folder's claims.yaml declares (check/figures.cpp on compare's paper-style renderer),
// and the README section built from them, shown as a diff against the committed one.
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/files.hpp"
#include "base/util.hpp"
#include "check/claims.hpp"
#include "cli/entries.hpp"
#include "cli/params_table.hpp"
#include "compare/table_format.hpp"
#include "experiment/config.hpp"
#include "experiment/schema.hpp"
#include "run/run_files.hpp"

namespace fs = std::filesystem;

namespace dualgap::cli {

namespace {

const SectionMarkers kSection = {"<!-- reproduce:begin -->", "<!-- reproduce:end -->", "the place of the reproduction section"};
const SectionMarkers kIndex = {"<!-- figures:begin -->", "<!-- figures:end -->", "the place of the figures index"};

}  // namespace

/// A unified diff of two texts: one hunk from the first differing line to the last, with three
/// lines of context (a section replaced between markers differs in one stretch). Empty when equal.
std::string unified_diff(const std::string& before, const std::string& after, const std::string& name) {
  if (before == after) return "";
  const auto a = lines_of(before), b = lines_of(after);
  std::size_t head = 0;
  while (head < a.size() && head < b.size() && a[head] == b[head]) ++head;
  std::size_t tail = 0;
  while (tail < a.size() - head && tail < b.size() - head && a[a.size() - 1 - tail] == b[b.size() - 1 - tail]) ++tail;
  const std::size_t ctx = 3, from = head > ctx ? head - ctx : 0;
  const std::size_t a_end = std::min(a.size(), a.size() - tail + ctx), b_end = std::min(b.size(), b.size() - tail + ctx);
  std::string out = fmt::format("--- {}\n+++ {} (reproduced)\n@@ -{},{} +{},{} @@\n", name, name, from + 1, a_end - from,
                                from + 1, b_end - from);
  for (std::size_t i = from; i < head; ++i) out += " " + a[i] + "\n";
  for (std::size_t i = head; i < a.size() - tail; ++i) out += "-" + a[i] + "\n";
  for (std::size_t i = head; i < b.size() - tail; ++i) out += "+" + b[i] + "\n";
  for (std::size_t i = a.size() - tail; i < a_end; ++i) out += " " + a[i] + "\n";
  return out;
}

namespace {

/// `text` with the lines between the marker lines replaced by `body` (with_section); without
/// either marker line, the section is appended. Throws when only one is there, or they repeat.
std::string replace_section(const std::string& text, const SectionMarkers& markers, const std::string& body,
                            const std::string& file) {
  if (has_section(text, markers)) return with_section(text, markers, body, file);
  return text + (text.empty() || text.back() == '\n' ? "\n" : "\n\n") + markers.begin + "\n" + body + markers.end + "\n";
}

/// The data sets an experiment names as ${DUALGAP_DATA}/NAME/... (read by the experiment loader
/// without expanding variables, where ${VAR} reads $(VAR)).
void data_named(const nlohmann::json& v, std::set<std::string>& names) {
  if (v.is_string()) {
    const std::string s = v.get<std::string>();
    for (const std::string marker : {"${DUALGAP_DATA}/", "$(DUALGAP_DATA)/"})
      for (std::size_t at = s.find(marker); at != std::string::npos; at = s.find(marker, at + 1)) {
        const std::size_t start = at + marker.size(), slash = s.find('/', start);
        if (slash != std::string::npos && slash > start) names.insert(s.substr(start, slash - start));
      }
  } else if (v.is_array() || v.is_object()) {
    for (const auto& child : v) data_named(child, names);
  }
}

struct ExperimentRun {
  std::string file;
  std::vector<std::string> sets;
};

/// The experiment files of the folder at a scale: at full scale those claims.yaml's `protocol`
/// lists, as the files say (the folder's only experiment file when it lists none: a second *.yaml
/// dropped in the folder is never run unlisted); at ci scale the claims' ci profile, with its --set
/// values (a folder's profile may leave out its longest files). Each named file must be there.
std::vector<ExperimentRun> experiment_runs(const fs::path& folder, const check::ClaimsFile& claims, bool ci) {
  std::vector<ExperimentRun> out;
  if (ci) {
    if (claims.ci.empty())
      throw ConfigError(fmt::format("{}: no 'ci' profile: --scale ci needs one (see docs/check.md)", claims.path));
    for (const auto& c : claims.ci) out.push_back({c.file, c.sets});
  } else if (!claims.protocol.empty()) {
    for (const auto& f : claims.protocol) out.push_back({f, {}});
  } else {
    std::vector<std::string> files;
    for (const auto& e : fs::directory_iterator(folder))
      if (e.path().extension() == ".yaml" && e.path().filename() != "claims.yaml") files.push_back(e.path().filename().string());
    std::sort(files.begin(), files.end());
    if (files.size() != 1)
      throw ConfigError(fmt::format("{}: no 'protocol' list, and the folder holds {} experiment files ({}): list the "
                                    "files a full reproduction runs as 'protocol: [FILE.yaml, ...]' (see docs/check.md)",
                                    claims.path, files.size(), files.empty() ? "none" : fmt::format("{}", fmt::join(files, ", "))));
    out.push_back({files.front(), {}});
  }
  std::error_code ec;
  for (auto& r : out) {
    if (!fs::is_regular_file(folder / r.file, ec))
      throw ConfigError(fmt::format("{}: {} names '{}', which is not a file of {}", claims.path, ci ? "ci" : "protocol",
                                    r.file, printable(folder.string())));
    r.file = (folder / r.file).string();
  }
  return out;
}

/// Fetches the data sets the experiments name that are not under $DUALGAP_DATA yet: those of
/// the runs as they will run, after their --set values (a ci profile may change a data path).
int fetch_missing(const std::vector<ExperimentRun>& runs) {
  std::set<std::string> names;
  for (const auto& r : runs) {
    LocatedJson doc = load_yaml(r.file, false);
    apply_overrides(doc, r.sets);
    data_named(doc.value, names);
  }
  if (names.empty()) return 0;
  const char* root = std::getenv("DUALGAP_DATA");
  if (!root || !*root)
    throw UsageError(fmt::format("the experiments read {} under $DUALGAP_DATA, which is not set: set it to the data folder",
                                 fmt::join(names, ", ")));
  std::vector<std::string> missing;
  std::error_code ec;
  for (const auto& n : names)
    if (!fs::exists(fs::path(root) / n, ec)) missing.push_back(n);
  if (missing.empty()) return 0;
  std::cerr << fmt::format("reproduce: fetching {} into {}\n", fmt::join(missing, ", "), root);
  std::vector<std::string> args = {"fetch"};
  args.insert(args.end(), missing.begin(), missing.end());
  return run_command("data", args);
}

/// A declared sentence as the README prints it: capitalised, ending with a full stop.
std::string sentence(std::string s) {
  if (!s.empty()) s[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(s[0])));
  if (!s.empty() && s.back() != '.' && s.back() != '!' && s.back() != '?') s += '.';
  return s;
}

/// The width of a figure in the experiments index: a panel of a three-panel figure stays about
/// as wide as the paper's (the index showed 240 px, where a 16-panel figure could not be read).
constexpr int kThumbnailWidth = 480;

std::string figure_alt(const check::FigureDecl& f) { return f.ref + (f.title.empty() ? "" : ": " + f.title); }

/// The axis labels a drawn figure spec shows: x, and per y of its panels the label it was drawn
/// with (at the levels the figure measured, e.g. "(P - D_best) / |D_best|"), so the README's
/// sentences name what the picture shows.
struct DrawnLabels {
  std::string x;
  std::map<std::string, std::string> y;
};

DrawnLabels drawn_labels(const nlohmann::json& spec) {
  DrawnLabels d;
  for (const auto& panel : spec.value("panels", nlohmann::json::array())) {
    if (d.x.empty()) d.x = panel.value("xlabel", "");
    if (panel.contains("y")) d.y.emplace(panel["y"].get<std::string>(), panel.value("ylabel", ""));
  }
  return d;
}

/// The README section: the declared figures with one sentence per panel, the declared tables
/// (`tables`, already rendered), then the claims table. `drawn[k]` holds the labels figure k was
/// drawn with.
std::string readme_section(const fs::path& folder, const check::ClaimsFile& claims, const std::vector<DrawnLabels>& drawn,
                           const std::string& tables, const std::string& claims_table, const std::string& source, bool ci,
                           const std::string& tally) {
  std::string s = fmt::format(
      "## Reproduction\n\nGenerated by `dualgap reproduce experiments/{}{}` from {}{}; "
      "`dualgap compare {} DIR` sets your own runs beside these.\n\n",
      folder.filename().string(), source.empty() ? "" : " --from " + source, source.empty() ? "the runs it made" : "`" + source + "`",
      ci ? " (CI scale: fewer repeats and budgets than the paper's protocol)" : "", source.empty() ? "RESULTS" : source);
  for (std::size_t k = 0; k < claims.figures.size(); ++k) {
    const auto& f = claims.figures[k];
    const auto label = [&](const std::string& y) {
      const auto it = drawn[k].y.find(y);
      return it != drawn[k].y.end() && !it->second.empty() ? it->second : compare::axis_label(y);
    };
    std::vector<std::string> ys;
    for (const auto& p : f.panels) ys.push_back(label(p.y));
    s += fmt::format("![{}]({})\n\n", figure_alt(f), f.file);
    s += fmt::format("*{}*: {} against {}.\n\n", f.ref, fmt::join(ys, ", "),
                     drawn[k].x.empty() ? compare::axis_label(f.x) : drawn[k].x);
    for (const auto& p : f.panels)
      s += fmt::format("- **{}**. Paper: {} Ours: {}\n", label(p.y), sentence(p.paper), sentence(p.ours));
    s += "\n";
  }
  s += tables;
  s += compare::render_heading("Claims", compare::TableFormat::markdown) + claims_table + "\n" + tally;
  return s;
}

/// The index of the experiments folder: one row per folder with a declared figure or table,
/// every figure as a thumbnail wide enough to read (from the declarations only: no run is read),
/// its tables named. `own` is the claims file of the folder being reproduced, read already.
std::string index_rows(const fs::path& experiments, const fs::path& folder, const check::ClaimsFile& own) {
  std::vector<fs::path> folders;
  for (const auto& e : fs::directory_iterator(experiments))
    if (e.is_directory() && fs::exists(e.path() / "claims.yaml")) folders.push_back(e.path());
  std::sort(folders.begin(), folders.end());
  compare::Table table{{"folder", "paper figure or table", "reproduced"}, {}};
  for (const auto& d : folders) {
    const bool is_own = d.filename() == folder.filename();
    const check::ClaimsFile other =
        is_own ? check::ClaimsFile{} : as_configuration([&] { return check::read_claims((d / "claims.yaml").string()); });
    const check::ClaimsFile& f = is_own ? own : other;
    if (f.figures.empty() && f.tables.empty()) continue;
    const std::string name = d.filename().string();
    std::vector<std::string> refs, shown;
    for (const auto& fig : f.figures) {
      refs.push_back(fig.ref);
      // A figure not drawn yet (no reference runs) is said so, not shown as a broken image.
      shown.push_back(fs::exists(d / fig.file) ? fmt::format("<img src=\"{}/{}\" alt=\"{}\" width=\"{}\">", name, fig.file,
                                                             figure_alt(fig), kThumbnailWidth)
                                               : fig.ref + ": not drawn yet (no reference runs in results/)");
    }
    for (const auto& t : f.tables) {
      refs.push_back(t.ref);
      shown.push_back(fmt::format("[{} (a table)]({}/README.md#reproduction)", t.ref, name));
    }
    table.rows.push_back({fmt::format("[{}]({}/)", name, name), fmt::format("{}", fmt::join(refs, ", ")),
                          fmt::format("{}", fmt::join(shown, " "))});
  }
  return compare::render_table(table, compare::TableFormat::markdown);
}

/// Prints the diff of `file` against `updated`; with `write`, writes it. Returns true when they differ.
bool show_or_write(const fs::path& file, const std::string& updated, bool write) {
  std::error_code ec;
  const std::string current = fs::exists(file, ec) ? read_file(file.string()) : "";
  const std::string diff = unified_diff(current, updated, file.string());
  if (diff.empty()) return false;
  std::cout << diff;
  if (write) {
    write_file_atomic(file.string(), updated);
    std::cerr << "wrote " << file.string() << "\n";
  }
  return true;
}

}  // namespace

void reproduce_options(po::options_description& d) {
  d.add_options()("scale", choice({"full", "ci"}, false),
                  "full (the folder's protocol) or ci (its claims' ci profile: fewer repeats, smaller budgets)")(
      "executor", choice({"local", "slurm"}, false), "where the runs run: local (default) or slurm (submitted; reproduce "
                                              "again with --from once the jobs are done)")(
      "jobs,j", whole(1, 4096, "the number of runs at once"), "runs at once (run's --jobs; the protocol's timings "
                                                               "assume what each folder's README says)")(
      "out,o", output_path()->default_value("runs"), "results folder of the runs: OUT/FOLDER (resumed when it exists)")(
      "from", po::value<std::string>(), "render from this results folder (e.g. results/FOLDER) without running anything")(
      "figures", output_path(), "where the figures are written without --write (default: OUT/FOLDER/figures)")(
      "write", "write the figures beside the README, the README's section and the experiments index");
}

int reproduce_main(const Args& a) {
  // Usage first: a conflict of options is reported before any file is read.
  if (a.has("from") && (a.has("scale") || a.has("executor") || a.has("jobs")))
    throw UsageError("--from renders recorded runs: --scale, --executor and --jobs apply to a run, not to --from");
  fs::path folder = fs::path(a.text("folder")).lexically_normal();
  if (folder.filename().empty()) folder = folder.parent_path();  // "experiments/x/": its name and parent
  const fs::path claims_path = folder / "claims.yaml";
  std::error_code ec;
  if (!fs::is_regular_file(claims_path, ec))
    throw UsageError(fmt::format("FOLDER '{}': expected an experiment folder holding a claims.yaml", printable(folder.string())));
  const check::ClaimsFile claims = as_configuration([&] { return check::read_claims(claims_path.string()); });
  const bool ci = a.text("scale") == "ci", write = a.has("write");
  const std::string name = folder.filename().string();
  std::string results;
  int status = 0;
  if (a.has("from")) {
    results = a.text("from");
  } else {
    results = (fs::path(a.text("out")) / name).string();
    const auto runs = experiment_runs(folder, claims, ci);
    if (const int rc = fetch_missing(runs); rc != 0) return rc;
    for (const auto& r : runs) {
      std::vector<std::string> args = {r.file, "--out", results};
      if (a.has("executor")) args.insert(args.end(), {"--executor", a.text("executor")});
      if (a.has("jobs")) args.insert(args.end(), {"--jobs", std::to_string(a.get<int>("jobs"))});
      for (const auto& s : r.sets) args.insert(args.end(), {"--set", s});
      std::cerr << fmt::format("reproduce: dualgap run {}\n", fmt::join(args, " "));
      const int rc = run_command("run", args);
      if (rc == 2 || rc > 100) return rc;  // invalid configuration, folder in use, or stopped by a signal
      status = std::max(status, rc);       // a failed run: the others still make the figures
    }
    if (a.text("executor") == "slurm") {
      std::cout << fmt::format("submitted; once the jobs are done: dualgap reproduce {} --from {}\n", folder.string(), results);
      return status;
    }
  }
  compare::RunSet set = compare::load_runs({results});
  for (const auto& w : set.warnings) std::cerr << "warning: " << w << "\n";
  if (set.runs.empty()) throw std::runtime_error(fmt::format("no readable run record under {}", results));

  std::vector<check::Outcome> outcomes;
  check::Tally counts;
  for (const auto& c : claims.claims) {
    outcomes.push_back(check::evaluate(set, claims, c, ci));
    counts.add(outcomes.back());
  }
  const std::string table = check::format_outcomes(claims, outcomes, "markdown");
  const std::string tally = counts.line();
  std::cerr << tally;

  const fs::path figures = write ? folder : a.has("figures") ? fs::path(a.text("figures")) : fs::path(results) / "figures";
  fs::create_directories(figures);
  compare::Options options;
  std::vector<DrawnLabels> drawn;
  for (const auto& f : claims.figures) {
    const compare::RunSet runs = check::figure_runs(set, claims, f);
    const nlohmann::json spec = check::declared_figure_spec(runs, f, options);
    drawn.push_back(drawn_labels(spec));
    compare::write_figure(spec, (figures / f.file).string());
    std::cerr << "wrote " << (figures / f.file).string() << "\n";
  }
  if (claims.figures.empty() && claims.tables.empty())
    std::cerr << fmt::format("warning: {} declares no figures and no tables\n", claims_path.string());
  std::string tables;
  for (const auto& t : claims.tables) tables += check::table_markdown(set, claims, t) + "\n";

  const fs::path readme = folder / "README.md";
  const std::string current = fs::exists(readme, ec) ? read_file(readme.string()) : "";
  const std::string updated = replace_section(
      current, kSection, readme_section(folder, claims, drawn, tables, table, a.has("from") ? a.text("from") : "", ci, tally),
      readme.string());
  bool differs = show_or_write(readme, updated, write);
  // The experiments index: one thumbnail row per folder, when the parent README has its markers.
  const fs::path parent = folder.parent_path().empty() ? fs::path(".") : folder.parent_path();
  const fs::path index = parent / "README.md";
  if (fs::exists(index, ec)) {
    const std::string text = read_file(index.string());
    if (has_section(text, kIndex))
      differs = show_or_write(index, replace_section(text, kIndex, index_rows(parent, folder, claims), index.string()), write) ||
                differs;
  }
  if (!differs) std::cerr << "reproduce: the README section is as committed\n";
  return status;
}

int results_main(const Args& a) {
  const std::string src = a.text("src"), dst = a.text("dst");  // both required: parse_args says so
  std::error_code ec;
  if (!fs::exists(src, ec)) throw UsageError(fmt::format("SRC '{}': no such file or folder", printable(src)));
  const std::size_t n = pack_runs(src, dst);
  if (n == 0) throw std::runtime_error(fmt::format("no run record under {}", src));
  std::cerr << fmt::format("packed {} run records into {}\n", n, dst);
  return 0;
}

}  // namespace dualgap::cli
