// The MPI-launched NCCL all-to-all benchmark: one process per GPU (mpirun / srun), the NCCL
// unique id broadcast with MPI, ncclCommInitRank (kernels/all_to_all_bench.h, kernels/mpi_job.h).
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
#include "kernels/local_gpu.h"
#include "kernels/mpi_job.h"
#include "kernels/nccl_exchange.h"
#include "kernels/nvml_monitor.h"

namespace moesim::kernels {
namespace {

std::string pci_bus_id(int device) {
  char pci[32] = {};
  return cudaDeviceGetPCIBusId(pci, sizeof pci, device) == cudaSuccess ? pci : "";
}

class NcclMpiAllToAllBench final : public AllToAllBench {
 public:
  NcclMpiAllToAllBench()
      : device_(local_gpu(job_.local_rank(), job_.local_size(), visible_gpus())), monitor_({pci_bus_id(device_)}) {
    check_nccl_runtime();
    use_device(device_);
    ncclUniqueId id{};
    if (job_.rank() == 0) nccl_check(ncclGetUniqueId(&id), "ncclGetUniqueId");
    job_.broadcast(&id, sizeof id);
    nccl_check(ncclCommInitRank(&comm_, job_.size(), id, job_.rank()), "ncclCommInitRank");
    cuda_check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
  }
  NcclMpiAllToAllBench(const NcclMpiAllToAllBench&) = delete;
  NcclMpiAllToAllBench& operator=(const NcclMpiAllToAllBench&) = delete;
  ~NcclMpiAllToAllBench() override {
    // While an exception unwinds (this rank failed, or the capture around it did), peers may be
    // waiting in NCCL kernels for this rank: ncclCommAbort frees the communicator without
    // waiting, and abort_parallel_job then ends the job (kernels/mpi_job.h).
    if (comm_) std::uncaught_exceptions() > 0 ? ncclCommAbort(comm_) : ncclCommDestroy(comm_);
    if (stream_) cudaStreamDestroy(stream_);
  }

  std::string_view backend() const override { return "nccl-mpi"; }
  int ranks() const override { return job_.size(); }
  bool is_root() const override { return job_.rank() == 0; }
  DeviceInfo device_info() const override {
    DeviceInfo info = cuda_device_info(device_);
    add_all_to_all_fields(info, job_.size(), job_.nodes(), "mpi (one process per GPU, ncclCommInitRank)");
    return info;
  }
  std::string algorithm(const AllToAllPattern& p) const override {
    return p.uniform() ? "ncclAlltoAll" : "ncclSend/ncclRecv";
  }

  RunResult run(const AllToAllPattern& p, const BenchSettings& settings) override {
    check_pattern_size(p, job_.size());
    const int rank = job_.rank();
    auto* send = static_cast<char*>(send_.reserve(static_cast<std::size_t>(send_total(p, rank)) + 256));
    auto* recv = static_cast<char*>(recv_.reserve(static_cast<std::size_t>(recv_total(p, rank)) + 256));
    const auto exchange = [&] {
      nccl_check(ncclGroupStart(), "ncclGroupStart");
      enqueue_exchange(p, rank, send, recv, comm_, stream_);
      nccl_check(ncclGroupEnd(), "ncclGroupEnd");
    };
    for (int i = 0; i < settings.warmup; ++i) {
      cuda_check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
      job_.barrier();
      exchange();
    }
    const int reps = std::max(settings.repetitions, 0);
    CudaEvents events(2 * static_cast<std::size_t>(reps));
    gate_.reset(reps);
    const bool gated = gated_;
    RunResult out;
    out.state = monitor_.sample();
    Timings mine;
    for (int i = 0; i < reps; ++i) {
      const auto at = static_cast<std::size_t>(i);
      cuda_check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
      if (gated) gate_.hold(i, stream_);
      events.record(2 * at, stream_);
      exchange();
      events.record(2 * at + 1, stream_);
      job_.barrier();  // every rank has enqueued: open the gates together
      if (gated) gate_.open(i);
      if (i == reps / 2) out.state.merge(monitor_.sample());
    }
    cuda_check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
    out.state.merge(monitor_.sample());
    out.exposed_launches = gated ? gate_.timeouts() : reps;
    if (out.exposed_launches > 0) gated_ = false;
    for (std::size_t i = 0; i < static_cast<std::size_t>(reps); ++i)
      mine.push_back(events.elapsed_ns(2 * i, 2 * i + 1));
    out.per_rank = job_.gather(mine);
    out.time = job_.slowest(mine);
    return out;
  }

 private:
  MpiJob job_;
  int device_;
  NvmlMonitor monitor_;
  ncclComm_t comm_ = nullptr;
  cudaStream_t stream_ = nullptr;
  DeviceBuffer send_, recv_;
  LaunchGate gate_;
  bool gated_ = true;
};

}  // namespace

std::unique_ptr<AllToAllBench> nccl_mpi_all_to_all_bench() { return std::make_unique<NcclMpiAllToAllBench>(); }

}  // namespace moesim::kernels
