#include "models/quantity.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <span>
#include <stdexcept>
#include <string>

namespace moesim::models {
namespace {

// value = number × 10^exp10 × 2^pow2 / (bits ? 8 : 1)
struct Unit {
  std::string_view name;
  int exp10 = 0;
  int pow2 = 0;
  bool bits = false;
};

constexpr Unit kByteUnits[] = {
    {"B", 0},       {"KB", 3},      {"MB", 6},      {"GB", 9},      {"TB", 12},
    {"KiB", 0, 10}, {"MiB", 0, 20}, {"GiB", 0, 30}, {"TiB", 0, 40},
};

constexpr Unit kBandwidthUnits[] = {
    {"B/s", 0},           {"KB/s", 3},          {"MB/s", 6},          {"GB/s", 9},           {"TB/s", 12},
    {"KiB/s", 0, 10},     {"MiB/s", 0, 20},     {"GiB/s", 0, 30},     {"TiB/s", 0, 40},      {"bps", 0, 0, true},
    {"Kbps", 3, 0, true}, {"Mbps", 6, 0, true}, {"Gbps", 9, 0, true}, {"Tbps", 12, 0, true},
};

constexpr Unit kFlopsUnits[] = {
    {"FLOPS", 0},  {"KFLOPS", 3},  {"MFLOPS", 6},  {"GFLOPS", 9},  {"TFLOPS", 12},  {"PFLOPS", 15},
    {"FLOP/s", 0}, {"KFLOP/s", 3}, {"MFLOP/s", 6}, {"GFLOP/s", 9}, {"TFLOP/s", 12}, {"PFLOP/s", 15},
    {"OPS", 0},    {"GOPS", 9},    {"TOPS", 12},   {"POPS", 15},
};

constexpr Unit kPowerUnits[] = {{"W", 0}, {"kW", 3}, {"KW", 3}, {"MW", 6}};

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

[[noreturn]] void fail(std::string_view noun, std::span<const Unit> units, std::string_view text) {
  std::string msg = "expected " + std::string(noun) + " with a unit (";
  for (std::size_t i = 0; i < units.size(); ++i) msg += (i ? ", " : "") + std::string(units[i].name);
  msg += "), got ";
  msg += text.empty() ? std::string("an empty value") : "'" + std::string(text) + "'";
  throw std::invalid_argument(msg);
}

double parse(std::string_view noun, std::span<const Unit> units, std::string_view raw) {
  const std::string_view text = trim(raw);
  // No unit starts with a digit, a sign, '.', 'e' or 'E', so the number is the longest prefix of those.
  const std::size_t split = std::min(text.find_first_not_of("0123456789.+-eE"), text.size());
  std::string_view number = text.substr(0, split);
  const std::string_view unit_name = trim(text.substr(split));
  const Unit* unit = nullptr;
  for (const Unit& u : units)
    if (u.name == unit_name) unit = &u;
  if (number.starts_with('+')) number.remove_prefix(1);
  if (unit == nullptr || number.empty() || number.front() == 'e' || number.front() == 'E') fail(noun, units, raw);
  const bool has_exponent = number.find_first_of("eE") != std::string_view::npos;
  // Apply the decimal prefix in the text so the result is the double nearest to the value.
  std::string scaled(number);
  if (!has_exponent) {
    scaled.push_back('e');
    scaled += std::to_string(unit->exp10);
  }
  double value = 0;
  const auto [end, ec] = std::from_chars(scaled.data(), scaled.data() + scaled.size(), value);
  if (ec != std::errc() || end != scaled.data() + scaled.size()) fail(noun, units, raw);
  if (has_exponent) value *= std::pow(10.0, unit->exp10);
  value = std::ldexp(value, unit->pow2);
  if (unit->bits) value /= 8;
  if (!std::isfinite(value) || value < 0) fail(noun, units, raw);
  return value;
}

}  // namespace

double parse_bytes(std::string_view text) { return parse("a size", kByteUnits, text); }
double parse_bandwidth_bytes_per_s(std::string_view text) { return parse("a bandwidth", kBandwidthUnits, text); }
double parse_flops_per_s(std::string_view text) { return parse("a compute rate", kFlopsUnits, text); }
double parse_power_w(std::string_view text) { return parse("a power", kPowerUnits, text); }

}  // namespace moesim::models
