// The kernels tests' one-line check of a failure: the KernelError message `f` throws.
#pragma once

#include <functional>
#include <string>

#include "kernels/bench_types.h"

namespace moesim::kernels {

inline std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const KernelError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace moesim::kernels
