// `dualgap evaluate RESULTS...`: re-scores finished runs from their saved iterates (run/rescore).
#include <iostream>

#include "cli/entries.hpp"
#include "run/rescore.hpp"

namespace dualgap::cli {

void evaluate_options(po::options_description& d) {
  const auto assignment = [](const std::string& s) { return s.find('=') != std::string::npos && s.front() != '='; };
  const auto tag = [](const std::string& s) { return !s.empty() && s.find_first_of("@/") == std::string::npos; };
  d.add_options()("data",
                  new CheckedList(assignment, "KEY=VALUE (a parameter of the run's dataset plugin)"),
                  "override a parameter of the runs' dataset plugin, e.g. --data test=other.txt (repeatable)")(
      "tag", text_if(tag, "a non-empty name without '@' or '/'"),
      "suffix of the new columns (default: 'rescored', or KEY=FILE of --data)")(
      "allow-changed-data",
      "re-score even when a data file of the run no longer has the content hash the run recorded (recorded in "
      "the evaluation entry)")(
      "wait-lock", "when another dualgap command writes into the results folder, wait for it (default: exit 2)");
}

int evaluate_main(const Args& a) {
  RescoreOptions opt;
  opt.results = a.list("results");
  for (const auto& d : a.list("data")) {
    const auto eq = d.find('=');
    opt.data.emplace_back(d.substr(0, eq), d.substr(eq + 1));
  }
  opt.tag = a.text("tag");
  opt.allow_changed_data = a.has("allow-changed-data");
  opt.wait_lock = a.has("wait-lock");
  const RescoreCounts c = rescore_runs(opt, std::cout);
  // Data changed since a run: configuration (exit 2), as re-scoring would mix two data sets.
  return c.refused ? 2 : c.failed ? 1 : 0;
}

}  // namespace dualgap::cli
