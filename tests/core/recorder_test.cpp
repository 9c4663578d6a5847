// Recorder: the solver clock excludes evaluation; schedules; stop criteria; atomic writes.
#include <chrono>
#include <cmath>
#include <thread>

#include "cli_support.hpp"
#include "recorder.hpp"
#include "util.hpp"

using namespace dualgap;
using namespace dualgap::test;

namespace {
void busy_for(double seconds) {
  auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < end) {
  }
}
}  // namespace

TEST_CASE("evaluation time does not show up in the solver clock") {
  OracleCounters counters;
  RunRecorder rec(StopCriteria{}, Schedule{}, &counters);
  rec.start();
  auto slow_eval = [](Metrics& m) {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    m.primal = 1;
  };
  busy_for(0.05);
  rec.checkpoint(1, slow_eval);
  busy_for(0.05);
  rec.checkpoint(2, slow_eval);
  rec.finish();
  auto c = rec.curve_json();
  const double t1 = c["time"][0], t2 = c["time"][1];
  CHECK(t1 >= 0.05);
  CHECK(t1 < 0.2);  // 0.3 s of sleeping evaluation excluded
  CHECK(t2 - t1 >= 0.05);
  CHECK(t2 - t1 < 0.2);
  CHECK(rec.eval_time_s() >= 0.6);
}

TEST_CASE("oracle calls made during evaluation are counted as evaluation") {
  struct Dummy : Oracle {
    std::vector<std::string> interfaces() const override { return {"dummy"}; }
    void call() { CallScope s(*this, CallKind::exact); }
  } oracle;
  OracleCounters counters;
  oracle.attach_counters(&counters);
  RunRecorder rec(StopCriteria{}, Schedule{}, &counters);
  rec.start();
  oracle.call();
  oracle.call();
  rec.checkpoint(1, [&](Metrics& m) {
    for (int i = 0; i < 5; ++i) oracle.call();
    m.primal = 1;
  });
  CHECK(counters.exact_calls == 2);
  CHECK(counters.eval_calls == 5);
  CHECK(rec.curve_json()["oracle_calls"][0] == 2.0);
}

TEST_CASE("schedules: every k passes and geometric") {
  RunRecorder every(StopCriteria{}, Schedule::from_json(json{{"every", 3}}), nullptr);
  every.start();
  int rows = 0;
  for (int p = 0; p <= 10; ++p)
    if (every.due(p)) {
      every.checkpoint(p, [](Metrics&) {});
      ++rows;
    }
  CHECK(rows == 4);  // 0, 3, 6, 9
  RunRecorder geo(StopCriteria{}, Schedule::from_json(json{{"geometric", 2.0}, {"first", 1}}), nullptr);
  geo.start();
  std::vector<double> at;
  for (int p = 0; p <= 20; ++p)
    if (geo.due(p)) {
      geo.checkpoint(p, [](Metrics&) {});
      at.push_back(p);
    }
  CHECK(at == std::vector<double>{0, 1, 2, 4, 8, 16});
}

TEST_CASE("stop criteria: gap target, budget, NaN; nulls for missing values") {
  StopCriteria stop;
  stop.gap = 1e-3;
  stop.max_passes = 100;
  RunRecorder rec(stop, Schedule{}, nullptr);
  rec.start();
  CHECK(rec.checkpoint(1, [](Metrics& m) { m.primal = 1.0; m.dual = 0.5; }) == Action::proceed);
  CHECK(rec.checkpoint(2, [](Metrics& m) { m.primal = 1.0; m.dual = 1.0 - 1e-4; }) == Action::stop);
  CHECK(rec.status() == RunStatus::done);

  RunRecorder nan(StopCriteria{}, Schedule{}, nullptr);
  nan.start();
  CHECK(nan.checkpoint(1, [](Metrics& m) { m.primal = std::nan(""); }) == Action::stop);
  CHECK(nan.status() == RunStatus::diverged);
  CHECK(nan.curve_json()["primal"][0].is_null());  // no NaN in JSON

  StopCriteria b;
  b.max_passes = 2;
  RunRecorder budget(b, Schedule{}, nullptr);
  budget.start();
  CHECK(budget.checkpoint(1, [](Metrics&) {}) == Action::proceed);
  CHECK(!budget.due(1.5));
  CHECK(budget.due(2));
  CHECK(budget.checkpoint(2, [](Metrics& m) { m.train_error = 0.5; m.set("extra", 3); }) == Action::stop);
  CHECK(budget.status() == RunStatus::budget);
  auto c = budget.curve_json();
  CHECK(c["dual"][0].is_null());
  CHECK(c["gap"][0].is_null());
  CHECK(c["extra"][0].is_null());  // a column that appears later is null before
  CHECK(c["extra"][1] == 3.0);
}

TEST_CASE("atomic write replaces the file whole and leaves no temporary behind") {
  TempDir dir;
  auto p = dir.path / "sub" / "run.json";
  write_file_atomic(p.string(), "first");
  write_file_atomic(p.string(), "second");
  CHECK(read_file(p.string()) == "second");
  int files = 0;
  for (auto& e : std::filesystem::directory_iterator(p.parent_path())) (void)e, ++files;
  CHECK(files == 1);
  // an unwritable target throws and keeps the old content
  std::filesystem::create_directories(dir.path / "ro");
  write_file_atomic((dir.path / "ro" / "x").string(), "keep");
  std::filesystem::permissions(dir.path / "ro", std::filesystem::perms::owner_read | std::filesystem::perms::owner_exec);
  if (::geteuid() != 0) {  // root ignores permissions
    CHECK_THROWS(write_file_atomic((dir.path / "ro" / "x").string(), "lost"));
    CHECK(read_file((dir.path / "ro" / "x").string()) == "keep");
  }
  std::filesystem::permissions(dir.path / "ro", std::filesystem::perms::owner_all);
}

TEST_CASE("an approximate gap never meets the gap target; budgets still stop the run") {
  StopCriteria stop;
  stop.gap = 1e-3;
  stop.max_passes = 3;
  RunRecorder rec(stop, Schedule{}, nullptr);
  rec.start();
  auto approx = [](Metrics& m) {
    m.primal = 1.0;
    m.dual = 1.01;  // negative "gap", as alpha-expansion can give
    m.approximate = true;
  };
  CHECK(rec.checkpoint(1, approx) == Action::proceed);
  CHECK(rec.checkpoint(2, approx) == Action::proceed);
  CHECK(rec.checkpoint(3, approx) == Action::stop);
  CHECK(rec.status() == RunStatus::budget);
  CHECK(rec.approximate());
}
