// `moesim calibrate fit DATA.csv... -o profile.yaml [--base PRESET|FILE]`: fits a hardware
// profile to captures (calibration/profile_fit.h), writes it and prints the parameters with the
// residuals on the rows it was fitted to.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "calibration/hardware_yaml.h"
#include "calibration/hardware_yaml_writer.h"
#include "calibration/profile_fit.h"
#include "models/did_you_mean.h"
#include "tools/calibrate_commands.h"

namespace moesim::tools {
namespace {

struct FitFlags {
  std::vector<std::string> data;
  std::string output, base, name, rows = "all";
};

calibration::RowSelection row_selection(const std::string& flag, const std::string& v) {
  if (v == "all") return calibration::RowSelection::kAll;
  if (v == "even") return calibration::RowSelection::kEven;
  if (v == "odd") return calibration::RowSelection::kOdd;
  throw UsageError(flag + ": " + models::unknown_name_message("row selection", v, {"all", "even", "odd"}));
}

int fit(const FitFlags& f) {
  std::vector<calibration::MeasurementFile> files;
  for (const auto& path : f.data) {
    files.push_back(calibration::load_measurements(path));
    calibration::select_rows(files.back(), row_selection("--rows", f.rows));
  }
  calibration::FitOptions o;
  o.name = f.name;
  if (!f.base.empty()) {
    o.base_label = f.base;
    if (std::filesystem::exists(f.base)) {
      std::ifstream in(f.base, std::ios::binary);
      const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      o.base = calibration::read_hardware_yaml(text, f.base);
    } else {
      std::vector<std::string_view> names;
      for (const auto& p : calibration::hardware_presets()) names.push_back(p.name);
      const auto hw = calibration::find_hardware_preset(f.base);
      if (!hw) throw UsageError("--base: " + models::unknown_name_message("hardware preset (or file)", f.base, names));
      std::string description;
      for (const auto& p : calibration::hardware_presets())
        if (p.name == f.base) description = p.description;
      o.base = calibration::HardwareFile{*hw, description};
    }
  }
  const calibration::FitResult r = calibration::fit_profile(files, o);
  const std::string text = calibration::hardware_yaml_text(r.file, r.comments);
  calibration::read_hardware_yaml(text, f.output);  // what is written must load back
  std::ofstream out(f.output, std::ios::binary);
  if (!out) throw UsageError("-o: cannot write '" + f.output + "'");
  out << text;
  out.close();
  if (!out) throw UsageError("-o: failed writing '" + f.output + "'");
  std::printf("profile '%s' (%s)\n", r.file.profile.name.c_str(), r.file.description.c_str());
  for (const auto& line : r.report) std::printf("  %s\n", line.c_str());
  std::printf("wrote %s\n", f.output.c_str());
  return 0;
}

}  // namespace

Command add_calibrate_fit(CLI::App& calibrate) {
  auto f = std::make_shared<FitFlags>();
  auto* cmd = calibrate.add_subcommand("fit", "Fit a hardware profile (YAML) to calibration CSVs");
  cmd->add_option("data", f->data, "Calibration CSV files (moesim calibrate capture)")->required();
  cmd->add_option("-o,--output", f->output, "Hardware profile YAML to write")->required();
  cmd->add_option("--base", f->base,
                  "Spec-sheet figures: a hardware preset or profile file (fractions are fitted to it)");
  cmd->add_option("--name", f->name, "Profile name (default: <base>-measured, or from the device name)");
  cmd->add_option("--rows", f->rows, "Rows of each file to fit: all, even or odd (for a held-out check)");
  return {cmd, [f] { return fit(*f); }};
}

}  // namespace moesim::tools
