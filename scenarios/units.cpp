#include "scenarios/units.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <span>
#include <string>

namespace moesim::scenarios {
namespace {

// value = number * mul / div; both factors are exact in double so "400Gbps" is exactly 50e9.
struct Unit {
  std::string_view name;
  double mul;
  double div = 1;
};

constexpr Unit kDurationUnits[] = {
    {"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}, {"min", 60e9}, {"h", 3600e9},
};

constexpr Unit kBandwidthUnits[] = {
    {"bps", 1, 8},    {"Kbps", 1e3, 8}, {"Mbps", 1e6, 8},  {"Gbps", 1e9, 8},  {"Tbps", 1e12, 8}, {"b/s", 1, 8},
    {"Kb/s", 1e3, 8}, {"Mb/s", 1e6, 8}, {"Gb/s", 1e9, 8},  {"Tb/s", 1e12, 8}, {"B/s", 1},        {"KB/s", 1e3},
    {"MB/s", 1e6},    {"GB/s", 1e9},    {"TB/s", 1e12},    {"Bps", 1},        {"KBps", 1e3},     {"MBps", 1e6},
    {"GBps", 1e9},    {"TBps", 1e12},   {"KiB/s", 0x1p10}, {"MiB/s", 0x1p20}, {"GiB/s", 0x1p30}, {"TiB/s", 0x1p40},
};

constexpr Unit kByteUnits[] = {
    {"B", 1},        {"KB", 1e3},     {"MB", 1e6},     {"GB", 1e9},     {"TB", 1e12},
    {"KiB", 0x1p10}, {"MiB", 0x1p20}, {"GiB", 0x1p30}, {"TiB", 0x1p40},
};

constexpr Unit kRateUnits[] = {
    {"/s", 1}, {"/ms", 1e3}, {"/us", 1e6}, {"/min", 1, 60}, {"/h", 1, 3600},
};

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

const Unit* find_unit(const Family& f, std::string_view name) {
  for (const Unit& u : f.units)
    if (u.name == name) return &u;
  if (!name.empty() && name.front() == 'k') {  // SI spelling of kilo
    std::string upper(name);
    upper.front() = 'K';
    for (const Unit& u : f.units)
      if (u.name == upper) return &u;
  }
  return nullptr;
}

std::string_view trim(std::string_view s) {
  const auto is_space = [](char c) { return c == ' ' || c == '\t'; };
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
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
  if (ec == std::errc::result_out_of_range)
    throw UnitError(std::string(f.noun) + " '" + std::string(text) + "' is out of range");

  const std::string_view unit_text = trim(text.substr(static_cast<std::size_t>(end - text.data())));
  double value = number;
  if (unit_text.empty()) {
    if (f.unit_required) fail_expected(f, text);
  } else {
    const Unit* unit = find_unit(f, unit_text);
    if (unit == nullptr) fail_expected(f, text);
    value = number * unit->mul / unit->div;
  }
  if (!std::isfinite(value)) throw UnitError(std::string(f.noun) + " '" + std::string(text) + "' is out of range");
  return value;
}

constexpr Family kDuration{"duration", kDurationUnits, true, ""};
constexpr Family kBandwidth{"bandwidth", kBandwidthUnits, true, "; b = bits, B = bytes"};
constexpr Family kBytes{"size", kByteUnits, true, ""};
constexpr Family kRate{"rate", kRateUnits, false, ""};

}  // namespace

double parse_duration_ns(std::string_view text) { return parse(kDuration, text); }
double parse_bandwidth_bytes_per_s(std::string_view text) { return parse(kBandwidth, text); }
double parse_bytes(std::string_view text) { return parse(kBytes, text); }
double parse_rate_per_s(std::string_view text) { return parse(kRate, text); }

}  // namespace moesim::scenarios
