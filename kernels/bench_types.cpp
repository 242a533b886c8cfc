#include "kernels/bench_types.h"

#include <time.h>

#include <algorithm>
#include <chrono>

#include "kernels/all_to_all_bench.h"
#include "kernels/timing_summary.h"

namespace moesim::kernels {

std::string_view element_type_name(ElementType t) {
  switch (t) {
    case ElementType::kFp32: return "fp32";
    case ElementType::kFp16: return "fp16";
    case ElementType::kBf16: return "bf16";
    case ElementType::kFp8E4M3: return "fp8";
  }
  return "fp32";
}

double element_bytes(ElementType t) {
  switch (t) {
    case ElementType::kFp32: return 4;
    case ElementType::kFp16:
    case ElementType::kBf16: return 2;
    case ElementType::kFp8E4M3: return 1;
  }
  return 4;
}

std::string DeviceInfo::get(std::string_view key) const {
  for (const auto& [k, v] : fields)
    if (k == key) return v;
  return "n/a";
}

double cpu_clock_ns(CpuClock clock) {
  if (clock == CpuClock::kThreadCpu) {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
  }
  return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void add_all_to_all_fields(DeviceInfo& info, int ranks, int nodes, const std::string& launcher) {
  info.add("ranks", std::to_string(ranks));
  info.add("nodes", std::to_string(nodes));
  info.add("launcher", launcher);
}

bool AllToAllPattern::uniform() const {
  return !bytes.empty() && std::all_of(bytes.begin(), bytes.end(), [&](std::int64_t b) { return b == bytes[0]; });
}

double quantile_of_sorted(const Timings& sorted, double q) {
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(pos);
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (pos - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

TimingSummary summarize(const Timings& timings) {
  if (timings.empty()) throw KernelError("no timings to summarise (repetitions must be >= 1)");
  Timings s = timings;
  std::sort(s.begin(), s.end());
  TimingSummary out;
  out.count = static_cast<int>(s.size());
  out.median_ns = quantile_of_sorted(s, 0.5);
  out.p10_ns = quantile_of_sorted(s, 0.1);
  out.p90_ns = quantile_of_sorted(s, 0.9);
  out.min_ns = s.front();
  out.max_ns = s.back();
  return out;
}

}  // namespace moesim::kernels
