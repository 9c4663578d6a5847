// Recorder: the solver clock excludes evaluation; schedules; stop criteria; atomic writes.
#include <chrono>
#include <cmath>
#include <thread>

#include "cli_support.hpp"
#include "run/recorder.hpp"
#include "base/util.hpp"

using namespace dualgap;
using namespace dualgap::test;

namespace {
// An objective whose scores the test sets directly (the recorder's logic under test, not a family).
struct Scripted : Objective {
  std::function<void(Scores&)> next = [](Scores&) {};
  json describe() const override { return {{"family", "scripted"}}; }
  const char* model_kind() const override { return "w"; }
  void score(const Iterate&, Scores& out) override { next(out); }
};
Vector dummy_w = Vector::Zero(1);
// A checkpoint whose iterate the scripted objective scores as `scores` says; `extra` sets a
// solver column.
Action at(RunRecorder& rec, Scripted& obj, double passes, std::function<void(Scores&)> scores = [](Scores&) {},
          std::function<void(Iterate&)> extra = [](Iterate&) {}) {
  obj.next = std::move(scores);
  rec.set_objective(&obj);
  return rec.checkpoint(passes, [&](Iterate& it) {
    it.w = &dummy_w;
    extra(it);
  });
}
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
  Scripted obj;
  auto slow_eval = [](Scores& m) {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    m.primal = 1;
  };
  busy_for(0.05);
  at(rec, obj, 1, slow_eval);
  busy_for(0.05);
  at(rec, obj, 2, slow_eval);
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
    void call() { CallScope s(*this, CallKind::exact); }
  } oracle;
  OracleCounters counters;
  oracle.attach_counters(&counters);
  RunRecorder rec(StopCriteria{}, Schedule{}, &counters);
  rec.start();
  oracle.call();
  oracle.call();
  Scripted obj;
  at(rec, obj, 1, [&](Scores& m) {
    for (int i = 0; i < 5; ++i) oracle.call();
    m.primal = 1;
  });
  CHECK(counters.exact_calls == 2);
  CHECK(counters.eval_calls == 5);
  CHECK(rec.curve_json()["oracle_calls"][0] == 2.0);
}

TEST_CASE("untimed calls are counted by kind (evaluation apart) and add no oracle time") {
  struct Dummy : Oracle {
  } oracle;
  OracleCounters counters;
  oracle.count_untimed(CallKind::approximate);  // no counters attached: nothing to count into
  oracle.attach_counters(&counters);
  oracle.count_untimed(CallKind::approximate);
  oracle.count_untimed(CallKind::approximate, 4);
  oracle.count_untimed(CallKind::exact, 2);
  counters.evaluating = true;
  oracle.count_untimed(CallKind::exact, 3);
  counters.evaluating = false;
  CHECK(counters.approx_calls == 5);
  CHECK(counters.exact_calls == 2);
  CHECK(counters.eval_calls == 3);
  CHECK(counters.oracle_time_s == 0.0);
  CHECK(counters.approx_time_s == 0.0);
  CHECK(counters.eval_oracle_time_s == 0.0);
}

TEST_CASE("schedules: every k passes and geometric") {
  Scripted obj;
  RunRecorder every(StopCriteria{}, Schedule::from_json(json{{"every", 3}}), nullptr);
  every.start();
  int rows = 0;
  for (int p = 0; p <= 10; ++p)
    if (every.due(p)) {
      at(every, obj, p);
      ++rows;
    }
  CHECK(rows == 4);  // 0, 3, 6, 9
  RunRecorder geo(StopCriteria{}, Schedule::from_json(json{{"geometric", 2.0}, {"first", 1}}), nullptr);
  geo.start();
  std::vector<double> rows_at;
  for (int p = 0; p <= 20; ++p)
    if (geo.due(p)) {
      at(geo, obj, p);
      rows_at.push_back(p);
    }
  CHECK(rows_at == std::vector<double>{0, 1, 2, 4, 8, 16});
}

