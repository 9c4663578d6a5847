// Tests of bcfw's exact block steps on several threads (threads > 1 with block_step exact, which
// auto takes on multi-class data; plugins/solver/bcfw/async_exact_steps.hpp, PASSCoDe with wild
// and with atomic updates of a shared w, and with a copy of w per thread):
// the runs reach the optimum of one thread and of the independent QP with a certified gap that
// closes, primal >= dual at every checkpoint, one oracle call per visited block (the threads'
// counters merged), the budget of passes is met exactly, block_step auto picks them with
// threads > 1, and the settings that take Frank-Wolfe mini-batches instead warn on stderr.
// The iterates depend on the scheduling: no test compares two threaded runs step by step.
#include <unistd.h>

#include <cstdio>

#include "bcfw_support.hpp"

using namespace bcfw_test;

namespace {

std::function<std::shared_ptr<Oracle>()> plugin_factory(const std::string& name = "multiclass") {
  return [name] { return dualgap::test::make<Oracle>(Kind::oracle, name); };
}
std::function<std::shared_ptr<Oracle>()> weighted_factory() {
  return [] { return std::make_shared<WeightedMulticlassOracle>(); };
}

json exact_threads(int threads, int shrinking, const char* updates = "copies") {
  json p{{"block_step", "exact"}, {"threads", threads}, {"shrinking", shrinking}};
  if (threads > 1) p["async_updates"] = updates;
  return p;
}

/// What the process writes to stderr (file descriptor 2) while this is alive: the solver's
/// warnings (fprintf(stderr, ...), which a run's stderr.log keeps).
class StderrCapture {
 public:
  StderrCapture() : file_(std::tmpfile()) {
    REQUIRE(file_);
    std::fflush(stderr);
    saved_ = dup(2);
    dup2(fileno(file_), 2);
  }
  ~StderrCapture() {
    restore();
    std::fclose(file_);
  }
  StderrCapture(const StderrCapture&) = delete;
  StderrCapture& operator=(const StderrCapture&) = delete;
  /// Stops capturing; the text written so far.
  std::string text() {
    restore();
    std::string out;
    std::rewind(file_);
    char buf[4096];
    for (std::size_t got; (got = std::fread(buf, 1, sizeof buf, file_)) > 0;) out.append(buf, got);
    return out;
  }

 private:
  void restore() {
    if (saved_ < 0) return;
    std::fflush(stderr);
    dup2(saved_, 2);
    close(saved_);
    saved_ = -1;
  }
  std::FILE* file_;
  int saved_ = -1;
};

}  // namespace

