// `dualgap compare`: which solver gets where, how fast, how reliably.
//
// Reads run.json files (given files, or directories searched recursively), groups runs by
// problem and solver, measures suboptimality against the best bounds seen for each problem,
// and writes tables (text, Markdown, LaTeX, CSV, JSON), a self-contained HTML report (uPlot),
// publication-ready figures (matplotlib), performance profiles and a long-format CSV of curves.
// See docs/compare.md.
#pragma once

#include <string>
#include <vector>

#include "dualgap/api.hpp"

namespace dualgap::compare {

/// Entry point of `dualgap compare ARGS...`; `args` are the words after "compare".
/// Returns the exit status: 0 ok, 1 failure (no runs, I/O, plotting), 2 bad usage.
DUALGAP_API int compare_main(const std::vector<std::string>& args);

/// Writes the HTML report of the runs under `result_dirs` to `html_path` (the runner calls it
/// at the end of `dualgap run` with {<out>/<experiment>}). Returns `html_path`; throws
/// std::runtime_error when no run could be read or the file cannot be written.
DUALGAP_API std::string write_report(const std::vector<std::string>& result_dirs,
                                     const std::string& html_path);

}  // namespace dualgap::compare
