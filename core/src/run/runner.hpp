// Runs expanded experiments: one child process per run, a watchdog, resume, run.json files.
#pragma once

#include <string>
#include <vector>

#include "experiment/config.hpp"
#include "experiment/config_hash.hpp"

namespace dualgap {

struct RunnerOptions {
  std::string out_dir = "runs";  // as `dualgap run --out` (results/ is the reference runs')
  int jobs = 1;
  bool force = false;
  bool progress_tty = false;     ///< a live progress line (terminal) instead of plain lines
  double deadline_s = 0;         ///< 0: from stop.deadline, else derived from stop.max_time
  bool quiet = false;
};

struct RunnerSummary {
  int total = 0, skipped = 0, done = 0, budget = 0, failed = 0, timeout = 0, diverged = 0, interrupted = 0;
  int stop_signal = 0;  ///< SIGTERM/SIGINT/SIGHUP that stopped the sweep (0: it ran to the end)
  std::vector<std::string> run_dirs;
  bool any_failure() const { return failed + timeout + interrupted > 0 || stop_signal != 0; }
};

/// The content hashes of the files the path parameters of a run's dataset plugin name, by their
/// key in the data section ("params.train": {"path": canonical path, "xxh3": hash}; a folder:
/// the hash of the files under it, with "files": their count, and xxh3 null beyond 100000 files).
/// Recorded in run.json as "data_hashes", so that `dualgap evaluate` can refuse to re-score a run
/// on data that changed since. An unknown plugin: no hashes.
DUALGAP_API json data_hashes(const json& data_section, const PluginRegistry& reg);

/// True when <dir>/run.json finished (done or budget) with this config hash: resume skips it.
DUALGAP_API bool finished_before(const std::string& dir, const std::string& hash);

/// Executes one run in this process and writes <run_dir>/run.json. Failures of the run are
/// recorded in run.json with status "failed"; throws only when run.json cannot be written.
/// `jobs`: the runs going at once, whose share of the CPUs scores the checkpoints (scoring_threads).
DUALGAP_API void execute_run(const RunSpec& run, const std::string& run_dir, const std::string& hash,
                             const PluginRegistry& reg, const std::string& cache_dir, int jobs = 1);

/// Runs all runs (children processes, `jobs` at once), skipping finished ones unless forced.
DUALGAP_API RunnerSummary run_all(const std::vector<RunSpec>& runs, const RunnerOptions& opts,
                                  const PluginRegistry& reg);

}  // namespace dualgap
