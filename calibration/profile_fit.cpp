#include "calibration/profile_fit.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>

#include "calibration/all_to_all_model.h"
#include "calibration/calibration_error.h"
#include "calibration/gemm_fit.h"
#include "calibration/nnls.h"

namespace moesim::calibration {
namespace {

std::string fmt(const char* f, double v) {
  char buf[96];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

std::string slug(const std::string& s) {
  std::string out;
  for (char c : s) {
    const char l = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if ((l >= 'a' && l <= 'z') || (l >= '0' && l <= '9'))
      out += l;
    else if (!out.empty() && out.back() != '-')
      out += '-';
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out.empty() ? "device" : out;
}

// "1,4" -> {1, 4}; empty when absent or malformed entries (then the defaults apply).
std::vector<int> tile_hint(const MeasurementFile& f, std::string_view key) {
  std::vector<int> out;
  const auto v = f.table.meta(key);
  if (!v) return out;
  std::string_view s = *v;
  while (!s.empty()) {
    const std::size_t comma = s.find(',');
    const std::string_view part = s.substr(0, comma);
    int x = 0;
    const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), x);
    if (ec != std::errc() || end != part.data() + part.size() || x < 1) return {};
    out.push_back(x);
    if (comma == std::string_view::npos) break;
    s.remove_prefix(comma + 1);
  }
  return out;
}

double gemm_bytes(const GemmMeasurement& r) {
  double rows = 0, groups = 0;
  for (auto m : r.m_per_group) {
    rows += static_cast<double>(m);
    groups += m > 0 ? 1 : 0;
  }
  const double e = models::bytes_per_element(r.dtype);
  return groups * static_cast<double>(r.k) * r.n * e + rows * r.k * e + rows * r.n * 2.0;
}

double gemm_flops(const GemmMeasurement& r) {
  double rows = 0;
  for (auto m : r.m_per_group) rows += static_cast<double>(m);
  return 2.0 * rows * static_cast<double>(r.n) * static_cast<double>(r.k);
}

double& peak_of(HardwareProfile& p, models::DType d) {
  switch (d) {
    case models::DType::kFp8: return p.peak_fp8_flops;
    case models::DType::kFp32: return p.peak_fp32_flops;
    default: return p.peak_bf16_flops;
  }
}

const char* peak_key(models::DType d) {
  switch (d) {
    case models::DType::kFp8: return "compute.fp8";
    case models::DType::kFp32: return "compute.fp32";
    default: return "compute.bf16";
  }
}

struct Context {
  const FitOptions& o;
  FitResult& r;
  HardwareProfile& p;
  bool bounded() const { return o.base.has_value(); }
  void note(const std::string& key, const std::string& text) { r.comments.notes.emplace_back(key, text); }
};

void fit_gemms(Context& c, const std::vector<GemmMeasurement>& rows, const MeasurementFile& first, int sm_count) {
  std::vector<models::DType> dtypes;
  for (const auto& row : rows)
    if (std::find(dtypes.begin(), dtypes.end(), row.dtype) == dtypes.end()) dtypes.push_back(row.dtype);
  double measured_bw = 0;
  for (const auto& row : rows) measured_bw = std::max(measured_bw, gemm_bytes(row) / row.time.median_ns * 1e9);
  const std::vector<int> bm = tile_hint(first, "gemm_block_m"), bn = tile_hint(first, "gemm_block_n");
  const double bandwidth = c.bounded() ? c.p.hbm_bytes_per_s : measured_bw;
  bool bandwidth_set = c.bounded();
  std::vector<bool> peak_set(4, false);
  for (const auto d : dtypes) {
    std::vector<GemmMeasurement> mine;
    for (const auto& row : rows)
      if (row.dtype == d) mine.push_back(row);
    GemmFitSetup s;
    s.device.sm_count = sm_count;
    double achieved = 0;
    for (const auto& row : mine) achieved = std::max(achieved, gemm_flops(row) / row.time.median_ns * 1e9);
    s.device.peak_flops = c.bounded() ? c.p.peak_flops(d) : achieved;
    s.device.hbm_bytes_per_s = bandwidth;
    s.fractions_at_most_one = c.bounded();
    if (!bm.empty()) s.block_m = bm;
    if (!bn.empty()) s.block_n = bn;
    const GemmFitParams* base_fit = c.bounded() ? c.o.base->profile.gemm_fit(d) : nullptr;
    s.fallback_hbm_fraction =
        c.bounded() ? (base_fit ? base_fit->hbm_fraction : deepgemm_h800_fit().hbm_fraction) : 1.0;
    GemmFitOutcome f = fit_gemm_params(mine, s);
    const std::string dn(models::to_string(d));
    if (!c.bounded()) {
      // Peaks become the achieved rates; the fractions then are 1 (or relative to a peak or
      // bandwidth another dtype already set).
      double& peak = peak_of(c.p, d);
      const double rate = s.device.peak_flops * f.params.mma_fraction;
      const auto slot = static_cast<std::size_t>(&peak == &c.p.peak_fp8_flops    ? 0
                                                 : &peak == &c.p.peak_fp32_flops ? 1
                                                                                 : 2);
      if (!peak_set[slot]) {
        peak = rate;
        peak_set[slot] = true;
        c.note(peak_key(d), "measured: fitted " + dn + " rate");
      }
      f.params.mma_fraction = std::min(1.0, rate / peak);
      const double bw = bandwidth * f.params.hbm_fraction;
      if (!bandwidth_set) {
        c.p.hbm_bytes_per_s = bw;
        bandwidth_set = true;
        c.note("memory.bandwidth", "measured: fitted " + dn + " GEMM streaming rate");
      }
      f.params.hbm_fraction = std::min(1.0, bw / c.p.hbm_bytes_per_s);
    }
    c.p.gemm_fits.push_back({d, f.params});
    std::string line = dn + ": " + std::to_string(f.rows) + " rows (" + std::to_string(f.memory_bound_rows) +
                       " memory-bound): mma_fraction " + fmt("%.4f", f.params.mma_fraction) + ", hbm_fraction " +
                       fmt("%.4f", f.params.hbm_fraction) + ", fixed " +
                       fmt("%.2f us", f.params.fixed_overhead_ns / 1e3) + ", per group " +
                       fmt("%.2f us", f.params.per_group_overhead_ns / 1e3) + ", per tile " +
                       fmt("%.3f us", f.params.per_tile_overhead_ns / 1e3);
    c.r.report.push_back(line);
    c.r.report.push_back("  residuals on these rows: median " + fmt("%.1f %%", 100 * f.median_relative_error) +
                         ", rms " + fmt("%.1f %%", 100 * f.rms_relative_error) + ", max " +
                         fmt("%.1f %%", 100 * f.max_relative_error));
    c.r.comments.header.push_back("gemm." + dn + ": fitted to " + std::to_string(f.rows) + " rows; median error " +
                                  fmt("%.1f %%", 100 * f.median_relative_error) + ", max " +
                                  fmt("%.1f %%", 100 * f.max_relative_error));
    if (!f.not_identified.empty()) {
      std::string names;
      for (const auto& n : f.not_identified) names += (names.empty() ? "" : ", ") + n;
      c.r.report.push_back("  not identified by these rows (kept at their starting values): " + names);
      c.note("gemm." + dn, "not identified by the data: " + names);
    }
  }
}

void fit_all_to_all(Context& c, const std::vector<AllToAllMeasurement>& rows) {
  double achieved = 0;
  for (const auto& r : rows)
    achieved = std::max(achieved, std::max(r.max_send_bytes, r.max_recv_bytes) / r.time.median_ns * 1e9);
  const double line = c.bounded() ? c.p.scaleup_bytes_per_s : achieved;
  const auto n = static_cast<Eigen::Index>(rows.size());
  Eigen::MatrixXd a(n, 2);
  Eigen::VectorXd b = Eigen::VectorXd::Ones(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const auto& r = rows[static_cast<std::size_t>(i)];
    a(i, 0) = 1 / r.time.median_ns;
    a(i, 1) = std::max(r.max_send_bytes, r.max_recv_bytes) / line * 1e9 / r.time.median_ns;
  }
  Eigen::VectorXd lower(2);
  lower << 0, c.bounded() ? 1.0 : 0.0;
  const NnlsResult x = nnls(a, b, lower);
  AllToAllLink link{line, x.x(1) > 0 ? 1 / x.x(1) : 1.0, x.x(0)};
  if (!c.bounded()) {
    c.p.scaleup_bytes_per_s = line * link.efficiency;
    link = {c.p.scaleup_bytes_per_s, 1.0, link.latency_ns};
    c.note("network.scaleup", "measured: fitted all-to-all bandwidth per rank");
  }
  c.p.scaleup_efficiency = link.efficiency;
  c.p.scaleup_latency_ns = link.latency_ns;
  c.note("network.scaleup_efficiency", "measured (all-to-all)");
  c.note("network.scaleup_latency", "measured (all-to-all)");
  std::vector<double> err;
  for (const auto& r : rows)
    err.push_back(std::fabs(all_to_all_time_ns(link, r.max_send_bytes, r.max_recv_bytes) / r.time.median_ns - 1));
  std::sort(err.begin(), err.end());
  const double median = err.size() % 2 ? err[err.size() / 2] : 0.5 * (err[err.size() / 2 - 1] + err[err.size() / 2]);
  c.r.report.push_back("alltoall: " + std::to_string(rows.size()) + " rows: latency " +
                       fmt("%.2f us", link.latency_ns / 1e3) + ", bandwidth " +
                       fmt("%.2f GB/s", link.line_bytes_per_s * link.efficiency / 1e9) + " (efficiency " +
                       fmt("%.4f", link.efficiency) + " of " + fmt("%.2f GB/s", link.line_bytes_per_s / 1e9) + ")");
  c.r.report.push_back("  residuals on these rows: median " + fmt("%.1f %%", 100 * median) + ", max " +
                       fmt("%.1f %%", 100 * err.back()));
  c.r.comments.header.push_back("alltoall: fitted to " + std::to_string(rows.size()) + " rows; median error " +
                                fmt("%.1f %%", 100 * median) + ", max " + fmt("%.1f %%", 100 * err.back()));
}

// What ran each dtype's GEMMs of each suite (metadata gemm_kernel): one kernel per dtype and
// suite, or the fit would average two kernels' curves. Adds a report line and a header comment
// per kernel.
void note_gemm_kernels(const std::vector<MeasurementFile>& files, FitResult& r) {
  struct Seen {
    CaptureSuite suite;
    std::string dtype, kernel, source;
  };
  std::vector<Seen> seen;
  for (const auto& f : files) {
    if (f.gemm_kernel.empty()) continue;
    std::vector<std::string> dtypes;
    for (const auto& row : f.gemm) {
      const std::string d(models::to_string(row.dtype));
      if (std::find(dtypes.begin(), dtypes.end(), d) == dtypes.end()) dtypes.push_back(d);
    }
    for (const auto& d : dtypes) {
      const auto other =
          std::find_if(seen.begin(), seen.end(), [&](const Seen& x) { return x.suite == f.suite && x.dtype == d; });
      if (other == seen.end()) {
        seen.push_back({f.suite, d, f.gemm_kernel, f.table.source});
        continue;
      }
      if (other->kernel != f.gemm_kernel)
        throw CalibrationError(f.table.source + ": " + d + " " + std::string(to_string(f.suite)) + " rows from '" +
                               f.gemm_kernel + "', but " + other->source + " has them from '" + other->kernel +
                               "': fit one kernel per dtype");
    }
  }
  for (const auto& x : seen) {
    const std::string suite(to_string(x.suite));
    r.report.push_back(x.dtype + " " + suite + " kernel: " + x.kernel);
    r.comments.header.push_back(x.dtype + " " + suite + " measured on: " + x.kernel);
  }
}

// Rows measured while the GPU throttled bias the fit slow: counted and reported.
void note_throttled_rows(const std::vector<GemmMeasurement>& gemm, const std::vector<AllToAllMeasurement>& a2a,
                         FitResult& r) {
  std::size_t hot = 0;
  for (const auto& row : gemm) hot += row.throttled ? 1 : 0;
  for (const auto& row : a2a) hot += row.throttled ? 1 : 0;
  if (hot == 0) return;
  const std::string line = "warning: " + std::to_string(hot) + " of " + std::to_string(gemm.size() + a2a.size()) +
                           " rows were measured while the GPU throttled (column throttled = yes): recapture them, or "
                           "capture with --throttled refuse";
  r.report.push_back(line);
  r.comments.header.push_back(line);
}

}  // namespace

void select_rows(MeasurementFile& f, RowSelection s) {
  if (s == RowSelection::kAll) return;
  const std::size_t keep = s == RowSelection::kEven ? 0 : 1;
  auto pick = [&](auto& rows) {
    std::remove_reference_t<decltype(rows)> out;
    for (std::size_t i = 0; i < rows.size(); ++i)
      if (i % 2 == keep) out.push_back(rows[i]);
    rows = std::move(out);
  };
  pick(f.gemm);
  pick(f.all_to_all);
  if (f.gemm.empty() && f.all_to_all.empty())
    throw CalibrationError(f.table.source + ": no " + (keep ? "odd" : "even") + " rows to use");
}

FitResult fit_profile(const std::vector<MeasurementFile>& files, const FitOptions& o) {
  if (files.empty()) throw CalibrationError("calibrate fit: no data files");
  FitResult r;
  HardwareProfile& p = r.file.profile;
  if (o.base) {
    r.file = *o.base;
    p.gemm_fits.clear();
  }
  Context c{o, r, p};
  const MeasurementFile* gemm_file = nullptr;
  const MeasurementFile* a2a_file = nullptr;
  std::vector<GemmMeasurement> gemm;
  std::vector<AllToAllMeasurement> a2a;
  std::string sources;
  for (const auto& f : files) {
    if (f.device != files.front().device)
      throw CalibrationError(f.table.source + ": data from device '" + f.device + "', but " +
                             files.front().table.source + " is from '" + files.front().device +
                             "': fit one device at a time");
    if (!f.gemm.empty()) {
      if (gemm_file && f.sm_count != gemm_file->sm_count)
        throw CalibrationError(f.table.source + ": sm_count " + std::to_string(f.sm_count) + " differs from " +
                               gemm_file->table.source + " (" + std::to_string(gemm_file->sm_count) + ")");
      if (!gemm_file) gemm_file = &f;
      gemm.insert(gemm.end(), f.gemm.begin(), f.gemm.end());
    }
    if (!f.all_to_all.empty()) {
      const auto nodes = f.table.meta("nodes");
      if (nodes && *nodes != "1")
        throw CalibrationError(f.table.source + ": all-to-all across " + *nodes +
                               " nodes: the fit models one scale-up domain (capture on one node)");
      if (!a2a_file) a2a_file = &f;
      a2a.insert(a2a.end(), f.all_to_all.begin(), f.all_to_all.end());
    }
    sources += (sources.empty() ? "" : ", ") + f.table.source;
  }
  const MeasurementFile& first = files.front();
  const std::string backend(to_string(first.backend));
  p.name = !o.name.empty() ? o.name : o.base ? o.base->profile.name + "-measured" : slug(first.device);
  r.file.description = first.device + ", measured with moesim calibrate (" + backend + " backend)";
  p.source = "moesim calibrate fit of " + sources + (o.base ? "; spec-sheet figures from " + o.base_label : "");
  r.comments.header.push_back("Hardware profile fitted by `moesim calibrate fit` (docs/calibration.md).");
  r.comments.header.push_back("device: " + first.device + "; captured " + first.table.meta("date").value_or("n/a"));

  note_gemm_kernels(files, r);
  note_throttled_rows(gemm, a2a, r);
  if (gemm_file) {
    p.sm_count = gemm_file->sm_count;
    c.note("compute.sm_count", "from the capture");
    fit_gemms(c, gemm, *gemm_file, gemm_file->sm_count);
  } else if (!o.base) {
    throw CalibrationError("calibrate fit: no GEMM data and no --base: the compute figures are unknown");
  }
  if (!a2a.empty()) fit_all_to_all(c, a2a);

  if (!o.base) {
    // Figures no measurement informed: from the metadata, or (CPU) a measured neighbour.
    const bool cpu = first.backend == CaptureBackend::kCpu;
    const auto mem = (gemm_file ? gemm_file : &first)->table.meta("memory_bytes");
    double capacity = 0;
    if (mem) std::from_chars(mem->data(), mem->data() + mem->size(), capacity);
    if (!(capacity > 0))
      throw CalibrationError(first.table.source + ": metadata 'memory_bytes' is '" + mem.value_or("absent") +
                             "': give --base for the memory capacity");
    p.hbm_bytes = capacity;
    c.note("memory.capacity", "from the capture's metadata");
    const double fastest = std::max(p.peak_fp8_flops, std::max(p.peak_bf16_flops, p.peak_fp32_flops));
    for (double* peak : {&p.peak_fp8_flops, &p.peak_bf16_flops})
      if (*peak == 0) {
        if (!cpu)
          throw CalibrationError("calibrate fit: no " + std::string(peak == &p.peak_fp8_flops ? "fp8" : "bf16") +
                                 " GEMM data and no --base: give --base for the spec-sheet rate");
        *peak = fastest;
        c.note(peak == &p.peak_fp8_flops ? "compute.fp8" : "compute.bf16", "not measured: the measured rate (CPU)");
      }
    if (a2a.empty())
      throw CalibrationError("calibrate fit: no all-to-all data and no --base: network.scaleup is unknown");
    if (!cpu) throw CalibrationError("calibrate fit: network.nic is never measured: give --base for it");
    p.nic_bytes_per_s = p.scaleup_bytes_per_s;
    c.note("network.nic", "not measured: the all-to-all bandwidth (threads share memory; no NIC)");
  }
  return r;
}

}  // namespace moesim::calibration
