// Shared pieces of the libFuzzer targets (tests/fuzz/, docs/robustness.md).
//
// The contract every reader is fuzzed against: valid input parses; anything else throws the
// boundary's one exception type. Each target runs the reader inside `expect_only<Allowed>(...)`:
// the allowed exception is swallowed, any other exception is reported and aborts, so libFuzzer
// records the input as a crash; crashes, hangs (-timeout), leaks and sanitizer reports are
// caught by libFuzzer and the sanitizers themselves.
#pragma once

#include <unistd.h>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <typeinfo>

namespace moesim::fuzz {

[[noreturn]] inline void unexpected(const char* what, const char* type) {
  std::fprintf(stderr, "fuzz: reader threw an exception outside its contract: %s: %s\n", type, what);
  std::abort();
}

// Runs `read`; an `Allowed` exception (or one derived from it) is the contract's error path.
template <class Allowed, class Read>
void expect_only(Read&& read) {
  try {
    read();
  } catch (const Allowed& e) {
    if (std::string_view(e.what()).empty()) unexpected("(empty message)", typeid(e).name());
  } catch (const std::exception& e) {
    unexpected(e.what(), typeid(e).name());
  } catch (...) {
    unexpected("(not a std::exception)", "unknown");
  }
}

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// A folder of this process's own under the temp directory, for readers that take a path.
inline const std::filesystem::path& scratch_dir() {
  static const std::filesystem::path dir = [] {
    auto p = std::filesystem::temp_directory_path() / ("moesim-fuzz-" + std::to_string(::getpid()));
    std::filesystem::create_directories(p);
    return p;
  }();
  return dir;
}

inline std::filesystem::path write_scratch(const std::string& name, std::string_view bytes) {
  const auto p = scratch_dir() / name;
  std::ofstream(p, std::ios::binary | std::ios::trunc).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return p;
}

}  // namespace moesim::fuzz
