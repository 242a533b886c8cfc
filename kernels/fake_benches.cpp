#include "kernels/fake_benches.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "kernels/gemm_layout.h"

namespace moesim::kernels {
namespace {

// The made-up device: H200 datasheet figures (NVIDIA H200 Tensor Core GPU datasheet, SXM).
constexpr int kSms = 132;
constexpr double kPeakBf16 = 989e12, kPeakFp8 = 1979e12, kPeakTf32 = 494e12;  // dense FLOP/s
constexpr double kHbm = 4.8e12;                                               // bytes/s
constexpr double kNvlink = 450e9;                                             // bytes/s per direction
// Invented efficiencies and overheads (round numbers, not measurements; see the header).
constexpr double kMmaFraction = 0.70, kHbmFraction = 0.85, kNvlinkFraction = 0.80;
constexpr double kFixedNs = 6000, kPerGroupNs = 1500, kAllToAllLatencyNs = 12000;
constexpr int kTile = 128;

double peak_of(ElementType t) {
  switch (t) {
    case ElementType::kFp8E4M3: return kPeakFp8;
    case ElementType::kFp32: return kPeakTf32;
    default: return kPeakBf16;
  }
}

void check_gemm(const GemmShape& s) {
  if (s.n <= 0 || s.k <= 0) throw KernelError("gemm: n and k must be positive");
  if (s.m_per_group.empty()) throw KernelError("gemm: no groups");
  if (!s.grouped && s.m_per_group.size() != 1) throw KernelError("gemm: a dense GEMM has one group");
  for (auto m : s.m_per_group)
    if (m < 0) throw KernelError("gemm: negative rows in a group");
  if (const std::string why = cuda_gemm_layout_problem(s); !why.empty()) throw KernelError(why);
}

double fake_gemm_ns(const GemmShape& s) {
  std::int64_t tiles = 0, rows = 0, groups = 0;
  const std::int64_t n_tiles = (s.n + kTile - 1) / kTile;
  for (auto m : s.m_per_group) {
    tiles += (m + kTile - 1) / kTile * n_tiles;
    rows += m;
    groups += m > 0 ? 1 : 0;
  }
  const double waves = std::ceil(static_cast<double>(tiles) / kSms);
  const double tile_ns = 2.0 * kTile * kTile * static_cast<double>(s.k) / (kMmaFraction * peak_of(s.type) / kSms) * 1e9;
  const double e = element_bytes(s.type), eo = element_bytes(gemm_output_type(s.type));
  const double bytes = static_cast<double>(groups * s.k * s.n) * e + static_cast<double>(rows * s.k) * e +
                       static_cast<double>(rows * s.n) * eo;
  return std::max(waves * tile_ns, bytes / (kHbmFraction * kHbm) * 1e9) + kFixedNs +
         kPerGroupNs * static_cast<double>(groups);
}

// The clocks a fake run reports: the made-up maximum, and the configured reasons every
// throttle_period-th run.
DeviceState fake_state(const FakeDevice& d, int run) {
  const bool hot = d.throttle_period > 0 && run % d.throttle_period == 0;
  return {true, hot ? 1500 : 1980, 3201, hot ? d.clocks_reasons : kClocksSwPowerCap};
}

class FakeGemmBench final : public GemmBench {
 public:
  explicit FakeGemmBench(const FakeDevice& d) : device_(d) {}
  std::string_view backend() const override { return "fake"; }
  DeviceInfo device_info() const override { return fake_device_info(); }
  bool supports(ElementType) const override { return true; }
  std::string kernel(ElementType, bool grouped) const override {
    return std::string("fake: analytic 128x128-tile waves and HBM roofline, ") + (grouped ? "grouped" : "dense") +
           " (no kernel ran)";
  }
  RunResult run(const GemmShape& shape, const BenchSettings& settings) override {
    check_gemm(shape);
    RunResult out;
    const double t = fake_gemm_ns(shape);
    for (int i = 0; i < settings.repetitions; ++i) out.time.push_back(t * fake_repetition_factor(i));
    out.state = fake_state(device_, ++runs_);
    return out;
  }
  double verify(const GemmShape&) override {
    throw KernelError("the fake backend runs no kernel: there is no result to verify");
  }

