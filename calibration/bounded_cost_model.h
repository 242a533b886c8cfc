// BoundedCostModel: the part of a cost model that costs attention cores and elementwise ops from
// their FLOPs and bytes with one `bound` rule (the model's own roofline), shared by the
// registered cost models; they add GEMMs and the launch overhead.
#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "calibration/cost_model.h"
#include "calibration/hardware_profile.h"
#include "models/layer_ops.h"
#include "models/linear_attention.h"

namespace moesim::calibration {

class BoundedCostModel : public CostModel {
 public:
  explicit BoundedCostModel(const HardwareProfile& hw) : hw_(hw) {}

  KernelCost attention_decode(const models::ModelSpec& model, std::span<const std::int64_t> kv_lengths) const override {
    if (kv_lengths.empty()) return {};
    // The closed form where it is exact (the same value as the loop, in O(1) per token).
    std::optional<models::Work> total = models::attention_decode_total(model, kv_lengths);
    if (!total) {
      total.emplace();
      for (auto len : kv_lengths) add(*total, models::attention_decode_core(model, len));
    }
    return bound(total->flops, total->bytes, hw_.peak_flops(model.activation_dtype));
  }

  KernelCost attention_verify(const models::ModelSpec& model, std::span<const std::int64_t> kv_lengths,
                              int queries) const override {
    if (kv_lengths.empty()) return {};
    models::Work total;
    for (auto len : kv_lengths) add(total, models::attention_verify_core(model, len, queries));
    return bound(total.flops, total.bytes, hw_.peak_flops(model.activation_dtype));
  }

  // Each chunk on the cheaper of its paths: the expanded (FlashAttention-style) kernel, or for
  // MLA the absorbed one (engines take it for short extends after long cached prefixes, where
  // expanding the whole prefix into per-head K/V would cost ~30 decode steps); one launch.
  KernelCost attention_prefill(const models::ModelSpec& model, std::span<const PrefillChunk> chunks) const override {
    if (chunks.empty()) return {};
    const double peak = hw_.peak_flops(model.activation_dtype);
    KernelCost total;
    double ns = 0;
    for (const auto& c : chunks) {
      const double span = static_cast<double>(c.past + c.tokens);
      models::Work w = models::attention_prefill_core(model, c.past, c.tokens);
      double t = prefill_work_ns(w, span, false, peak);
      if (model.attention == models::AttentionKind::kMla) {
        const models::Work a = models::attention_prefill_absorbed_core(model, c.past, c.tokens);
        const double ta = prefill_work_ns(a, span, true, peak);
        if (ta < t) {
          t = ta;
          w = a;
        }
      }
      ns += t;
      total.flops += w.flops;
      total.bytes += w.bytes;
    }
    total.compute_bound = total.flops / peak >= total.bytes / hw_.hbm_bytes_per_s;
    total.time_ns = ns + launch_overhead_ns();
    return total;
  }

  // Each part at the model's bound for its FLOPs and bytes (the recurrence reads and writes every
  // decoding sequence's state; the chunked prefill is compute-heavy), one launch each.
  KernelCost linear_attention(const models::ModelSpec& model, std::size_t decoding, int queries,
                              std::span<const PrefillChunk> chunks) const override {
    const double peak = hw_.peak_flops(model.activation_dtype);
    KernelCost total;
    if (decoding > 0) {
      const models::Work w = models::linear_attention_decode_core(model, queries);
      const auto n = static_cast<double>(decoding);
      accumulate(total, bound(w.flops * n, w.bytes * n, peak));
    }
    if (!chunks.empty()) {
      models::Work sum;
      for (const auto& c : chunks) add(sum, models::linear_attention_prefill_core(model, c.past, c.tokens));
      accumulate(total, bound(sum.flops, sum.bytes, peak));
    }
    return total;
  }

  KernelCost memory_op(double bytes) const override { return bound(0, bytes, hw_.peak_bf16_flops); }
  double achievable_hbm_bytes_per_s() const override { return hw_.hbm_bytes_per_s; }

 protected:
  // Time of a kernel doing `flops` at up to `peak` FLOP/s and moving `bytes` through HBM.
  virtual KernelCost bound(double flops, double bytes, double peak) const = 0;
  // One prefill chunk's attention work, without the launch overhead: its queries attend over
  // `span` positions, on the absorbed MLA path or the expanded one. By default the model's bound.
  virtual double prefill_work_ns(const models::Work& w, double /*span*/, bool /*absorbed*/, double peak) const {
    return bound(w.flops, w.bytes, peak).time_ns - launch_overhead_ns();
  }
  const HardwareProfile& hw() const { return hw_; }

 private:
  static void accumulate(KernelCost& total, const KernelCost& c) {
    total.time_ns += c.time_ns;
    total.flops += c.flops;
    total.bytes += c.bytes;
    total.compute_bound = total.compute_bound || c.compute_bound;
  }
  static void add(models::Work& total, const models::Work& w) {
    total.flops += w.flops;
    total.bytes += w.bytes;
  }

  HardwareProfile hw_;
};

}  // namespace moesim::calibration
