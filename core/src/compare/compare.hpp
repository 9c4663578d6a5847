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

/// Writes the HTML report of the runs under `result_dirs` to `html_path` (`dualgap run` calls
/// it at its end with {<out>/<experiment>}; defined with the compare command in cli/, as it
/// shows the claims' verdicts). Returns `html_path`; throws std::runtime_error when no run
/// could be read or the file cannot be written.
DUALGAP_API std::string write_report(const std::vector<std::string>& result_dirs,
                                     const std::string& html_path);

}  // namespace dualgap::compare
