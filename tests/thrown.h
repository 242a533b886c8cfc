// Test helper shared by the error-message tests: what an input's exception says.
#pragma once

#include <string>
#include <utility>

namespace moesim::testing {

// The message of the E that `f()` throws; "(no error)" when it throws nothing, so a test that
// expects a message fails with a readable difference instead of an uncaught exception.
template <typename E, typename F>
std::string thrown_message(F&& f) {
  try {
    std::forward<F>(f)();
  } catch (const E& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace moesim::testing
