// The one way the core starts another program (git, sbatch, squeue, sacct, python): from an
// argument vector with posix_spawnp, never through a shell, so no byte of an argument (a job id
// read from a results folder, a path, a name) can become a command.
#pragma once

#include <string>
#include <vector>

#include "dualgap/api.hpp"

namespace dualgap {

struct ProcessOptions {
  /// What becomes of the child's stdout and stderr: captured into the result, passed through to
  /// ours, or discarded. stdin is always /dev/null.
  enum class Stream { capture, inherit, discard };
  Stream out = Stream::capture;
  Stream err = Stream::capture;
  std::string cwd;                       ///< working folder of the child; empty: ours
  double timeout_s = 0;                  ///< > 0: SIGTERM after this, SIGKILL 2 s later
  std::size_t max_capture = 16u << 20;   ///< bytes kept per captured stream; the rest is read and dropped
  /// Open descriptors of ours (each >= 3) the child receives as 3, 4, ... in this order, e.g. an
  /// anonymous input and an AtomicFile to write: data passed without a path anyone could swap.
  std::vector<int> pass_fds;
};

struct ProcessResult {
  int exit_code = -1;       ///< the exit status when the program exited, else -1
  int signal = 0;           ///< the signal that ended it, 0 if it exited
  bool timed_out = false;   ///< ended by us at ProcessOptions::timeout_s
  std::string out, err;     ///< captured output (up to max_capture bytes each)
  bool ok() const { return exit_code == 0 && signal == 0 && !timed_out; }
  /// "exit status 3", "killed by signal 9 (Killed)", "timed out after 5 s".
  DUALGAP_API std::string how_ended() const;
};

/// Starts argv[0] (looked up in PATH when it has no '/') with argv as its arguments and waits
/// for it. Throws std::runtime_error naming the program when it cannot be started (not found,
/// not executable, bad working folder); any end of a started program is returned, not thrown.
DUALGAP_API ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& opts = {});

/// argv as one line for a message: words with anything but [A-Za-z0-9_./:=,@%+-] single-quoted.
DUALGAP_API std::string describe_command(const std::vector<std::string>& argv);

}  // namespace dualgap
