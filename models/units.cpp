#include "models/units.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <span>
#include <string>

namespace moesim::models {
namespace {

// value = number × 10^exp10 × 2^pow2 × mul / div, the decimal prefix applied in the text so that
// the result is the double nearest to the value written; mul and div are exact small integers.
struct Unit {
  std::string_view name;
  int exp10 = 0;
  int pow2 = 0;
  double mul = 1;
  double div = 1;
};

constexpr Unit kDurationUnits[] = {
    {"ns", 0}, {"us", 3}, {"ms", 6}, {"s", 9}, {"min", 9, 0, 60}, {"h", 9, 0, 3600},
};

constexpr Unit kBandwidthUnits[] = {
    {"bps", 0, 0, 1, 8}, {"Kbps", 3, 0, 1, 8}, {"Mbps", 6, 0, 1, 8}, {"Gbps", 9, 0, 1, 8}, {"Tbps", 12, 0, 1, 8},
    {"b/s", 0, 0, 1, 8}, {"Kb/s", 3, 0, 1, 8}, {"Mb/s", 6, 0, 1, 8}, {"Gb/s", 9, 0, 1, 8}, {"Tb/s", 12, 0, 1, 8},
    {"B/s", 0},          {"KB/s", 3},          {"MB/s", 6},          {"GB/s", 9},          {"TB/s", 12},
    {"Bps", 0},          {"KBps", 3},          {"MBps", 6},          {"GBps", 9},          {"TBps", 12},
    {"KiB/s", 0, 10},    {"MiB/s", 0, 20},     {"GiB/s", 0, 30},     {"TiB/s", 0, 40},
};

constexpr Unit kByteUnits[] = {
    {"B", 0},       {"KB", 3},      {"MB", 6},      {"GB", 9},      {"TB", 12},
    {"KiB", 0, 10}, {"MiB", 0, 20}, {"GiB", 0, 30}, {"TiB", 0, 40},
};

constexpr Unit kRateUnits[] = {
    {"/s", 0}, {"/ms", 3}, {"/us", 6}, {"/min", 0, 0, 1, 60}, {"/h", 0, 0, 1, 3600},
};

constexpr Unit kFlopsUnits[] = {
    {"FLOPS", 0},  {"KFLOPS", 3},  {"MFLOPS", 6},  {"GFLOPS", 9},  {"TFLOPS", 12},  {"PFLOPS", 15},
    {"FLOP/s", 0}, {"KFLOP/s", 3}, {"MFLOP/s", 6}, {"GFLOP/s", 9}, {"TFLOP/s", 12}, {"PFLOP/s", 15},
    {"OPS", 0},    {"GOPS", 9},    {"TOPS", 12},   {"POPS", 15},
};

constexpr Unit kPowerUnits[] = {{"W", 0}, {"kW", 3}, {"MW", 6}};

struct Family {
  std::string_view noun;  // "duration"
  std::span<const Unit> units;
  bool unit_required;
  std::string_view note;  // appended to the unit list in messages
};

std::string unit_list(const Family& f) {
  std::string out;
  for (const Unit& u : f.units) {
    if (!out.empty()) out += ", ";
    out += u.name;
  }
  return out;
}

[[noreturn]] void fail_expected(const Family& f, std::string_view text) {
  std::string msg = "expected a " + std::string(f.noun);
  msg += f.unit_required ? " with a unit (" : " (a number per second, or with a unit: ";
  msg += unit_list(f);
  msg += f.note;
  msg += "), got ";
  msg += text.empty() ? std::string("an empty value") : "'" + std::string(text) + "'";
  throw UnitError(msg);
}

[[noreturn]] void fail_range(const Family& f, std::string_view text) {
  throw UnitError(std::string(f.noun) + " '" + std::string(text) + "' is out of range");
}

const Unit* find_unit(const Family& f, std::string_view name) {
  for (const Unit& u : f.units)
    if (u.name == name) return &u;
  if (!name.empty() && (name.front() == 'k' || name.front() == 'K')) {  // kilo in either case
    std::string other(name);
    other.front() = name.front() == 'k' ? 'K' : 'k';
    for (const Unit& u : f.units)
      if (u.name == other) return &u;
  }
  return nullptr;
}

std::string_view trim(std::string_view s) {
  const auto is_space = [](char c) { return c == ' ' || c == '\t'; };
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

// The number (the whole of `digits`) times 10^exp10, rounded once where the text has no exponent.
double scaled_number(const Family& f, std::string_view text, std::string_view digits, int exp10) {
  const bool has_exponent = digits.find_first_of("eE") != std::string_view::npos;
  std::string scaled(digits);
  if (!has_exponent && exp10 != 0) {
    scaled.push_back('e');
    scaled += std::to_string(exp10);
  }
  double value = 0;
  const auto [end, ec] = std::from_chars(scaled.data(), scaled.data() + scaled.size(), value);
  if (ec == std::errc::result_out_of_range) fail_range(f, text);
  if (ec != std::errc() || end != scaled.data() + scaled.size()) fail_expected(f, text);
  if (has_exponent) value *= std::pow(10.0, exp10);
  return value;
}

double parse(const Family& f, std::string_view raw) {
  const std::string_view text = trim(raw);
  if (text.empty()) fail_expected(f, text);
  if (text.front() == '-')
    throw UnitError("expected a non-negative " + std::string(f.noun) + ", got '" + std::string(text) + "'");
  // from_chars would also take "inf" and "nan"; only plain decimal numbers are allowed.
  if (!(std::isdigit(static_cast<unsigned char>(text.front())) || text.front() == '.')) fail_expected(f, text);

  double number = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), number);
  if (ec == std::errc::invalid_argument) fail_expected(f, text);
  if (ec == std::errc::result_out_of_range) fail_range(f, text);
  const auto digits = static_cast<std::size_t>(end - text.data());

  const std::string_view unit_text = trim(text.substr(digits));
  double value = number;
  if (unit_text.empty()) {
    if (f.unit_required) fail_expected(f, text);
  } else {
    const Unit* unit = find_unit(f, unit_text);
    if (unit == nullptr) fail_expected(f, text);
    value = std::ldexp(scaled_number(f, text, text.substr(0, digits), unit->exp10), unit->pow2) * unit->mul / unit->div;
  }
  if (!std::isfinite(value)) fail_range(f, text);
  return value;
}

constexpr Family kDuration{"duration", kDurationUnits, true, ""};
constexpr Family kBandwidth{"bandwidth", kBandwidthUnits, true, "; b = bits, B = bytes"};
constexpr Family kBytes{"size", kByteUnits, true, ""};
constexpr Family kRate{"rate", kRateUnits, false, ""};
constexpr Family kFlops{"compute rate", kFlopsUnits, true, ""};
constexpr Family kPower{"power", kPowerUnits, true, ""};

}  // namespace

double parse_duration_ns(std::string_view text) { return parse(kDuration, text); }
double parse_bandwidth_bytes_per_s(std::string_view text) { return parse(kBandwidth, text); }
double parse_bytes(std::string_view text) { return parse(kBytes, text); }
double parse_rate_per_s(std::string_view text) { return parse(kRate, text); }
double parse_flops_per_s(std::string_view text) { return parse(kFlops, text); }
double parse_power_w(std::string_view text) { return parse(kPower, text); }

}  // namespace moesim::models
