// The `moesim._core` Python extension (pybind11): loading scenarios with the command line's
// checks and messages, running them with the GIL released, and the preset registries. The
// Python-facing API (Scenario, run, Result with pandas DataFrames) is tools/python/moesim/
// __init__.py; this file moves data across as plain dicts and numpy arrays, never as text
// tables.
#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <vector>

#include "calibration/cost_model.h"
#include "calibration/hardware_profile.h"
#include "models/presets.h"
#include "scenarios/loader.h"
#include "sim/simulation.h"
#include "tools/report.h"
#include "topology/cluster.h"
#include "workloads/routing_model.h"

namespace py = pybind11;

namespace moesim::python {
namespace {

// Where a scenario comes from: a file, or YAML (JSON) text standing for a file named `source`.
struct Source {
  std::string text_or_path;
  std::string source;
  bool is_file = true;
};

scenarios::Scenario load(const Source& s, const std::vector<std::string>& overrides) {
  return s.is_file ? scenarios::load_scenario_file(s.text_or_path, overrides)
                   : scenarios::load_scenario_string(s.text_or_path, s.source, overrides);
}

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

// Checks a scenario with its overrides (the messages of `moesim run --set`); returns its name.
std::string check(const Source& s, const std::vector<std::string>& overrides) {
  std::string name;
  {
    py::gil_scoped_release free;
    name = load(s, overrides).name;
  }
  return name;
}

py::dict run(const Source& s, const std::vector<std::string>& overrides,
             const std::function<void(std::int64_t, std::int64_t, std::int64_t)>& progress) {
  std::string summary;
  sim::SimulationResult result;
  {
    py::gil_scoped_release free;  // other Python threads run while this one simulates
    const scenarios::Scenario scenario = load(s, overrides);
    auto config = scenarios::simulation_config(scenario);
    if (progress)
      config.progress = [&progress](const sim::SimulationProgress& p) {
        py::gil_scoped_acquire hold;
        progress(p.requests_done, p.requests_total, p.now_ns);
      };
    result = sim::simulate(config);
    summary = tools::summary_json(scenario, result);
  }
  py::dict out;
  out["summary_json"] = summary;
  out["requests"] = requests_of(result);
  out["steps"] = steps_of(result);
  return out;
}

py::dict presets() {
  py::dict d;
  auto add = [&d](const char* key, const auto& entries) {
    py::list l;
    for (const auto& e : entries) l.append(py::make_tuple(std::string(e.name), std::string(e.description)));
    d[key] = l;
  };
  add("models", models::model_presets());
  add("hardware", calibration::hardware_presets());
  add("clusters", topology::cluster_presets());
  add("cost_models", calibration::cost_models());
  add("routing_models", workloads::routing_models());
  return d;
}

}  // namespace
}  // namespace moesim::python

PYBIND11_MODULE(_core, m) {
  using namespace moesim::python;
  m.doc() = "moesim's C++ core (see the moesim package for the Python API)";
  py::class_<Source>(m, "Source")
      .def(py::init<std::string, std::string, bool>(), py::arg("text_or_path"), py::arg("source"), py::arg("is_file"));
  static py::exception<std::exception> input_error(m, "InputError", PyExc_ValueError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const py::error_already_set&) {
      throw;  // a Python exception (from a progress callback) stays what it was
    } catch (const py::builtin_exception&) {
      throw;
    } catch (const std::exception& e) {
      input_error(e.what());
    }
  });
  m.def("check", &check, py::arg("source"), py::arg("overrides"));
  m.def("run", &run, py::arg("source"), py::arg("overrides"), py::arg("progress") = nullptr);
  m.def("presets", &presets);
}
