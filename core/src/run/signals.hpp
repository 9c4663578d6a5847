// Stop requests to a `dualgap run` parent (SIGTERM from Slurm/kill/timeout, SIGINT from Ctrl-C,
// SIGHUP from a closed terminal), and what each forked child does so it never outlives its parent.
#pragma once

#include <sys/types.h>

namespace dualgap {

/// Installs handlers for SIGTERM, SIGINT and SIGHUP that only record the signal; the runner's
/// loop then stops its children and keeps their partial curves. Restores the old handlers when
/// destroyed (so a library caller gets its own handling back).
class StopSignals {
 public:
  StopSignals();
  ~StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;
  /// The signal received (0 while none was).
  static int received();
};

/// In a freshly forked child: default signal handling, and SIGKILL when the parent dies
/// (PR_SET_PDEATHSIG) — without it a child whose parent was SIGKILLed runs on with no watchdog.
void child_after_fork(pid_t parent);

}  // namespace dualgap
