// The kernels tests' one-line check of a failure: the KernelError message `f` throws.
#pragma once

#include <functional>
#include <string>

#include "kernels/bench_types.h"
#include "tests/thrown.h"

namespace moesim::kernels {

inline std::string error_of(const std::function<void()>& f) { return moesim::testing::thrown_message<KernelError>(f); }

}  // namespace moesim::kernels
