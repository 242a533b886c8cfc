// The serving runtime around the kernels (docs/runtime.md): what an engine spends on a step
// besides its kernels' time on the GPU.
//
// - CUDA graphs. A decode-only step whose batch (the largest attention-DP rank's, as engines pad
//   every DP rank to one graph) fits a captured size replays that graph: its batch is padded up
//   to the captured size (the padded rows cost every GEMM; they are not routed) and the host
//   launches it once. Every other step runs eagerly: the host launches each kernel, and a step
//   whose launches take longer than its kernels is launch-bound: max(GPU time, kernels x launch).
// - Host work per step (scheduling, sampling, output processing): `host_step_ns` plus
//   `host_per_request_ns` per request of the busiest DP rank. An overlapped scheduler (SGLang's
//   zero-overhead scheduler, TensorRT-LLM's overlap scheduler, vLLM's async scheduling) runs it
//   while the GPU runs the step before: the step takes max(GPU, host); without it they add.
//
// Presets (`runtime_presets()`) give each engine's defaults with their sources; `ideal` is the
// kernels alone (every step a graph without padding, no host time): the simulator as it was
// before runtimes were modelled.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "workloads/registry.h"

namespace moesim::sim {

struct RuntimeConfig {
  std::string preset = "ideal";  // registry name (runtime_presets()); the fields below start from it
  // CUDA graphs: the captured decode batch sizes per DP rank, ascending; empty: none.
  std::vector<int> graph_batch_sizes;
  bool graph_padding = true;       // pad a batch up to the next captured size (else only exact sizes)
  bool graph_everything = true;    // ideal: every step runs as a graph, unpadded
  double eager_launch_ns = 0;      // host time to launch one kernel outside a graph
  double graph_launch_ns = 0;      // host time to launch a step's graph
  double host_step_ns = 0;         // host work per step: scheduling, sampling, output processing
  double host_per_request_ns = 0;  // ... and per request of the busiest DP rank
  bool overlap_scheduler = false;  // host work runs while the GPU runs the previous step
  // Two-batch overlap steps keep the communication kernels' SMs (overlap.comm_sm_share) from the
  // expert GEMMs for the whole step, overlapped or not.
  bool tbo_reserves_comm_sms = false;
};

std::vector<workloads::RegistryEntry> runtime_presets();
// The preset's configuration; nullopt for an unknown name.
std::optional<RuntimeConfig> runtime_preset(std::string_view name);

// How one step runs: as a graph of `graph_batch` per DP rank (0: eagerly).
struct RuntimePlan {
  int graph_batch = 0;
  bool graph() const { return graph_batch > 0; }
};

// A decode-only step of `smallest_batch`..`largest_batch` requests per DP rank (largest -1 when
// it holds prefill work): the captured size it replays, if any. Every DP rank replays the same
// graph, so without padding each rank must hold exactly a captured size (TensorRT-LLM gathers
// every rank's "can run a graph" before replaying one under attention DP).
RuntimePlan plan_step(const RuntimeConfig& config, int largest_batch, int smallest_batch);
inline RuntimePlan plan_step(const RuntimeConfig& config, int batch) { return plan_step(config, batch, batch); }

// The step's duration from its kernels' `gpu_ns`, the `kernels` it launches per rank, its plan
// and the requests of its busiest DP rank.
double runtime_step_ns(const RuntimeConfig& config, const RuntimePlan& plan, double gpu_ns, double kernels,
                       int requests);

}  // namespace moesim::sim
