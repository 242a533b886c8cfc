// The parts of the `moesim._core` extension (tools/python/module.cpp defines the module): each
// file binds one group of calls. Data crosses as plain dicts, lists and numpy arrays; the Python
// API (tools/python/moesim/) turns them into DataFrames.
#pragma once

#include <pybind11/pybind11.h>

#include <string>
#include <vector>

#include "scenarios/loader.h"

namespace moesim::python {

// Where a scenario comes from: a file, or YAML (JSON) text standing for a file named `source`.
struct Source {
  std::string text_or_path;
  std::string source;
  bool is_file = true;
};

inline scenarios::Scenario load(const Source& s, const std::vector<std::string>& overrides) {
  return s.is_file ? scenarios::load_scenario_file(s.text_or_path, overrides)
                   : scenarios::load_scenario_string(s.text_or_path, s.source, overrides);
}

void bind_run(pybind11::module_& m);      // tools/python/run_binding.cpp
void bind_sweep(pybind11::module_& m);    // tools/python/sweep_binding.cpp
void bind_what_if(pybind11::module_& m);  // tools/python/what_if_binding.cpp

}  // namespace moesim::python