TEST_CASE("threads > 1: exact steps reach the QP optimum and the optimum of one thread (dense, sparse, weighted, shrinking on and off)") {
  WeightedMulticlassOracle weighted;
  auto plain = multiclass();
  for (bool sparse : {false, true}) {
    for (bool weighted_loss : {false, true}) {
      StructuredOracle& oracle = weighted_loss ? static_cast<StructuredOracle&>(weighted) : *plain;
      const auto factory = weighted_loss ? weighted_factory() : plugin_factory();
      Data data;
      data.train = blobs(20, 4, 4, 21, 0.8, sparse);  // 4 features: dense rows stay dense (class-major w)
      data.test = blobs(8, 4, 4, 22, 0.8, sparse);
      const double lambda = 1.0 / 20;
      const QpSolution qp = solve_dual_qp(data.train, oracle, lambda, 30000);
      REQUIRE(qp.primal - qp.dual < 1e-8);
      for (int shrinking : {0, 3}) {
        OracleCounters c1;
        auto one = run_solver("bcfw", data, oracle, lambda, exact_threads(1, shrinking), 2000, 1e-10, &c1, 1);
        for (int threads : {2, 3})
        for (const char* updates : {"atomic", "wild", "copies"}) {
          CAPTURE(sparse);
          CAPTURE(weighted_loss);
          CAPTURE(shrinking);
          CAPTURE(threads);
          CAPTURE(updates);
          OracleCounters c;
          auto rec = run_solver("bcfw", data, oracle, lambda, exact_threads(threads, shrinking, updates), 2000, 1e-10,
                                &c, 1, 1, factory);
          check_primal_ge_dual(*rec);
          const auto& last = rec->rows.back();
          // The certified gap closes: with w != w(alpha) (an update lost or applied twice, and
          // with wild updates not rebuilt) the recorded dual would not be the dual of the alpha
          // held and the gap would not close on the QP's optimum.
          CHECK(*last.m.primal - *last.m.dual <= 1e-10);
          CHECK(*last.m.primal == doctest::Approx(qp.primal).epsilon(1e-8));
          CHECK(*last.m.dual == doctest::Approx(qp.dual).epsilon(1e-8));
          CHECK(*last.m.dual <= qp.primal + 1e-12);
          CHECK(*last.m.primal == doctest::Approx(*one->rows.back().m.primal).epsilon(1e-8));
          CHECK(rec->extra(last, "exact_steps") == 1.0);
          CHECK(rec->extra(last, "threads") == static_cast<double>(threads));
          CHECK(std::isnan(one->extra(one->rows.back(), "threads")));
          // every thread's first chunk is its own: the others stepped blocks in every pass
          CHECK(rec->extra(last, "other_threads_share") > 0);
          CHECK(c.oracle_time_s > 0);
          // wild: w rebuilt at least before the pass that proved the optimum
          if (std::string(updates) == "wild") CHECK(rec->extra(last, "w_rebuilds") >= 1);
          else CHECK(std::isnan(rec->extra(last, "w_rebuilds")));
        }
      }
    }
  }
}

TEST_CASE("threads > 1 on 500 examples (chunks of 31 blocks): the optimum of one thread, certified") {
  // Too large for the QP reference: the optimum is one thread's, and the certified gap closing
  // shows that w is w(alpha) at the checkpoints (atomic: no update lost; tried: a plain +=
  // instead of the atomic add fails this file's checks under ThreadSanitizer's interleavings;
  // wild: updates may be lost, and w is rebuilt from alpha before each checkpoint; copies: every
  // logged move reaches every copy once).
  WeightedMulticlassOracle weighted;
  auto plain = multiclass();
  for (bool sparse : {false, true}) {
    for (int shrinking : {0, 5}) {
      const bool weighted_loss = shrinking == 5 && sparse;
      StructuredOracle& oracle = weighted_loss ? static_cast<StructuredOracle&>(weighted) : *plain;
      CAPTURE(sparse);
      CAPTURE(shrinking);
      Data data;
      data.train = blobs(500, 6, 5, 71, 1.2, sparse);
      const double lambda = 0.01;
      OracleCounters c1;
      auto one = run_solver("bcfw", data, oracle, lambda, exact_threads(1, shrinking), 1e5, 1e-9, &c1, 5);
      for (const char* updates : {"atomic", "wild", "copies"}) {
      CAPTURE(updates);
      OracleCounters c2;
      auto two = run_solver("bcfw", data, oracle, lambda, exact_threads(2, shrinking, updates), 1e5, 1e-9, &c2, 5, 1,
                            weighted_loss ? weighted_factory() : plugin_factory());
      check_primal_ge_dual(*two);
      const auto& last = two->rows.back();
      CHECK(*last.m.primal - *last.m.dual <= 1e-9);
      const double p1 = *one->rows.back().m.primal;
      CHECK(std::abs(*last.m.primal - p1) <= 2e-9 * std::max(1.0, std::abs(p1)));
      for (const auto& r : two->rows)
        CHECK(static_cast<double>(r.counters.exact_calls + r.counters.approx_calls) ==
              doctest::Approx(r.passes * 500).epsilon(1e-12));
      CHECK(two->extra(last, "other_threads_share") > 0);
      CHECK(two->extra(last, "other_threads_share") < 1);
      }
    }
  }
}

