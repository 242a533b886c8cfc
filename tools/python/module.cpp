// The `moesim._core` Python extension (pybind11): loading scenarios with the command line's
// checks and messages, the preset registries, and the module's error translation; running
// scenarios, sweeps and the what-if calls are bound beside it (tools/python/bindings.h). The
// Python-facing API (Scenario, run, Result with pandas DataFrames, sweep, gemm, comm, routing) is
// tools/python/moesim/; these files move data across as plain dicts and numpy arrays, never as
// text tables.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <exception>
#include <string>
#include <vector>

#include "calibration/cost_model.h"
#include "calibration/hardware_profile.h"
#include "models/error.h"
#include "models/presets.h"
#include "tools/error_exit.h"
#include "tools/python/bindings.h"
#include "topology/cluster.h"
#include "workloads/routing_model.h"

namespace py = pybind11;

namespace moesim::python {
namespace {

// Checks a scenario with its overrides (the messages of `moesim run --set`); returns its name.
std::string check(const Source& s, const std::vector<std::string>& overrides) {
  std::string name;
  {
    py::gil_scoped_release free;
    name = load(s, overrides).name;
  }
  return name;
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
  using namespace moesim;
  using namespace moesim::python;
  m.doc() = "moesim's C++ core (see the moesim package for the Python API)";
  py::class_<Source>(m, "Source")
      .def(py::init<std::string, std::string, bool>(), py::arg("text_or_path"), py::arg("source"), py::arg("is_file"));
  // Bad input raises InputError with the line `moesim` prints for it after "moesim: "
  // (tools/error_exit.h, as tools/main.cpp); a broken invariant raises RuntimeError.
  static py::exception<std::exception> input_error(m, "InputError", PyExc_ValueError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const py::error_already_set&) {
      throw;  // a Python exception (from a progress callback) stays what it was
    } catch (const py::builtin_exception&) {
      throw;
    } catch (const models::Error& e) {
      if (e.kind() == models::ErrorKind::kInvariant)
        PyErr_SetString(PyExc_RuntimeError, tools::error_line(e).c_str());
      else
        input_error(tools::error_line(e).c_str());
    } catch (const std::exception& e) {
      input_error(e.what());
    }
  });
  m.def("check", &check, py::arg("source"), py::arg("overrides"));
  m.def("presets", &presets);
  bind_run(m);
  bind_sweep(m);
  bind_what_if(m);
}
