// Hardware profile files: a HardwareProfile as YAML (the format of calibration/profiles/*.yaml),
// read strictly (unknown keys with a did-you-mean hint, units required, every figure present).
//
//   name: h800
//   description: one line for listings
//   source: where the figures come from (each figure may cite more in a comment)
//   compute:
//     sm_count: 132          # SMs (NVIDIA) or AI cube cores (Ascend): the unit of wave quantisation
//     fp8: 1979TFLOPS        # dense 8-bit tensor rate; on devices without FP8 write int8 instead:
//     int8: 1504TOPS         #   the INT8 (W8A8) rate then serves FP8/INT8 work (one of the two)
//     bf16: 989TFLOPS        # dense BF16/FP16 tensor rate
//   memory: {capacity: 81559MiB, bandwidth: 3.35TB/s}
//   network:               # the device's own ports, per direction
//     scaleup: 200GB/s       # NVLink / UB
//     nic: 400Gbps           # scale-out NIC (RDMA)
//
// Profiles written by `moesim calibrate fit` (docs/calibration.md) add measured figures; every
// one of these keys is optional:
//
//   compute:
//     fp32: 45GFLOPS         # dense FP32 rate (default: half of bf16, the TF32 tensor rate)
//   network:
//     scaleup_efficiency: 0.71   # measured all-to-all bandwidth / scaleup line rate, in (0, 1]
//     scaleup_latency: 12.5us    # measured fixed cost of one scale-up all-to-all
//   gemm:                    # the fitted cost model's parameters per operand dtype
//     bf16:                  #   (fp8, bf16, fp16, fp32; see calibration/gemm_efficiency.h)
//       mma_fraction: 0.74   # fractions in (0, 1]
//       hbm_fraction: 0.88
//       fixed_overhead: 4.1us
//       per_group_overhead: 0.9us
//       per_tile_overhead: 1.2us
//       block_m: [64, 128]   # tile candidates (default: DeepGEMM-like 64/128 × 16..256)
//       block_n: [64, 128, 256]
//
// Errors throw HardwareError "<source>:<line>:<column>: <key.path>: <message>".
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <utility>

#include "calibration/hardware_profile.h"
#include "models/error.h"

namespace moesim::calibration {

class HardwareError : public models::Error {
 public:
  explicit HardwareError(const std::string& what, std::string position = {})
      : Error(models::ErrorKind::kHardware, what, std::move(position)) {}
};

struct HardwareFile {
  HardwareProfile profile;
  std::string description;
};

HardwareFile read_hardware_yaml(std::string_view text, std::string_view source_name);
HardwareProfile load_hardware_yaml(std::string_view text, std::string_view source_name);
HardwareProfile load_hardware_file(const std::filesystem::path& path);

}  // namespace moesim::calibration
