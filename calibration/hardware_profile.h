// HardwareProfile: what one accelerator can do, from spec sheets and, for profiles written by
// `moesim calibrate fit`, from measurements.
//
// Peak figures are dense (no structured sparsity). Each preset cites its source in
// calibration/profiles/*.yaml. Link figures here are the device's own ports; the cluster
// (topology/) decides how devices are wired. A measured profile may carry its own GEMM model
// parameters per operand dtype (`gemm_fits`, used by the `fitted` cost model instead of the
// DeepGEMM H800 fit) and the measured efficiency and latency of its scale-up all-to-all (used
// as the cluster's defaults when the scenario does not set them).
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "calibration/gemm_efficiency.h"
#include "models/dtype.h"

namespace moesim::calibration {

// Tensor units and precisions (docs/hardware.md). A GEMM's operands pick the units it runs on:
// NVFP4 weights run on FP4 units (W4A4), MXFP4 weights against FP8 activations on FP8 units
// (W4A8: Blackwell's tcgen05 kind::f8f6f4 runs mixed FP4 x FP8 at the FP8 rate, PTX ISA 8.7),
// FP8 and INT8 on their own, BF16 and FP16 on 16-bit units. A device without the units runs the
// GEMM on others, weights still stored (and read from HBM) in their own format and converted in
// the GEMM's main loop: by the profile's `runs_as` choice, else FP4 -> FP8 -> INT8 -> BF16 and
// FP8 <-> INT8 -> BF16 (the next units it has: Hopper runs FP4 weights on FP8 units, Ascend runs
// FP8 checkpoints as W8A8 INT8).
enum class Units { kFp4, kFp8, kInt8, kBf16, kFp32 };
inline constexpr std::size_t kUnitKinds = 5;
std::string_view to_string(Units u);
std::optional<Units> parse_units(std::string_view name);  // "fp4", "fp8", ... (to_string's names)

struct HardwareProfile {
  std::string name;
  std::string source;
  int sm_count = 0;
  double peak_fp4_flops = 0;   // dense FLOP/s; 0: no FP4 units
  double peak_fp8_flops = 0;   // dense FLOP/s; 0: no FP8 units
  double peak_int8_flops = 0;  // dense OP/s; 0: no INT8 units (or none published)
  double peak_bf16_flops = 0;  // dense FLOP/s
  double hbm_bytes = 0;
  double hbm_bytes_per_s = 0;
  double scaleup_bytes_per_s = 0;  // per direction
  double nic_bytes_per_s = 0;      // per direction, default NIC per device
  double peak_fp32_flops = 0;      // dense FP32 rate; 0: half the BF16 rate (TF32 tensor cores)
  // Where the device lacks the units of a GEMM's operands, the units that run it instead (the
  // profile's `compute.runs_as`), indexed by the missing units; unset: the default chain above.
  std::array<std::optional<Units>, kUnitKinds> runs_as{};
  // A package of several compute dies (the Ascend 910C holds two), every figure above being the
  // whole package's; die_link_bytes_per_s is the on-package link between two of its dies, per
  // direction. A deployment may run one rank per package or one per die (die_of below).
  int dies = 1;
  double die_link_bytes_per_s = 0;
  // Board power (the profile's `power`; sim/energy.h): the most the board draws (its thermal
  // design power, as spec sheets give it) and what it draws idle with the driver loaded. 0: not
  // known, and a run reports no energy.
  double board_power_w = 0;
  double idle_power_w = 0;

  // Measured (moesim calibrate fit); empty / unset on spec-sheet presets.
  struct GemmFit {
    models::DType dtype = models::DType::kBf16;  // fp8, bf16, fp16 or fp32
    GemmFitParams params;
  };
  std::vector<GemmFit> gemm_fits;
  std::optional<double> scaleup_efficiency;  // achieved / line rate of the scale-up all-to-all
  std::optional<double> scaleup_latency_ns;  // fixed cost of one scale-up all-to-all

  // The units that run GEMMs whose weights are in `t`, and their dense peak rate.
  Units units(models::DType t) const;
  bool has_units(Units u) const { return units_peak(u) > 0; }
  double units_peak(Units u) const;
  double peak_flops(models::DType t) const { return units_peak(units(t)); }
  // The measured GEMM parameters for operands of `t`: the fit of the same dtype (FP4 and INT8
  // use FP8's, FP16 falls back to BF16's and back), else none.
  const GemmFitParams* gemm_fit(models::DType t) const;
};

// One die of a multi-die package, as a device of its own: the package's compute units, peaks,
// HBM capacity and bandwidth, scale-up and NIC bandwidth split evenly over its dies (each die has
// its own HBM stacks and its own share of the package's ports); measured fits and efficiencies
// kept. Named "<package>/die". A one-die profile is returned as it is.
HardwareProfile die_of(const HardwareProfile& package);

struct HardwarePresetInfo {
  std::string_view name;
  std::string_view description;
};

std::vector<HardwarePresetInfo> hardware_presets();
std::optional<HardwareProfile> find_hardware_preset(std::string_view name);

}  // namespace moesim::calibration
