#include "sim/energy.h"

#include <algorithm>
#include <cmath>

#include "models/layer_ops.h"

namespace moesim::sim {

StepWorkCounter::StepWorkCounter(const models::ModelSpec& model, const models::MemoryPlan& plan, int ranks,
                                 int expert_slots)
    : model_(model), expert_slots_(std::max(1, expert_slots)) {
  const models::ParameterCount p = models::count_parameters(model);
  dense_flops_per_position_ = 2.0 * static_cast<double>(p.attention + p.dense_mlp + p.shared_experts + p.routers);
  routed_flops_per_position_ =
      2.0 * static_cast<double>(models::expert_params(model)) * model.top_k * model.num_moe_layers();
  lm_head_flops_ = 2.0 * static_cast<double>(models::lm_head(model).params());
  dense_weight_bytes_ = (plan.weight_bytes - plan.routed_expert_bytes) * ranks;
  expert_weight_bytes_ = plan.routed_expert_bytes * ranks;
  // A decode core's work is affine in its KV length unless a window, sparse attention or a fixed
  // state bends it: then a step sums the lengths instead of costing every request.
  const models::Work one = models::attention_decode_all_layers(model, 1);
  const models::Work two = models::attention_decode_all_layers(model, 2);
  constexpr std::int64_t kFar = std::int64_t{1} << 20;
  const models::Work far = models::attention_decode_all_layers(model, kFar);
  decode_per_token_ = {two.flops - one.flops, two.bytes - one.bytes};
  decode_fixed_ = {one.flops - decode_per_token_.flops, one.bytes - decode_per_token_.bytes};
  const auto near = [](double a, double b) { return std::abs(a - b) <= 1e-9 * std::max(std::abs(a), std::abs(b)); };
  decode_affine_ = near(far.flops, decode_fixed_.flops + kFar * decode_per_token_.flops) &&
                   near(far.bytes, decode_fixed_.bytes + kFar * decode_per_token_.bytes);
}

StepWork StepWorkCounter::operator()(std::span<const RankBatch> batches) const {
  StepWork w;
  double positions = 0, padding = 0, sampled = 0;
  for (const RankBatch& b : batches) {
    positions += static_cast<double>(b.tokens());
    padding += static_cast<double>(b.padding);
    sampled += static_cast<double>(b.sampled_tokens);
    if (decode_affine_) {
      // Summed as integers (the loop vectorises): below 2^53 the double sum of whole numbers is
      // exact too, so this is the same value.
      std::int64_t positions = 0;
      for (const std::int64_t l : b.decode_kv_lengths) positions += l;
      const auto kv = static_cast<double>(positions);
      const auto n = static_cast<double>(b.decode_kv_lengths.size());
      w.attention_flops += (decode_fixed_.flops * n + decode_per_token_.flops * kv) * b.decode_queries;
      w.hbm_bytes += decode_fixed_.bytes * n + decode_per_token_.bytes * kv;
    } else {
      for (const std::int64_t kv : b.decode_kv_lengths) {
        const models::Work core = models::attention_decode_all_layers(model_, kv);
        w.attention_flops += core.flops * b.decode_queries;
        w.hbm_bytes += core.bytes;
      }
    }
    for (const auto& c : b.prefill_chunks) {
      const models::Work core = models::attention_prefill_all_layers(model_, c.past, c.tokens);
      w.attention_flops += core.flops;
      w.hbm_bytes += core.bytes;
    }
  }
  w.gemm_flops = dense_flops_per_position_ * (positions + padding) + lm_head_flops_ * sampled;
  w.expert_flops = routed_flops_per_position_ * positions;
  // Each slot's weights are read once if any of the layer's token-expert pairs reaches it; with
  // pairs spread over the slots, a slot is missed with probability exp(-pairs / slots).
  const double pairs = positions * model_.top_k;
  const double reached = model_.top_k > 0 ? 1.0 - std::exp(-pairs / expert_slots_) : 0.0;
  w.hbm_bytes += dense_weight_bytes_ + expert_weight_bytes_ * reached;
  return w;
}

namespace {

// The rates that count as "fully busy": an 8192-cube GEMM, and the attention core of one 8,192-token
// prompt in one layer, as the cost model prices them.
constexpr std::int64_t kLarge = 8192;

double gemm_rate(const calibration::CostModel& cost, models::DType dtype) {
  const calibration::KernelCost k = cost.gemm(kLarge, kLarge, kLarge, dtype);
  return k.time_ns > 0 ? 2.0 * kLarge * kLarge * kLarge / (k.time_ns * 1e-9) : 0.0;
}

double attention_rate(const calibration::CostModel& cost, const models::ModelSpec& model) {
  const calibration::PrefillChunk prompt{0, kLarge};
  const calibration::KernelCost k = cost.attention_prefill(model, {&prompt, 1});
  const double flops = models::attention_prefill_core(model, 0, kLarge).flops;
  return k.time_ns > 0 ? flops / (k.time_ns * 1e-9) : 0.0;
}

}  // namespace

PowerModel::PowerModel(const calibration::HardwareProfile& device, const models::ModelSpec& model,
                       const calibration::CostModel& cost)
    : board_w(device.board_power_w),
      idle_w(device.idle_power_w),
      gemm_flops_per_s(gemm_rate(cost, model.weight_dtype)),
      expert_flops_per_s(gemm_rate(cost, model.expert_dtype())),
      attention_flops_per_s(attention_rate(cost, model)),
      hbm_bytes_per_s(cost.achievable_hbm_bytes_per_s() > 0 ? cost.achievable_hbm_bytes_per_s()
                                                            : device.hbm_bytes_per_s) {}

double PowerModel::power_w(const StepWork& work, double seconds) const {
  if (!known()) return 0;
  if (!(seconds > 0)) return idle_w;
  const auto busy = [seconds](double amount, double rate) { return rate > 0 ? amount / (rate * seconds) : 0.0; };
  const double activity = busy(work.gemm_flops, gemm_flops_per_s) + busy(work.expert_flops, expert_flops_per_s) +
                          busy(work.attention_flops, attention_flops_per_s) +
                          kMemoryShare * busy(work.hbm_bytes, hbm_bytes_per_s);
  return idle_w + (board_w - idle_w) * std::min(1.0, activity);
}

EnergySummary energy_summary(const PowerModel& power, double busy_joules, double busy_gpu_s, int gpus,
                             double makespan_s, std::int64_t output_tokens, std::int64_t completed) {
  EnergySummary e;
  if (!power.known()) return e;
  e.known = true;
  const double gpu_s = static_cast<double>(gpus) * makespan_s;
  e.joules = busy_joules + power.idle_w * std::max(0.0, gpu_s - busy_gpu_s);
  e.mean_power_w_per_gpu = gpu_s > 0 ? e.joules / gpu_s : 0.0;
  e.joules_per_output_token = output_tokens > 0 ? e.joules / static_cast<double>(output_tokens) : 0.0;
  e.joules_per_request = completed > 0 ? e.joules / static_cast<double>(completed) : 0.0;
  return e;
}

EnergySummary total_energy(std::span<const EnergySummary> parts, int gpus, double makespan_s,
                           std::int64_t output_tokens, std::int64_t completed) {
  if (parts.size() == 1) return parts.front();
  EnergySummary e;
  e.known = !parts.empty();
  for (const auto& p : parts) {
    e.known = e.known && p.known;
    e.joules += p.joules;
  }
  if (!e.known) return EnergySummary{};
  const double gpu_s = static_cast<double>(gpus) * makespan_s;
  e.mean_power_w_per_gpu = gpu_s > 0 ? e.joules / gpu_s : 0.0;
  e.joules_per_output_token = output_tokens > 0 ? e.joules / static_cast<double>(output_tokens) : 0.0;
  e.joules_per_request = completed > 0 ? e.joules / static_cast<double>(completed) : 0.0;
  return e;
}

double CostConfig::gpu_hour_usd_of(std::string_view hardware) const {
  for (const auto& [name, usd] : gpu_hour_usd_by_hardware)
    if (name == hardware) return usd;
  return gpu_hour_usd;
}

CostSummary cost_summary(const CostConfig& prices, std::span<const DeviceUse> devices, const EnergySummary& energy,
                         double makespan_s, std::int64_t output_tokens) {
  CostSummary c;
  if (devices.empty()) return c;
  int gpus = 0;
  double gpu_usd = 0;
  for (const auto& d : devices) {
    const double price = prices.gpu_hour_usd_of(d.hardware);
    if (!(price > 0)) return CostSummary{};
    gpus += d.gpus;
    gpu_usd += static_cast<double>(d.gpus) * makespan_s / 3600.0 * price;
  }
  c.priced = true;
  c.gpu_hours = static_cast<double>(gpus) * makespan_s / 3600.0;
  const double kwh = energy.joules / 3.6e6;
  // One kind of device: its GPU-hours times its price, as the figures always were.
  if (devices.size() == 1) gpu_usd = c.gpu_hours * prices.gpu_hour_usd_of(devices.front().hardware);
  c.usd = gpu_usd + kwh * prices.pue * prices.kwh_usd;
  c.usd_per_million_output_tokens = output_tokens > 0 ? c.usd / static_cast<double>(output_tokens) * 1e6 : 0.0;
  return c;
}

}  // namespace moesim::sim
