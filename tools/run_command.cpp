#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <future>
#include <iostream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "models/units.h"
#include "scenarios/loader.h"
#include "tools/commands.h"
#include "tools/progress_bar.h"
#include "tools/report.h"
#include "tools/report_html.h"
#include "tools/run_command.h"
#include "tools/trace_writer.h"

namespace moesim::tools {
namespace {

struct RunOptions {
  std::string scenario;
  std::string output_dir;  // empty: out/<scenario name>
  std::vector<std::string> overrides;
  std::optional<std::uint64_t> seed;
  bool quiet = false;
  bool report = false;     // write report.html (also when the scenario's outputs.report is set)
  std::string trace_file;  // empty: no trace
  std::string trace_steps = "0:20";
  int trace_ranks = 8;
  int seeds = 1;              // > 1: replicate with seeds seed, seed+1, ... and report 95 % confidence intervals
  std::string max_sim_time;   // empty: unbounded
  std::string max_wall_time;  // empty: unbounded
  int threads = 0;            // sim::SimulationConfig::threads; 0: one per hardware thread
};

// A positive duration flag ("10s", "500ms") in nanoseconds.
double duration_flag_ns(const std::string& flag, const std::string& text) {
  double ns = 0;
  try {
    ns = models::parse_duration_ns(text);
  } catch (const models::UnitError& e) {
    throw UsageError(flag + ": " + e.what());
  }
  if (!(ns > 0) || ns > 9.2e18)
    throw UsageError(flag + ": expected a positive duration below 292 years, got '" + text + "'");
  return ns;
}

sim::RunLimits run_limits(const RunOptions& o) {
  sim::RunLimits l;
  if (!o.max_sim_time.empty())
    l.max_sim_time = sim::Duration::from_ns_rounded(duration_flag_ns("--max-sim-time", o.max_sim_time));
  if (!o.max_wall_time.empty()) l.max_wall_s = duration_flag_ns("--max-wall-time", o.max_wall_time) / 1e9;
  return l;
}

// "A:B" -> steps A..B inclusive.
sim::TraceOptions trace_options(const RunOptions& o) {
  sim::TraceOptions t;
  const auto colon = o.trace_steps.find(':');
  bool whole = colon != std::string::npos;
  try {
    std::size_t used = 0;
    if (whole) t.first_step = std::stoll(o.trace_steps.substr(0, colon), &used);
    whole = whole && used == colon;
    const std::string last = whole ? o.trace_steps.substr(colon + 1) : std::string();
    if (whole) t.last_step = std::stoll(last, &used);
    whole = whole && used == last.size();
  } catch (const std::exception&) {  // std::stoll: no number, or one out of range
    whole = false;
  }
  if (!whole) throw UsageError("--trace-steps: expected FIRST:LAST step numbers, got '" + o.trace_steps + "'");
  if (t.first_step < 0 || t.last_step < t.first_step)
    throw UsageError("--trace-steps: expected 0 <= FIRST <= LAST, got '" + o.trace_steps + "'");
  t.max_ranks = o.trace_ranks;
  return t;
}

int run_scenario(const RunOptions& o) {
  const sim::RunLimits limits = run_limits(o);
  auto overrides = o.overrides;
  if (o.seed) overrides.push_back("seed=" + std::to_string(*o.seed));
  const scenarios::Scenario scenario = scenarios::load_scenario_file(o.scenario, overrides);

  const auto t0 = std::chrono::steady_clock::now();
  auto config = scenarios::simulation_config(scenario);
  if (!o.trace_file.empty()) config.trace = trace_options(o);
  config.limits = limits;
  config.threads = o.threads > 0 ? o.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  ProgressBar progress(static_cast<std::size_t>(config.workload.requests), 0, "requests", progress_wanted(o.quiet));
  if (progress.enabled())
    config.progress = [&progress](const sim::SimulationProgress& p) {
      char sim_time[64];
      std::snprintf(sim_time, sizeof sim_time, "sim %.2f s", static_cast<double>(p.now_ns) * 1e-9);
      progress.set_total(static_cast<std::size_t>(p.requests_total));
      progress.update(static_cast<std::size_t>(p.requests_done), sim_time);
    };
  const sim::SimulationResult result = sim::simulate(config);
  if (progress.enabled()) {  // the finished state, with the run's overall rate
    char sim_time[64];
    std::snprintf(sim_time, sizeof sim_time, "sim %.2f s", result.summary.makespan_s);
    progress.update(result.requests.size(), sim_time, /*force=*/true);
  }
  progress.finish();
  config.progress = nullptr;
  std::vector<sim::Summary> replicas{result.summary};
  if (o.seeds > 1) {
    // Further replications run in parallel; each is independent and keeps its index, so the
    // report does not depend on thread timing.
    replicas.resize(static_cast<std::size_t>(o.seeds));
    std::vector<std::future<sim::Summary>> pending;
    for (int i = 1; i < o.seeds; ++i) {
      auto c = config;
      c.trace.reset();
      c.threads = 1;  // the replications are the parallelism
      c.seed = config.seed + static_cast<std::uint64_t>(i);
      pending.push_back(std::async(std::launch::async, [c] { return sim::simulate(c).summary; }));
    }
    for (std::size_t i = 0; i < pending.size(); ++i) replicas[i + 1] = pending[i].get();
  }
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  const std::filesystem::path dir =
      o.output_dir.empty() ? std::filesystem::path("out") / scenario.name : std::filesystem::path(o.output_dir);
  write_run_outputs(dir, scenario, result, o.report);
  if (o.seeds > 1) {
    std::ofstream seeds(dir / "seeds.json");
    if (!seeds) throw SystemError("cannot write '" + (dir / "seeds.json").string() + "'");
    seeds << seeds_json(scenario.seed, replicas);
  }
  if (!o.trace_file.empty()) {
    std::ofstream trace(o.trace_file);
    if (!trace) throw SystemError("cannot write '" + o.trace_file + "'");
    write_chrome_trace(trace, result);
  }

  if (!o.quiet) {
    print_summary(std::cout, scenario, result);
    if (o.seeds > 1) print_seed_table(std::cout, scenario.seed, replicas);
    std::cout << "\n  simulated " << result.events << " events in " << wall_s << " s wall; outputs in " << dir.string()
              << "/\n";
  }
  return 0;
}

}  // namespace

void write_run_outputs(const std::filesystem::path& dir, const scenarios::Scenario& scenario,
                       const sim::SimulationResult& result, bool report) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw SystemError("cannot create output folder '" + dir.string() + "': " + ec.message());
  {
    std::ofstream json(dir / "summary.json");
    if (!json) throw SystemError("cannot write '" + (dir / "summary.json").string() + "'");
    json << summary_json(scenario, result);
  }
  if (scenario.outputs.requests_csv) write_requests_csv(dir / "requests.csv", result);
  write_steps_csv(dir / "steps.csv", result);
  if (report || scenario.outputs.report) {
    std::ofstream html(dir / "report.html", std::ios::binary);
    if (!(html << run_report_html(scenario, result)))
      throw SystemError("cannot write '" + (dir / "report.html").string() + "'");
  }
}

