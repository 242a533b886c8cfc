// `moesim run --trace`: a Chrome trace-event JSON that Perfetto loads.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/tools/cli_runner.h"

namespace {

namespace fs = std::filesystem;
using moesim::testing::run_moesim;

using moesim::testing::kDefaultScenario;

TEST(Trace, WritesCompleteEventsPerRankAndStreamWithFlows) {
  const auto dir = fs::temp_directory_path() / ("moesim_trace_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const auto file = dir / "trace.json";
  const auto r = run_moesim("run -q " + kDefaultScenario +
                            " --set workload.requests=200 --set workload.output_tokens.value=30"
                            " --set workload.arrivals.rate=400/s --set deployment.colocated.overlap.scheme=two-batch"
                            " --trace " +
                            file.string() + " --trace-steps 10:12 --trace-ranks 3 -o " + dir.string());
  ASSERT_EQ(r.exit_code, 0) << r.out;
  std::ifstream in(file);
  const auto j = nlohmann::json::parse(in);  // throws (fails the test) on malformed JSON
  const auto& events = j.at("traceEvents");
  std::set<int> pids;
  std::map<std::string, int> names;
  std::set<int> micro_batches;
  int flows_start = 0, flows_end = 0, comm = 0;
  for (const auto& e : events) {
    const std::string ph = e.at("ph");
    if (ph == "X") {
      pids.insert(e.at("pid").get<int>());
      ++names[e.at("name").get<std::string>()];
      micro_batches.insert(e.at("args").at("micro_batch").get<int>());
      EXPECT_GE(e.at("dur").get<double>(), 0.0);
      comm += e.at("tid").get<int>() == 1 ? 1 : 0;
    }
    flows_start += ph == "s" ? 1 : 0;
    flows_end += ph == "f" ? 1 : 0;
  }
  EXPECT_EQ(pids.size(), 3u);  // ranks 0..2 only
  EXPECT_GT(comm, 0);
  for (const char* n : {"attention", "dense_mlp", "dispatch", "expert_gemm", "combine", "lm_head"})
    EXPECT_GT(names[n], 0) << n;
  // Three busy steps (10..12) x 3 ranks x 58 MoE layers x 2 micro-batches of dispatches.
  EXPECT_EQ(names["dispatch"], 3 * 3 * 58 * 2);
  EXPECT_EQ(micro_batches, (std::set<int>{0, 1}));
  EXPECT_GT(flows_start, 0);
  EXPECT_EQ(flows_start, flows_end);
  fs::remove_all(dir);
}

TEST(Trace, BadStepWindowIsAUsageError) {
  const auto r = run_moesim("run -q " + kDefaultScenario + " --trace /tmp/x.json --trace-steps 5");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "moesim: --trace-steps: expected FIRST:LAST step numbers, got '5'\n");
}

}  // namespace
