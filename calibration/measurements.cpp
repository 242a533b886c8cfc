#include "calibration/measurements.h"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "calibration/calibration_error.h"
#include "models/did_you_mean.h"
#include "models/registry.h"

namespace moesim::calibration {
namespace {

[[noreturn]] void fail(const CalibrationTable& t, int line, const std::string& what) {
  throw CalibrationError(t.source + ":" + std::to_string(line) + ": " + what);
}

const CalibrationTable::Meta& require_meta(const CalibrationTable& t, std::string_view key) {
  if (const auto* m = t.find_meta(key)) return *m;
  fail(t, t.header_line,
       "missing metadata '" + std::string(key) + "' (a '# " + std::string(key) + ": ...' line before the header)");
}

// Cell access for one row, with errors naming the row's line and the column.
class RowReader {
 public:
  RowReader(const CalibrationTable& t, const std::vector<int>& index, const CalibrationTable::Row& r)
      : t_(t), index_(index), r_(r) {}

  const std::string& text(std::size_t i) const { return r_.cells[static_cast<std::size_t>(index_[i])]; }
  const std::string& name(std::size_t i) const { return t_.columns[static_cast<std::size_t>(index_[i])]; }

  double number(std::size_t i, bool positive) const {
    const std::string& s = text(i);
    double v = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || ec != std::errc() || end != s.data() + s.size() || !std::isfinite(v))
      fail(t_, r_.line, "column '" + name(i) + "': expected a number, got '" + s + "'");
    if (positive ? !(v > 0) : v < 0)
      fail(t_, r_.line,
           "column '" + name(i) + "': expected a " + (positive ? "positive" : "non-negative") + " number, got '" + s +
               "'");
    return v;
  }

  std::int64_t integer(std::string_view cell, std::size_t i, std::int64_t min) const {
    std::int64_t v = 0;
    const auto [end, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), v);
    if (cell.empty() || ec != std::errc() || end != cell.data() + cell.size())
      fail(t_, r_.line, "column '" + name(i) + "': expected an integer, got '" + std::string(cell) + "'");
    if (v < min)
      fail(t_, r_.line,
           "column '" + name(i) + "': expected an integer >= " + std::to_string(min) + ", got '" + std::string(cell) +
               "'");
    return v;
  }
  std::int64_t integer(std::size_t i, std::int64_t min) const { return integer(text(i), i, min); }

  // "12;0;7" -> {12, 0, 7}
  std::vector<std::int64_t> integers(std::size_t i) const {
    std::vector<std::int64_t> out;
    std::string_view s = text(i);
    while (true) {
      const std::size_t semi = s.find(';');
      out.push_back(integer(s.substr(0, semi), i, 0));
      if (semi == std::string_view::npos) break;
      s.remove_prefix(semi + 1);
    }
    return out;
  }

  Timing timing(std::size_t median, std::size_t p10, std::size_t p90) const {
    return {number(median, true), number(p10, true), number(p90, true)};
  }

 private:
  const CalibrationTable& t_;
  const std::vector<int>& index_;
  const CalibrationTable::Row& r_;
};

std::vector<int> require_columns(const CalibrationTable& t, const std::vector<std::string_view>& names) {
  std::vector<int> index;
  for (auto name : names) {
    const int i = t.column(name);
    if (i < 0) {
      std::string have;
      for (const auto& c : t.columns) have += (have.empty() ? "" : ", ") + c;
      fail(t, t.header_line, "missing column '" + std::string(name) + "' (columns: " + have + ")");
    }
    index.push_back(i);
  }
  return index;
}

// Whether row `r` says it ran throttled: the optional column `throttled` is "yes".
bool row_throttled(const CalibrationTable& t, const CalibrationTable::Row& r) {
  const int i = t.column("throttled");
  return i >= 0 && r.cells[static_cast<std::size_t>(i)] == "yes";
}

void read_gemm(MeasurementFile& f, bool grouped) {
  const CalibrationTable& t = f.table;
  const auto index = require_columns(t, {"dtype", "m_per_group", "n", "k", "median_ns", "p10_ns", "p90_ns"});
  for (const auto& r : t.rows) {
    const RowReader row(t, index, r);
    GemmMeasurement m;
    m.source = t.source;
    m.line = r.line;
    m.grouped = grouped;
    const auto dtype = models::parse_dtype(row.text(0));
    if (!dtype || models::is_fp4(*dtype) || *dtype == models::DType::kInt8)
      fail(t, r.line,
           "column 'dtype': " + models::unknown_name_message("dtype", row.text(0), {"fp8", "bf16", "fp16", "fp32"}));
    m.dtype = *dtype;
    m.m_per_group = row.integers(1);
    if (!grouped && m.m_per_group.size() != 1)
      fail(t, r.line, "column 'm_per_group': a gemm row has one value, got '" + row.text(1) + "'");
    std::int64_t rows = 0;
    for (auto v : m.m_per_group) rows += v;
    if (rows == 0) fail(t, r.line, "column 'm_per_group': no rows in any group");
    m.n = row.integer(2, 1);
    m.k = row.integer(3, 1);
    m.time = row.timing(4, 5, 6);
    m.throttled = row_throttled(t, r);
    f.gemm.push_back(std::move(m));
  }
}

