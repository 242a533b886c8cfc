#include "calibration/hardware_yaml.h"

#include <fstream>
#include <sstream>

#include "models/yaml_fields.h"

namespace moesim::calibration {
namespace {

using models::YamlField;
using models::YamlMap;

template <typename Read>
double positive(const YamlField& f, Read read) {
  const double value = read(f);
  if (!(value > 0)) f.fail("expected a positive value, got '" + f.node.Scalar() + "'");
  return value;
}

HardwareFile read(const YamlField& doc) {
  const YamlMap top(doc, {"name", "description", "source", "compute", "memory", "network"});
  HardwareFile out;
  HardwareProfile& p = out.profile;
  p.name = models::as_string(top.require("name"));
  if (const auto f = top.get("description")) out.description = models::as_string(*f);
  p.source = models::as_string(top.require("source"));

  const YamlMap compute = top.map("compute", {"sm_count", "fp8", "int8", "bf16"}, true);
  p.sm_count = models::as_int(compute.require("sm_count"), 1);
  const auto fp8 = compute.get("fp8"), int8 = compute.get("int8");
  if (fp8 && int8) int8->fail("give fp8 or int8 (the device's 8-bit tensor rate), not both");
  if (!fp8 && !int8) compute.fail("missing required key 'fp8' (or 'int8' on devices without FP8)");
  p.peak_fp8_flops = positive(fp8 ? *fp8 : *int8, models::as_flops_per_s);
  p.peak_bf16_flops = positive(compute.require("bf16"), models::as_flops_per_s);

  const YamlMap memory = top.map("memory", {"capacity", "bandwidth"}, true);
  p.hbm_bytes = positive(memory.require("capacity"), models::as_bytes);
  p.hbm_bytes_per_s = positive(memory.require("bandwidth"), models::as_bandwidth_bytes_per_s);

  const YamlMap network = top.map("network", {"scaleup", "nic"}, true);
  p.scaleup_bytes_per_s = positive(network.require("scaleup"), models::as_bandwidth_bytes_per_s);
  p.nic_bytes_per_s = positive(network.require("nic"), models::as_bandwidth_bytes_per_s);
  return out;
}

}  // namespace

HardwareFile read_hardware_yaml(std::string_view text, std::string_view source_name) {
  try {
    return read(models::parse_yaml_document(text, std::string(source_name)));
  } catch (const models::YamlFieldError& e) {
    throw HardwareError(e.what());
  }
}

HardwareProfile load_hardware_yaml(std::string_view text, std::string_view source_name) {
  return read_hardware_yaml(text, source_name).profile;
}

HardwareProfile load_hardware_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw HardwareError(path.string() + ": cannot open hardware profile");
  std::ostringstream text;
  text << in.rdbuf();
  return load_hardware_yaml(text.str(), path.string());
}

}  // namespace moesim::calibration
