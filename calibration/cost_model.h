// CostModel: how long a kernel takes on one device (docs/design.md §4).
//
// The interface answers dense GEMMs, grouped GEMMs (one weight per group, per-group token
// counts), the attention core for decode and prefill, memory-bound elementwise ops and the fixed
// cost of a kernel launch. Implementations are registered by name (see `cost_models()`).
//
// `roofline`: each kernel takes max(FLOPs / peak FLOP/s, bytes / HBM bandwidth) plus one launch
// overhead, at spec-sheet peaks: an optimistic bound. `fitted` (the default for scenarios):
// tile and wave quantisation with efficiencies fitted to published DeepGEMM H800 measurements
// (calibration/gemm_efficiency.h).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "calibration/gemm_shape.h"
#include "calibration/hardware_profile.h"
#include "models/dtype.h"
#include "models/model_spec.h"
#include "models/registry.h"

namespace moesim::calibration {

struct KernelCost {
  double time_ns = 0;
  double flops = 0;
  double bytes = 0;
  bool compute_bound = false;
};

struct PrefillChunk {
  std::int64_t past = 0;    // tokens already in the KV cache
  std::int64_t tokens = 0;  // new tokens in this chunk
};

class CostModel {
 public:
  virtual ~CostModel() = default;
  // [m × k] activations times a [k × n] weight in `dtype`, output in BF16.
  virtual KernelCost gemm(std::int64_t m, std::int64_t n, std::int64_t k, models::DType dtype) const = 0;
  // One [k × n] weight per group; group g multiplies tokens[g] rows. Groups with 0 rows read no
  // weights.
  virtual KernelCost grouped_gemm(std::span<const std::int64_t> tokens, std::int64_t n, std::int64_t k,
                                  models::DType dtype) const = 0;
  // The grouped GEMMs of many devices at once (one layer over an EP group), one per shape over the
  // same groups (an expert MLP's projections): device d's groups are tokens[d·g, (d+1)·g) for
  // g = groups_per_device; time_ns[d] gets exactly the sum in order of grouped_gemm(that slice,
  // shape).time_ns over the shapes. The default asks grouped_gemm per device and shape; models
  // may share work across devices and shapes.
  virtual void grouped_gemm_times(std::span<const std::int64_t> tokens, std::size_t groups_per_device,
                                  std::span<const GemmShape> shapes, models::DType dtype,
                                  std::span<double> time_ns) const;
  // Attention core of one decode step for requests with the given KV lengths.
  virtual KernelCost attention_decode(const models::ModelSpec& model,
                                      std::span<const std::int64_t> kv_lengths) const = 0;
  // Attention core of a speculative-decoding verification step: `queries` query tokens per
  // request, each request's cache read once (models::attention_verify_core).
  virtual KernelCost attention_verify(const models::ModelSpec& model, std::span<const std::int64_t> kv_lengths,
                                      int queries) const = 0;
  virtual KernelCost attention_prefill(const models::ModelSpec& model, std::span<const PrefillChunk> chunks) const = 0;
  // The Gated DeltaNet cores of one linear-attention layer (models/linear_attention.h):
  // `decoding` sequences feeding `queries` tokens each through the recurrent kernel, and the
  // prefill chunks through the chunked one; zero for neither.
  virtual KernelCost linear_attention(const models::ModelSpec& model, std::size_t decoding, int queries,
                                      std::span<const PrefillChunk> chunks) const = 0;
  // Elementwise / reduction kernels that stream `bytes` through HBM.
  virtual KernelCost memory_op(double bytes) const = 0;
  // memory_op for many kernels at once: time_ns[i] gets exactly memory_op(bytes[i]).time_ns. The
  // default asks memory_op per kernel.
  virtual void memory_op_times(std::span<const double> bytes, std::span<double> time_ns) const;
  virtual double launch_overhead_ns() const = 0;
  // The HBM bandwidth kernels achieve (bytes/s); 0 when the model does not say.
  virtual double achievable_hbm_bytes_per_s() const { return 0.0; }
};

// The registry of cost models (models/registry.h), listed in the order of CostModelKind: the
// scenario loader and the command line resolve a name once; below them the value travels.
enum class CostModelKind { kRoofline, kFitted };
std::vector<models::RegistryEntry> cost_models();  // roofline, fitted
// Throws CalibrationError "unknown cost model 'x' (valid: roofline, fitted)".
CostModelKind cost_model_kind(std::string_view name);
std::string_view to_string(CostModelKind kind);

std::unique_ptr<CostModel> make_cost_model(CostModelKind kind, const HardwareProfile& hw);

}  // namespace moesim::calibration