Command add_run_command(CLI::App& app) {
  auto options = std::make_shared<RunOptions>();
  auto* cmd = app.add_subcommand("run", "Simulate one scenario and write its report");
  cmd->add_option("scenario", options->scenario, "Scenario YAML file")->required();
  cmd->add_option("-o,--output", options->output_dir, "Output folder (default: out/<scenario name>)");
  cmd->add_option("--set", options->overrides, "Override a scenario key: --set a.b.c=value (repeatable)");
  cmd->add_option("--seed", options->seed, "Override the scenario's random seed");
  cmd->add_flag("-q,--quiet", options->quiet, "Write the outputs but print nothing");
  cmd->add_flag("--report", options->report,
                "Also write report.html, a self-contained page of charts (docs/report.md)");
  cmd->add_option("--seeds", options->seeds, "Replicate over N seeds and report 95 % confidence intervals")
      ->check(CLI::Range(1, 1000));
  cmd->add_option("--max-sim-time", options->max_sim_time,
                  "Stop once simulated time reaches this (e.g. 10s); results are marked partial");
  cmd->add_option("--max-wall-time", options->max_wall_time,
                  "Stop once the run has taken this much wall-clock time (e.g. 30s); results are marked partial");
  cmd->add_option("--threads", options->threads,
                  "Compute the instances' steps on up to N threads (default: one per hardware thread); every "
                  "output is the same for any N (docs/architecture.md)")
      ->check(CLI::Range(1, 256));
  cmd->add_option("--trace", options->trace_file, "Write a Perfetto-loadable Chrome trace of the ops to FILE");
  cmd->add_option("--trace-steps", options->trace_steps, "Steps of each instance to trace, FIRST:LAST (default 0:20)");
  cmd->add_option("--trace-ranks", options->trace_ranks, "Trace ranks 0..N-1 of each instance (default 8)")
      ->check(CLI::Range(1, 1 << 20));
  return {cmd, [options] { return run_scenario(*options); }};
}

}  // namespace moesim::tools
