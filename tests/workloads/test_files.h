// Temporary files for the workloads tests: written on construction, removed on destruction.
#pragma once

#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

namespace moesim::workloads::testing {

class TempFile {
 public:
  TempFile(const std::string& suffix, const std::string& content) {
    static std::atomic<int> counter{0};
    path_ = (std::filesystem::temp_directory_path() /
             ("moesim_wl_" + std::to_string(::getpid()) + "_" + std::to_string(counter++) + suffix))
                .string();
    std::ofstream(path_, std::ios::binary) << content;
  }
  ~TempFile() { std::filesystem::remove(path_); }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace moesim::workloads::testing
