// `dualgap run --executor slurm`: one sbatch job array running the experiment's unfinished runs
// through the same child-process runner, and one dependent job writing report.html once.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "experiment/config.hpp"
#include "plugins/loader.hpp"

namespace dualgap::slurm {

/// The executor settings: the experiment's `executor:` section, then `--set executor.KEY=V`,
/// then the command-line options (each later one wins).
struct Options {
  std::string name = "local";  ///< local or slurm
  std::string partition, time, mem;
  int cpus_per_task = 0;   ///< 0: Slurm's default (one); also the --jobs of each task
  int max_concurrent = 0;  ///< 0: no %K limit on the array
  int runs_per_task = 1;
  std::vector<std::string> sbatch_args;
};

/// Reads `executor:` from the experiment file and removes the `executor.*` entries from `sets`
/// (applying them here), so the runs' configurations and config hashes never depend on where
/// they run. Throws ConfigError with file:line:col or the --set argument.
DUALGAP_API Options read_options(const std::string& experiment_file, std::vector<std::string>& sets);

struct Submission {
  std::string experiment_file;    ///< as given; made absolute for the tasks
  std::vector<std::string> sets;  ///< the --set overrides (without executor.*) passed to every task
  std::string out_dir;
  double deadline_s = 0;
  bool force = false;
  bool wait = false;
};

/// Submits the runs not finished before (all with `force`) and prints the job ids. With `wait`,
/// blocks until the array and the report job have left the queue. Returns the exit status
/// (0; with wait, 1 when a run did not finish as a local run would count it).
DUALGAP_API int submit(const std::vector<RunSpec>& runs, const Options& opts, const Submission& sub,
                       const PluginRegistry& reg);

/// Shell-quotes one word for a bash script.
DUALGAP_API std::string shell_quote(const std::string& word);

}  // namespace dualgap::slurm