void read_all_to_all(MeasurementFile& f) {
  const CalibrationTable& t = f.table;
  const auto index = require_columns(t, {"ranks", "max_send_bytes", "max_recv_bytes", "median_ns", "p10_ns", "p90_ns"});
  for (const auto& r : t.rows) {
    const RowReader row(t, index, r);
    AllToAllMeasurement m;
    m.source = t.source;
    m.line = r.line;
    m.ranks = static_cast<int>(row.integer(0, 2));
    m.max_send_bytes = row.number(1, false);
    m.max_recv_bytes = row.number(2, false);
    m.time = row.timing(3, 4, 5);
    m.throttled = row_throttled(t, r);
    f.all_to_all.push_back(m);
  }
}

}  // namespace

// Per-case device state and launch exposure, after each suite's own columns (both suites).
const std::vector<std::string> kStateColumns = {"sm_mhz_min", "mem_mhz_min", "clock_reasons", "throttled",
                                                "exposed_launches"};

std::vector<std::string> with_state(std::vector<std::string> columns) {
  columns.insert(columns.end(), kStateColumns.begin(), kStateColumns.end());
  return columns;
}

const std::vector<std::string>& gemm_columns() {
  static const std::vector<std::string> c =
      with_state({"suite", "dtype", "groups", "tokens", "distribution", "skew", "m_per_group", "n", "k", "warmup",
                  "reps", "median_ns", "p10_ns", "p90_ns", "min_ns", "tflops"});
  return c;
}

const std::vector<std::string>& all_to_all_columns() {
  static const std::vector<std::string> c =
      with_state({"suite", "ranks", "distribution", "skew", "peer_bytes", "max_send_bytes", "max_recv_bytes",
                  "total_bytes", "algorithm", "warmup", "reps", "median_ns", "p10_ns", "p90_ns", "min_ns", "algbw_gbs",
                  "busbw_gbs", "rank_median_ns", "slowest_rank"});
  return c;
}

MeasurementFile read_measurements(CalibrationTable table) {
  MeasurementFile f;
  f.table = std::move(table);
  const CalibrationTable& t = f.table;
  const auto& format = require_meta(t, "format");
  if (format.value != kCalibrationFormat)
    fail(t, format.line,
         "metadata 'format': expected '" + std::string(kCalibrationFormat) + "', got '" + format.value + "'");
  const auto& suite = require_meta(t, "suite");
  const auto suite_value = models::registry_lookup<CaptureSuite>(capture_suites(), suite.value);
  if (!suite_value)
    fail(t, suite.line, "metadata 'suite': " + models::unknown_registry_name("suite", suite.value, capture_suites()));
  f.suite = *suite_value;
  const auto& backend = require_meta(t, "backend");
  const auto backend_value = models::registry_lookup<CaptureBackend>(capture_backends(), backend.value);
  if (!backend_value)
    fail(t, backend.line,
         "metadata 'backend': " + models::unknown_registry_name("backend", backend.value, capture_backends()));
  f.backend = *backend_value;
  f.device = require_meta(t, "device").value;
  const auto& sm = require_meta(t, "sm_count");
  int sms = 0;
  const auto [end, ec] = std::from_chars(sm.value.data(), sm.value.data() + sm.value.size(), sms);
  if (sm.value.empty() || ec != std::errc() || end != sm.value.data() + sm.value.size() || sms < 1)
    fail(t, sm.line, "metadata 'sm_count': expected an integer >= 1, got '" + sm.value + "'");
  f.sm_count = sms;
  f.gemm_kernel = t.meta("gemm_kernel").value_or("");
  if (f.suite == CaptureSuite::kAllToAll)
    read_all_to_all(f);
  else
    read_gemm(f, f.suite == CaptureSuite::kGroupedGemm);
  return f;
}

MeasurementFile load_measurements(const std::filesystem::path& path) {
  return read_measurements(read_calibration_csv(path));
}

}  // namespace moesim::calibration
