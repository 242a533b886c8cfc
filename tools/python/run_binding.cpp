// `_core.run`: simulates a scenario under one or several seeds (lists of overrides) with the GIL released (several
// seeds on parallel threads), optionally writing what `moesim run -o DIR` writes for each, and
// hands back each run's summary.json text and its request and step records as numpy columns.
#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <functional>
#include <mutex>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "sim/simulation.h"
#include "tools/python/bindings.h"
#include "tools/python/worker_pool.h"
#include "tools/report.h"
#include "tools/run_command.h"

namespace py = pybind11;

namespace moesim::python {
namespace {

using ProgressFn = std::function<void(std::int64_t, std::int64_t, std::int64_t)>;

// One field of every record as a numpy column.
template <class T, class Row, class F>
py::array_t<T> column(const std::vector<Row>& rows, F f) {
  py::array_t<T> out(static_cast<py::ssize_t>(rows.size()));
  auto view = out.template mutable_unchecked<1>();
  for (std::size_t i = 0; i < rows.size(); ++i) view(static_cast<py::ssize_t>(i)) = f(rows[i]);
  return out;
}

py::dict requests_of(const sim::SimulationResult& r) {
  using R = sim::RequestRecord;
  const auto& q = r.requests;
  py::dict d;
  d["id"] = column<std::int64_t>(q, [](const R& x) { return x.id; });
  d["instance"] = column<std::int32_t>(q, [](const R& x) { return x.instance; });
  d["rank"] = column<std::int32_t>(q, [](const R& x) { return x.rank; });
  d["arrival_ns"] = column<std::int64_t>(q, [](const R& x) { return x.arrival_ns; });
  d["input_tokens"] = column<std::int64_t>(q, [](const R& x) { return x.input_tokens; });
  d["output_tokens"] = column<std::int64_t>(q, [](const R& x) { return x.output_tokens; });
  d["first_token_ns"] = column<std::int64_t>(q, [](const R& x) { return x.first_token_ns; });
  d["finish_ns"] = column<std::int64_t>(q, [](const R& x) { return x.finish_ns; });
  d["prefill_done_ns"] = column<std::int64_t>(q, [](const R& x) { return x.prefill_done_ns; });
  d["preemptions"] = column<std::int64_t>(q, [](const R& x) { return x.preemptions; });
  d["cached_tokens"] = column<std::int64_t>(q, [](const R& x) { return x.cached_tokens; });
  d["kv_load_ns"] = column<std::int64_t>(q, [](const R& x) { return x.kv_load_ns; });
  py::list rejected;
  for (const R& x : q) rejected.append(x.rejected);
  d["rejected"] = rejected;
  return d;
}

py::dict steps_of(const sim::SimulationResult& r) {
  using S = sim::StepRecord;
  const auto& s = r.steps;
  py::dict d;
  d["pool"] = column<std::int32_t>(s, [](const S& x) { return x.pool; });
  d["instance"] = column<std::int32_t>(s, [](const S& x) { return x.instance; });
  d["start_ns"] = column<std::int64_t>(s, [](const S& x) { return x.start_ns; });
  d["duration_ns"] = column<std::int64_t>(s, [](const S& x) { return x.duration_ns; });
  d["decode_tokens"] = column<std::int64_t>(s, [](const S& x) { return x.decode_tokens; });
  d["prefill_tokens"] = column<std::int64_t>(s, [](const S& x) { return x.prefill_tokens; });
  d["running"] = column<std::int64_t>(s, [](const S& x) { return x.running; });
  return d;
}

// Requests finished over all the runs, reported to Python as each run advances.
class Progress {
 public:
  Progress(const ProgressFn& callback, std::vector<std::int64_t> totals)
      : callback_(callback), done_(totals.size(), 0), totals_(std::move(totals)) {}

  void report(std::size_t run, const sim::SimulationProgress& p) {
    std::int64_t done = 0, total = 0;
    {
      const std::lock_guard lock(mutex_);
      done_[run] = p.requests_done;
      totals_[run] = p.requests_total;
      done = std::accumulate(done_.begin(), done_.end(), std::int64_t{0});
      total = std::accumulate(totals_.begin(), totals_.end(), std::int64_t{0});
    }
    const py::gil_scoped_acquire hold;
    callback_(done, total, p.now_ns);
  }

 private:
  const ProgressFn& callback_;
  std::mutex mutex_;
  std::vector<std::int64_t> done_, totals_;
};

struct Run {
  std::optional<scenarios::Scenario> scenario;
  sim::SimulationConfig config;
  sim::SimulationResult result;
  std::string summary;
};

// One run of the scenario per list of overrides (each a seed's); outputs[i], when not empty, is
// the folder run i writes its outputs to.
py::list run(const Source& s, const std::vector<std::vector<std::string>>& overrides,
             const std::vector<std::string>& outputs, bool report, const ProgressFn& progress) {
  std::vector<Run> runs(overrides.size());
  {
    py::gil_scoped_release free;  // other Python threads run while these simulate
    std::vector<std::int64_t> totals;
    for (std::size_t i = 0; i < runs.size(); ++i) {
      runs[i].scenario = load(s, overrides[i]);
      runs[i].config = scenarios::simulation_config(*runs[i].scenario);
      totals.push_back(runs[i].config.workload.requests);
    }
    Progress bar(progress, std::move(totals));
    run_tasks(runs.size(), worker_count(0, runs.size()), [&](std::size_t i) {
      Run& r = runs[i];
      if (progress) r.config.progress = [&bar, i](const sim::SimulationProgress& p) { bar.report(i, p); };
      r.result = sim::simulate(r.config);
      r.config.progress = nullptr;
      r.summary = tools::summary_json(*r.scenario, r.result);
      if (i < outputs.size() && !outputs[i].empty())
        tools::write_run_outputs(outputs[i], *r.scenario, r.result, report);
    });
  }
  py::list out;
  for (const Run& r : runs) {
    py::dict d;
    d["summary_json"] = r.summary;
    d["requests"] = requests_of(r.result);
    d["steps"] = steps_of(r.result);
    out.append(d);
  }
  return out;
}

}  // namespace

void bind_run(py::module_& m) {
  m.def("run", &run, py::arg("source"), py::arg("overrides"), py::arg("outputs"), py::arg("report") = false,
        py::arg("progress") = nullptr);
}

}  // namespace moesim::python
