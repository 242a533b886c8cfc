#include "scenarios/sweep_analysis.h"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "scenarios/scenario_error.h"

namespace moesim::scenarios {
namespace {

void append_field(std::string& line, std::string_view field) {
  line += ',';
  line += field;
}

}  // namespace

const std::vector<SweepMetric>& sweep_metrics() {
  static const std::vector<SweepMetric> kMetrics = {
      {"output_tokens_per_gpu_s", "output_tokens_per_gpu_s", false, false},
      {"input_tokens_per_gpu_s", "input_tokens_per_gpu_s", false, false},
      {"ttft_p50", "ttft_p50_s", true, true},
      {"ttft_p90", "ttft_p90_s", true, true},
      {"ttft_p99", "ttft_p99_s", true, true},
      {"tpot_p50", "tpot_p50_s", true, true},
      {"tpot_p90", "tpot_p90_s", true, true},
      {"tpot_p99", "tpot_p99_s", true, true},
      {"itl_p99", "itl_p99_s", true, true},
      {"e2e_p90", "e2e_p90_s", true, true},
      {"slo_attainment", "slo_attainment", false, false},
      {"goodput_requests_per_s", "goodput_requests_per_s", false, false},
      {"joules_per_output_token", "joules_per_output_token", false, true},
      {"usd_per_million_output_tokens", "usd_per_million_output_tokens", false, true},
  };
  return kMetrics;
}

std::vector<std::string_view> sweep_metric_names() {
  std::vector<std::string_view> names;
  for (const SweepMetric& m : sweep_metrics()) names.push_back(m.name);
  return names;
}

std::size_t sweep_metric_index(std::string_view name) {
  const auto& all = sweep_metrics();
  for (std::size_t i = 0; i < all.size(); ++i)
    if (all[i].name == name) return i;
  throw ScenarioError("unknown sweep metric '" + std::string(name) + "'");
}

std::vector<double> sweep_metric_values(const sim::Summary& s) {
  return {s.output_tokens_per_gpu_s,
          s.input_tokens_per_gpu_s,
          s.ttft.p50_s,
          s.ttft.p90_s,
          s.ttft.p99_s,
          s.tpot.p50_s,
          s.tpot.p90_s,
          s.tpot.p99_s,
          s.itl.p99_s,
          s.e2e.p90_s,
          s.slo_attainment,
          s.goodput_requests_per_s,
          s.energy.known ? s.energy.joules_per_output_token : std::nan(""),
          s.cost.priced ? s.cost.usd_per_million_output_tokens : std::nan("")};
}

bool meets_constraints(const SweepRow& row, const SweepObjective& objective) {
  if (row.status != "ok") return false;
  for (const SweepConstraint& c : objective.subject_to) {
    const std::size_t i = sweep_metric_index(c.metric);
    const double v = row.metrics.at(i);
    if (sweep_metrics()[i].lower_better ? !(v <= c.bound) : !(v >= c.bound)) return false;
  }
  return true;
}

std::optional<std::size_t> best_row(const std::vector<SweepRow>& rows, const SweepObjective& objective) {
  const std::size_t m = sweep_metric_index(objective.metric);
  std::optional<std::size_t> best;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    // A metric not known for the point (no power in its hardware, no price) never wins.
    if (!meets_constraints(rows[i], objective) || std::isnan(rows[i].metrics[m])) continue;
    if (!best) {
      best = i;
      continue;
    }
    const double v = rows[i].metrics[m], b = rows[*best].metrics[m];
    const bool better = objective.maximize ? v > b : v < b;
    if (better || (v == b && rows[i].index < rows[*best].index)) best = i;
  }
  return best;
}

std::vector<std::size_t> pareto_front(const std::vector<SweepRow>& rows, std::string_view latency_metric) {
  const std::size_t x = sweep_metric_index("output_tokens_per_gpu_s");
  const std::size_t y = sweep_metric_index(latency_metric);
  std::vector<std::size_t> ok;
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (rows[i].status == "ok") ok.push_back(i);
  // By latency, then throughput descending: a row is on the front when no earlier row has a
  // higher throughput, or the same throughput at a lower latency.
  std::sort(ok.begin(), ok.end(), [&](std::size_t a, std::size_t b) {
    const auto& ra = rows[a].metrics;
    const auto& rb = rows[b].metrics;
    if (ra[y] != rb[y]) return ra[y] < rb[y];
    if (ra[x] != rb[x]) return ra[x] > rb[x];
    return rows[a].index < rows[b].index;
  });
  std::vector<std::size_t> front;
  for (std::size_t i : ok) {
    if (!front.empty()) {
      const auto& last = rows[front.back()].metrics;
      const auto& r = rows[i].metrics;
      const bool equal = last[x] == r[x] && last[y] == r[y];
      if (!equal && r[x] <= last[x]) continue;
    }
    front.push_back(i);
  }
  return front;
}

std::string number_text_exact(double x) {
  char buf[64];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, x);
  if (ec != std::errc()) return "nan";
  return std::string(buf, end);
}

std::string csv_field(std::string_view text) {
  if (text.find_first_of(",\"\n\r") == std::string_view::npos) return std::string(text);
  std::string out(1, '"');
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

std::string results_csv_header(const std::vector<std::string>& param_paths) {
  std::string line = "index,status";
  for (const std::string& p : param_paths) append_field(line, csv_field(p));
  for (const SweepMetric& m : sweep_metrics()) append_field(line, m.column);
  line += ",reason\n";
  return line;
}

std::string results_csv_line(const SweepRow& row) {
  std::string line = std::to_string(row.index);
  append_field(line, row.status);
  for (const SweepParam& p : row.params) append_field(line, csv_field(p.value));
  for (std::size_t i = 0; i < sweep_metrics().size(); ++i)
    append_field(line, i < row.metrics.size() ? number_text_exact(row.metrics[i]) : std::string());
  append_field(line, csv_field(row.reason));
  line += '\n';
  return line;
}

std::string pareto_csv(const std::vector<SweepRow>& rows, const std::vector<std::string>& param_paths) {
  std::string text = "frontier,index";
  for (const std::string& p : param_paths) append_field(text, csv_field(p));
  text += ",output_tokens_per_gpu_s,latency_s\n";
  const std::size_t x = sweep_metric_index("output_tokens_per_gpu_s");
  for (std::string_view latency : {"tpot_p90", "ttft_p90"}) {
    const std::size_t y = sweep_metric_index(latency);
    for (std::size_t i : pareto_front(rows, latency)) {
      const SweepRow& r = rows[i];
      text += latency;
      append_field(text, std::to_string(r.index));
      for (const SweepParam& p : r.params) append_field(text, csv_field(p.value));
      append_field(text, number_text_exact(r.metrics[x]));
      append_field(text, number_text_exact(r.metrics[y]));
      text += '\n';
    }
  }
  return text;
}

}  // namespace moesim::scenarios