TEST_CASE("sample: chunked reaches the optimum of the permutation order, certified (1 and 2 threads, shrinking on and off)") {
  // 700 examples: two chunks of 256 and one of 188. Too large for the QP reference: the optimum
  // is the permutation order's, and the certified gap closing shows the chunked passes reach
  // every block (a block never visited would keep its gap).
  Data data;
  data.train = blobs(700, 6, 5, 83, 1.2, true);
  auto oracle = multiclass();
  const double lambda = 0.01;
  for (int shrinking : {0, 5}) {
    CAPTURE(shrinking);
    json p = exact_threads(1, shrinking);
    p["sample"] = "permutation";
    auto perm = run_solver("bcfw", data, *oracle, lambda, p, 1e5, 1e-9, nullptr, 5);
    const double p0 = *perm->rows.back().m.primal;
    for (int threads : {1, 2}) {
      CAPTURE(threads);
      p = exact_threads(threads, shrinking);
      p["sample"] = "chunked";
      OracleCounters c;
      auto rec = run_solver("bcfw", data, *oracle, lambda, p, 1e5, 1e-9, &c, 5, 1, plugin_factory());
      check_primal_ge_dual(*rec);
      const auto& last = rec->rows.back();
      CHECK(*last.m.primal - *last.m.dual <= 1e-9);
      CHECK(std::abs(*last.m.primal - p0) <= 2e-9 * std::max(1.0, std::abs(p0)));
      for (const auto& r : rec->rows)  // one call per visit: a pass's order holds each block once
        CHECK(static_cast<double>(r.counters.exact_calls + r.counters.approx_calls) ==
              doctest::Approx(r.passes * 700).epsilon(1e-12));
    }
  }
}

TEST_CASE("threads > 1: one oracle call per visited block, the threads' counts merged") {
  auto oracle = multiclass();
  SUBCASE("without shrinking: n exact calls per pass at every checkpoint") {
    Data data;
    data.train = blobs(2000, 3, 3, 41, 3.0);
    OracleCounters c;
    auto rec = run_solver("bcfw", data, *oracle, 1.0 / 2000, exact_threads(2, 0), 7, 0.0, &c, 1, 1, plugin_factory());
    REQUIRE(rec->rows.size() == 8);
    for (std::size_t r = 0; r < rec->rows.size(); ++r) {
      CHECK(rec->rows[r].passes == static_cast<double>(r));
      CHECK(rec->rows[r].counters.exact_calls == static_cast<std::int64_t>(r * 2000));
      CHECK(rec->rows[r].counters.approx_calls == 0);
    }
    CHECK(rec->extra(rec->rows.back(), "other_threads_share") > 0);
  }
  SUBCASE("with block and class shrinking: exact + approximate calls = blocks visited, the optimum of one thread") {
    for (bool sparse : {false, true}) {
      CAPTURE(sparse);
      Data data;
      data.train = blobs(90, 8, 12, 57, 1.0, sparse);
      const double lambda = 1.0 / 90;
      OracleCounters c1, c2, c_off;
      auto one = run_solver("bcfw", data, *oracle, lambda, exact_threads(1, 3), 1e5, 0.0, &c1, 5);
      auto two = run_solver("bcfw", data, *oracle, lambda, exact_threads(2, 3), 1e5, 0.0, &c2, 5, 1, plugin_factory());
      json off = exact_threads(2, 3);
      off["class_shrinking"] = false;
      auto all = run_solver("bcfw", data, *oracle, lambda, off, 1e5, 0.0, &c_off, 5, 1, plugin_factory());
      for (const auto* rec : {two.get(), all.get()}) {
        REQUIRE(rec->rows.back().passes < 1e5);  // converged by the loop's own rule
        check_primal_ge_dual(*rec);
        for (const auto& r : rec->rows)
          CHECK(static_cast<double>(r.counters.exact_calls + r.counters.approx_calls) ==
                doctest::Approx(r.passes * 90).epsilon(1e-12));
        const double p = *rec->rows.back().m.primal, p1 = *one->rows.back().m.primal;
        CHECK(std::abs(p - p1) <= 1e-9 * std::max(1.0, std::abs(p1)));
        CHECK(p - *rec->rows.back().m.dual < 1e-9);
      }
      CHECK(c2.approx_calls > 0);  // class shrinking's steps on active classes ran on the threads
      CHECK(c_off.approx_calls == 0);
      double most = 0, fewest = 1;
      for (const auto& r : two->rows) {
        most = std::max(most, two->extra(r, "shrunk"));
        fewest = std::min(fewest, two->extra(r, "active_classes"));
      }
      CHECK(most > 0.5);
      CHECK(fewest < 0.5);
    }
  }
}

