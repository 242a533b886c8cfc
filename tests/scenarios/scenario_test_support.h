// Helpers for the scenario loader tests: a minimal valid scenario and "the error it throws".
#pragma once

#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "scenarios/loader.h"

namespace moesim::scenarios::testing {

// Valid: tiny-moe (16 experts) on one 8-device HGX node, one pool of 8 ranks.
inline constexpr std::string_view kMinimal =
    "model: tiny-moe\n"
    "hardware: h800\n"
    "cluster: {nodes: 1}\n"
    "deployment:\n"
    "  colocated:\n"
    "    ranks: 8\n";

// kMinimal with `extra` appended (more sections, or keys that follow the pool's).
inline std::string with(std::string_view extra) { return std::string(kMinimal) + std::string(extra); }

// The ScenarioError message of loading `yaml` as "scn.yaml", or "<no error>".
inline std::string load_error(std::string_view yaml, const std::vector<std::string>& overrides = {}) {
  try {
    load_scenario_string(yaml, "scn.yaml", overrides);
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "<no error>";
}

// A fresh folder under the system temp directory, removed with everything in it at the end.
class TempDir {
 public:
  TempDir()
      : path_(std::filesystem::temp_directory_path() /
              ("moesim-scenario-test-" + std::to_string(std::random_device{}()))) {
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  // Writes `text` to `name` (sub-folders created) and returns the full path.
  std::string write(const std::string& name, std::string_view text) const {
    const std::filesystem::path p = path_ / name;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
    return p.string();
  }

 private:
  std::filesystem::path path_;
};

// The ScenarioError message of loading `yaml` as if it were the file `source_name`.
inline std::string load_error_as(std::string_view yaml, const std::string& source_name,
                                 const std::vector<std::string>& overrides = {}) {
  try {
    load_scenario_string(yaml, source_name, overrides);
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "<no error>";
}

template <typename Entries>
std::string valid_names(const Entries& entries) {
  std::string out;
  for (const auto& e : entries) out += (out.empty() ? "" : ", ") + std::string(e.name);
  return out;
}

}  // namespace moesim::scenarios::testing
