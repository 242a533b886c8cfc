// The single-process NCCL all-to-all benchmark: one process drives every local GPU through
// ncclCommInitAll (kernels/all_to_all_bench.h).
#include <cuda_runtime.h>
#include <nccl.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "kernels/all_to_all_bench.h"
#include "kernels/cuda_buffer.h"
#include "kernels/cuda_check.h"
#include "kernels/cuda_factories.h"
#include "kernels/cuda_device_info.h"
#include "kernels/nccl_exchange.h"

namespace moesim::kernels {
namespace {

class NcclAllToAllBench final : public AllToAllBench {
 public:
  explicit NcclAllToAllBench(int gpus) {
    const int visible = visible_gpus();
    const int n = gpus == 0 ? visible : gpus;
    if (n > visible)
      throw KernelError("all-to-all: " + std::to_string(n) + " GPUs asked for, " + std::to_string(visible) + " visible");
    devices_.resize(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) devices_[static_cast<std::size_t>(i)] = i;
    comms_.resize(devices_.size());
    nccl_check(ncclCommInitAll(comms_.data(), n, devices_.data()), "ncclCommInitAll");
    streams_.resize(devices_.size());
    send_ = std::vector<DeviceBuffer>(devices_.size());
    recv_ = std::vector<DeviceBuffer>(devices_.size());
    for (std::size_t r = 0; r < devices_.size(); ++r) {
      cuda_check(cudaSetDevice(devices_[r]), "cudaSetDevice");
      cuda_check(cudaStreamCreateWithFlags(&streams_[r], cudaStreamNonBlocking), "cudaStreamCreate");
    }
  }
  NcclAllToAllBench(const NcclAllToAllBench&) = delete;
  NcclAllToAllBench& operator=(const NcclAllToAllBench&) = delete;
  ~NcclAllToAllBench() override {
    for (std::size_t r = 0; r < devices_.size(); ++r) {
      cudaSetDevice(devices_[r]);
      if (streams_[r]) cudaStreamDestroy(streams_[r]);
      if (comms_[r]) ncclCommDestroy(comms_[r]);
    }
  }

  std::string_view backend() const override { return "nccl"; }
  int ranks() const override { return static_cast<int>(devices_.size()); }
  bool is_root() const override { return true; }
  DeviceInfo device_info() const override {
    DeviceInfo info = cuda_device_info(devices_[0]);
    info.add("ranks", std::to_string(devices_.size()));
    info.add("launcher", "single process (ncclCommInitAll)");
    return info;
  }

  Timings run(const AllToAllPattern& p, const BenchSettings& settings) override {
    check_pattern_size(p, ranks());
    const std::size_t n = devices_.size();
    std::vector<char*> send(n), recv(n);
    for (std::size_t r = 0; r < n; ++r) {
      cuda_check(cudaSetDevice(devices_[r]), "cudaSetDevice");
      send[r] = static_cast<char*>(send_[r].reserve(static_cast<std::size_t>(send_total(p, static_cast<int>(r))) + 256));
      recv[r] = static_cast<char*>(recv_[r].reserve(static_cast<std::size_t>(recv_total(p, static_cast<int>(r))) + 256));
    }
    const auto reps = static_cast<std::size_t>(std::max(settings.repetitions, 0));
    std::vector<std::vector<cudaEvent_t>> start(n, std::vector<cudaEvent_t>(reps)), stop = start;
    for (std::size_t r = 0; r < n; ++r) {
      cuda_check(cudaSetDevice(devices_[r]), "cudaSetDevice");
      for (std::size_t i = 0; i < reps; ++i) {
        cuda_check(cudaEventCreate(&start[r][i]), "cudaEventCreate");
        cuda_check(cudaEventCreate(&stop[r][i]), "cudaEventCreate");
      }
    }
    auto once = [&](std::size_t timed) {
      synchronize();  // every rank idle: a repetition does not wait on the previous one
      for (std::size_t r = 0; r < n && timed < reps; ++r)
        cuda_check(cudaEventRecord(start[r][timed], streams_[r]), "cudaEventRecord");
      nccl_check(ncclGroupStart(), "ncclGroupStart");
      for (std::size_t r = 0; r < n; ++r)
        enqueue_exchange(p, static_cast<int>(r), send[r], recv[r], comms_[r], streams_[r]);
      nccl_check(ncclGroupEnd(), "ncclGroupEnd");
      for (std::size_t r = 0; r < n && timed < reps; ++r)
        cuda_check(cudaEventRecord(stop[r][timed], streams_[r]), "cudaEventRecord");
    };
    Timings out;
    for (int i = 0; i < settings.warmup; ++i) once(reps);
    for (std::size_t i = 0; i < reps; ++i) once(i);
    synchronize();
    for (std::size_t i = 0; i < reps; ++i) {
      double slowest = 0;
      for (std::size_t r = 0; r < n; ++r) {
        float ms = 0;
        cuda_check(cudaEventElapsedTime(&ms, start[r][i], stop[r][i]), "cudaEventElapsedTime");
        slowest = std::max(slowest, static_cast<double>(ms) * 1e6);
      }
      out.push_back(slowest);
    }
    for (std::size_t r = 0; r < n; ++r)
      for (std::size_t i = 0; i < reps; ++i) {
        cudaEventDestroy(start[r][i]);
        cudaEventDestroy(stop[r][i]);
      }
    return out;
  }

 private:
  void synchronize() {
    for (std::size_t r = 0; r < devices_.size(); ++r) {
      cuda_check(cudaSetDevice(devices_[r]), "cudaSetDevice");
      cuda_check(cudaStreamSynchronize(streams_[r]), "cudaStreamSynchronize");
    }
  }

  std::vector<int> devices_;
  std::vector<ncclComm_t> comms_;
  std::vector<cudaStream_t> streams_;
  std::vector<DeviceBuffer> send_, recv_;
};

}  // namespace

std::unique_ptr<AllToAllBench> nccl_all_to_all_bench(int gpus) {
  return std::make_unique<NcclAllToAllBench>(gpus);
}

}  // namespace moesim::kernels
