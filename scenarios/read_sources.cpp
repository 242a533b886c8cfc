// `model:` and `hardware:` (presets or files), file paths, and small shared checks.
#include <fstream>
#include <sstream>
#include <system_error>

#include "calibration/hardware_yaml.h"
#include "models/hf_config.h"
#include "models/model_yaml.h"
#include "models/presets.h"
#include "scenarios/read_sections.h"
#include "scenarios/scenario_error.h"

namespace moesim::scenarios {

std::string PathContext::resolve(const Field& f) const {
  const std::filesystem::path p(as_string(f));
  if (p.is_absolute() || f.node->loc.origin != source_name || base_dir.empty()) return p.string();
  return (base_dir / p).string();
}

std::string PathContext::existing_file(const Field& f, std::string_view what) const {
  std::string path = resolve(f);
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec) || !std::ifstream(path))
    f.fail("cannot open " + std::string(what) + " '" + path + "'");
  return path;
}

double positive(const Field& f, double value, std::string_view noun) {
  if (!(value > 0)) f.fail("expected " + std::string(noun) + " > 0, got '" + f.node->scalar + "'");
  return value;
}

std::string number_text(double x) {
  std::ostringstream out;
  out << x;
  return out.str();
}

double as_number_in(const Field& f, double lo, double hi) {
  const double value = as_number(f);
  if (!(value >= lo && value <= hi))
    f.fail("expected a number in [" + number_text(lo) + ", " + number_text(hi) + "], got " + f.node->scalar);
  return value;
}

namespace {

// {file: ...} or {hf_config: ...}: exactly one of `keys`, naming the key given.
Field one_of(const MapReader& m, std::string_view a, std::string_view b) {
  const auto fa = m.get(a);
  const auto fb = m.get(b);
  if (fa.has_value() == fb.has_value())
    fail_at(m.loc(), m.path(), fa ? "give either '" + std::string(a) + "' or '" + std::string(b) + "', not both"
                                  : "give a preset name, or a map with '" + std::string(a) + "' or '" +
                                        std::string(b) + "'");
  return fa ? *fa : *fb;
}

}  // namespace

models::ModelSpec read_model(const Field& f, const PathContext& paths) {
  if (f.node->kind != YamlNode::Kind::kMap)
    return *models::find_model_preset(as_choice(f, "model", names_of(models::model_presets())));
  const MapReader m(*f.node, f.path, {"file", "hf_config"});
  const Field file = one_of(m, "file", "hf_config");
  const bool hf = file.path.ends_with("hf_config");
  const std::string path = paths.existing_file(file, hf ? "config.json" : "model file");
  try {
    return hf ? models::load_hf_config(path) : models::load_model_file(path);
  } catch (const models::ModelError& e) {
    throw ScenarioError(e.what());
  }
}

calibration::HardwareProfile read_hardware(const Field& f, const PathContext& paths) {
  if (f.node->kind != YamlNode::Kind::kMap)
    return *calibration::find_hardware_preset(
        as_choice(f, "hardware", names_of(calibration::hardware_presets())));
  const MapReader m(*f.node, f.path, {"file"});
  const Field file = m.require("file");
  const std::string path = paths.existing_file(file, "hardware profile");
  try {
    return calibration::load_hardware_file(path);
  } catch (const calibration::HardwareError& e) {
    throw ScenarioError(e.what());
  }
}

}  // namespace moesim::scenarios
