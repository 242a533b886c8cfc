// The data of a sweep's report.html (tools/report_html.h); the charts are drawn by
// tools/report_js/sweep_report.js.
#include <string>

#include <nlohmann/json.hpp>

#include "tools/report_html.h"

namespace moesim::tools {
namespace {

using Json = nlohmann::ordered_json;

Json front_json(const std::vector<scenarios::SweepRow>& rows, std::string_view latency) {
  Json out = Json::array();
  for (std::size_t i : scenarios::pareto_front(rows, latency)) out.push_back(rows[i].index);
  return out;
}

}  // namespace

std::string sweep_report_html(const scenarios::SweepSpec& spec, const std::vector<scenarios::SweepRow>& rows,
                              std::optional<std::size_t> best) {
  const auto metric = [](std::string_view name) { return scenarios::sweep_metric_index(name); };
  Json data;
  data["kind"] = "sweep";
  data["sweep"] = spec.source_file;
  data["base"] = spec.base_file;
  data["params"] = scenarios::sweep_param_paths(spec);
  Json objective;
  objective["metric"] = spec.objective.metric;
  objective["maximize"] = spec.objective.maximize;
  Json bounds = Json::array();
  for (const auto& c : spec.objective.subject_to) {
    const bool latency = scenarios::sweep_metrics()[metric(c.metric)].latency;
    bounds.push_back(
        {{"metric", c.metric}, {"bound", latency ? c.bound * 1e3 : c.bound}, {"unit", latency ? "ms" : ""}});
  }
  objective["subject_to"] = bounds;
  data["objective"] = objective;
  Json metrics = Json::array();
  for (const auto& m : scenarios::sweep_metrics()) metrics.push_back({{"name", m.name}, {"latency", m.latency}});
  data["metrics"] = metrics;

  Json points = Json::array(), skipped = Json::array();
  for (const auto& r : rows) {
    Json params = Json::array();
    for (const auto& p : r.params) params.push_back(p.value);
    if (r.status != "ok") {
      skipped.push_back({{"index", r.index}, {"status", r.status}, {"params", params}, {"reason", r.reason}});
      continue;
    }
    Json values = Json::array();
    for (std::size_t i = 0; i < r.metrics.size(); ++i) {
      const bool latency = scenarios::sweep_metrics()[i].latency;
      values.push_back(latency ? r.metrics[i] * 1e3 : r.metrics[i]);  // latencies in ms
    }
    points.push_back({{"index", r.index},
                      {"params", params},
                      {"metrics", values},
                      {"meets", scenarios::meets_constraints(r, spec.objective)}});
  }
  data["points"] = points;
  data["skipped"] = skipped;
  data["fronts"] = {{"tpot_p90", front_json(rows, "tpot_p90")}, {"ttft_p90", front_json(rows, "ttft_p90")}};
  data["best"] = best ? Json(rows[*best].index) : Json(nullptr);
  return report_page("moesim sweep: " + spec.source_file, data.dump(), "sweep_report.js");
}

}  // namespace moesim::tools
