// `_core.sweep`: runs every point of a sweep file on parallel threads with the GIL released, as
// `moesim sweep` does, and hands back the rows (point index order) with each point's parameters
// and metrics, both Pareto frontiers and the best point under the objective; optionally writes
// what `moesim sweep -o DIR` writes.
#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "scenarios/sweep.h"
#include "scenarios/sweep_analysis.h"
#include "tools/python/bindings.h"
#include "tools/python/worker_pool.h"
#include "tools/sweep_command.h"

namespace py = pybind11;

namespace moesim::python {
namespace {

using scenarios::SweepRow;

py::list flags_of(const std::vector<SweepRow>& rows, const std::vector<std::size_t>& front) {
  std::vector<bool> on(rows.size(), false);
  for (std::size_t i : front) on[i] = true;
  py::list l;
  for (bool b : on) l.append(b);
  return l;
}

py::dict sweep(const std::string& path, int jobs, const std::string& output,
               const std::function<void(std::int64_t, std::int64_t)>& progress) {
  scenarios::SweepSpec spec;
  std::vector<scenarios::SweepPoint> points;
  std::vector<SweepRow> rows;
  std::vector<std::size_t> front_tpot, front_ttft;
  std::optional<std::size_t> best;
  {
    py::gil_scoped_release free;
    spec = scenarios::load_sweep_file(path);
    scenarios::check_sweep_paths(spec);
    points = scenarios::expand_sweep(spec);
    rows.resize(points.size());
    std::mutex mutex;
    std::int64_t done = 0;
    run_tasks(points.size(), worker_count(jobs, points.size()), [&](std::size_t i) {
      rows[i] = tools::run_sweep_point(spec, points[i]);
      if (!progress) return;
      std::int64_t now = 0;
      {
        const std::lock_guard lock(mutex);
        now = ++done;
      }
      const py::gil_scoped_acquire hold;
      progress(now, static_cast<std::int64_t>(points.size()));
    });
    front_tpot = scenarios::pareto_front(rows, "tpot_p90");
    front_ttft = scenarios::pareto_front(rows, "ttft_p90");
    best = output.empty() ? scenarios::best_row(rows, spec.objective)
                          : tools::write_sweep_outputs(spec, points, rows, output);
  }
  py::dict d;
  py::list index, status, reason;
  for (const SweepRow& r : rows) {
    index.append(r.index);
    status.append(r.status);
    reason.append(r.reason);
  }
  d["index"] = index;
  d["status"] = status;
  const auto paths = scenarios::sweep_param_paths(spec);
  py::dict params;
  for (std::size_t p = 0; p < paths.size(); ++p) {
    py::list values;
    for (const SweepRow& r : rows) values.append(r.params.at(p).value);
    params[py::str(paths[p])] = values;
  }
  d["params"] = params;
  py::dict metrics;
  const auto& all = scenarios::sweep_metrics();
  for (std::size_t m = 0; m < all.size(); ++m) {
    py::array_t<double> column(static_cast<py::ssize_t>(rows.size()));
    auto view = column.mutable_unchecked<1>();
    for (std::size_t i = 0; i < rows.size(); ++i)
      view(static_cast<py::ssize_t>(i)) =
          rows[i].metrics.empty() ? std::numeric_limits<double>::quiet_NaN() : rows[i].metrics[m];
    metrics[py::str(std::string(all[m].column))] = column;
  }
  d["metrics"] = metrics;
  d["reason"] = reason;
  d["pareto_tpot_p90"] = flags_of(rows, front_tpot);
  d["pareto_ttft_p90"] = flags_of(rows, front_ttft);
  d["best"] = best ? py::object(py::int_(rows[*best].index)) : py::object(py::none());
  d["objective"] = tools::sweep_objective_text(spec.objective);
  return d;
}

}  // namespace

void bind_sweep(py::module_& m) {
  m.def("sweep", &sweep, py::arg("path"), py::arg("jobs") = 0, py::arg("output") = "", py::arg("progress") = nullptr);
}

}  // namespace moesim::python
