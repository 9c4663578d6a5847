// Benchmark of `dualgap compare` against its targets:
//   1. 1000 runs x 200 checkpoints (10 problems x 4 solvers x 25 repeats): compare --table,
//      --json and --html must finish in under 5 s;
//   2. HTML report of a 40-run experiment (4 solvers x 10 repeats): under 5 MB, renders in
//      headless Chromium in under 2 s (in-page drawing time and the browser's wall time).
//
// usage: compare_bench [RUNS=1000] [CHECKPOINTS=200]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <regex>
#include <sstream>
#include <string>

#include <fmt/format.h>

#include "../tests/compare/synthetic.hpp"
#include "cli/command.hpp"
#include "compare/compare.hpp"
#include "compare/model.hpp"

using dualgap::cli::run_command;  // a command as the CLI runs it: its exit status

namespace fs = std::filesystem;
using namespace dualgap::compare;
using dualgap::compare::testing::SyntheticRun;
using dualgap::compare::testing::TempDir;

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void generate(const fs::path& root, const std::string& experiment, int problems, int solvers, int repeats,
              int checkpoints) {
  const char* names[] = {"BCFW", "MP-BCFW", "MP-BCFW-avg", "SSG", "FW", "BCFW-avg"};
  for (int p = 0; p < problems; ++p)
    for (int s = 0; s < solvers; ++s)
      for (int r = 0; r < repeats; ++r) {
        SyntheticRun run;
        run.experiment = experiment;
        run.solver = names[s % 6];
        run.problem_key = "problem-" + std::to_string(p);
        run.run_id = fmt::format("p{}-{}-r{}", p, run.solver, r);
        run.seed = r;
        run.checkpoints = checkpoints;
        run.rate = 0.02 * (s + 1);
        run.optimum = 1.0 + p;
        if (r == 0 && s == 0) run.status = "timeout";
        dualgap::compare::testing::write_run(root, synthetic_run_json(run));
      }
}

int run_quiet(const std::vector<std::string>& args) {
  std::ostringstream sink;
  auto* old = std::cout.rdbuf(sink.rdbuf());
  int rc = run_command("compare", args);
  std::cout.rdbuf(old);
  return rc;
}


// Opens `html` in headless Chromium and prints when the page was ready (data-ready-ms, set by
// the report's script once every chart is drawn) and the whole browser process's wall time.
void measure_in_chromium(const std::string& name, const std::string& html) {
  const char* chromium = "/usr/bin/chromium";
  if (!fs::exists(chromium)) {
    std::cout << "  (no /usr/bin/chromium: render time not measured)\n";
    return;
  }
  TempDir profile;
  const std::string cmd = fmt::format(
      "{} --headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking "
      "--disable-component-update --disable-sync --user-data-dir={} --window-size=1400,900 --dump-dom file://{} "
      "2>/dev/null",
      chromium, profile.path.string(), html);
  auto t0 = std::chrono::steady_clock::now();
  const std::string dom = dualgap::compare::testing::run_capture(cmd);
  const double wall = seconds_since(t0);
  std::smatch m;
  std::string ms = std::regex_search(dom, m, std::regex("data-render-ms=\"([0-9.]+)\"")) ? m[1].str() : "?";
  std::string ready = std::regex_search(dom, m, std::regex("data-ready-ms=\"([0-9.]+)\"")) ? m[1].str() : "?";
  std::cout << fmt::format("  {} report ({:.2f} MB) in headless Chromium: page ready {} ms after navigation start "
                           "(script: {} ms) [target < 2 s: {}]; whole browser process {:.2f} s\n",
                           name, fs::file_size(html) / 1e6, ready, ms,
                           ready != "?" && std::stod(ready) < 2000 ? "ok" : "MISSED", wall);
}
}  // namespace

int main(int argc, char** argv) {
  const int runs = argc > 1 ? std::atoi(argv[1]) : 1000;
  const int checkpoints = argc > 2 ? std::atoi(argv[2]) : 200;
  TempDir tmp;

  // ---- 1. many runs ----
  const int problems = std::max(1, runs / 100), solvers = 4, repeats = std::max(1, runs / (problems * solvers));
  generate(tmp.path / "big", "big", problems, solvers, repeats, checkpoints);
  const int total = problems * solvers * repeats;
  const std::string dir = (tmp.path / "big").string();
  auto t0 = std::chrono::steady_clock::now();
  RunSet set = load_runs({dir});
  const double t_load = seconds_since(t0);
  t0 = std::chrono::steady_clock::now();
  auto tables = compute_tables(set, "primal_subopt", {1e-1, 1e-2, 1e-3, 1e-4}, Options{});
  const double t_tables = seconds_since(t0);
  t0 = std::chrono::steady_clock::now();
  int rc = run_quiet({dir, "--table"});
  const double t_table = seconds_since(t0);
  t0 = std::chrono::steady_clock::now();
  rc |= run_quiet({dir, "--json=" + (tmp.path / "big.json").string()});
  const double t_json = seconds_since(t0);
  const std::string big_html = (tmp.path / "big.html").string();
  t0 = std::chrono::steady_clock::now();
  rc |= run_quiet({dir, "--html", big_html});
  const double t_html = seconds_since(t0);
  std::cout << fmt::format("compare over {} runs x {} checkpoints ({} problems):\n", total, checkpoints, problems)
            << fmt::format("  load+group {:.3f} s, tables {:.3f} s\n", t_load, t_tables)
            << fmt::format("  compare --table {:.3f} s   [target < 5 s: {}]\n", t_table, t_table < 5 ? "ok" : "MISSED")
            << fmt::format("  compare --json  {:.3f} s\n", t_json)
            << fmt::format("  compare --html  {:.3f} s ({:.2f} MB)\n", t_html, fs::file_size(big_html) / 1e6);

  // ---- 2. HTML report of a 40-run experiment ----
  generate(tmp.path / "small", "forty", 1, 4, 10, checkpoints);
  const std::string html = (tmp.path / "forty.html").string();
  t0 = std::chrono::steady_clock::now();
  rc |= run_quiet({(tmp.path / "small").string(), "--html", html, "--x", "oracle_calls"});
  const double t_small = seconds_since(t0);
  const double mb = fs::file_size(html) / 1e6;
  std::cout << fmt::format("40-run HTML report: {:.3f} MB [target < 5 MB: {}], written in {:.3f} s\n", mb,
                           mb < 5 ? "ok" : "MISSED", t_small);
  // Load time in headless Chromium of both reports: the 40-run one and the 1000-run one.
  for (const auto& [name, page] : {std::pair<std::string, std::string>{"40-run", html}, {"big", big_html}})
    measure_in_chromium(name, page);
  return rc == 0 ? 0 : 1;
}
