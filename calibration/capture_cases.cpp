#include "calibration/capture_cases.h"

namespace moesim::calibration {

SuiteDefaults suite_defaults(CaptureBackend backend, CaptureSuite suite) {
  SuiteDefaults d;
  const bool cpu = backend == CaptureBackend::kCpu;
  d.distributions = {SplitDistribution::kUniform, SplitDistribution::kZipf};
  if (cpu) {
    d.warmup = 1;  // per round
    d.repetitions = 24;
    d.rounds = 6;
  } else {
    d.warmup = 3;
    d.repetitions = 20;
    d.rounds = 1;
  }
  if (suite == CaptureSuite::kGemm) {
    d.shapes = cpu ? std::vector<std::pair<std::int64_t, std::int64_t>>{{128, 256}, {256, 128}, {192, 192}}
                   : std::vector<std::pair<std::int64_t, std::int64_t>>{{4096, 7168}, {7168, 2048}, {3072, 4096},
                                                                        {4096, 1536}, {1536, 2048}, {2048, 768}};
    d.m = cpu ? std::vector<std::int64_t>{2, 4, 8, 16, 32, 64, 128}
              : std::vector<std::int64_t>{1, 16, 64, 128, 256, 512, 1024, 2048, 4096, 8192};
  } else if (suite == CaptureSuite::kGroupedGemm) {
    d.shapes = cpu ? std::vector<std::pair<std::int64_t, std::int64_t>>{{128, 256}, {256, 128}}
                   : std::vector<std::pair<std::int64_t, std::int64_t>>{{4096, 7168}, {7168, 2048}, {3072, 4096},
                                                                        {4096, 1536}, {1536, 2048}, {2048, 768}};
    d.groups = cpu ? std::vector<int>{4, 8} : std::vector<int>{8, 16, 32};
    d.m = cpu ? std::vector<std::int64_t>{8, 24, 64} : std::vector<std::int64_t>{1, 4, 16, 64, 256, 1024, 4096};
    d.max_tokens = cpu ? 0 : 32768;  // keeps the GPU suite to minutes (32 × 4096 is left out)
  } else {
    // cpu: 0.125-1 MiB per peer, so that each rank's working set (its receive buffer and the
    // chunk it reads) stays in a core's L2 or nearby L3 and one bandwidth describes every size.
    d.sizes =
        cpu ? std::vector<std::int64_t>{128 << 10, 256 << 10, 512 << 10, 1 << 20}
            : std::vector<std::int64_t>{4 << 10, 16 << 10, 64 << 10, 256 << 10, 1 << 20, 4 << 20, 16 << 20, 64 << 20};
    d.ranks = cpu ? 2 : 0;
  }
  return d;
}

}  // namespace moesim::calibration
