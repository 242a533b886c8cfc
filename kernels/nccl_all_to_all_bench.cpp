// The single-process NCCL all-to-all benchmark: one process drives every local GPU through
// ncclCommInitAll (kernels/all_to_all_bench.h).
#include <cuda_runtime.h>
#include <nccl.h>

#include <algorithm>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "kernels/all_to_all_bench.h"
#include "kernels/cuda_buffer.h"
#include "kernels/cuda_check.h"
#include "kernels/cuda_device_info.h"
#include "kernels/cuda_event.h"
#include "kernels/cuda_factories.h"
#include "kernels/launch_gate.h"
#include "kernels/nccl_check.h"
#include "kernels/nccl_exchange.h"
#include "kernels/nvml_monitor.h"

namespace moesim::kernels {
namespace {

std::vector<std::string> pci_bus_ids(int n) {
  std::vector<std::string> out;
  for (int d = 0; d < n; ++d) {
    char pci[32] = {};
    out.push_back(cudaDeviceGetPCIBusId(pci, sizeof pci, d) == cudaSuccess ? pci : "");
  }
  return out;
}

int gpus_to_use(int asked) {
  const int visible = visible_gpus();
  const int n = asked == 0 ? visible : asked;
  if (n > visible)
    throw KernelError("all-to-all: " + std::to_string(n) + " GPUs asked for, " + std::to_string(visible) + " visible");
  return n;
}

class NcclAllToAllBench final : public AllToAllBench {
 public:
  explicit NcclAllToAllBench(int gpus)
      : devices_(static_cast<std::size_t>(gpus_to_use(gpus))), monitor_(pci_bus_ids(ranks())) {
    check_nccl_runtime();
    const int n = ranks();
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
    // While an exception unwinds, work may be stuck behind a gate or in a kernel waiting for a
    // peer: ncclCommAbort does not wait for it, ncclCommDestroy would.
    const bool failing = std::uncaught_exceptions() > 0;
    for (std::size_t r = 0; r < devices_.size(); ++r) {
      cudaSetDevice(devices_[r]);
      if (r < comms_.size() && comms_[r]) failing ? ncclCommAbort(comms_[r]) : ncclCommDestroy(comms_[r]);
      if (r < streams_.size() && streams_[r]) cudaStreamDestroy(streams_[r]);
    }
  }

  std::string_view backend() const override { return "nccl"; }
  int ranks() const override { return static_cast<int>(devices_.size()); }
  bool is_root() const override { return true; }
  DeviceInfo device_info() const override {
    DeviceInfo info = cuda_device_info(devices_[0]);
    add_all_to_all_fields(info, ranks(), 1, "single process (ncclCommInitAll)");
    return info;
  }
  std::string algorithm(const AllToAllPattern& p) const override {
    return p.uniform() ? "ncclAlltoAll" : "ncclSend/ncclRecv";
  }

  RunResult run(const AllToAllPattern& p, const BenchSettings& settings) override {
    check_pattern_size(p, ranks());
    const std::size_t n = devices_.size();
    std::vector<char*> send(n), recv(n);
    for (std::size_t r = 0; r < n; ++r) {
      cuda_check(cudaSetDevice(devices_[r]), "cudaSetDevice");
      send[r] =
          static_cast<char*>(send_[r].reserve(static_cast<std::size_t>(send_total(p, static_cast<int>(r))) + 256));
      recv[r] =
          static_cast<char*>(recv_[r].reserve(static_cast<std::size_t>(recv_total(p, static_cast<int>(r))) + 256));
    }
    const auto exchange = [&] {
      nccl_check(ncclGroupStart(), "ncclGroupStart");
      for (std::size_t r = 0; r < n; ++r)
        enqueue_exchange(p, static_cast<int>(r), send[r], recv[r], comms_[r], streams_[r]);
      nccl_check(ncclGroupEnd(), "ncclGroupEnd");
    };
    for (int i = 0; i < settings.warmup; ++i) {
      synchronize();
      exchange();
    }
    const int reps = std::max(settings.repetitions, 0);
    const auto count = static_cast<std::size_t>(reps);
    std::vector<std::unique_ptr<CudaEvents>> events;  // per rank: [start, stop] per repetition
    for (std::size_t r = 0; r < n; ++r) {
      cuda_check(cudaSetDevice(devices_[r]), "cudaSetDevice");
      events.push_back(std::make_unique<CudaEvents>(2 * count));
    }
    gate_.reset(reps);
    const bool gated = gated_;
    RunResult out;
    out.state = monitor_.sample();
    for (int i = 0; i < reps; ++i) {
      const auto at = static_cast<std::size_t>(i);
      synchronize();  // every rank idle: a repetition does not wait on the previous one
      for (std::size_t r = 0; r < n; ++r) {
        cuda_check(cudaSetDevice(devices_[r]), "cudaSetDevice");
        if (gated) gate_.hold(i, streams_[r]);  // one gate for all GPUs: they start together
        events[r]->record(2 * at, streams_[r]);
      }
      exchange();
      for (std::size_t r = 0; r < n; ++r) {
        cuda_check(cudaSetDevice(devices_[r]), "cudaSetDevice");
        events[r]->record(2 * at + 1, streams_[r]);
      }
      if (gated) gate_.open(i);
      if (i == reps / 2) out.state.merge(monitor_.sample());
    }
    synchronize();
    out.state.merge(monitor_.sample());
    out.exposed_launches = gated ? gate_.timeouts() : reps;
    if (out.exposed_launches > 0) gated_ = false;
    out.per_rank.assign(n, {});
    for (std::size_t i = 0; i < count; ++i) {
      double slowest = 0;
      for (std::size_t r = 0; r < n; ++r) {
        const double t = events[r]->elapsed_ns(2 * i, 2 * i + 1);
        out.per_rank[r].push_back(t);
        slowest = std::max(slowest, t);
      }
      out.time.push_back(slowest);
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
  NvmlMonitor monitor_;
  std::vector<ncclComm_t> comms_;
  std::vector<cudaStream_t> streams_;
  std::vector<DeviceBuffer> send_, recv_;
  LaunchGate gate_;
  bool gated_ = true;
};

}  // namespace

std::unique_ptr<AllToAllBench> nccl_all_to_all_bench(int gpus) { return std::make_unique<NcclAllToAllBench>(gpus); }

}  // namespace moesim::kernels
