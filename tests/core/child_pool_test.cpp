// The runner's child pool and what it makes of a child's end: classify() branch by branch, the
// status words of run.json, and the pool with real children (exit, watchdog, stop).
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstring>

#include <fmt/format.h>

#include "test_support.hpp"
#include "run/child_pool.hpp"

using namespace dualgap;

namespace {
ChildEnd exited(int code, bool wrote, std::optional<RunStatus> written = std::nullopt) {
  ChildEnd e;
  e.exit_code = code;
  e.wrote = wrote;
  e.written = written;
  e.elapsed_s = 1.25;
  e.deadline_s = 60;
  return e;
}
ChildEnd signalled(int sig, bool stop_requested, bool wrote, std::optional<RunStatus> written = std::nullopt) {
  ChildEnd e = exited(0, wrote, written);
  e.signal = sig;
  e.stop_requested = stop_requested;
  return e;
}
}  // namespace

TEST_CASE("classify: the watchdog's kill is a timeout, whatever the child wrote") {
  ChildEnd e = signalled(SIGKILL, false, false);
  e.watchdog = true;
  e.elapsed_s = 61.04;
  auto v = classify(e);
  CHECK(v.status == RunStatus::timeout);
  CHECK(v.salvage);
  CHECK(v.message == "killed by the watchdog after 61.0 s (deadline 60 s)");
  e.wrote = true;
  e.written = RunStatus::done;
  e.stop_requested = true;
  CHECK(classify(e).status == RunStatus::timeout);
  CHECK(classify(e).salvage);
}

TEST_CASE("classify: a stop signal interrupts a run that did not finish, keeps one that did") {
  for (int sig : {SIGTERM, SIGINT, SIGHUP}) {
    CAPTURE(sig);
    auto v = classify(signalled(sig, false, false));
    CHECK(v.status == RunStatus::interrupted);
    CHECK(v.salvage);
    CHECK(v.message.find(fmt::format("interrupted by signal {} (", sig)) == 0);
    CHECK(v.message.find(") after 1.2 s") != std::string::npos);
    auto kept = classify(signalled(sig, false, true, RunStatus::budget));
    CHECK(kept.status == RunStatus::budget);
    CHECK(!kept.salvage);
  }
  // Once the parent was told to stop, any signal that ends a child is the stop (e.g. SIGKILL
  // from Slurm after its grace period), not a crash.
  auto v = classify(signalled(SIGKILL, true, false));
  CHECK(v.status == RunStatus::interrupted);
  CHECK(v.salvage);
  CHECK(classify(signalled(SIGSEGV, true, true, RunStatus::done)).status == RunStatus::done);
}

TEST_CASE("classify: another signal is a crash; a non-zero exit or a missing run.json a failure") {
  auto crash = classify(signalled(SIGSEGV, false, true, RunStatus::done));
  CHECK(crash.status == RunStatus::failed);
  CHECK(crash.salvage);
  CHECK(crash.message == fmt::format("the run crashed: signal {} ({})", SIGSEGV, strsignal(SIGSEGV)));
  auto code = classify(exited(1, true, RunStatus::done));
  CHECK(code.status == RunStatus::failed);
  CHECK(code.salvage);
  CHECK(code.message == "the run exited with status 1");
  auto missing = classify(exited(0, false));
  CHECK(missing.status == RunStatus::failed);
  CHECK(missing.salvage);
  CHECK(missing.message == "the run ended without writing run.json");
}

TEST_CASE("classify: a run that ended by itself has the status its run.json states") {
  for (RunStatus s : {RunStatus::done, RunStatus::budget, RunStatus::diverged, RunStatus::failed, RunStatus::timeout,
                      RunStatus::interrupted}) {
    CAPTURE(to_string(s));
    auto v = classify(exited(0, true, s));
    CHECK(v.status == s);
    CHECK(!v.salvage);
  }
  // run.json unreadable or with an unknown status, or still `running`: the run did not finish
  CHECK(classify(exited(0, true, std::nullopt)).status == RunStatus::failed);
  CHECK(classify(exited(0, true, RunStatus::running)).status == RunStatus::failed);
  CHECK(!classify(exited(0, true, RunStatus::running)).salvage);
}

TEST_CASE("run statuses: every status reads back from its word; other words are none") {
  for (RunStatus s : kRunStatuses) CHECK(run_status_from_string(to_string(s)) == s);
  CHECK(run_status_from_string("done") == RunStatus::done);
  for (const char* w : {"", "Done", "pending", "damaged", "?", "done "}) CHECK(!run_status_from_string(w));
}

TEST_CASE("the child pool: exit codes and signals reach the parent; the watchdog kills; stop_all stops") {
  ChildPool pool(2);
  pool.start(7, 60, [] { return 3; });
  pool.start(8, 0.2, [] {
    for (;;) pause();
    return 0;
  });
  CHECK(pool.full());
  std::vector<ChildPool::Ended> ended;
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!pool.empty() && std::chrono::steady_clock::now() < until)
    for (auto& e : pool.poll()) ended.push_back(e);
  REQUIRE(ended.size() == 2);
  CHECK(ended[0].child.index == 7);
  CHECK(ended[0].exit_code == 3);
  CHECK(ended[0].signal == 0);
  CHECK(!ended[0].child.killed);
  CHECK(ended[1].child.index == 8);
  CHECK(ended[1].signal == SIGKILL);
  CHECK(ended[1].child.killed);
  CHECK(ended[1].elapsed_s >= 0.2);

  // The child says when its body runs (its signal handling is the default by then: the test
  // runner's own handlers would otherwise report the SIGTERM as a crash).
  int ready[2];
  REQUIRE(pipe(ready) == 0);
  ChildPool one(1);
  one.start(0, 60, [&] {
    const char c = 'r';
    if (write(ready[1], &c, 1) != 1) return 1;
    for (;;) pause();
    return 0;
  });
  char c = 0;
  REQUIRE(read(ready[0], &c, 1) == 1);
  close(ready[0]);
  close(ready[1]);
  one.stop_all();
  std::vector<ChildPool::Ended> stopped;
  while (!one.empty() && std::chrono::steady_clock::now() < until)
    for (auto& e : one.poll()) stopped.push_back(e);
  REQUIRE(stopped.size() == 1);
  CHECK(stopped[0].signal == SIGTERM);
  CHECK(!stopped[0].child.killed);
}
