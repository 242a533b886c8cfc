// Tile/wave model of a Hopper FP8 (DeepGEMM-style) GEMM and grouped GEMM (docs/design.md §4).
//
// A GEMM [M × K] · [K × N] is cut into BLOCK_M × BLOCK_N output tiles; grouped GEMMs cut each
// group separately, so every group's M is padded up to the tile (the "contiguous" layout first
// pads each group to a multiple of 128 rows; the "masked" layout computes ceil(m_g / BLOCK_M)
// tiles per group; groups with no rows get no tiles and read no weights). One SM runs one tile at
// a time, so tiles execute in ceil(tiles / SMs) waves. The model is
//
//   compute = waves · (tile_overhead + 2·BLOCK_M·BLOCK_N·K / (mma_fraction · peak / SMs))
//   memory  = bytes / (hbm_fraction · HBM bandwidth)
//   time    = max(compute, memory) + fixed_overhead + active_groups · per_group_overhead
//
// where bytes = weights of the non-empty groups + activations + BF16 output. The tile is picked
// per shape in the spirit of DeepGEMM's heuristic (not a copy of it): among BLOCK_M ∈ {64, 128}
// and BLOCK_N ∈ {16, 32, ..., 256}, the one with the least modelled compute time (padded waves ×
// tile time), ties to the larger tile. Profiles fitted by `moesim calibrate fit` may give their
// own tile candidates (a CPU's register blocks are far smaller than a GPU's tiles).
//
// The five free parameters (`GemmFitParams`) were fitted once, to the published DeepGEMM H800
// table only (calibration/data/deepgemm_h800.csv); see `deepgemm_h800_fit()` in
// gemm_efficiency.cpp for the values, the procedure and the residuals. They are fractions of the
// device's own spec-sheet peaks plus overheads, so other devices (h100, ...) are modelled by
// applying the same fractions and overheads to their own peak FLOP/s, HBM bandwidth and SM count.
// That transfer is an assumption: it holds for devices running the same kernels on the same SM
// architecture (H100 has the H800's SMs and HBM3), not for other architectures.
#pragma once

#include <array>
#include <cstdint>
#include <mutex>
#include <span>
#include <vector>

#include "calibration/gemm_shape.h"

namespace moesim::calibration {

// Tile heights and widths the kernel may pick from (DeepGEMM-style defaults).
std::vector<int> default_block_m();  // 64, 128
std::vector<int> default_block_n();  // 16, 32, ..., 256

struct GemmFitParams {
  double mma_fraction = 1.0;                     // achievable fraction of the peak dense MMA rate, per SM
  double hbm_fraction = 1.0;                     // achievable fraction of HBM bandwidth
  double fixed_overhead_ns = 0;                  // per kernel: launch, prologue, tail
  double per_group_overhead_ns = 0;              // per non-empty group of a grouped GEMM
  double per_tile_overhead_ns = 0;               // per tile: pipeline fill, epilogue (K-independent)
  std::vector<int> block_m = default_block_m();  // tile candidates (positive)
  std::vector<int> block_n = default_block_n();
};

// The parameters fitted to calibration/data/deepgemm_h800.csv (see gemm_efficiency.cpp).
GemmFitParams deepgemm_h800_fit();

struct GemmDevice {
  int sm_count = 132;
  double peak_flops = 0;  // dense FLOP/s of the operand dtype
  double hbm_bytes_per_s = 0;
};

enum class GroupedLayout {
  kMasked,      // per-group tiles, each group's M padded to BLOCK_M (also plain GEMMs)
  kContiguous,  // each group's M padded to a multiple of 128 rows first
};

struct GemmEstimate {
  double time_ns = 0;
  double compute_ns = 0;  // wave-quantised compute, before overheads
  double memory_ns = 0;   // bytes at the achievable bandwidth, before overheads
  double flops = 0;       // useful FLOPs (unpadded)
  double bytes = 0;
  int block_m = 0;
  int block_n = 0;
  std::int64_t tiles = 0;
  std::int64_t waves = 0;
  int active_groups = 0;
  bool compute_bound = false;
};

// The tile choice depends on a shape only through (N, K, layout) and the M-tile counts at the
// BLOCK_M candidates, and a simulation asks for the same few of those millions of times (one
// grouped GEMM per rank, layer and micro-batch). TilingMemo remembers recent choices for one
// device and parameter set (direct-mapped, exact keys; thread-safe); parameter sets with more
// than kMaxBlockM tile heights are not memoised.
class TilingMemo {
 public:
  struct Choice {
    int block_m = 0, block_n = 0;
    std::int64_t tiles = 0, waves = 0;
    double compute_ns = 0;
  };
  static constexpr std::size_t kMaxBlockM = 4;
  struct Key {
    std::int64_t n = -1, k = -1;
    std::array<std::int64_t, kMaxBlockM> m_tiles{};  // per BLOCK_M candidate, in order
    int layout = -1;
    bool operator==(const Key&) const = default;
  };
  bool find(const Key& key, Choice& out) const;
  void put(const Key& key, const Choice& choice);
  // The memo held for many look-ups (one lock for a whole batch of devices).
  class Held {
   public:
    explicit Held(TilingMemo& memo) : memo_(memo), lock_(memo.mutex_) {}
    bool find(const Key& key, Choice& out) const;
    void put(const Key& key, const Choice& choice);
    Held(const Held&) = delete;
    Held& operator=(const Held&) = delete;

   private:
    TilingMemo& memo_;
    std::lock_guard<std::mutex> lock_;
  };

 private:
  bool find_unlocked(const Key& key, Choice& out) const;
  void put_unlocked(const Key& key, const Choice& choice);
  static constexpr std::size_t kEntries = 1024;
  static std::size_t slot(const Key& key);
  mutable std::mutex mutex_;
  std::array<Key, kEntries> keys_{};
  std::array<Choice, kEntries> choices_{};
};

// Grouped GEMM: group g multiplies tokens[g] rows by its own [K × N] weight (elements of
// `weight_bytes_per_element`, activations the same, output BF16). All-empty input costs nothing.
// `memo` (optional) must belong to this device and parameter set.
GemmEstimate estimate_grouped_gemm(std::span<const std::int64_t> tokens, std::int64_t n, std::int64_t k,
                                   double bytes_per_element, GroupedLayout layout, const GemmDevice& dev,
                                   const GemmFitParams& p, TilingMemo* memo = nullptr);

// The grouped GEMMs of many devices at once (one layer's expert GEMMs over an EP group), one per
// shape over the same groups: device d's groups are tokens[d·g, (d+1)·g) for g =
// groups_per_device, and time_ns[d] gets exactly the sum, in order, of the time_ns
// estimate_grouped_gemm gives for that slice and each shape. A device's rows, non-empty groups
// and per-BLOCK_M tile counts are counted once for every shape, and devices with the same tile
// counts share one tile choice per shape.
void estimate_grouped_gemm_times(std::span<const std::int64_t> tokens, std::size_t groups_per_device,
                                 std::span<const GemmShape> shapes, double bytes_per_element, GroupedLayout layout,
                                 const GemmDevice& dev, const GemmFitParams& p, TilingMemo* memo,
                                 std::span<double> time_ns);

// Plain GEMM: one group of m rows, per-kernel overhead only (no per-group term).
GemmEstimate estimate_gemm(std::int64_t m, std::int64_t n, std::int64_t k, double bytes_per_element,
                           const GemmDevice& dev, const GemmFitParams& p, TilingMemo* memo = nullptr);

}  // namespace moesim::calibration