TEST_CASE("threads > 1: a run with shrinking stops at exactly max_passes (the budget's segment ends at its block)") {
  Data data;
  data.train = blobs(2000, 10, 4, 61, 1.0);
  auto oracle = multiclass();
  OracleCounters c;
  auto rec = run_solver("bcfw", data, *oracle, 1.0 / 2000, exact_threads(2, 4), 20, 0.0, &c, 1, 1, plugin_factory());
  REQUIRE(rec->rows.size() >= 2);
  bool fractional = false;
  for (const auto& r : rec->rows) {
    CHECK(r.passes <= 20.0);
    fractional = fractional || r.passes != std::floor(r.passes);
  }
  CHECK(fractional);  // shrinking skipped blocks: passes that would cross 20 exist
  CHECK(rec->rows.back().passes == 20.0);
  CHECK(c.exact_calls + c.approx_calls == 20 * 2000);
  check_primal_ge_dual(*rec);
  CHECK(rec->extra(rec->rows.back(), "other_threads_share") > 0);
}

TEST_CASE("threads > 1: orders that repeat blocks in a pass (uniform, gap sampling) reach the QP optimum") {
  Data data;
  data.train = blobs(20, 4, 4, 21, 0.8, true);
  auto oracle = multiclass();
  const double lambda = 1.0 / 20;
  const QpSolution qp = solve_dual_qp(data.train, *oracle, lambda, 30000);
  for (const char* sample : {"uniform", "gap"}) {
    for (int shrinking : {0, 3}) {
      CAPTURE(sample);
      CAPTURE(shrinking);
      json p = exact_threads(2, shrinking);
      p["sample"] = sample;
      OracleCounters c;
      auto rec = run_solver("bcfw", data, *oracle, lambda, p, 5000, 1e-9, &c, 5, 1, plugin_factory());
      check_primal_ge_dual(*rec);
      const auto& last = rec->rows.back();
      CHECK(*last.m.primal - *last.m.dual <= 1e-8);
      CHECK(*last.m.primal == doctest::Approx(qp.primal).epsilon(1e-7));
      CHECK(static_cast<double>(c.exact_calls + c.approx_calls) == doctest::Approx(last.passes * 20).epsilon(1e-12));
    }
  }
}

