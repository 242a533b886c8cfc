#include "calibration/hardware_yaml_writer.h"

#include <cstdio>
#include <string_view>

namespace moesim::calibration {
namespace {

std::string number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}

std::string yaml_quoted(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string flops(double v) { return number(v / 1e12) + "TFLOPS"; }
std::string bandwidth(double v) { return number(v / 1e9) + "GB/s"; }
std::string gibibytes(double v) { return number(v / (1024.0 * 1024 * 1024)) + "GiB"; }
std::string duration(double ns) { return number(ns) + "ns"; }

std::string tiles(const std::vector<int>& v) {
  std::string out = "[";
  for (std::size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + std::to_string(v[i]);
  return out + "]";
}

class Writer {
 public:
  explicit Writer(const ProfileComments& c) : c_(c) {}
  void line(int indent, std::string_view key, const std::string& value, std::string_view path = {}) {
    out_ += std::string(static_cast<std::size_t>(indent), ' ') + std::string(key) + ":";
    if (!value.empty()) out_ += " " + value;
    for (const auto& [k, note] : c_.notes)
      if (!path.empty() && k == path) out_ += "  # " + note;
    out_ += "\n";
  }
  std::string& text() { return out_; }

 private:
  const ProfileComments& c_;
  std::string out_;
};

}  // namespace

std::string hardware_yaml_text(const HardwareFile& file, const ProfileComments& comments) {
  const HardwareProfile& p = file.profile;
  Writer w(comments);
  for (const auto& h : comments.header) w.text() += "# " + h + "\n";
  w.line(0, "name", p.name);
  if (!file.description.empty()) w.line(0, "description", yaml_quoted(file.description));
  w.line(0, "source", yaml_quoted(p.source));
  if (p.dies > 1) {
    w.line(0, "package", "");
    w.line(2, "dies", std::to_string(p.dies), "package.dies");
    w.line(2, "die_link", bandwidth(p.die_link_bytes_per_s), "package.die_link");
  }
  w.line(0, "compute", "");
  w.line(2, "sm_count", std::to_string(p.sm_count), "compute.sm_count");
  if (p.peak_fp4_flops > 0) w.line(2, "fp4", flops(p.peak_fp4_flops), "compute.fp4");
  if (p.peak_fp8_flops > 0) w.line(2, "fp8", flops(p.peak_fp8_flops), "compute.fp8");
  if (p.peak_int8_flops > 0) w.line(2, "int8", flops(p.peak_int8_flops), "compute.int8");
  w.line(2, "bf16", flops(p.peak_bf16_flops), "compute.bf16");
  if (p.peak_fp32_flops > 0) w.line(2, "fp32", flops(p.peak_fp32_flops), "compute.fp32");
  std::string runs_as;
  for (const Units own : {Units::kFp4, Units::kFp8, Units::kInt8})
    if (const auto& units = p.runs_as[static_cast<std::size_t>(own)])
      runs_as += (runs_as.empty() ? "" : ", ") + std::string(to_string(own)) + ": " + std::string(to_string(*units));
  if (!runs_as.empty()) w.line(2, "runs_as", "{" + runs_as + "}", "compute.runs_as");
  w.line(0, "memory", "");
  w.line(2, "capacity", gibibytes(p.hbm_bytes), "memory.capacity");
  w.line(2, "bandwidth", bandwidth(p.hbm_bytes_per_s), "memory.bandwidth");
  w.line(0, "network", "");
  w.line(2, "scaleup", bandwidth(p.scaleup_bytes_per_s), "network.scaleup");
  w.line(2, "nic", bandwidth(p.nic_bytes_per_s), "network.nic");
  if (p.scaleup_efficiency)
    w.line(2, "scaleup_efficiency", number(*p.scaleup_efficiency), "network.scaleup_efficiency");
  if (p.scaleup_latency_ns) w.line(2, "scaleup_latency", duration(*p.scaleup_latency_ns), "network.scaleup_latency");
  if (p.board_power_w > 0) {
    w.line(0, "power", "");
    w.line(2, "board", number(p.board_power_w) + "W", "power.board");
    w.line(2, "idle", number(p.idle_power_w) + "W", "power.idle");
  }
  if (!p.gemm_fits.empty()) {
    w.line(0, "gemm", "");
    for (const auto& f : p.gemm_fits) {
      const std::string d(models::to_string(f.dtype));
      w.line(2, d, "", "gemm." + d);
      w.line(4, "mma_fraction", number(f.params.mma_fraction));
      w.line(4, "hbm_fraction", number(f.params.hbm_fraction));
      w.line(4, "fixed_overhead", duration(f.params.fixed_overhead_ns));
      w.line(4, "per_group_overhead", duration(f.params.per_group_overhead_ns));
      w.line(4, "per_tile_overhead", duration(f.params.per_tile_overhead_ns));
      w.line(4, "block_m", tiles(f.params.block_m));
      w.line(4, "block_n", tiles(f.params.block_n));
    }
  }
  return w.text();
}

}  // namespace moesim::calibration
