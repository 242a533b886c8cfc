// Test helper shared by the reader tests: edit one place of a known-good input to make a bad one.
#pragma once

#include <gtest/gtest.h>

#include <string>

namespace moesim::testing {

// `text` with its first `from` replaced by `to`; a test failure (and `text` unchanged) when
// `from` does not occur, so a stale edit cannot pass silently.
inline std::string replace(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at == std::string::npos) return text;
  return text.replace(at, from.size(), to);
}

}  // namespace moesim::testing
