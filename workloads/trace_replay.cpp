#include "workloads/trace_replay.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <unordered_set>

#include <nlohmann/json.hpp>

#include "workloads/input_limits.h"
#include "workloads/workload_error.h"

namespace moesim::workloads {
namespace {

std::string trim(std::string_view s) {
  std::size_t b = 0, e = s.size();
  while (b < e && (std::isspace(static_cast<unsigned char>(s[b])) || s[b] == '"')) ++b;
  while (e > b && (std::isspace(static_cast<unsigned char>(s[e - 1])) || s[e - 1] == '"')) --e;
  return std::string(s.substr(b, e - b));
}

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (;;) {
    const auto comma = line.find(',', start);
    out.push_back(
        trim(std::string_view(line).substr(start, comma == std::string::npos ? std::string::npos : comma - start)));
    if (comma == std::string::npos) return out;
    start = comma + 1;
  }
}

bool parse_number(const std::string& s, double& out) {
  const char* end = s.data() + s.size();
  auto [p, ec] = std::from_chars(s.data(), end, out);
  return !s.empty() && ec == std::errc() && p == end && std::isfinite(out);
}

bool digits(std::string_view s, std::size_t pos, std::size_t n, int& out) {
  if (pos + n > s.size()) return false;
  out = 0;
  for (std::size_t i = pos; i < pos + n; ++i) {
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
    out = out * 10 + (s[i] - '0');
  }
  return true;
}

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant, "chrono-compatible low-level
// date algorithms").
std::int64_t days_from_civil(int y, int m, int d) {
  y -= m <= 2;
  const int era = (y >= 0 ? y : y - 399) / 400;
  const int yoe = y - era * 400;
  const int doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return static_cast<std::int64_t>(era) * 146097 + doe - 719468;
}

std::string shortest(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

// A length below one token becomes one; one above kMaxRequestTokens is refused.
std::int64_t checked_length(const std::string& name, std::int64_t line, const char* what, double v) {
  if (v > static_cast<double>(kMaxRequestTokens))
    fail_at_line(name, line,
                 std::string(what) + " length " + std::to_string(std::llround(std::min(v, 9e18))) +
                     " exceeds the limit of " + std::to_string(kMaxRequestTokens) + " tokens");
  return std::max<std::int64_t>(1, std::llround(v));
}

// Nanoseconds of a time in `unit_ns` units, refused beyond kMaxArrivalNs.
std::int64_t checked_time_ns(const std::string& name, std::int64_t line, double t, double unit_ns) {
  const double ns = t * unit_ns;
  if (!(std::abs(ns) <= kMaxArrivalNs))
    fail_at_line(name, line,
                 "time " + shortest(t) + (unit_ns == 1e6 ? " ms" : " s") +
                     " is out of range (at most 4e9 s either side of zero)");
  return std::llround(ns);
}

void finish(std::vector<TraceRequest>& out) {
  if (out.empty()) return;
  std::stable_sort(out.begin(), out.end(),
                   [](const TraceRequest& a, const TraceRequest& b) { return a.arrival_ns < b.arrival_ns; });
  const std::int64_t t0 = out.front().arrival_ns;
  for (auto& r : out) r.arrival_ns -= t0;
}

int find_column(const std::vector<std::string>& header, std::initializer_list<const char*> names) {
  for (std::size_t i = 0; i < header.size(); ++i)
    for (const char* n : names)
      if (lower(header[i]) == n) return static_cast<int>(i);
  return -1;
}

}  // namespace

bool parse_datetime_ns(const std::string& text, std::int64_t& ns) {
  const std::string_view s = text;
  int y, mo, d, h, mi, sec;
  if (!digits(s, 0, 4, y) || s.size() < 19 || s[4] != '-' || !digits(s, 5, 2, mo) || s[7] != '-' ||
      !digits(s, 8, 2, d) || (s[10] != ' ' && s[10] != 'T') || !digits(s, 11, 2, h) || s[13] != ':' ||
      !digits(s, 14, 2, mi) || s[16] != ':' || !digits(s, 17, 2, sec))
    return false;
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60) return false;
  std::size_t pos = 19;
  std::int64_t frac_ns = 0;
  if (pos < s.size() && s[pos] == '.') {
    ++pos;
    std::int64_t scale = 100'000'000;
    const std::size_t first = pos;
    for (; pos < s.size() && std::isdigit(static_cast<unsigned char>(s[pos])); ++pos, scale /= 10)
      frac_ns += (s[pos] - '0') * scale;
    if (pos == first) return false;
  }
  std::int64_t offset_s = 0;
  if (pos < s.size() && s[pos] == 'Z') {
    ++pos;
  } else if (pos < s.size() && (s[pos] == '+' || s[pos] == '-')) {
    const int sign = s[pos] == '-' ? -1 : 1;
    int oh, om;
    if (!digits(s, pos + 1, 2, oh)) return false;
    std::size_t mpos = pos + 3;
    if (mpos < s.size() && s[mpos] == ':') ++mpos;
    if (!digits(s, mpos, 2, om)) return false;
    offset_s = sign * (oh * 3600 + om * 60);
    pos = mpos + 2;
  }
  if (pos != s.size()) return false;
  const std::int64_t secs = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec - offset_s;
  if (secs > 9'000'000'000 || secs < -9'000'000'000) return false;  // beyond int64 nanoseconds
  ns = secs * 1'000'000'000 + frac_ns;
  return true;
}

