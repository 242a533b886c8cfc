// `moesim calibrate check PROFILE DATA.csv... [--max-median-error 0.15] [--max-error X]`:
// predicts every row with the profile (calibration/profile_check.h), prints the median, rms and
// maximum error and the worst rows (or all with --all), optionally writes every row to a CSV,
// and exits 1 when an error bound is exceeded.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "calibration/hardware_yaml.h"
#include "calibration/profile_check.h"
#include "calibration/profile_fit.h"
#include "models/did_you_mean.h"
#include "tools/calibrate_commands.h"

namespace moesim::tools {
namespace {

struct CheckFlags {
  std::string profile;
  std::vector<std::string> data;
  double max_median_error = 0.15;
  double max_error = 0;  // 0: no bound
  std::string rows = "all";
  int worst = 10;
  bool all = false;
  std::string residuals;
};

calibration::HardwareProfile load_profile(const std::string& name) {
  if (std::filesystem::exists(name)) return calibration::load_hardware_file(name);
  if (auto hw = calibration::find_hardware_preset(name)) return *hw;
  std::vector<std::string_view> names;
  for (const auto& p : calibration::hardware_presets()) names.push_back(p.name);
  throw UsageError("profile: no file '" + name + "' and " +
                   models::unknown_name_message("hardware preset", name, names));
}

void print_row(const calibration::CheckRow& r) {
  const std::string where = r.source + ":" + std::to_string(r.line) + "  " + r.what;
  std::printf("  %-80s %12.1f %12.1f %+8.1f %%\n", where.c_str(), r.measured_ns / 1e3, r.predicted_ns / 1e3,
              100 * r.error);
}

int check(const CheckFlags& f) {
  const calibration::HardwareProfile profile = load_profile(f.profile);
  calibration::RowSelection sel = calibration::RowSelection::kAll;
  if (f.rows == "even")
    sel = calibration::RowSelection::kEven;
  else if (f.rows == "odd")
    sel = calibration::RowSelection::kOdd;
  else if (f.rows != "all")
    throw UsageError("--rows: " + models::unknown_name_message("row selection", f.rows, {"all", "even", "odd"}));
  std::vector<calibration::MeasurementFile> files;
  for (const auto& path : f.data) {
    files.push_back(calibration::load_measurements(path));
    calibration::select_rows(files.back(), sel);
  }
  const calibration::CheckResult r = calibration::check_profile(profile, files);
  std::printf("profile '%s' against %zu rows (%s rows of %zu file%s)\n", profile.name.c_str(), r.rows.size(),
              f.rows.c_str(), files.size(), files.size() == 1 ? "" : "s");
  std::vector<calibration::CheckRow> shown = r.rows;
  if (!f.all) {
    std::sort(shown.begin(), shown.end(),
              [](const auto& a, const auto& b) { return std::fabs(a.error) > std::fabs(b.error); });
    shown.resize(std::min<std::size_t>(shown.size(), static_cast<std::size_t>(std::max(f.worst, 0))));
    if (!shown.empty()) std::printf("worst rows:\n");
  }
  if (!shown.empty()) std::printf("  %-80s %12s %12s %10s\n", "file:line  case", "meas (us)", "pred (us)", "error");
  for (const auto& row : shown) print_row(row);
  std::printf("median error %.1f %%, rms %.1f %%, max %.1f %%\n", 100 * r.median_error, 100 * r.rms_error,
              100 * r.max_error);
  if (!f.residuals.empty()) {
    std::ofstream out(f.residuals, std::ios::binary);
    if (!out) throw UsageError("--residuals: cannot write '" + f.residuals + "'");
    out << "file,line,case,measured_ns,predicted_ns,error\n";
    for (const auto& row : r.rows)
      out << row.source << "," << row.line << "," << row.what << "," << row.measured_ns << "," << row.predicted_ns
          << "," << row.error << "\n";
  }
  std::vector<std::string> failures;
  char buf[160];
  if (r.median_error > f.max_median_error) {
    std::snprintf(buf, sizeof buf, "median error %.1f %% > %.1f %%", 100 * r.median_error, 100 * f.max_median_error);
    failures.push_back(buf);
  }
  if (f.max_error > 0 && r.max_error > f.max_error) {
    std::snprintf(buf, sizeof buf, "max error %.1f %% > %.1f %%", 100 * r.max_error, 100 * f.max_error);
    failures.push_back(buf);
  }
  if (failures.empty()) {
    std::printf("check passed\n");
    return 0;
  }
  std::string why;
  for (const auto& s : failures) why += (why.empty() ? "" : "; ") + s;
  std::printf("check FAILED: %s\n", why.c_str());
  return 1;
}

}  // namespace

Command add_calibrate_check(CLI::App& calibrate) {
  auto f = std::make_shared<CheckFlags>();
  auto* cmd = calibrate.add_subcommand("check", "Compare a hardware profile's predictions with calibration CSVs");
  cmd->add_option("profile", f->profile, "Hardware profile YAML (or preset name)")->required();
  cmd->add_option("data", f->data, "Calibration CSV files")->required();
  cmd->add_option("--max-median-error", f->max_median_error, "Fail (exit 1) above this median relative error")
      ->check(CLI::Range(0.0, 1e9));
  cmd->add_option("--max-error", f->max_error, "Fail (exit 1) above this maximum relative error")
      ->check(CLI::Range(0.0, 1e9));
  cmd->add_option("--rows", f->rows, "Rows of each file to check: all, even or odd");
  cmd->add_option("--worst", f->worst, "Rows to show, worst first (default 10)");
  cmd->add_flag("--all", f->all, "Show every row, in file order");
  cmd->add_option("--residuals", f->residuals, "Write every row's prediction and error to this CSV");
  return {cmd, [f] { return check(*f); }};
}

}  // namespace moesim::tools
