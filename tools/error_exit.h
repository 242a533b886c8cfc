// What the command line makes of a models::Error (models/error.h): the exit code of its kind and
// the line printed after "moesim: ". tools/main.cpp and the Python module (tools/python) share it,
// so both print the same line for the same error.
//
//   exit 2  bad input: a flag, a scenario, sweep, model, hardware, fabric or calibration file, a
//           workload, a deployment, a kernel that cannot run with what was asked
//   exit 1  the machine refused: a file that cannot be written, an MPI call that failed
//   exit 3  a broken internal invariant (a bug)
#pragma once

#include <string>

#include "models/error.h"

namespace moesim::tools {

inline constexpr int kExitFailure = 1;
inline constexpr int kExitBadInput = 2;
inline constexpr int kExitInternalError = 3;

int exit_code(models::ErrorKind kind);

// what(), after the prefix its kind takes: "deployment: ", "cluster: ", "kernels: " or
// "internal error: "; the other kinds' messages already say what they are about.
std::string error_line(const models::Error& e);

}  // namespace moesim::tools
