// The moesim side of kernels/cuda_plugin.h: finds the plugin (the MOESIM_CUDA_PLUGIN environment
// variable, else where this build put it, else next to the executable), loads it on first use
// and forwards the CUDA factories to it. Nothing is cached here: dlopen hands back the same
// handle once the library is loaded, and it is never unloaded while objects from it live.
#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>

#include "kernels/cuda_plugin.h"

namespace moesim::kernels {
namespace {

constexpr const char* kPluginName = "libmoesim_kernels_cuda.so";

std::string executable_dir() {
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : exe.parent_path().string();
}

// The loaded plugin, or nullptr with `why` set. RTLD_GLOBAL: the MPI library the plugin links
// loads its own components later, and they look for its symbols in the global scope.
void* load(std::string& why) {
  std::string tried;
  auto attempt = [&](const std::string& path) -> void* {
    if (path.empty()) return nullptr;
    if (void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL)) return h;
    const char* err = dlerror();
    tried += (tried.empty() ? "" : "; ") + (err ? std::string(err) : path);
    return nullptr;
  };
  if (const char* env = std::getenv("MOESIM_CUDA_PLUGIN"); env && *env) {
    if (void* h = attempt(env)) return h;
  } else {
    if (void* h = attempt(MOESIM_CUDA_PLUGIN_PATH)) return h;
    const std::string dir = executable_dir();
    if (!dir.empty())
      if (void* h = attempt(dir + "/" + kPluginName)) return h;
  }
  why = "cannot load the CUDA backend plugin (" + tried + ")";
  return nullptr;
}

template <typename F>
F entry(const char* name) {
  std::string why;
  void* h = load(why);
  if (!h) throw KernelError(why);
  void* f = dlsym(h, name);
  if (!f) throw KernelError(std::string("the CUDA backend plugin has no ") + name);
  return reinterpret_cast<F>(f);
}

}  // namespace

std::unique_ptr<GemmBench> make_cuda_gemm_bench(int device) {
  return std::unique_ptr<GemmBench>(entry<GemmBench* (*)(int)>("moesim_cuda_gemm_bench")(device));
}

std::unique_ptr<AllToAllBench> make_nccl_all_to_all_bench(int gpus) {
  if (gpus < 0) throw KernelError("all-to-all: gpus must be >= 0 (0: all visible)");
  return std::unique_ptr<AllToAllBench>(entry<AllToAllBench* (*)(int)>("moesim_nccl_all_to_all_bench")(gpus));
}

std::unique_ptr<AllToAllBench> make_nccl_mpi_all_to_all_bench() {
  return std::unique_ptr<AllToAllBench>(entry<AllToAllBench* (*)()>("moesim_nccl_mpi_all_to_all_bench")());
}

int visible_cuda_devices(std::string& why_none) {
  std::string why;
  void* h = load(why);
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

}  // namespace moesim::kernels
