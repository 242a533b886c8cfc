// Scenario loader: YAML text -> typed, validated Scenario (docs/design.md §2, §5).
//
// Every key is optional unless docs/scenario-reference.md marks it required; unknown keys, wrong
// types, out-of-range values, bad units, unknown preset or registry names and inconsistent
// combinations (e.g. ranks that do not fit on the cluster) throw ScenarioError with one line
// "<file>:<line>:<column>: <dotted.key>: <what is wrong>".
//
// `overrides` are --set flags "a.b.c=value", applied in order to the YAML tree before validation
// (the value is parsed as YAML, so "cluster={preset: hgx, nodes: 2}" works); errors about what a
// flag set name the flag instead of a file position: "--set a.b=x: a.b: expected an integer, got 'x'".
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "scenarios/scenario.h"
#include "scenarios/scenario_error.h"

namespace moesim::scenarios {

// Throws ScenarioError "cannot open scenario file '<path>'" when the file cannot be read.
Scenario load_scenario_file(const std::string& path, const std::vector<std::string>& overrides = {});

// `source_name` stands for the file in messages and gives the default scenario name (its stem).
Scenario load_scenario_string(std::string_view yaml, std::string_view source_name,
                              const std::vector<std::string>& overrides = {});

}  // namespace moesim::scenarios
