// The moesim side of kernels/cuda_plugin.h: finds a plugin (an environment variable, else where
// this build put it, else next to the executable), loads it on first use and forwards the
// factories to it. Nothing is cached here: dlopen hands back the same handle once the library
// is loaded, and it is never unloaded while objects from it live. kernels/CMakeLists.txt defines
// MOESIM_CUDA_PLUGIN_PATH ("" in a build without CUDA) and MOESIM_FAKE_PLUGIN_PATH.
#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "kernels/cuda_plugin.h"

namespace moesim::kernels {
namespace {

struct Plugin {
  const char* what;      // for messages
  const char* env;       // overrides the path
  const char* built_at;  // where this build put it ("" if it did not build it)
  const char* file;      // its file name, looked for next to the executable
  const char* missing;   // why there is none, when the build has none and no override is set
};

constexpr Plugin kCuda{"CUDA backend plugin", "MOESIM_CUDA_PLUGIN", MOESIM_CUDA_PLUGIN_PATH,
                       "libmoesim_kernels_cuda.so",
                       "this moesim was built without the CUDA backend (no CUDA toolkit at configure time, or "
                       "MOESIM_CUDA=OFF)"};
constexpr Plugin kFake{"fake backend plugin", "MOESIM_FAKE_PLUGIN", MOESIM_FAKE_PLUGIN_PATH,
                       "libmoesim_kernels_fake.so", "no fake backend plugin"};

std::string executable_dir() {
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : exe.parent_path().string();
}

// The paths `p` is looked for at, in order.
std::vector<std::string> candidates(const Plugin& p) {
  if (const char* env = std::getenv(p.env); env && *env) return {env};
  if (!*p.built_at) return {};
  std::vector<std::string> out = {p.built_at};
  if (const std::string dir = executable_dir(); !dir.empty()) out.push_back(dir + "/" + p.file);
  return out;
}

// The loaded plugin, or nullptr with `why` set. RTLD_GLOBAL: the MPI library a plugin links
// loads its own components later, and they look for its symbols in the global scope.
void* load(const Plugin& p, std::string& why) {
  const auto paths = candidates(p);
  if (paths.empty()) {
    why = p.missing;
    return nullptr;
  }
  std::string tried;
  for (const auto& path : paths) {
    if (void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL)) return h;
    const char* err = dlerror();
    tried += (tried.empty() ? "" : "; ") + (err ? std::string(err) : path);
  }
  why = std::string("cannot load the ") + p.what + " (" + tried + ")";
  return nullptr;
}

template <typename F>
F entry(const Plugin& p, const char* name) {
  std::string why;
  void* h = load(p, why);
  if (!h) throw KernelError(why);
  void* f = dlsym(h, name);
  if (!f) throw KernelError(std::string("the ") + p.what + " has no " + name);
  return reinterpret_cast<F>(f);
}

std::unique_ptr<GemmBench> gemm_bench(const Plugin& p, int device) {
  return std::unique_ptr<GemmBench>(entry<GemmBench* (*)(int)>(p, "moesim_cuda_gemm_bench")(device));
}

std::unique_ptr<AllToAllBench> all_to_all_bench(const Plugin& p, int gpus) {
  if (gpus < 0) throw KernelError("all-to-all: gpus must be >= 0 (0: all visible)");
  return std::unique_ptr<AllToAllBench>(entry<AllToAllBench* (*)(int)>(p, "moesim_nccl_all_to_all_bench")(gpus));
}

std::unique_ptr<AllToAllBench> mpi_all_to_all_bench(const Plugin& p) {
  return std::unique_ptr<AllToAllBench>(entry<AllToAllBench* (*)()>(p, "moesim_nccl_mpi_all_to_all_bench")());
}

}  // namespace

std::unique_ptr<GemmBench> make_cuda_gemm_bench(int device) { return gemm_bench(kCuda, device); }
std::unique_ptr<AllToAllBench> make_nccl_all_to_all_bench(int gpus) { return all_to_all_bench(kCuda, gpus); }
std::unique_ptr<AllToAllBench> make_nccl_mpi_all_to_all_bench() { return mpi_all_to_all_bench(kCuda); }
std::unique_ptr<GemmBench> make_fake_plugin_gemm_bench(int device) { return gemm_bench(kFake, device); }
std::unique_ptr<AllToAllBench> make_fake_plugin_all_to_all_bench(int gpus) { return all_to_all_bench(kFake, gpus); }
std::unique_ptr<AllToAllBench> make_fake_plugin_mpi_all_to_all_bench() { return mpi_all_to_all_bench(kFake); }

int visible_cuda_devices(std::string& why_none) {
  std::string why;
  void* h = load(kCuda, why);
  if (!h) {
    why_none = why;
    return 0;
  }
  auto f = reinterpret_cast<int (*)(char*, int)>(dlsym(h, "moesim_cuda_visible_devices"));
  if (!f) {
    why_none = "the CUDA backend plugin has no moesim_cuda_visible_devices";
    return 0;
  }
  char buf[512] = {};
  const int n = f(buf, sizeof buf);
  if (n == 0) why_none = buf;
  return n;
}

void abort_parallel_job(int exit_code) {
  // Only a plugin that is already loaded can have started a job: RTLD_NOLOAD loads nothing.
  for (const Plugin* p : {&kCuda, &kFake})
    for (const auto& path : candidates(*p))
      if (void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_NOLOAD)) {
        if (auto f = reinterpret_cast<void (*)(int)>(dlsym(h, "moesim_abort_job"))) f(exit_code);
        dlclose(h);  // drops the reference RTLD_NOLOAD took
      }
}

}  // namespace moesim::kernels
