// The default cases of each capture suite (`moesim calibrate capture` without shape flags).
//
// cpu: small FP32 shapes that take 0.05-10 ms each under Eigen, enough to sit far above timer
// noise and few enough that a capture takes seconds; single-row GEMMs are left out because
// Eigen runs them as a matrix-vector product, a different kernel.
// cuda: the expert projections of DeepSeek-V3 (hidden 7168, expert intermediate 2048: up/gate
// n = 4096, k = 7168; down n = 7168, k = 2048), Qwen3-235B-A22B (4096 / 1536: 3072 × 4096 and
// 4096 × 1536) and Qwen3-30B-A3B (2048 / 768: 1536 × 2048 and 2048 × 768), from the models'
// published configurations (the model presets in models/presets/), with 8-32 experts of
// 1-4096 rows, uniform and zipf-skewed.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "calibration/capture_names.h"

namespace moesim::calibration {

struct SuiteDefaults {
  std::vector<std::pair<std::int64_t, std::int64_t>> shapes;
  std::vector<std::int64_t> m;
  std::vector<int> groups;
  std::vector<SplitDistribution> distributions;
  std::int64_t max_tokens = 0;
  std::vector<std::int64_t> sizes;
  int ranks = 0;
  int warmup = 0, repetitions = 0, rounds = 0;
};

SuiteDefaults suite_defaults(CaptureBackend backend, CaptureSuite suite);

}  // namespace moesim::calibration