TEST_CASE("threads > 1: block_step auto takes asynchronous exact steps; settings that take FW mini-batches warn") {
  Data mc;
  mc.train = blobs(12, 3, 3, 61, 1.0);
  auto oracle = multiclass();
  // Runs with params: whether exact steps ran, what went to stderr.
  struct Ran {
    bool exact;
    std::string err;
  };
  auto run = [](const json& p, const Data& data, StructuredOracle& o, const std::string& factory) {
    StderrCapture capture;
    OracleCounters c;
    auto rec = run_solver("bcfw", data, o, 0.1, p, 2, 0.0, &c, 1, 1, plugin_factory(factory));
    const bool exact = !std::isnan(rec->extra(rec->rows.back(), "exact_steps"));
    return Ran{exact, capture.text()};
  };
  {
    const Ran r = run(json{{"threads", 2}}, mc, *oracle, "multiclass");
    CHECK(r.exact);
    CHECK(r.err.find("warning") == std::string::npos);
  }
  {
    const Ran r = run(json{{"threads", 2}, {"batch", 1}}, mc, *oracle, "multiclass");
    CHECK(r.exact);
    CHECK(r.err.find("warning") == std::string::npos);
  }
  for (int threads : {1, 2}) {
    CAPTURE(threads);
    const Ran r = run(json{{"threads", threads}, {"batch", 2}}, mc, *oracle, "multiclass");
    CHECK_FALSE(r.exact);  // an explicit batch > 1: FW mini-batches, with the warning
    CHECK(r.err.find("warning: bcfw: batch: 2 turns off the exact block steps") != std::string::npos);
  }
  {  // FW steps chosen by the user: no warning about the batch
    const Ran r = run(json{{"threads", 2}, {"batch", 2}, {"block_step", "fw"}}, mc, *oracle, "multiclass");
    CHECK_FALSE(r.exact);
    CHECK(r.err.find("warning") == std::string::npos);
  }
  {  // ... but threads alone turning FW passes into mini-batches does warn
    const Ran r = run(json{{"threads", 2}, {"block_step", "fw"}}, mc, *oracle, "multiclass");
    CHECK_FALSE(r.exact);
    CHECK(r.err.find("warning: bcfw: threads: 2 runs Frank-Wolfe mini-batch passes of 2 blocks") != std::string::npos);
    CHECK(r.err.find("block_step: fw") != std::string::npos);
  }
  Data chain;
  chain.train = sequences(6, 2, 3, 3, 3, 74);
  auto viterbi = dualgap::test::make<StructuredOracle>(Kind::oracle, "chain_viterbi");
  {  // data without exact steps: threads alone take FW mini-batches, with the warning and its reason
    const Ran r = run(json{{"threads", 2}}, chain, *viterbi, "chain_viterbi");
    CHECK_FALSE(r.exact);
    CHECK(r.err.find("warning: bcfw: threads: 2 runs Frank-Wolfe mini-batch passes") != std::string::npos);
    CHECK(r.err.find("one unit per example") != std::string::npos);
  }
  {  // an explicit batch there is a choice: no warning
    const Ran r = run(json{{"threads", 2}, {"batch", 2}}, chain, *viterbi, "chain_viterbi");
    CHECK_FALSE(r.exact);
    CHECK(r.err.find("warning") == std::string::npos);
  }
}

TEST_CASE("threads > 1: the option rules of exact steps") {
  auto make = [](const json& p) { return dualgap::test::make<Solver>(Kind::solver, "bcfw", p); };
  CHECK_NOTHROW(make(json{{"block_step", "exact"}, {"threads", 2}}));
  CHECK_NOTHROW(make(json{{"block_step", "exact"}, {"threads", 2}, {"batch", 1}}));
  CHECK_NOTHROW(make(json{{"block_step", "exact"}, {"threads", "auto"}}));
  CHECK_THROWS_WITH(make(json{{"block_step", "exact"}, {"threads", 2}, {"batch", 2}}), doctest::Contains("batch: 1"));
  CHECK_THROWS_WITH(make(json{{"block_step", "exact"}, {"threads", 2}, {"averaging", true}}),
                    doctest::Contains("averaging"));
  CHECK_NOTHROW(make(json{{"threads", 2}, {"averaging", true}}));  // auto: FW steps (BCFW-avg's mini-batches)
  // threads > 1 needs an oracle per thread: a caller without a factory gets a clear error
  Data data;
  data.train = blobs(10, 3, 3, 5);
  auto oracle = multiclass();
  OracleCounters c;
  try {
    run_solver("bcfw", data, *oracle, 0.1, exact_threads(2, 0), 3, 0.0, &c, 1);
    FAIL("threads 2 without an oracle factory ran");
  } catch (const std::exception& e) {
    CHECK(std::string(e.what()).find("make_oracle") != std::string::npos);
  }
}
