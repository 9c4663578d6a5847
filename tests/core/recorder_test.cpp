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

namespace {
/// A run on a simulated clock: each pass costs `pass_s` solver seconds, each checkpoint `eval_s`
/// evaluation seconds. At every row after the first (and before the budget's) it checks that
/// evaluation so far is at most `share` of the solver time (when share > 0).
struct Simulated {
  std::shared_ptr<double> now = std::make_shared<double>(0.0);
  std::unique_ptr<RunRecorder> rec;
  std::vector<double> rows;  ///< passes of the rows
};
Simulated simulate(const json& record, double pass_s, double eval_s, int passes, double share) {
  Simulated sim;
  StopCriteria stop;
  stop.max_passes = passes;
  sim.rec = std::make_unique<RunRecorder>(stop, Schedule::from_json(record), nullptr);
  sim.rec->set_clock([now = sim.now] { return *now; });
  RunRecorder& rec = *sim.rec;
  Scripted obj;
  rec.start();
  for (int p = 0; p <= passes; ++p) {
    if (rec.due(p)) {
      const Action a = at(rec, obj, p, [&](Scores& m) {
        *sim.now += eval_s;
        m.primal = 1;
      });
      sim.rows.push_back(p);
      if (share > 0 && sim.rows.size() > 1 && p < passes) {  // the budget's row is forced
        INFO("row at pass " << p << ": eval " << rec.eval_time_s() << " s, solver " << rec.solver_time_s() << " s");
        CHECK(rec.eval_time_s() <= share * rec.solver_time_s() + 1e-9);
      }
      if (a == Action::stop) break;
    }
    *sim.now += pass_s;
  }
  rec.finish();
  return sim;
}
}  // namespace

TEST_CASE("the default schedule keeps evaluation at most a quarter of the solver time; explicit ones are kept") {
  // Which record sections are the default schedule: none of every, geometric, first, every_time.
  CHECK(Schedule::from_json(json(nullptr)).fit_evaluation);
  CHECK(Schedule::from_json(json::object()).fit_evaluation);
  CHECK(Schedule::from_json(json{{"iterates", "none"}, {"train_error", false}}).fit_evaluation);
  for (const char* k : {"every", "geometric", "first", "every_time"}) {
    json r{{k, 2}};
    if (std::string(k) == "geometric") r["first"] = 1;
    CHECK_FALSE(Schedule::from_json(r).fit_evaluation);
  }
  CHECK_FALSE(Schedule{}.fit_evaluation);

  // A checkpoint costs 3 passes of solver time: rows thin out to keep evaluation <= 1/4 (checked
  // at every row after the first, pass 0, which has no solver time to compare with) ...
  const Simulated slow = simulate(json::object(), 1.0, 3.0, 200, 0.25);
  CHECK(slow.rows.front() == 0);
  CHECK(slow.rows.back() == 200);  // the budget's row is still taken
  CHECK(slow.rows.size() >= 10);   // about one row per 12 passes: thinned, not stopped
  CHECK(slow.rows.size() <= 20);
  // ... up to that last row forced by the budget (one checkpoint on top of the rule).
  CHECK(slow.rec->eval_time_s() <= 0.25 * slow.rec->solver_time_s() + 3.0 + 1e-9);
  // A checkpoint a tenth of a pass: every pass has its row once the run has solver time.
  CHECK(simulate(json::object(), 1.0, 0.1, 50, 0.25).rows.size() >= 49);
  // An explicit schedule is kept as given, however slow the evaluation.
  std::vector<double> all(201);
  for (int p = 0; p <= 200; ++p) all[static_cast<std::size_t>(p)] = p;
  CHECK(simulate(json{{"every", 1}}, 1.0, 3.0, 200, 0).rows == all);
  CHECK(simulate(json{{"geometric", 2}, {"first", 1}}, 1.0, 3.0, 40, 0).rows ==
        std::vector<double>{0, 1, 2, 4, 8, 16, 32, 40});
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
