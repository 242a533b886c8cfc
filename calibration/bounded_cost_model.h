// BoundedCostModel: the part of a cost model that costs attention cores and elementwise ops from
// their FLOPs and bytes with one `bound` rule (the model's own roofline), shared by the
// registered cost models; they add GEMMs and the launch overhead.
#pragma once

#include <cstdint>
#include <span>

#include "calibration/cost_model.h"
#include "calibration/hardware_profile.h"
#include "models/layer_ops.h"

namespace moesim::calibration {

class BoundedCostModel : public CostModel {
 public:
  explicit BoundedCostModel(const HardwareProfile& hw) : hw_(hw) {}

  KernelCost attention_decode(const models::ModelSpec& model,
                              std::span<const std::int64_t> kv_lengths) const override {
    if (kv_lengths.empty()) return {};
    models::Work total;
    for (auto len : kv_lengths) add(total, models::attention_decode_core(model, len));
    return bound(total.flops, total.bytes, hw_.peak_flops(model.activation_dtype));
  }

  KernelCost attention_verify(const models::ModelSpec& model, std::span<const std::int64_t> kv_lengths,
                              int queries) const override {
    if (kv_lengths.empty()) return {};
    models::Work total;
    for (auto len : kv_lengths) add(total, models::attention_verify_core(model, len, queries));
    return bound(total.flops, total.bytes, hw_.peak_flops(model.activation_dtype));
  }

  KernelCost attention_prefill(const models::ModelSpec& model,
                               std::span<const PrefillChunk> chunks) const override {
    if (chunks.empty()) return {};
    models::Work total;
    for (const auto& c : chunks) add(total, models::attention_prefill_core(model, c.past, c.tokens));
    return bound(total.flops, total.bytes, hw_.peak_flops(model.activation_dtype));
  }

  KernelCost memory_op(double bytes) const override { return bound(0, bytes, hw_.peak_bf16_flops); }

 protected:
  // Time of a kernel doing `flops` at up to `peak` FLOP/s and moving `bytes` through HBM.
  virtual KernelCost bound(double flops, double bytes, double peak) const = 0;
  const HardwareProfile& hw() const { return hw_; }

 private:
  static void add(models::Work& total, const models::Work& w) {
    total.flops += w.flops;
    total.bytes += w.bytes;
  }

  HardwareProfile hw_;
};

}  // namespace moesim::calibration
