// The children of `dualgap run`: one forked process per run, at most `jobs` at once, each under a
// watchdog (SIGKILL past its deadline), all told to stop together; and what the parent makes of
// the way a child ended (classify), kept apart from the processes so that it is tested alone.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "run/recorder.hpp"

namespace dualgap {

/// How a run's child ended, as the parent saw it.
struct ChildEnd {
  int exit_code = 0;                ///< its exit status, when it exited
  int signal = 0;                   ///< the signal that ended it (0: it exited)
  bool watchdog = false;            ///< the watchdog killed it past its deadline
  bool stop_requested = false;      ///< the parent was told to stop and passed it on
  bool wrote = false;               ///< run.json was written and the partial log removed
  std::optional<RunStatus> written; ///< the status that run.json states (nullopt: unreadable, or none known)
  double elapsed_s = 0;
  double deadline_s = 0;
};

/// The run's status after its child ended, and whether the parent writes its run.json.
struct ChildVerdict {
  RunStatus status = RunStatus::failed;
  /// The child's run.json is missing or does not describe this end: the parent writes one from
  /// the partial log, with this status and `message`.
  bool salvage = false;
  std::string message;
};

/// Classifies a child's end (no side effects): the watchdog's kill is a timeout; a stop signal
/// (the parent's, or SIGTERM/SIGINT/SIGHUP sent to the whole process group by Slurm or Ctrl-C)
/// interrupts the run unless it finished its run.json; any other signal is a crash, a non-zero
/// exit or a missing run.json a failure; otherwise the run's own run.json says.
DUALGAP_API ChildVerdict classify(const ChildEnd& end);

/// Child processes, at most `jobs` at once, each with a wall-clock deadline.
class DUALGAP_API ChildPool {
 public:
  using Clock = std::chrono::steady_clock;
  struct Child {
    pid_t pid = 0;
    std::size_t index = 0;  ///< the caller's number of the run
    Clock::time_point started;
    double deadline_s = 0;
    bool killed = false;    ///< by the watchdog
  };
  /// A child that ended: its exit code or signal, and how long it ran.
  struct Ended {
    Child child;
    int exit_code = 0;
    int signal = 0;
    double elapsed_s = 0;
  };

  explicit ChildPool(int jobs);
  bool full() const { return running_.size() >= jobs_; }
  bool empty() const { return running_.empty(); }
  std::size_t size() const { return running_.size(); }

  /// Forks a child that runs `body` and exits with its result; the child's signal handling is
  /// the default and it dies with the parent (child_after_fork). Throws when fork fails.
  void start(std::size_t index, double deadline_s, const std::function<int()>& body);
  /// SIGTERM to every child: each ends and is reaped by poll() as usual.
  void stop_all();
  /// Waits a tick (5 ms), kills the children past their deadline and returns those that ended,
  /// in the order they were started.
  std::vector<Ended> poll();

 private:
  std::size_t jobs_;
  pid_t parent_;
  std::vector<Child> running_;
};

}  // namespace dualgap