std::vector<TraceRequest> parse_request_trace_csv(std::istream& in, const std::string& name, std::int64_t max_rows) {
  std::string line;
  std::int64_t no = 0;
  std::vector<std::string> header;
  while (header.empty() && std::getline(in, line)) {
    ++no;
    if (!trim(line).empty()) header = split_csv(line);
  }
  if (header.empty()) throw WorkloadError(name + ": empty trace (expected a CSV header row)");
  int t_col = find_column(header, {"timestamp", "arrival_s", "arrival_time", "time_s", "time", "arrival_time_s"});
  const int t_ms_col = find_column(header, {"timestamp_ms", "arrival_ms", "time_ms"});
  const bool ms = t_col < 0 && t_ms_col >= 0;
  if (ms) t_col = t_ms_col;
  const int in_col = find_column(header, {"contexttokens", "input_length", "input_tokens", "prompt_tokens"});
  const int out_col = find_column(header, {"generatedtokens", "output_length", "output_tokens", "completion_tokens"});
  if (t_col < 0 || in_col < 0 || out_col < 0)
    fail_at_line(name, no,
                 "the header needs a time column (TIMESTAMP, arrival_s, timestamp_ms, ...), an input "
                 "column (ContextTokens, input_length, ...) and an output column (GeneratedTokens, "
                 "output_length, ...)");
  const std::size_t need = static_cast<std::size_t>(std::max({t_col, in_col, out_col})) + 1;
  std::vector<TraceRequest> out;
  while ((max_rows < 0 || static_cast<std::int64_t>(out.size()) < max_rows) && std::getline(in, line)) {
    ++no;
    if (trim(line).empty()) continue;
    const auto f = split_csv(line);
    if (f.size() < need)
      fail_at_line(name, no,
                   "expected at least " + std::to_string(need) + " fields, got " + std::to_string(f.size()) +
                       " (truncated row?)");
    TraceRequest r;
    const auto& ts = f[static_cast<std::size_t>(t_col)];
    double t = 0;
    if (parse_number(ts, t)) {
      r.arrival_ns = checked_time_ns(name, no, t, ms ? 1e6 : 1e9);
    } else if (ms || !parse_datetime_ns(ts, r.arrival_ns)) {
      fail_at_line(name, no, "bad time '" + ts + "' (expected seconds or YYYY-MM-DD HH:MM:SS.fff)");
    } else if (!(std::abs(static_cast<double>(r.arrival_ns)) <= kMaxArrivalNs)) {
      fail_at_line(name, no, "date-time '" + ts + "' is out of range (years 1844 to 2096)");
    }
    double len_in = 0, len_out = 0;
    if (!parse_number(f[static_cast<std::size_t>(in_col)], len_in) || len_in < 0)
      fail_at_line(name, no, "bad input length '" + f[static_cast<std::size_t>(in_col)] + "'");
    if (!parse_number(f[static_cast<std::size_t>(out_col)], len_out) || len_out < 0)
      fail_at_line(name, no, "bad output length '" + f[static_cast<std::size_t>(out_col)] + "'");
    r.input_tokens = checked_length(name, no, "input", len_in);
    r.output_tokens = checked_length(name, no, "output", len_out);
    if (static_cast<std::int64_t>(out.size()) == kMaxRequests)
      fail_at_line(name, no, "more than " + std::to_string(kMaxRequests) + " requests");
    out.push_back(r);
  }
  finish(out);
  return out;
}

