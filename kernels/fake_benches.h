// The fake backend: benchmarks that run nothing and return deterministic, analytic timings for
// a made-up H200-like GPU. It exists only to exercise everything around the kernels (the plugin
// loader, capture, the CSV and its metadata, fit, check, a scenario run with the fitted profile)
// where no GPU is lent: `moesim calibrate capture --backend fake` and tools/calibrate-gpu.sh
// --dry-run. Its rows measure nothing; its device info says so (`device`, `dry_run`).
//
// The timings follow a simple model with round, invented efficiencies on the H200 datasheet's
// peaks (132 SMs, 989 / 1979 dense TFLOPS BF16 / FP8, 4.8 TB/s HBM, 450 GB/s NVLink per
// direction): a GEMM is max(128x128-tile waves at 70 % of the peak, bytes at 85 % of HBM) plus
// 6 us and 1.5 us per non-empty group; a rank of an all-to-all takes 12 us plus its larger
// direction at 80 % of NVLink, rank r 2·r/ranks % slower than rank 0; repetition i is scaled by
// 1 + 0.003·((i mod 5) − 2) so that percentiles differ.
#pragma once

#include <cstdint>
#include <memory>

#include "kernels/all_to_all_bench.h"
#include "kernels/gemm_bench.h"

namespace moesim::kernels {

struct FakeDevice {
  int gpus = 8;                      // all-to-all ranks when 0 are asked for (an HGX node)
  std::uint64_t clocks_reasons = 0;  // NVML clocks-event bits reported by throttled runs
  int throttle_period = 0;           // every n-th run (1-based) reports clocks_reasons; 0: none
};

std::unique_ptr<GemmBench> make_fake_gemm_bench(const FakeDevice& device);
// `gpus` fake GPUs in this process (0: device.gpus). Throws KernelError for gpus < 0.
std::unique_ptr<AllToAllBench> make_fake_all_to_all_bench(const FakeDevice& device, int gpus);

// One fake GPU per MPI process (kernels/fake_mpi_all_to_all_bench.cpp, in the fake plugin of a
// build with MPI only); rank `fail_rank` (-1: none) throws on its first run.
std::unique_ptr<AllToAllBench> make_fake_mpi_all_to_all_bench(int fail_rank);

// The device info of the fake GPU (shaped like the CUDA backend's, with `dry_run: yes ...`).
DeviceInfo fake_device_info();

// The fake all-to-all time of rank `rank` (ns) for `pattern`, repetition 0: what every fake
// all-to-all (one process or MPI) returns before the per-repetition factor.
double fake_all_to_all_rank_ns(const AllToAllPattern& pattern, int rank);
// The per-repetition factor of repetition `i`.
double fake_repetition_factor(int i);

}  // namespace moesim::kernels
