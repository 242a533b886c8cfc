#include "tests/golden/metrics_lock.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "scenarios/loader.h"
#include "scenarios/validation_suite.h"
#include "sim/simulation.h"

namespace moesim::testing {
namespace {

namespace fs = std::filesystem;

const fs::path kSource = MOESIM_SOURCE_DIR;

void add_split(Figures& f, const std::string& prefix, const sim::PhaseTimes& ms, double exposed_ms) {
  for (int p = 0; p < sim::kNumPhases; ++p)
    f.emplace_back(prefix + sim::phase_name(static_cast<sim::Phase>(p)) + "_ms", ms[static_cast<std::size_t>(p)]);
  f.emplace_back(prefix + "exposed_comm_ms", exposed_ms);
}

Figures library_figures(const LockItem& item) {
  auto scenario = scenarios::load_scenario_file(item.path);
  const auto requests = std::min<std::int64_t>(scenario.workload.requests, kLockRequests);
  scenario = scenarios::load_scenario_file(item.path, {"workload.requests=" + std::to_string(requests)});
  const sim::SimulationResult r = sim::simulate(scenarios::simulation_config(scenario));
  const sim::Summary& s = r.summary;
  Figures f = {
      {"requests_completed", static_cast<double>(s.completed)},
      {"output_tokens_per_gpu_s", s.output_tokens_per_gpu_s},
      {"input_tokens_per_gpu_s", s.input_tokens_per_gpu_s},
      {"ttft_p50_ms", s.ttft.p50_s * 1e3},
      {"ttft_p99_ms", s.ttft.p99_s * 1e3},
      {"tpot_p50_ms", s.tpot.p50_s * 1e3},
      {"tpot_p99_ms", s.tpot.p99_s * 1e3},
      {"itl_p50_ms", s.itl.p50_s * 1e3},
      {"itl_p99_ms", s.itl.p99_s * 1e3},
      {"joules_per_output_token", s.energy.known ? s.energy.joules_per_output_token : 0.0},
  };
  if (s.prefix_cache) f.emplace_back("prefix_cache_hit_rate", s.prefix_cache->hit_rate());
  for (const sim::PoolResult& p : r.pools) {
    const std::string prefix = std::string(sim::to_string(p.role)) + ".";
    f.emplace_back(prefix + "steps", static_cast<double>(p.steps));
    f.emplace_back(prefix + "mean_step_ms", p.mean_step_ms);
    sim::PhaseTimes ms{};
    for (std::size_t i = 0; i < ms.size(); ++i) ms[i] = p.phase_ns_per_step[i] * 1e-6;
    add_split(f, prefix, ms, p.exposed_comm_ns_per_step * 1e-6);
  }
  return f;
}

Figures validation_figures(const LockItem& item) {
  const auto suite = scenarios::load_validation_suite(item.path);
  const auto report = scenarios::run_validation(suite, {item.name});
  for (const auto& row : report.rows) {
    if (row.c->name != item.name) continue;
    Figures f = {{"simulated", row.simulated}, {"step_ms", row.step_ms}};
    add_split(f, "", row.phase_ms, row.exposed_comm_ms);
    return f;
  }
  throw std::runtime_error("validation case '" + item.name + "' not run");
}

}  // namespace

std::vector<LockItem> lock_items() {
  std::vector<LockItem> items;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(kSource / "scenarios" / "library"))
    if (e.is_regular_file() && e.path().extension() == ".yaml") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const auto& p : files) items.push_back({"library/" + p.stem().string(), p.string(), ""});
  const std::string dir = (kSource / "scenarios" / "validation").string();
  for (const auto& c : scenarios::load_validation_suite(dir).cases)
    if (c.kind != scenarios::MeasureKind::kRatio) items.push_back({"validation/" + c.name, dir, c.name});
  return items;
}

Figures lock_figures(const LockItem& item) {
  return item.name.empty() ? library_figures(item) : validation_figures(item);
}

std::string format_section(const Figures& figures) {
  std::string out;
  char buf[128];
  for (const auto& [name, value] : figures) {
    std::snprintf(buf, sizeof buf, "%-34s %.9g\n", name.c_str(), value);
    out += buf;
  }
  return out;
}

std::map<std::string, Figures> read_lock(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open " + path);
  std::map<std::string, Figures> sections;
  Figures* current = nullptr;
  int number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    const auto hash = line.find('#');
    if (hash != std::string::npos) line.erase(hash);
    std::istringstream words(line);
    std::string first;
    if (!(words >> first)) continue;
    const std::string where = path + ":" + std::to_string(number) + ": ";
    if (first.front() == '[') {
      if (first.back() != ']' || first.size() < 3) throw std::runtime_error(where + "malformed section header");
      current = &sections[first.substr(1, first.size() - 2)];
      continue;
    }
    double value = 0;
    std::string rest;
    if (current == nullptr || !(words >> value) || (words >> rest))
      throw std::runtime_error(where + "expected 'figure value' inside a section");
    current->emplace_back(first, value);
  }
  return sections;
}

}  // namespace moesim::testing
