#include "sim/runtime.h"

#include <algorithm>

#include "models/registry.h"

namespace moesim::sim {
namespace {

// Host time of one kernel launch from a Python serving engine: "usually, the launch time on the
// CPU side is between 5-20 microseconds" (Meta's Holistic Trace Analysis documentation, "CUDA
// kernel launch statistics"); the middle of that range (its geometric mean). A graph is launched
// with one such call.
constexpr double kPythonLaunchNs = 10'000;

std::vector<int> sizes(std::initializer_list<int> head, int from, int to, int step) {
  std::vector<int> v(head);
  for (int b = from; b <= to; b += step) v.push_back(b);
  return v;
}

RuntimeConfig sglang() {
  RuntimeConfig c;
  c.preset = "sglang";
  // SGLang's default capture list: [1, 2, 4, 8] + range(16, cuda_graph_max_bs + 1, 8) with
  // cuda_graph_max_bs 160 (sglang srt/model_executor/cuda_graph_runner.py, server_args.py);
  // batches are padded to the next size; prefill and mixed steps run eagerly.
  c.graph_batch_sizes = sizes({1, 2, 4, 8}, 16, 160, 8);
  c.graph_padding = true;
  c.graph_everything = false;
  c.eager_launch_ns = kPythonLaunchNs;
  c.graph_launch_ns = kPythonLaunchNs;
  // The zero-overhead (overlap) scheduler is on by default since SGLang v0.4 (LMSYS blog,
  // 2024-12-04): scheduling runs one batch ahead of the GPU.
  c.overlap_scheduler = true;
  // Its two-batch overlap runs the forward pass inside configure_deep_gemm_num_sms(device SMs -
  // DeepEP's SMs) (sglang srt/two_batch_overlap.py), so DeepGEMM never takes the SMs DeepEP uses.
  c.tbo_reserves_comm_sms = true;
  return c;
}

RuntimeConfig vllm() {
  RuntimeConfig c;
  c.preset = "vllm";
  // vLLM's default cudagraph capture sizes: 1, 2, 4, then every multiple of 8 up to 512 (vLLM
  // CompilationConfig.cudagraph_capture_sizes); padded to the next size.
  c.graph_batch_sizes = sizes({1, 2, 4}, 8, 512, 8);
  c.graph_padding = true;
  c.graph_everything = false;
  c.eager_launch_ns = kPythonLaunchNs;
  c.graph_launch_ns = kPythonLaunchNs;
  // Async scheduling is opt-in (vLLM --async-scheduling, off by default).
  c.overlap_scheduler = false;
  return c;
}

RuntimeConfig trtllm() {
  RuntimeConfig c;
  c.preset = "trtllm";
  // TensorRT-LLM's PyTorch flow: cuda_graph_config without batch_sizes captures 1, 2, 4 and the
  // multiples of 8 up to its max_batch_size (default 128), with enable_padding false by default:
  // a batch runs as a graph only at a captured size (TensorRT-LLM docs, CudaGraphConfig).
  c.graph_batch_sizes = sizes({1, 2, 4}, 8, 128, 8);
  c.graph_padding = false;
  c.graph_everything = false;
  c.eager_launch_ns = kPythonLaunchNs;
  c.graph_launch_ns = kPythonLaunchNs;
  // "Overlap Scheduler ... Enabled by default" (TensorRT-LLM docs, features/overlap-scheduler).
  c.overlap_scheduler = true;
  return c;
}

}  // namespace

std::vector<workloads::RegistryEntry> runtime_presets() {
  return {
      {"ideal", "kernels only: every step a CUDA graph without padding, no host time"},
      {"sglang", "SGLang: decode graphs of 1..160 (padded), eager prefill, overlap scheduler"},
      {"vllm", "vLLM: graphs of 1..512 (padded), no async scheduling"},
      {"trtllm", "TensorRT-LLM PyTorch flow: graphs of 1..128 without padding, overlap scheduler"},
  };
}

std::optional<RuntimeConfig> runtime_preset(std::string_view name) {
  enum class Preset { kIdeal, kSglang, kVllm, kTrtllm };  // runtime_presets() in order
  const auto preset = models::registry_lookup<Preset>(runtime_presets(), name);
  if (!preset) return std::nullopt;
  switch (*preset) {
    case Preset::kIdeal: return RuntimeConfig{};
    case Preset::kSglang: return sglang();
    case Preset::kVllm: return vllm();
    case Preset::kTrtllm: return trtllm();
  }
  return std::nullopt;
}

RuntimePlan plan_step(const RuntimeConfig& c, int largest_batch, int smallest_batch) {
  if (c.graph_everything) return {std::max(largest_batch, 1)};
  if (largest_batch < 0) return {};                                    // prefill or mixed: eager
  if (!c.graph_padding && smallest_batch != largest_batch) return {};  // a rank would need padding
  for (const int size : c.graph_batch_sizes) {
    if (size == largest_batch) return {size};
    if (size > largest_batch) return c.graph_padding ? RuntimePlan{size} : RuntimePlan{};
  }
  return {};
}

double runtime_step_ns(const RuntimeConfig& c, const RuntimePlan& plan, double gpu_ns, double kernels, int requests) {
  if (c.graph_everything) return gpu_ns;
  const double launch = plan.graph() ? c.graph_launch_ns : kernels * c.eager_launch_ns;
  const double host = c.host_step_ns + c.host_per_request_ns * std::max(0, requests);
  if (c.overlap_scheduler) return std::max(gpu_ns, launch + host);
  return std::max(gpu_ns, launch) + host;
}

}  // namespace moesim::sim
