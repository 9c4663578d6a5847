// `dualgap run --executor slurm`: one sbatch job array running the experiment's unfinished runs
// through the same child-process runner, and one dependent job writing report.html once.
#pragma once

#include <map>
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
  /// Where each key was set last (file:line:col, --set 'ARG', --partition, ...), for messages.
  std::map<std::string, std::string> origin;
};

/// An executor setting given by a command-line option (--partition P is {"partition", "P",
/// "--partition"}); applied after the file and the --set overrides.
struct Override {
  std::string key;
  json value;
  std::string where;
};

/// Reads `executor:` from the experiment file and removes the `executor.*` entries from `sets`
/// (applying them here), then applies `cli`, so the runs' configurations and config hashes never
/// depend on where they run. Every text value (partition, time, mem, sbatch_args) is one line of
/// printable characters and each sbatch argument one long option that leaves the job's files,
/// environment and program to dualgap. Throws ConfigError with file:line:col, the --set argument
/// or the option.
DUALGAP_API Options read_options(const std::string& experiment_file, std::vector<std::string>& sets,
                                 const std::vector<Override>& cli = {});

/// Throws ConfigError when the executor is not slurm but a Slurm setting was given, naming it:
/// a command-line option or --set always; one of the experiment file unless `local` was chosen
/// explicitly (the file's settings are then for another day). Not for the tasks of an array.
DUALGAP_API void refuse_unused(const Options& opts);

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

/// Shell-quotes one word for a bash script (the one quoting of the scripts' command lines).
DUALGAP_API std::string shell_quote(const std::string& word);

/// Quotes one #SBATCH argument as sbatch reads it: between double quotes, with `\` and `"`
/// escaped by a backslash (sbatch takes a backslash as an escape inside quotes too, and a `#`
/// outside quotes as the start of a comment).
DUALGAP_API std::string directive_quote(const std::string& arg);

}  // namespace dualgap::slurm