std::vector<TraceRequest> parse_request_trace_jsonl(std::istream& in, const std::string& name, int block_tokens,
                                                    std::int64_t max_rows) {
  std::vector<TraceRequest> out;
  std::unordered_set<std::int64_t> seen;
  std::string line;
  std::int64_t no = 0;
  auto number = [&](const nlohmann::json& j, const char* key, bool required, double& v) {
    const auto it = j.find(key);
    if (it == j.end()) {
      if (required) fail_at_line(name, no, std::string("missing field \"") + key + "\"");
      return false;
    }
    if (!it->is_number() || !std::isfinite(it->get<double>()) || it->get<double>() < 0)
      fail_at_line(name, no, std::string("field \"") + key + "\" must be a non-negative number");
    v = it->get<double>();
    return true;
  };
  while ((max_rows < 0 || static_cast<std::int64_t>(out.size()) < max_rows) && std::getline(in, line)) {
    ++no;
    if (trim(line).empty()) continue;
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(line);
    } catch (const nlohmann::json::parse_error& e) {
      fail_at_line(name, no, std::string("not a JSON object (truncated line?): ") + e.what());
    } catch (const nlohmann::json::out_of_range& e) {
      fail_at_line(name, no, std::string("a number is out of range: ") + e.what());
    }
    if (!j.is_object()) fail_at_line(name, no, "expected a JSON object per line");
    TraceRequest r;
    double t = 0, len_in = 0, len_out = 0;
    if (number(j, "timestamp", false, t)) {
      r.arrival_ns = checked_time_ns(name, no, t, 1e6);  // Mooncake: milliseconds
    } else if (number(j, "arrival_s", false, t)) {
      r.arrival_ns = checked_time_ns(name, no, t, 1e9);
    } else {
      fail_at_line(name, no, "missing field \"timestamp\" (ms) or \"arrival_s\"");
    }
    if (!number(j, "input_length", false, len_in)) number(j, "input_tokens", true, len_in);
    if (!number(j, "output_length", false, len_out)) number(j, "output_tokens", true, len_out);
    r.input_tokens = checked_length(name, no, "input", len_in);
    r.output_tokens = checked_length(name, no, "output", len_out);
    if (const auto h = j.find("hash_ids"); h != j.end()) {
      if (!h->is_array()) fail_at_line(name, no, "\"hash_ids\" must be an array of integers");
      std::int64_t leading = 0;
      bool prefix = true;
      for (const auto& id : *h) {
        if (!id.is_number_integer()) fail_at_line(name, no, "\"hash_ids\" must be an array of integers");
        r.hash_ids.push_back(static_cast<std::uint64_t>(id.get<std::int64_t>()));
        const bool hit = !seen.insert(id.get<std::int64_t>()).second;
        prefix = prefix && hit;
        leading += prefix;
      }
      r.prefix_hit = std::min(1.0, static_cast<double>(leading) * block_tokens / static_cast<double>(r.input_tokens));
    }
    if (static_cast<std::int64_t>(out.size()) == kMaxRequests)
      fail_at_line(name, no, "more than " + std::to_string(kMaxRequests) + " requests");
    out.push_back(r);
  }
  finish(out);
  return out;
}

std::vector<RegistryEntry> trace_formats() {
  return {
      {"auto", "by the file's extension: .jsonl or .json is JSONL, anything else CSV"},
      {"csv", "CSV with a header row (the Azure LLM inference traces)"},
      {"jsonl", "one JSON object per line (the Mooncake traces)"},
  };
}

TraceFormat trace_format(std::string_view name) {
  return registry_value<TraceFormat>(trace_formats(), name, "trace format");
}

std::string_view to_string(TraceFormat format) { return registry_name(trace_formats(), format); }

std::vector<TraceRequest> read_request_trace(const std::string& path, const RequestTraceOptions& options) {
  std::ifstream in(path);
  if (!in) throw WorkloadError(path + ": cannot open the request trace");
  TraceFormat format = options.format;
  if (format == TraceFormat::kAuto) {
    const auto dot = path.rfind('.');
    const std::string ext = dot == std::string::npos ? "" : lower(path.substr(dot + 1));
    format = ext == "jsonl" || ext == "json" ? TraceFormat::kJsonl : TraceFormat::kCsv;
  }
  if (format == TraceFormat::kJsonl) return parse_request_trace_jsonl(in, path, options.block_tokens, options.max_rows);
  return parse_request_trace_csv(in, path, options.max_rows);
}

}  // namespace moesim::workloads
