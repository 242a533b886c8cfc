// Replays inputs through a fuzz target's entry point without libFuzzer (docs/robustness.md): the
// ordinary build links each tests/fuzz/fuzz_<name>.cpp with this main, and ctest runs it on the
// target's committed corpus (FuzzCorpus.<name>), so every seed keeps passing the reader's
// contract in every build, not only while `make fuzz` runs.
//
//   fuzz_<name> FILE|FOLDER...     runs every file given, and every file of every folder given
//
// A contract breach aborts in the target itself (tests/fuzz/fuzz_support.h); this main fails
// when an argument cannot be read or nothing was replayed.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <system_error>
#include <vector>

#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

namespace fs = std::filesystem;

bool replay(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "fuzz replay: cannot read %s\n", file.string().c_str());
    return false;
  }
  const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::printf("replaying %s (%zu bytes)\n", file.string().c_str(), bytes.size());
  std::fflush(stdout);  // the name stays on record if the target aborts
  LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s FILE|FOLDER...\n", argv[0]);
    return 2;
  }
  int replayed = 0;
  bool ok = true;
  for (int i = 1; i < argc; ++i) {
    const fs::path arg = argv[i];
    std::vector<fs::path> files;
    std::error_code ec;
    if (fs::is_directory(arg, ec)) {
      for (const auto& entry : fs::directory_iterator(arg))
        if (entry.is_regular_file()) files.push_back(entry.path());
      std::sort(files.begin(), files.end());
    } else {
      files.push_back(arg);
    }
    for (const auto& f : files) {
      if (replay(f))
        ++replayed;
      else
        ok = false;
    }
  }
  std::error_code ec;
  fs::remove_all(moesim::fuzz::scratch_dir(), ec);  // the readers that need a path wrote there
  std::printf("fuzz replay: %d inputs passed the reader's contract\n", replayed);
  return ok && replayed > 0 ? 0 : 1;
}
