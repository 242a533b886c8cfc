#include "calibration/hardware_yaml.h"

#include <fstream>
#include <sstream>

#include "models/yaml_reader.h"

namespace moesim::calibration {
namespace {

using models::Field;
using models::MapReader;

template <typename Read>
double positive(const Field& f, Read read) {
  const double value = read(f);
  if (!(value > 0)) f.fail("expected a positive value, got '" + f.node->scalar + "'");
  return value;
}

double fraction(const Field& f) {
  const double v = models::as_number(f);
  if (!(v > 0 && v <= 1)) f.fail("expected a fraction in (0, 1], got '" + f.node->scalar + "'");
  return v;
}

std::vector<int> tile_list(const Field& f) {
  const std::vector<models::YamlNode>& items = f.node->items;
  if (f.node->kind != models::YamlNode::Kind::kList || items.empty()) f.fail("expected a non-empty list of tile sizes");
  std::vector<int> out;
  for (std::size_t i = 0; i < items.size(); ++i)
    out.push_back(models::as_int(Field{&items[i], &items[i].loc, f.path + "[" + std::to_string(i) + "]"}, 1, 4096));
  return out;
}

GemmFitParams read_fit(const MapReader& m) {
  GemmFitParams p;
  p.mma_fraction = fraction(m.require("mma_fraction"));
  p.hbm_fraction = fraction(m.require("hbm_fraction"));
  p.fixed_overhead_ns = models::as_duration_ns(m.require("fixed_overhead"));
  p.per_group_overhead_ns = models::as_duration_ns(m.require("per_group_overhead"));
  p.per_tile_overhead_ns = models::as_duration_ns(m.require("per_tile_overhead"));
  if (const auto f = m.get("block_m")) p.block_m = tile_list(*f);
  if (const auto f = m.get("block_n")) p.block_n = tile_list(*f);
  return p;
}

// compute.runs_as: {fp8: bf16, ...}: the units that run GEMMs of a precision the device has no
// units for (hardware_profile.h). Only for precisions it lacks, onto units it has.
void read_runs_as(const MapReader& compute, HardwareProfile& p) {
  const MapReader runs_as = compute.map("runs_as", {"fp4", "fp8", "int8"});
  for (const Units own : {Units::kFp4, Units::kFp8, Units::kInt8}) {
    const std::string key(to_string(own));
    const auto f = runs_as.get(key);
    if (!f) continue;
    if (p.has_units(own)) f->fail("this device has " + key + " units (compute." + key + ")");
    const Units target = *parse_units(models::as_choice(*f, "units", {"fp4", "fp8", "int8", "bf16"}));
    const std::string name(to_string(target));
    if (!p.has_units(target)) f->fail("this device has no " + name + " units (no compute." + name + ")");
    p.runs_as[static_cast<std::size_t>(own)] = target;
  }
}

HardwareFile read(const models::YamlNode& doc) {
  const MapReader top(doc, "",
                      {"name", "description", "source", "package", "compute", "memory", "network", "power", "gemm"});
  HardwareFile out;
  HardwareProfile& p = out.profile;
  p.name = models::as_string(top.require("name"));
  if (const auto f = top.get("description")) out.description = models::as_string(*f);
  p.source = models::as_string(top.require("source"));

  const MapReader compute = top.map("compute", {"sm_count", "fp4", "fp8", "int8", "bf16", "fp32", "runs_as"}, true);
  p.sm_count = models::as_int(compute.require("sm_count"), 1);
  const auto fp8 = compute.get("fp8"), int8 = compute.get("int8");
  if (!fp8 && !int8) compute.fail("missing required key 'fp8' (or 'int8' on devices without FP8)");
  if (const auto f = compute.get("fp4")) p.peak_fp4_flops = positive(*f, models::as_flops_per_s);
  if (fp8) p.peak_fp8_flops = positive(*fp8, models::as_flops_per_s);
  if (int8) p.peak_int8_flops = positive(*int8, models::as_flops_per_s);
  p.peak_bf16_flops = positive(compute.require("bf16"), models::as_flops_per_s);
  if (const auto f = compute.get("fp32")) p.peak_fp32_flops = positive(*f, models::as_flops_per_s);
  read_runs_as(compute, p);

  const MapReader memory = top.map("memory", {"capacity", "bandwidth"}, true);
  p.hbm_bytes = positive(memory.require("capacity"), models::as_bytes);
  p.hbm_bytes_per_s = positive(memory.require("bandwidth"), models::as_bandwidth_bytes_per_s);

  const MapReader network = top.map("network", {"scaleup", "nic", "scaleup_efficiency", "scaleup_latency"}, true);
  p.scaleup_bytes_per_s = positive(network.require("scaleup"), models::as_bandwidth_bytes_per_s);
  p.nic_bytes_per_s = positive(network.require("nic"), models::as_bandwidth_bytes_per_s);
  if (const auto f = network.get("scaleup_efficiency")) p.scaleup_efficiency = fraction(*f);
  if (const auto f = network.get("scaleup_latency")) p.scaleup_latency_ns = models::as_duration_ns(*f);

  if (top.has("package")) {
    const MapReader package = top.map("package", {"dies", "die_link"});
    const Field dies = package.require("dies");
    p.dies = models::as_int(dies, 1, 16);
    if (p.sm_count % p.dies != 0)
      dies.fail(std::to_string(p.dies) + " dies do not split the " + std::to_string(p.sm_count) +
                " compute units evenly");
    if (p.dies > 1)
      p.die_link_bytes_per_s = positive(package.require("die_link"), models::as_bandwidth_bytes_per_s);
    else if (const auto f = package.get("die_link"))
      f->fail("a one-die package has no die link");
  }

  if (top.has("power")) {
    const MapReader power = top.map("power", {"board", "idle"});
    p.board_power_w = positive(power.require("board"), models::as_power_w);
    const Field idle = power.require("idle");
    p.idle_power_w = positive(idle, models::as_power_w);
    if (p.idle_power_w >= p.board_power_w) idle.fail("the idle power must lie below the board power");
  }

  const std::vector<std::string_view> fit_keys = {
      "mma_fraction",      "hbm_fraction", "fixed_overhead", "per_group_overhead",
      "per_tile_overhead", "block_m",      "block_n"};
  // In file order: the first fit is the profile's default (HardwareProfile::gemm_fit).
  const MapReader gemm = top.map("gemm", {"fp8", "bf16", "fp16", "fp32"});
  for (const std::string_view key : gemm.given())
    p.gemm_fits.push_back({*models::parse_dtype(key), read_fit(gemm.map(key, fit_keys))});
  return out;
}

}  // namespace

HardwareFile read_hardware_yaml(std::string_view text, std::string_view source_name) {
  try {
    return read(models::parse_yaml(text, std::string(source_name), true));
  } catch (const models::YamlError& e) {
    throw HardwareError(e.what(), e.position());
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
