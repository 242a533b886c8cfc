// Energy and cost of a run (docs/energy.md).
//
// Board power follows what the device does. A step's work on each GPU is counted from its batch
// (StepWork): the GEMM FLOPs of every position it feeds (2 per activated weight, the routed
// experts' top-k included; the LM head for sampled tokens only), the attention cores' FLOPs, and
// the HBM bytes it reads: every weight resident on the rank once (routed experts only as far as
// the step's tokens reach them) and each request's KV cache as its attention core reads it.
// Over a step of duration T the board draws
//
//   P = idle + (board - idle) x min(1, Σ flops / (rate x T) + kMemoryShare x bytes / (bw x T))
//
// where `rate` is what the cost model gives a large GEMM (per weight dtype) or a long prefill
// attention core, and `bw` the HBM bandwidth kernels achieve: a kernel that keeps the tensor
// units as busy as a large GEMM does holds the board at its power limit (compute-bound GEMMs on
// Hopper run power-capped: lowering the cap lowers their clock, as the power-capping studies
// cited in docs/energy.md measure), and streaming HBM at full bandwidth with idle tensor units
// draws kMemoryShare of the range above idle. Between steps
// a device draws its idle power. Energy is the integral of that power over the run (first
// arrival to last completion) for every GPU of the deployment; cost is GPU-hours times the
// price of a GPU-hour, plus the energy's price where the scenario gives one.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "calibration/cost_model.h"
#include "calibration/hardware_profile.h"
#include "models/layer_ops.h"
#include "models/memory.h"
#include "models/model_spec.h"
#include "sim/step_batch.h"

namespace moesim::sim {

// Share of a board's dynamic power range (board - idle) drawn when HBM streams at full bandwidth
// and the tensor units idle: H200 decode, memory-bound with HBM saturated, "draws only 137-300 W
// on a 700 W GPU" (Ma et al., "The Illusion of Power Capping in LLM Decode", 2026); with the
// H200's measured 80 W idle, (300 - 80) / (700 - 80).
inline constexpr double kMemoryShare = (300.0 - 80.0) / (700.0 - 80.0);

// The work of one step, summed over the GPUs of an instance.
struct StepWork {
  double gemm_flops = 0;       // on the units of the model's weights (all but routed experts)
  double expert_flops = 0;     // routed experts, on the units of their weights
  double attention_flops = 0;  // attention cores, on BF16 units
  double hbm_bytes = 0;
};

// Counts a step's work from its batches (one per attention group of an instance).
class StepWorkCounter {
 public:
  // `ranks`: GPUs of the instance (all pipeline stages); `expert_slots`: routed-expert slots of
  // one MoE layer over the instance (redundant ones included); `plan`: one rank's memory.
  StepWorkCounter(const models::ModelSpec& model, const models::MemoryPlan& plan, int ranks, int expert_slots);
  StepWork operator()(std::span<const RankBatch> batches) const;

 private:
  const models::ModelSpec& model_;
  double dense_flops_per_position_ = 0;   // attention projections, dense MLPs, shared experts, routers
  double routed_flops_per_position_ = 0;  // top-k routed experts of every MoE layer
  double lm_head_flops_ = 0;              // per sampled token
  double dense_weight_bytes_ = 0;         // over the instance, read every step
  double expert_weight_bytes_ = 0;        // over the instance, read where tokens reach them
  double expert_slots_ = 1;
  bool decode_affine_ = false;  // decode core work = fixed + per_token x KV length
  models::Work decode_fixed_, decode_per_token_;
};

struct PowerModel {
  double board_w = 0;  // 0: unknown (no energy reported)
  double idle_w = 0;
  double gemm_flops_per_s = 0;       // a large GEMM's rate in the model's weight dtype
  double expert_flops_per_s = 0;     // ... in its routed experts' dtype
  double attention_flops_per_s = 0;  // a long prefill attention core's rate
  double hbm_bytes_per_s = 0;        // achievable HBM bandwidth
  PowerModel() = default;
  PowerModel(const calibration::HardwareProfile& device, const models::ModelSpec& model,
             const calibration::CostModel& cost);
  bool known() const { return board_w > 0; }
  // Board power of one GPU doing `work` (its share of a step) in `seconds`.
  double power_w(const StepWork& work, double seconds) const;
};

// Prices for the cost of a run (a scenario's `pricing`).
struct CostConfig {
  double gpu_hour_usd = 0;  // 0: no price (cost not reported)
  // A GPU-hour's price by hardware profile name, for deployments mixing kinds of device (prefill on
  // H800, decode on H20); a device missing here costs gpu_hour_usd.
  std::vector<std::pair<std::string, double>> gpu_hour_usd_by_hardware;
  double kwh_usd = 0;  // electricity, when not in the GPU-hour price
  double pue = 1.0;    // facility energy per unit of GPU energy
  // A GPU-hour of `hardware`: its own price, else gpu_hour_usd.
  double gpu_hour_usd_of(std::string_view hardware) const;
};

struct EnergySummary {
  bool known = false;  // the hardware profile gives its power
  double joules = 0;   // all GPUs of the deployment, over the run
  double mean_power_w_per_gpu = 0;
  double joules_per_output_token = 0;
  double joules_per_request = 0;  // per completed request
};

struct CostSummary {
  bool priced = false;
  double gpu_hours = 0;
  double usd = 0;
  double usd_per_million_output_tokens = 0;
};

// Energy of a run from the energy its steps drew (`busy_joules` over `busy_gpu_s` GPU-seconds)
// and idle power for the rest of `gpus` x `makespan_s`.
EnergySummary energy_summary(const PowerModel& power, double busy_joules, double busy_gpu_s, int gpus,
                             double makespan_s, std::int64_t output_tokens, std::int64_t completed);
// The energy of several kinds of device (each one's energy_summary over the same run) as one: the
// joules summed, per GPU over all `gpus`. Known only when every part is.
EnergySummary total_energy(std::span<const EnergySummary> parts, int gpus, double makespan_s,
                           std::int64_t output_tokens, std::int64_t completed);

// The GPUs of one kind of device in a run.
struct DeviceUse {
  std::string hardware;  // profile name: its price (CostConfig::gpu_hour_usd_of)
  int gpus = 0;
};
// Cost of a run: the GPU-hours of every kind of device at its price over `makespan_s`, plus the
// price of `energy` (all of the run's GPUs) where a kWh has one. Not priced when a device has no
// GPU-hour price.
CostSummary cost_summary(const CostConfig& prices, std::span<const DeviceUse> devices, const EnergySummary& energy,
                         double makespan_s, std::int64_t output_tokens);

}  // namespace moesim::sim
