// `moesim sweep SWEEP.yaml [-j N] [-o DIR] [--resume]` (docs/sweeps.md): runs every point of a
// sweep on N threads, appends one row per finished point to DIR/results.jsonl and results.csv
// (flushed after each row, so a killed sweep loses at most the rows in flight), and at the end
// prints and writes the Pareto frontiers (pareto.csv) and the best point (best.yaml).
//
// Rows carry their point index and parameters and no timing, so sorting by index gives the same
// rows for any N. --resume keeps the complete rows of results.jsonl (a truncated last line is
// dropped), checks that they belong to this sweep, and runs only the missing points.
//
// Under mpirun (a build with MOESIM_MPI; tools/sweep_world.h) rank 0 does all of the above and
// also hands the pending points out one at a time to the other ranks, which send back rows.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "models/error.h"
#include "scenarios/loader.h"
#include "scenarios/sweep.h"
#include "scenarios/sweep_analysis.h"
#include "sim/check.h"
#include "sim/deployment.h"
#include "tools/commands.h"
#include "tools/error_exit.h"
#include "tools/progress_bar.h"
#include "tools/report_html.h"
#include "tools/sweep_command.h"
#include "tools/sweep_world.h"

namespace moesim::tools {
namespace {

namespace fs = std::filesystem;
using scenarios::SweepPoint;
using scenarios::SweepRow;
using scenarios::SweepSpec;

struct SweepOptions {
  std::string file;
  int jobs = 0;  // 0: one per hardware thread
  std::string output_dir;
  bool resume = false;
  bool quiet = false;
};

std::string jsonl_line(const SweepRow& row) {
  nlohmann::ordered_json j;
  j["index"] = row.index;
  j["status"] = row.status;
  j["params"] = nlohmann::ordered_json::object();
  for (const auto& p : row.params) j["params"][p.path] = p.value;
  j["metrics"] = nlohmann::ordered_json::object();
  for (std::size_t i = 0; i < row.metrics.size(); ++i)
    j["metrics"][std::string(scenarios::sweep_metrics()[i].column)] = row.metrics[i];
  j["reason"] = row.reason;
  return j.dump() + "\n";
}

SweepRow parse_row(const std::string& line) {
  const auto j = nlohmann::ordered_json::parse(line);
  SweepRow row;
  row.index = j.at("index").get<std::size_t>();
  row.status = j.at("status").get<std::string>();
  row.reason = j.at("reason").get<std::string>();
  for (const auto& [path, value] : j.at("params").items()) row.params.push_back({path, value.get<std::string>()});
  const auto& metrics = j.at("metrics");
  if (!metrics.empty())
    for (const auto& m : scenarios::sweep_metrics()) {
      // A metric the row does not hold (written before it existed) or could not know is NaN.
      const auto it = metrics.find(std::string(m.column));
      row.metrics.push_back(it == metrics.end() || it->is_null() ? std::numeric_limits<double>::quiet_NaN()
                                                                 : it->get<double>());
    }
  return row;
}

// Reads the complete rows of an earlier run into `rows` (by index) and cuts the file after the
// last complete line. Returns the rows in file order.
std::vector<SweepRow> resume_rows(const fs::path& jsonl, const std::vector<SweepPoint>& points,
                                  std::vector<std::optional<SweepRow>>& rows) {
  std::vector<SweepRow> kept;
  std::ifstream in(jsonl, std::ios::binary);
  if (!in) return kept;
  std::ostringstream buf;
  buf << in.rdbuf();
  const std::string text = buf.str();
  std::size_t start = 0, line_no = 0;
  for (std::size_t end; (end = text.find('\n', start)) != std::string::npos; start = end + 1) {
    ++line_no;
    const std::string where = jsonl.string() + ":" + std::to_string(line_no) + ": ";
    SweepRow row;
    try {
      row = parse_row(text.substr(start, end - start));
    } catch (const nlohmann::json::exception& e) {
      throw UsageError(where + "not a sweep row (" + e.what() + "); run without --resume to start over");
    }
    if (row.index >= points.size() || row.params != points[row.index].params)
      throw UsageError(where + "row " + std::to_string(row.index) +
                       " was not written by this sweep (its parameters differ); use another -o folder or run "
                       "without --resume");
    if (rows[row.index]) continue;
    rows[row.index] = row;
    kept.push_back(std::move(row));
  }
  in.close();
  if (start < text.size()) fs::resize_file(jsonl, start);  // a row cut short by a kill
  return kept;
}

std::string params_text(const SweepRow& row) {
  std::string s;
  for (const auto& p : row.params) s += (s.empty() ? "" : ", ") + p.path + "=" + p.value;
  return s;
}

std::string fixed(double x, int digits) {
  std::ostringstream out;
  out.setf(std::ios::fixed);
  out.precision(digits);
  out << x;
  return out.str();
}

void print_front(std::ostream& out, const std::vector<SweepRow>& rows, const std::vector<std::string>& paths,
                 std::string_view latency) {
  const std::size_t x = scenarios::sweep_metric_index("output_tokens_per_gpu_s");
  const std::size_t y = scenarios::sweep_metric_index(latency);
  out << "\nPareto frontier: output tokens/s per GPU vs " << latency << "\n";
  std::vector<std::vector<std::string>> table{{"index", "tok/s/GPU", std::string(latency) + " ms"}};
  for (const auto& p : paths) {  // the last key of a path when no other path ends the same way
    const std::string last = p.substr(p.rfind('.') + 1);
    const auto same = std::count_if(paths.begin(), paths.end(),
                                    [&](const std::string& q) { return q.substr(q.rfind('.') + 1) == last; });
    table.front().push_back(same == 1 ? last : p);
  }
  for (std::size_t i : scenarios::pareto_front(rows, latency)) {
    const SweepRow& r = rows[i];
    table.push_back({std::to_string(r.index), fixed(r.metrics[x], 1), fixed(r.metrics[y] * 1e3, 2)});
    for (const auto& p : r.params) table.back().push_back(p.value);
  }
  std::vector<std::size_t> width(table.front().size(), 0);
  for (const auto& line : table)
    for (std::size_t c = 0; c < line.size(); ++c) width[c] = std::max(width[c], line[c].size());
  for (const auto& line : table) {
    out << " ";
    for (std::size_t c = 0; c < line.size(); ++c)
      out << " " << std::string(width[c] - line[c].size(), ' ') << line[c] << (c + 1 < line.size() ? " " : "");
    out << "\n";
  }
}

std::string short_number(double x) {
  std::ostringstream out;
  out << x;
  return out.str();
}

void write_file(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  if (!(out << text)) throw SystemError("cannot write '" + path.string() + "'");
}

// A point whose values do not fit (a deployment that does not divide, a model that does not fit
// the memory) is skipped, not failed: the sweep goes on, and the row says why.
bool skips_point(models::ErrorKind kind) {
  using models::ErrorKind;
  switch (kind) {
    case ErrorKind::kScenario:
    case ErrorKind::kWorkload:
    case ErrorKind::kModel:
    case ErrorKind::kHardware:
    case ErrorKind::kDeployment:
    case ErrorKind::kTopology: return true;
    default: return false;
  }
}

}  // namespace

SweepRow run_sweep_point(const SweepSpec& spec, const SweepPoint& point) {
  SweepRow row{point.index, "ok", "", point.params, {}};
  auto skip = [&row](const std::string& why) {
    row.status = "skipped";
    row.reason = why;
  };
  try {
    const auto scenario = scenarios::load_scenario_string(spec.base_text, spec.base_file, point.overrides());
    row.metrics = scenarios::sweep_metric_values(sim::simulate(scenarios::simulation_config(scenario)).summary);
  } catch (const models::Error& e) {
    if (skips_point(e.kind())) {
      skip(error_line(e));
    } else {
      row.status = "failed";
      row.reason = e.what();
    }
  } catch (const std::exception& e) {
    row.status = "failed";
    row.reason = e.what();
  }
  return row;
}

std::string sweep_objective_text(const scenarios::SweepObjective& o) {
  std::string s = (o.maximize ? "maximize " : "minimize ") + o.metric;
  for (std::size_t i = 0; i < o.subject_to.size(); ++i) {
    const auto& c = o.subject_to[i];
    const auto& metric = scenarios::sweep_metrics()[scenarios::sweep_metric_index(c.metric)];
    s += (i == 0 ? " subject to " : ", ") + c.metric +
         (metric.latency ? " <= " + short_number(c.bound * 1e3) + " ms"
                         : (metric.lower_better ? " <= " : " >= ") + short_number(c.bound));
  }
  return s;
}

std::optional<std::size_t> write_sweep_summary(const SweepSpec& spec, const std::vector<SweepPoint>& points,
                                               const std::vector<SweepRow>& rows, const fs::path& dir) {
  write_file(dir / "pareto.csv", scenarios::pareto_csv(rows, scenarios::sweep_param_paths(spec)));
  const auto best = scenarios::best_row(rows, spec.objective);
  std::error_code ec;
  if (!best) fs::remove(dir / "best.yaml", ec);
  if (best) {
    const SweepRow& r = rows[*best];
    std::string header = "# Best point (" + std::to_string(r.index) + ") of sweep " + spec.source_file + ": " +
                         sweep_objective_text(spec.objective) + "\n# The same as: moesim run " + spec.base_file;
    for (const auto& flag : points[r.index].overrides()) header += " --set '" + flag + "'";
    write_file(dir / "best.yaml", scenarios::point_scenario_yaml(spec, points[r.index], header));
  }
  write_file(dir / "report.html", sweep_report_html(spec, rows, best));
  return best;
}

std::optional<std::size_t> write_sweep_outputs(const SweepSpec& spec, const std::vector<SweepPoint>& points,
                                               const std::vector<SweepRow>& rows, const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw SystemError("cannot create output folder '" + dir.string() + "': " + ec.message());
  std::string jsonl, csv = scenarios::results_csv_header(scenarios::sweep_param_paths(spec));
  for (const SweepRow& r : rows) {
    jsonl += jsonl_line(r);
    csv += scenarios::results_csv_line(r);
  }
  write_file(dir / "results.jsonl", jsonl);
  write_file(dir / "results.csv", csv);
  return write_sweep_summary(spec, points, rows, dir);
}

namespace {

void report(const SweepOptions& o, const SweepSpec& spec, const std::vector<SweepPoint>& points,
            std::vector<SweepRow> rows, const fs::path& dir) {
  std::sort(rows.begin(), rows.end(), [](const SweepRow& a, const SweepRow& b) { return a.index < b.index; });
  const auto paths = scenarios::sweep_param_paths(spec);
  const auto best = write_sweep_summary(spec, points, rows, dir);
  if (o.quiet) return;
  std::size_t ok = 0, skipped = 0;
  for (const SweepRow& r : rows) (r.status == "ok" ? ok : skipped) += 1;
  std::cout << "\n" << ok << " points ran, " << skipped << " skipped\n";
  for (const SweepRow& r : rows)
    if (r.status != "ok")
      std::cout << "  " << r.status << " " << r.index << " (" << params_text(r) << "): " << r.reason << "\n";
  print_front(std::cout, rows, paths, "tpot_p90");
  print_front(std::cout, rows, paths, "ttft_p90");
  std::cout << "\nBest point, " << sweep_objective_text(spec.objective) << ":\n";
  if (!best) {
    std::cout << "  none meets the constraints\n";
  } else {
    const SweepRow& r = rows[*best];
    const auto value = [&](std::string_view m) { return r.metrics[scenarios::sweep_metric_index(m)]; };
    std::cout << "  point " << r.index << " (" << params_text(r) << ")\n  "
              << fixed(value("output_tokens_per_gpu_s"), 1) << " output tok/s/GPU, p90 TTFT "
              << fixed(value("ttft_p90") * 1e3, 1) << " ms, p90 TPOT " << fixed(value("tpot_p90") * 1e3, 2)
              << " ms, SLO attainment " << fixed(value("slo_attainment"), 3);
    // An objective outside that line (energy, cost) gets its value too.
    for (std::string_view m : {"joules_per_output_token", "usd_per_million_output_tokens"})
      if (spec.objective.metric == m) std::cout << ", " << m << " " << fixed(value(m), 4);
    std::cout << "\n  written to " << (dir / "best.yaml").string() << "\n";
  }
  std::cout << "\nresults in " << dir.string() << "/ (results.csv, results.jsonl, pareto.csv, report.html"
            << (best ? ", best.yaml)" : ")") << "\n";
}

// A worker rank of a distributed sweep: runs the points rank 0 hands out and sends back the rows.
int run_sweep_worker(const SweepOptions& o, SweepWorld& world) {
  if (!world.agree(true)) {  // rank 0 could not load the sweep and says why
    world.finish();
    return 2;
  }
  const SweepSpec spec = scenarios::load_sweep_file(o.file);
  const std::vector<SweepPoint> points = scenarios::expand_sweep(spec);
  std::string row;
  for (std::int64_t k; (k = world.request(row)) >= 0;) {
    if (static_cast<std::size_t>(k) >= points.size()) throw sim::InvariantError("sweep point index out of range");
    row = jsonl_line(run_sweep_point(spec, points[static_cast<std::size_t>(k)]));
  }
  world.finish();
  return 0;
}

int run_sweep(const SweepOptions& o) {
  const std::unique_ptr<SweepWorld> world = make_sweep_world();
  if (world->rank() != 0) return run_sweep_worker(o, *world);
  SweepSpec spec;
  std::vector<SweepPoint> points;
  try {
    spec = scenarios::load_sweep_file(o.file);
    scenarios::check_sweep_paths(spec);
    points = scenarios::expand_sweep(spec);
  } catch (...) {
    world->agree(false);  // the workers stop; this rank prints the one error
    world->finish();
    throw;
  }
  world->agree(true);
  const int remote_workers = world->size() - 1;
  const fs::path dir = o.output_dir.empty() ? fs::path("out") / fs::path(o.file).stem() : fs::path(o.output_dir);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw SystemError("cannot create output folder '" + dir.string() + "': " + ec.message());

  const fs::path jsonl_path = dir / "results.jsonl";
  std::vector<std::optional<SweepRow>> rows(points.size());
  std::vector<SweepRow> done_rows;
  if (o.resume) done_rows = resume_rows(jsonl_path, points, rows);
  std::ofstream jsonl(jsonl_path, o.resume ? std::ios::binary | std::ios::app : std::ios::binary | std::ios::trunc);
  std::ofstream csv(dir / "results.csv", std::ios::binary | std::ios::trunc);
  if (!jsonl || !csv) throw SystemError("cannot write the results in '" + dir.string() + "'");
  csv << scenarios::results_csv_header(scenarios::sweep_param_paths(spec));
  for (const SweepRow& r : done_rows) csv << scenarios::results_csv_line(r);
  csv.flush();

  std::vector<std::size_t> pending;
  for (std::size_t i = 0; i < points.size(); ++i)
    if (!rows[i]) pending.push_back(i);
  // Under MPI every rank is a process of its own: rank 0 runs one point at a time unless -j says.
  const unsigned hw = remote_workers > 0 ? 1u : std::max(1u, std::thread::hardware_concurrency());
  const std::size_t threads = std::max<std::size_t>(1, std::min<std::size_t>(o.jobs > 0 ? o.jobs : hw, pending.size()));
  if (!o.quiet) {
    std::cout << "sweep " << o.file << ": " << points.size() << " points, " << done_rows.size() << " already done, "
              << pending.size() << " to run on " << threads << " thread" << (threads == 1 ? "" : "s");
    if (remote_workers > 0)
      std::cout << " and " << remote_workers << " MPI worker rank" << (remote_workers == 1 ? "" : "s");
    std::cout << "\n" << std::flush;
  }

  ProgressBar progress(points.size(), done_rows.size(), "points", progress_wanted(o.quiet));
  std::mutex mutex;
  std::atomic<std::size_t> next{0};
  std::size_t done = done_rows.size();
  std::exception_ptr failure;
  // Appends a finished row to both files (flushed: a kill loses only the rows in flight).
  // `line` is the row's results.jsonl line. Returns false once writing has failed.
  auto record = [&](SweepRow row, const std::string& line) {
    const std::lock_guard lock(mutex);
    if (failure) return false;
    try {
      if (!(jsonl << line << std::flush) || !(csv << scenarios::results_csv_line(row) << std::flush))
        throw SystemError("cannot append to the results in '" + dir.string() + "'");
    } catch (...) {
      failure = std::current_exception();
      next = pending.size();
      return false;
    }
    done_rows.push_back(std::move(row));
    progress.update(++done, {}, true);
    return true;
  };
  auto worker = [&] {
    for (std::size_t k; (k = next++) < pending.size();) {
      SweepRow row = run_sweep_point(spec, points[pending[k]]);
      const std::string line = jsonl_line(row);
      if (!record(std::move(row), line)) return;
    }
  };
  progress.update(done, {}, true);
  std::vector<std::thread> pool;
  for (std::size_t t = 0; t < threads && !pending.empty(); ++t) pool.emplace_back(worker);
  // Rank 0's own thread coordinates the MPI workers: each request brings a finished row (but
  // the first) and takes the next pending point, the same counter the local threads draw from.
  std::exception_ptr coordinator_failure;
  try {
    for (int active = remote_workers; active > 0;) {
      SweepWorld::Request request = world->next_request();
      if (!request.row.empty()) {
        SweepRow row = parse_row(request.row.substr(0, request.row.find('\n')));
        if (row.index >= points.size() || row.params != points[row.index].params)
          throw sim::InvariantError("MPI worker " + std::to_string(request.worker) + " sent a row of another sweep");
        record(std::move(row), request.row);
      }
      const std::size_t k = next++;
      if (k < pending.size()) {
        world->assign(request.worker, static_cast<std::int64_t>(pending[k]));
      } else {
        world->assign(request.worker, -1);
        --active;
      }
    }
  } catch (...) {
    coordinator_failure = std::current_exception();
    next = pending.size();
  }
  for (auto& t : pool) t.join();
  progress.finish();
  if (coordinator_failure) std::rethrow_exception(coordinator_failure);  // the world aborts the other ranks
  world->finish();
  if (failure) std::rethrow_exception(failure);
  report(o, spec, points, std::move(done_rows), dir);
  return 0;
}

}  // namespace

Command add_sweep_command(CLI::App& app) {
  auto options = std::make_shared<SweepOptions>();
  auto* cmd = app.add_subcommand("sweep", "Run every point of a sweep; write results, Pareto frontiers, best.yaml");
  cmd->add_option("sweep", options->file, "Sweep YAML file (docs/sweeps.md)")->required();
  cmd->add_option("-j,--jobs", options->jobs,
                  "Worker threads (default: one per hardware thread; under mpirun, one on rank 0)")
      ->check(CLI::Range(1, 4096));
  cmd->add_option("-o,--output", options->output_dir, "Output folder (default: out/<sweep file stem>)");
  cmd->add_flag("--resume", options->resume, "Keep the finished rows of an earlier run in the folder; run the rest");
  cmd->add_flag("-q,--quiet", options->quiet, "Write the outputs but print nothing");
  return {cmd, [options] { return run_sweep(*options); }};
}

}  // namespace moesim::tools
