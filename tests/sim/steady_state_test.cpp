// The steady decode state reported apart from ramp-up and admission (sim/metrics.h), and a
// closed-loop benchmark whose clients all start at t = 0 admitting them together.
#include <gtest/gtest.h>

#include <vector>

#include "scenarios/loader.h"
#include "sim/metrics.h"
#include "sim/simulation.h"

namespace moesim::sim {
namespace {

StepRecord step(std::int64_t ms, std::int64_t decode, std::int64_t prefill, std::int64_t running) {
  StepRecord s;
  s.duration_ns = ms * 1'000'000;
  s.decode_tokens = decode;
  s.prefill_tokens = prefill;
  s.running = running;
  return s;
}

TEST(SteadyDecode, LeavesOutPromptStepsAndBatchesBelowNinetyPercentOfTheFullest) {
  const std::vector<StepRecord> steps = {
      step(30, 10, 500, 10),  // admission: has prompt work
      step(5, 20, 0, 20),     // ramp-up: 20 of 100 running
      step(10, 100, 0, 100),  // full
      step(12, 95, 0, 95),    // within 90 %
      step(8, 80, 0, 80),     // drain: below 90 %
  };
  PoolResult p;
  p.ranks = 4;
  summarize_pool(steps, 0, p);
  EXPECT_EQ(p.steady_steps, 2);
  EXPECT_DOUBLE_EQ(p.steady_step_ms, 11.0);
  EXPECT_DOUBLE_EQ(p.steady_tokens_per_step, 97.5);
  EXPECT_DOUBLE_EQ(p.steady_tokens_per_gpu_s, 195.0 / 0.022 / 4);
  EXPECT_DOUBLE_EQ(p.mean_step_ms, 13.0);  // the whole run's mean is still every step's
}

// Eight clients released at t = 0 are all in the engine's queue when it forms its first batch:
// the first step takes all eight prompts (the budget allows), not one prompt then seven.
TEST(ClosedLoop, ClientsStartingTogetherShareTheFirstStep) {
  const auto s = scenarios::load_scenario_string(
      "model: tiny-moe\nhardware: h800\ncluster: {nodes: 1}\ndeployment:\n  colocated:\n    ranks: 1\n"
      "    batch: {max_running_per_rank: 8, token_budget_per_rank: 4096}\n"
      "workload:\n  requests: 16\n  arrivals: {process: closed-loop, concurrency: 8}\n"
      "  input_tokens: {dist: fixed, value: 100}\n  output_tokens: {dist: fixed, value: 10}\n",
      "scn.yaml");
  const auto r = simulate(scenarios::simulation_config(s));
  ASSERT_FALSE(r.steps.empty());
  EXPECT_EQ(r.steps.front().prefill_tokens, 800);
  EXPECT_EQ(r.summary.completed, 16);
}

}  // namespace
}  // namespace moesim::sim