TEST_CASE("stop criteria: gap target, budget, NaN; nulls for missing values") {
  StopCriteria stop;
  stop.gap = 1e-3;
  stop.max_passes = 100;
  Scripted obj;
  RunRecorder rec(stop, Schedule{}, nullptr);
  rec.start();
  CHECK(at(rec, obj, 1, [](Scores& m) { m.primal = 1.0; m.dual = 0.5; }) == Action::proceed);
  CHECK(at(rec, obj, 2, [](Scores& m) { m.primal = 1.0; m.dual = 1.0 - 1e-4; }) == Action::stop);
  CHECK(rec.status() == RunStatus::done);

  RunRecorder nan(StopCriteria{}, Schedule{}, nullptr);
  nan.start();
  CHECK(at(nan, obj, 1, [](Scores& m) { m.primal = std::nan(""); }) == Action::stop);
  CHECK(nan.status() == RunStatus::diverged);
  CHECK(nan.curve_json()["primal"][0].is_null());  // no NaN in JSON

  StopCriteria b;
  b.max_passes = 2;
  RunRecorder budget(b, Schedule{}, nullptr);
  budget.start();
  CHECK(at(budget, obj, 1) == Action::proceed);
  CHECK(!budget.due(1.5));
  CHECK(budget.due(2));
  CHECK(at(budget, obj, 2, [](Scores& m) { m.train_error = 0.5; }, [](Iterate& it) { it.set("extra", 3); }) ==
        Action::stop);
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
  Scripted obj;
  RunRecorder rec(stop, Schedule{}, nullptr);
  rec.start();
  auto approx = [](Scores& m) {
    m.primal = 1.0;
    m.dual = 1.01;  // negative "gap", as alpha-expansion can give
    m.approximate = true;
  };
  CHECK(at(rec, obj, 1, approx) == Action::proceed);
  CHECK(at(rec, obj, 2, approx) == Action::proceed);
  CHECK(at(rec, obj, 3, approx) == Action::stop);
  CHECK(rec.status() == RunStatus::budget);
  CHECK(rec.approximate());
}

TEST_CASE("a primal that grows past stop.diverge times its first value ends the run as diverged") {
  Scripted obj;
  RunRecorder rec(StopCriteria::from_json(json{{"diverge", 1e6}}), Schedule{}, nullptr);
  rec.start();
  CHECK(at(rec, obj, 1, [](Scores& m) { m.primal = 2.0; }) == Action::proceed);
  CHECK(at(rec, obj, 2, [](Scores& m) { m.primal = 1.9e6; }) == Action::proceed);  // 0.95e6 x the first
  CHECK(at(rec, obj, 3, [](Scores& m) { m.primal = 5e224; }) == Action::stop);
  CHECK(rec.status() == RunStatus::diverged);
  CHECK(rec.message().find("stop.diverge") != std::string::npos);

  RunRecorder off(StopCriteria::from_json(json{{"diverge", 0}, {"max_passes", 3}}), Schedule{}, nullptr);
  off.start();
  CHECK(at(off, obj, 1, [](Scores& m) { m.primal = 2.0; }) == Action::proceed);
  CHECK(at(off, obj, 2, [](Scores& m) { m.primal = 5e224; }) == Action::proceed);  // growth test off
  CHECK(at(off, obj, 3, [](Scores& m) { m.primal = 5e224; }) == Action::stop);
  CHECK(off.status() == RunStatus::budget);
}

TEST_CASE("a solver cannot write a column the core computes") {
  Scripted obj;
  RunRecorder rec(StopCriteria{}, Schedule{}, nullptr);
  rec.start();
  for (const char* name : {"primal", "dual", "gap", "train_error", "test_error", "oracle_calls", "time"})
    CHECK_THROWS_WITH(at(rec, obj, 1, [](Scores& m) { m.primal = 1.0; }, [&](Iterate& it) { it.set(name, 0.0); }),
                      doctest::Contains("computed by the core"));
  rec.set_objective(&obj);
  CHECK_THROWS_WITH(rec.checkpoint(1, [](Iterate&) {}), doctest::Contains("exactly one model"));
}
