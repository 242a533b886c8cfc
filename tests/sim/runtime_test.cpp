// The serving runtime (sim/runtime.h): which steps replay a CUDA graph, at what padded size, and
// what launches and host work add to a step.
#include <gtest/gtest.h>

#include "scenarios/loader.h"
#include "sim/fixed_batch.h"
#include "sim/runtime.h"

namespace moesim::sim {
namespace {

TEST(Runtime, PlansGraphsAtTheNextCapturedSize) {
  const RuntimeConfig sglang = *runtime_preset("sglang");
  EXPECT_EQ(plan_step(sglang, 1).graph_batch, 1);
  EXPECT_EQ(plan_step(sglang, 3).graph_batch, 4);
  EXPECT_EQ(plan_step(sglang, 100).graph_batch, 104);  // 16, 24, ... 160 in steps of 8
  EXPECT_FALSE(plan_step(sglang, 161).graph());        // beyond the largest captured size
  EXPECT_FALSE(plan_step(sglang, -1).graph());         // prefill or mixed: eager
  const RuntimeConfig trtllm = *runtime_preset("trtllm");
  EXPECT_EQ(plan_step(trtllm, 128).graph_batch, 128);
  EXPECT_FALSE(plan_step(trtllm, 127).graph());  // no padding: only captured sizes replay
  const RuntimeConfig ideal = *runtime_preset("ideal");
  EXPECT_EQ(plan_step(ideal, -1).graph_batch, 1);  // everything a graph
  EXPECT_FALSE(runtime_preset("tgi").has_value());
}

TEST(Runtime, EveryDataParallelRankReplaysTheSameGraph) {
  // With padding, ranks of 100 and 104 requests both replay the graph of 104.
  EXPECT_EQ(plan_step(*runtime_preset("sglang"), 104, 100).graph_batch, 104);
  // Without it, one rank of 127 beside ranks of 128 sends the whole step down the eager path.
  const RuntimeConfig trtllm = *runtime_preset("trtllm");
  EXPECT_EQ(plan_step(trtllm, 128, 128).graph_batch, 128);
  EXPECT_FALSE(plan_step(trtllm, 128, 127).graph());
}

TEST(Runtime, EagerStepsAreLaunchBoundWhenKernelsAreShort) {
  RuntimeConfig c = *runtime_preset("vllm");  // 10 us per launch, no overlap scheduler
  c.host_step_ns = 500'000;
  const RuntimePlan eager{}, graph{8};
  // 1 ms of kernels, 200 launches: 2 ms of launching bounds the step, then the host's 0.5 ms.
  EXPECT_DOUBLE_EQ(runtime_step_ns(c, eager, 1e6, 200, 8), 2.5e6);
  // 5 ms of kernels: GPU-bound; the host work still follows the step.
  EXPECT_DOUBLE_EQ(runtime_step_ns(c, eager, 5e6, 200, 8), 5.5e6);
  EXPECT_DOUBLE_EQ(runtime_step_ns(c, graph, 1e6, 200, 8), 1.5e6);
  c.overlap_scheduler = true;  // the host runs while the GPU does: hidden behind 5 ms of kernels
  EXPECT_DOUBLE_EQ(runtime_step_ns(c, eager, 5e6, 200, 8), 5e6);
  EXPECT_DOUBLE_EQ(runtime_step_ns(c, graph, 1e5, 200, 8), 510'000);
  c.host_per_request_ns = 1'000;
  EXPECT_DOUBLE_EQ(runtime_step_ns(c, graph, 1e5, 200, 100), 610'000);
  EXPECT_DOUBLE_EQ(runtime_step_ns(*runtime_preset("ideal"), eager, 1e6, 200, 8), 1e6);
}

// A graph pads every rank's decode batch to the captured size: the padded rows cost the GEMMs, so
// 100 sequences under SGLang's graphs (padded to 104) cost more than 100 without padding and
// about what 104 cost; the ideal runtime reproduces the kernels alone.
TEST(Runtime, PaddedRowsCostWhatRealRowsCostInTheGemms) {
  const char* base =
      "model: deepseek-v3\nhardware: h800\ncluster: {nodes: 2}\ndeployment:\n  colocated:\n    ranks: 16\n"
      "    moe: {ep: 16, comm: low-latency}\n";
  const auto config = [&](const char* runtime) {
    return scenarios::simulation_config(scenarios::load_scenario_string(std::string(base) + runtime, "scn.yaml"));
  };
  FixedBatchSpec spec;
  spec.pool = PoolRole::kColocated;
  spec.kv = 1000;
  spec.sequences = 100;
  const double ideal = run_fixed_batch(config(""), spec).step_ms;
  const auto sglang = run_fixed_batch(config("    runtime: {preset: sglang}\n"), spec);
  spec.sequences = 104;
  const double ideal104 = run_fixed_batch(config(""), spec).step_ms;
  EXPECT_GT(sglang.step_ms, ideal);
  EXPECT_LT(sglang.step_ms, ideal104 * 1.02);
  EXPECT_EQ(sglang.runtime_ms, 0.0);  // the graph's launch hides behind the previous step (overlap scheduler)
}

}  // namespace
}  // namespace moesim::sim
