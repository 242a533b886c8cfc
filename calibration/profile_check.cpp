#include "calibration/profile_check.h"

#include <algorithm>
#include <cmath>

#include "calibration/all_to_all_model.h"
#include "calibration/calibration_error.h"
#include "calibration/cost_model.h"
#include "topology/cluster.h"

namespace moesim::calibration {
namespace {

std::string describe(const GemmMeasurement& r) {
  std::string s = std::string(r.grouped ? "grouped " : "gemm ") + std::string(models::to_string(r.dtype));
  if (r.grouped) {
    s += " m=[";
    for (std::size_t i = 0; i < r.m_per_group.size(); ++i) {
      if (i == 6 && r.m_per_group.size() > 8) {
        s += ";... (" + std::to_string(r.m_per_group.size()) + " groups)";
        break;
      }
      if (i) s += ';';
      s += std::to_string(r.m_per_group[i]);
    }
    s += "]";
  } else {
    s += " m=" + std::to_string(r.m_per_group.front());
  }
  return s + " n=" + std::to_string(r.n) + " k=" + std::to_string(r.k);
}

}  // namespace

CheckResult check_profile(const HardwareProfile& profile, const std::vector<MeasurementFile>& files) {
  CheckResult out;
  const auto model = make_cost_model(CostModelKind::kFitted, profile);
  const topology::ClusterConfig cluster_defaults;
  const AllToAllLink link{profile.scaleup_bytes_per_s,
                          profile.scaleup_efficiency.value_or(cluster_defaults.scaleup_efficiency),
                          profile.scaleup_latency_ns.value_or(cluster_defaults.scaleup_latency_ns)};
  for (const auto& f : files) {
    for (const auto& r : f.gemm) {
      const double t = r.grouped ? model->grouped_gemm(r.m_per_group, r.n, r.k, r.dtype).time_ns
                                 : model->gemm(r.m_per_group.front(), r.n, r.k, r.dtype).time_ns;
      out.rows.push_back({r.source, r.line, describe(r), r.time.median_ns, t, t / r.time.median_ns - 1});
    }
    for (const auto& r : f.all_to_all) {
      const double t = all_to_all_time_ns(link, r.max_send_bytes, r.max_recv_bytes);
      out.rows.push_back({r.source, r.line,
                          "alltoall " + std::to_string(r.ranks) + " ranks send " +
                              std::to_string(static_cast<long long>(r.max_send_bytes)) + " B recv " +
                              std::to_string(static_cast<long long>(r.max_recv_bytes)) + " B",
                          r.time.median_ns, t, t / r.time.median_ns - 1});
    }
  }
  if (out.rows.empty()) throw CalibrationError("calibrate check: no rows to check");
  std::vector<double> e;
  double sq = 0;
  for (const auto& r : out.rows) {
    e.push_back(std::fabs(r.error));
    sq += r.error * r.error;
  }
  std::sort(e.begin(), e.end());
  out.median_error = e.size() % 2 ? e[e.size() / 2] : 0.5 * (e[e.size() / 2 - 1] + e[e.size() / 2]);
  out.max_error = e.back();
  out.rms_error = std::sqrt(sq / static_cast<double>(e.size()));
  return out;
}

}  // namespace moesim::calibration
