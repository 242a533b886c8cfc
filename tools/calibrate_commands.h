// The three parts of `moesim calibrate` (docs/calibration.md): capture (measure kernels into a
// calibration CSV), fit (a hardware profile from captures) and check (a profile's predictions
// against captures). Each registers itself under the `calibrate` subcommand.
#pragma once

#include <string>

#include "tools/commands.h"

namespace moesim::tools {

// `command_line` is what the capture records as its "command" metadata.
Command add_calibrate_capture(CLI::App& calibrate, std::string command_line);  // tools/calibrate_capture.cpp
Command add_calibrate_fit(CLI::App& calibrate);                                // tools/calibrate_fit.cpp
Command add_calibrate_check(CLI::App& calibrate);                              // tools/calibrate_check.cpp

}  // namespace moesim::tools
