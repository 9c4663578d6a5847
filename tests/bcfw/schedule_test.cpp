// Where checkpoints fall does not change what bcfw computes: the rows that two schedules share
// (every pass, every third pass) hold the same primal, dual and counts bit for bit. This is what
// lets the default schedule thin its rows when evaluation is slow (run/recorder.hpp,
// Schedule::fit_evaluation) without changing the curve at the rows it keeps.
#include "bcfw_support.hpp"

using namespace bcfw_test;
using dualgap::test::same_bits;

namespace schedule_test {  // named: the unity build shares a file with other tests

TEST_CASE("bcfw: rows at the same passes are the same whichever other checkpoints the schedule takes") {
  Data data;
  data.train = blobs(60, 5, 4, 17, 1.5);
  Data chain;
  chain.train = sequences(20, 2, 5, 3, 3, 18);
  struct Case {
    const char* name;
    const Data* data;
    const char* oracle;
    json params;
  };
  const std::vector<Case> cases = {
      {"exact steps (default on multi-class data)", &data, "multiclass", json{{"block_step", "exact"}}},
      {"BCFW", &data, "multiclass", json::object()},
      {"BCFW-avg on chains", &chain, "chain_viterbi", json{{"averaging", true}}},
      {"MP-BCFW, fixed M", &chain, "chain_viterbi", json{{"multiplane", true}, {"auto_rule", false}}},
  };
  for (const auto& c : cases) {
    INFO(std::string(c.name));
    auto o1 = dualgap::test::make<StructuredOracle>(Kind::oracle, c.oracle);
    auto o3 = dualgap::test::make<StructuredOracle>(Kind::oracle, c.oracle);
    OracleCounters k1, k3;
    const auto every1 = run_bcfw(*c.data, *o1, 0.05, c.params, 12, 0.0, &k1, 1);
    const auto every3 = run_bcfw(*c.data, *o3, 0.05, c.params, 12, 0.0, &k3, 3);
    REQUIRE(every3->rows.size() >= 4);
    REQUIRE(every1->rows.size() > every3->rows.size());
    // MP-BCFW's approximate passes count as fractions of a pass: compare the rows both runs hold.
    int shared = 0;
    for (const auto& r3 : every3->rows) {
      const auto r1 = std::find_if(every1->rows.begin(), every1->rows.end(),
                                   [&](const TestRecorder::Row& r) { return r.passes == r3.passes; });
      INFO("passes " << r3.passes);
      if (r1 == every1->rows.end()) continue;
      ++shared;
      CHECK(same_bits(r1->m.primal, r3.m.primal));
      CHECK(same_bits(r1->m.dual, r3.m.dual));
      CHECK(r1->counters.exact_calls == r3.counters.exact_calls);
      CHECK(r1->counters.approx_calls == r3.counters.approx_calls);
    }
    CHECK(shared >= 3);
  }
}

}  // namespace schedule_test
