// `model:` and `hardware:` (presets or files), file paths, and small shared checks.
#include <fstream>
#include <optional>
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

models::ModelSpec preset_model(const Field& f) {
  return *models::find_model_preset(as_choice(f, "model", names_of(models::model_presets())));
}

// `dtypes:` beside the model's source: the precision this deployment serves each tensor class in,
// over the model's own (a Hugging Face config says BF16 KV; engines often serve FP8).
void override_dtypes(const MapReader& m, models::ModelSpec& spec) {
  const MapReader d = m.map("dtypes", {"weights", "experts", "kv_cache", "dispatch", "combine", "activations"});
  const auto read = [&](std::string_view key) -> std::optional<models::DType> {
    const auto f = d.get(key);
    if (!f) return std::nullopt;
    return models::parse_dtype(as_choice(*f, "dtype", models::dtype_names()));
  };
  if (const auto t = read("weights")) spec.weight_dtype = *t;
  if (const auto t = read("experts")) spec.expert_weight_dtype = *t;
  if (const auto t = read("kv_cache")) spec.kv_dtype = *t;
  if (const auto t = read("dispatch")) spec.dispatch_dtype = *t;
  if (const auto t = read("combine")) spec.combine_dtype = *t;
  if (const auto t = read("activations")) spec.activation_dtype = *t;
}

}  // namespace

models::ModelSpec read_model(const Field& f, const PathContext& paths) {
  if (f.node->kind != YamlNode::Kind::kMap) return preset_model(f);
  const MapReader m(*f.node, f.path, {"preset", "file", "hf_config", "dtypes"});
  const Field source = m.exactly_one({"preset", "file", "hf_config"}, "give a preset name, or a map with ");
  models::ModelSpec spec;
  if (source.path.ends_with("preset")) {
    spec = preset_model(source);
  } else {
    const bool hf = source.path.ends_with("hf_config");
    const std::string path = paths.existing_file(source, hf ? "config.json" : "model file");
    try {
      spec = hf ? models::load_hf_config(path) : models::load_model_file(path);
    } catch (const models::ModelError& e) {
      throw ScenarioError(e.what(), e.position());
    }
  }
  override_dtypes(m, spec);
  return spec;
}

HardwareSection read_hardware(const Field& f, const PathContext& paths) {
  if (f.node->kind != YamlNode::Kind::kMap)
    return {*calibration::find_hardware_preset(as_choice(f, "hardware", names_of(calibration::hardware_presets())))};
  const MapReader m(*f.node, f.path, {"preset", "file", "rank"});
  const Field source = m.exactly_one({"preset", "file"}, "give a preset name, or a map with ");
  HardwareSection out;
  if (source.path.ends_with("preset")) {
    out.device =
        *calibration::find_hardware_preset(as_choice(source, "hardware", names_of(calibration::hardware_presets())));
  } else {
    const std::string path = paths.existing_file(source, "hardware profile");
    try {
      out.device = calibration::load_hardware_file(path);
    } catch (const calibration::HardwareError& e) {
      throw ScenarioError(e.what(), e.position());
    }
  }
  // rank: package (default) runs a rank per device as the profile describes it; die, a rank per
  // compute die of a multi-die package (CloudMatrix-Infer on the Ascend 910C).
  if (const auto rank = m.get("rank"); rank && as_choice(*rank, "rank unit", {"package", "die"}) == "die") {
    if (out.device.dies <= 1) rank->fail(out.device.name + " is a one-die device (no package.dies in its profile)");
    out.dies_per_package = out.device.dies;
    out.die_link_bytes_per_s = out.device.die_link_bytes_per_s;
    out.device = calibration::die_of(out.device);
  }
  return out;
}

}  // namespace moesim::scenarios
