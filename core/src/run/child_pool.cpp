#include "run/child_pool.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <stdexcept>
#include <thread>

#include <fmt/format.h>

#include "run/signals.hpp"

namespace dualgap {

namespace {

// A run.json the child finished states the run's status; one that still says `running` (or an
// unknown word) does not describe a finished run.
ChildVerdict as_written(const ChildEnd& e) {
  ChildVerdict v;
  v.status = e.written && *e.written != RunStatus::running ? *e.written : RunStatus::failed;
  return v;
}

ChildVerdict salvaged(RunStatus status, std::string message) { return {status, true, std::move(message)}; }

}  // namespace

ChildVerdict classify(const ChildEnd& e) {
  if (e.watchdog)
    return salvaged(RunStatus::timeout,
                    fmt::format("killed by the watchdog after {:.1f} s (deadline {:.0f} s)", e.elapsed_s, e.deadline_s));
  const bool stopped = e.signal != 0 && (e.stop_requested || e.signal == SIGTERM || e.signal == SIGINT || e.signal == SIGHUP);
  if (stopped) {
    // Told to stop (the parent's signal, or Slurm/Ctrl-C signalling the whole group): keep the
    // partial curve, the resume reruns it; a run.json the child finished is kept as it is.
    if (e.wrote) return as_written(e);
    return salvaged(RunStatus::interrupted, fmt::format("interrupted by signal {} ({}) after {:.1f} s", e.signal,
                                                        strsignal(e.signal), e.elapsed_s));
  }
  if (e.signal != 0)
    return salvaged(RunStatus::failed, fmt::format("the run crashed: signal {} ({})", e.signal, strsignal(e.signal)));
  if (e.exit_code != 0) return salvaged(RunStatus::failed, fmt::format("the run exited with status {}", e.exit_code));
  if (!e.wrote) return salvaged(RunStatus::failed, "the run ended without writing run.json");
  return as_written(e);
}

ChildPool::ChildPool(int jobs) : jobs_(static_cast<std::size_t>(std::max(1, jobs))), parent_(::getpid()) {}

void ChildPool::start(std::size_t index, double deadline_s, const std::function<int()>& body) {
  // What the parent buffered would be written twice, once by each process.
  std::cout.flush();
  std::cerr.flush();
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    child_after_fork(parent_);
    const int code = body();
    std::fflush(nullptr);
    _exit(code);
  }
  Child c;
  c.pid = pid;
  c.index = index;
  c.started = Clock::now();
  c.deadline_s = deadline_s;
  running_.push_back(c);
}

void ChildPool::stop_all() {
  for (auto& c : running_) kill(c.pid, SIGTERM);
}

std::vector<ChildPool::Ended> ChildPool::poll() {
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  std::vector<Ended> ended;
  for (std::size_t k = 0; k < running_.size();) {
    Child& c = running_[k];
    int status = 0;
    const pid_t r = waitpid(c.pid, &status, WNOHANG);
    const double elapsed = std::chrono::duration<double>(Clock::now() - c.started).count();
    if (r == 0) {
      if (!c.killed && elapsed > c.deadline_s) {
        kill(c.pid, SIGKILL);
        c.killed = true;
      }
      ++k;
      continue;
    }
    Ended e;
    e.child = c;
    e.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 0;
    e.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    e.elapsed_s = elapsed;
    ended.push_back(e);
    running_.erase(running_.begin() + static_cast<std::ptrdiff_t>(k));
  }
  return ended;
}

}  // namespace dualgap