 private:
  FakeDevice device_;
  int runs_ = 0;
};

class FakeAllToAllBench final : public AllToAllBench {
 public:
  FakeAllToAllBench(const FakeDevice& d, int ranks) : device_(d), ranks_(ranks) {}
  std::string_view backend() const override { return "fake"; }
  int ranks() const override { return ranks_; }
  bool is_root() const override { return true; }
  DeviceInfo device_info() const override {
    DeviceInfo info = fake_device_info();
    add_all_to_all_fields(info, ranks_, 1, "single process (fake)");
    return info;
  }
  std::string algorithm(const AllToAllPattern&) const override { return "fake"; }
  RunResult run(const AllToAllPattern& p, const BenchSettings& settings) override {
    if (p.ranks != ranks_ || p.bytes.size() != static_cast<std::size_t>(ranks_) * static_cast<std::size_t>(ranks_))
      throw KernelError("all-to-all: pattern for " + std::to_string(p.ranks) + " ranks on a bench of " +
                        std::to_string(ranks_));
    RunResult out;
    out.per_rank.assign(static_cast<std::size_t>(ranks_), {});
    for (int i = 0; i < settings.repetitions; ++i) {
      double slowest = 0;
      for (int r = 0; r < ranks_; ++r) {
        const double t = fake_all_to_all_rank_ns(p, r) * fake_repetition_factor(i);
        out.per_rank[static_cast<std::size_t>(r)].push_back(t);
        slowest = std::max(slowest, t);
      }
      out.time.push_back(slowest);
    }
    out.state = fake_state(device_, ++runs_);
    return out;
  }

 private:
  FakeDevice device_;
  int ranks_;
  int runs_ = 0;
};

}  // namespace

double fake_repetition_factor(int i) { return 1 + 0.003 * (i % 5 - 2); }

double fake_all_to_all_rank_ns(const AllToAllPattern& p, int rank) {
  std::int64_t send = 0, recv = 0;
  for (int peer = 0; peer < p.ranks; ++peer)
    if (peer != rank) {
      send += p.bytes[static_cast<std::size_t>(rank * p.ranks + peer)];
      recv += p.bytes[static_cast<std::size_t>(peer * p.ranks + rank)];
    }
  const double skew = 1 + 0.02 * rank / std::max(p.ranks, 1);
  return (kAllToAllLatencyNs + static_cast<double>(std::max(send, recv)) / (kNvlinkFraction * kNvlink) * 1e9) * skew;
}

DeviceInfo fake_device_info() {
  DeviceInfo info;
  info.add("device", "moesim fake GPU (analytic timings, nothing measured)");
  info.add("dry_run", "yes: the fake backend's timings are analytic (kernels/fake_benches.h), not measurements");
  info.add("compute_capability", "9.0");
  info.add("sm_count", std::to_string(kSms));
  info.add("sm_clock_mhz", "1980");
  info.add("memory_clock_mhz", "3201");
  info.add("memory_bus_bits", "6144");
  info.add("memory_bytes", "151397597184");  // 141 GiB, as the H200 preset
  info.add("l2_bytes", "52428800");          // 50 MiB
  for (const char* key : {"driver", "driver_release", "sm_clock_now_mhz", "memory_clock_now_mhz", "cuda_runtime",
                          "cublas", "cublaslt", "nccl"})
    info.add(key, "n/a");
  return info;
}

std::unique_ptr<GemmBench> make_fake_gemm_bench(const FakeDevice& device) {
  return std::make_unique<FakeGemmBench>(device);
}

std::unique_ptr<AllToAllBench> make_fake_all_to_all_bench(const FakeDevice& device, int gpus) {
  if (gpus < 0) throw KernelError("all-to-all: gpus must be >= 0 (0: all visible)");
  return std::make_unique<FakeAllToAllBench>(device, gpus == 0 ? device.gpus : gpus);
}

}  // namespace moesim::kernels
