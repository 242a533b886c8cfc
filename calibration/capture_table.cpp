#include "calibration/capture_table.h"

#include <algorithm>
#include <cstdio>
#include <ctime>

#include "calibration/all_to_all_volumes.h"
#include "calibration/calibration_error.h"
#include "calibration/measurements.h"
#include "kernels/timing_summary.h"

namespace moesim::calibration {
namespace {

std::string fmt(double v, const char* f = "%.1f") {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// "a;b;c" (GCC 12 misreads `(i ? ";" : "") + string` inlined here as an overlapping copy).
void append_item(std::string& list, const std::string& item) {
  if (!list.empty()) list += ';';
  list += item;
}

std::string join_ints(const std::vector<std::int64_t>& v) {
  std::string s;
  for (auto x : v) append_item(s, std::to_string(x));
  return s;
}

// The per-case device-state cells: lowest SM and memory clocks, clocks-event reasons, throttled.
std::vector<std::string> state_cells(const kernels::DeviceState& s) {
  if (!s.known) return {"n/a", "n/a", "n/a", "n/a"};
  return {std::to_string(s.sm_clock_mhz), std::to_string(s.memory_clock_mhz), kernels::clocks_reason_names(s.reasons),
          kernels::throttled(s.reasons) ? "yes" : "no"};
}

std::string clock_description(const CaptureOptions& o) {
  if (o.backend == CaptureBackend::kCuda)
    return "cuda events, each start event behind a launch gate (host launch time not timed)";
  if (o.backend == CaptureBackend::kFake) return "none: analytic timings (fake backend)";
  return o.clock == CaptureClock::kCpu ? "thread cpu time (CLOCK_THREAD_CPUTIME_ID)" : "wall (steady_clock)";
}

std::vector<std::string> all_to_all_cells(const CaptureOptions& o, const ResolvedSettings& r, const CapturedCase& c,
                                          const kernels::TimingSummary& s) {
  const AllToAllVolumes v = all_to_all_volumes(c.a2a);
  const AllToAllBandwidth bw = all_to_all_bandwidth(c.a2a, s.median_ns);
  std::string rank_medians;
  double slowest = -1;
  std::size_t slowest_rank = 0;
  for (std::size_t rank = 0; rank < c.per_rank.size(); ++rank) {
    const double median = kernels::summarize(c.per_rank[rank]).median_ns;
    append_item(rank_medians, fmt(median));
    if (median > slowest) {
      slowest = median;
      slowest_rank = rank;
    }
  }
  return {std::string(to_string(o.suite)),
          std::to_string(c.a2a.ranks),
          std::string(to_string(c.distribution)),
          c.distribution == SplitDistribution::kZipf ? fmt(o.skew, "%g") : "0",
          std::to_string(c.peer_bytes),
          std::to_string(v.max_send),
          std::to_string(v.max_recv),
          std::to_string(v.total),
          c.algorithm,
          std::to_string(r.warmup),
          std::to_string(s.count),
          fmt(s.median_ns),
          fmt(s.p10_ns),
          fmt(s.p90_ns),
          fmt(s.min_ns),
          fmt(bw.algbw_gbs, "%.3f"),
          fmt(bw.busbw_gbs, "%.3f"),
          rank_medians.empty() ? "n/a" : rank_medians,
          c.per_rank.empty() ? "n/a" : std::to_string(slowest_rank)};
}

std::vector<std::string> gemm_cells(const CaptureOptions& o, const ResolvedSettings& r, const CapturedCase& c,
                                    const kernels::TimingSummary& s) {
  const double flops =
      2.0 * static_cast<double>(c.tokens) * static_cast<double>(c.gemm.n) * static_cast<double>(c.gemm.k);
  return {std::string(to_string(o.suite)),
          std::string(to_string(r.dtype)),
          std::to_string(c.groups),
          std::to_string(c.tokens),
          std::string(to_string(c.distribution)),
          c.distribution == SplitDistribution::kZipf ? fmt(o.skew, "%g") : "0",
          join_ints(c.gemm.m_per_group),
          std::to_string(c.gemm.n),
          std::to_string(c.gemm.k),
          std::to_string(r.warmup),
          std::to_string(s.count),
          fmt(s.median_ns),
          fmt(s.p10_ns),
          fmt(s.p90_ns),
          fmt(s.min_ns),
          fmt(flops / s.median_ns * 1e-3, "%.4f")};
}

}  // namespace

CalibrationTable capture_table(const CaptureOptions& o, const ResolvedSettings& r, const kernels::DeviceInfo& device,
                               const std::string& gemm_kernel, const std::vector<CapturedCase>& cases) {
  const bool a2a = o.suite == CaptureSuite::kAllToAll;
  CalibrationTable t;
  std::vector<std::string> skipped;
  int throttled = 0, exposed = 0, timed = 0;
  for (const CapturedCase& c : cases) {
    if (!c.skipped.empty()) skipped.push_back(c.what + ": " + c.skipped);
    if (c.state.known && kernels::throttled(c.state.reasons)) ++throttled;
    exposed += c.exposed_launches;
    timed += static_cast<int>(c.timings.size());
  }
  // The capture's own keys after the device's: a clash would write a key twice.
  const auto add = [&](const std::string& key, const std::string& value) {
    if (const auto* first = t.find_meta(key))
      throw CalibrationError("capture: metadata key '" + key + "' written twice ('" + first->value + "', then '" +
                             value + "')");
    t.add_meta(key, value);
  };
  add("format", std::string(kCalibrationFormat));
  add("suite", std::string(to_string(o.suite)));
  add("backend", std::string(to_string(o.backend)));
  for (const auto& [k, v] : device.fields) add(k, v);
  if (!a2a) {
    add("dtype", std::string(to_string(r.dtype)));
    add("gemm_kernel", gemm_kernel);
  }
  add("warmup", std::to_string(r.warmup) + (r.rounds > 1 ? " per round" : ""));
  add("repetitions", std::to_string(r.repetitions));
  add("rounds", std::to_string(r.rounds));
  if (o.backend == CaptureBackend::kCuda) add("flush_l2", o.flush_cache ? "yes" : "no");
  add("clock", clock_description(o));
  add("exposed_launches", std::to_string(exposed) + " of " + std::to_string(timed) + " timed repetitions");
  add("throttled_cases",
      std::to_string(throttled) +
          (o.throttled == ThrottlePolicy::kRefuse ? " (refused)" : " (flagged in column throttled)"));
  add("date", utc_now());
  add("skipped_cases", std::to_string(skipped.size()));
  for (std::size_t i = 0; i < skipped.size(); ++i) add("skipped_" + std::to_string(i + 1), skipped[i]);
  std::string command = o.command_line;
  std::replace(command.begin(), command.end(), '\n', ' ');
  add("command", command.empty() ? "n/a" : command);

  t.columns = a2a ? all_to_all_columns() : gemm_columns();
  for (const CapturedCase& c : cases) {
    if (!c.skipped.empty()) continue;
    const kernels::TimingSummary s = kernels::summarize(c.timings);
    std::vector<std::string> cells = a2a ? all_to_all_cells(o, r, c, s) : gemm_cells(o, r, c, s);
    for (auto& cell : state_cells(c.state)) cells.push_back(std::move(cell));
    cells.push_back(std::to_string(c.exposed_launches));
    t.rows.push_back({0, std::move(cells)});
  }
  return t;
}

}  // namespace moesim::calibration
