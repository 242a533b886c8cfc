// The MPI-launched NCCL all-to-all benchmark: one process per GPU (mpirun / srun), the NCCL
// unique id broadcast with MPI, ncclCommInitRank (kernels/all_to_all_bench.h).
#include <cuda_runtime.h>
#include <mpi.h>
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

void mpi_check(int rc, const char* what) {
  if (rc != MPI_SUCCESS) {
    char msg[MPI_MAX_ERROR_STRING] = {};
    int len = 0;
    MPI_Error_string(rc, msg, &len);
    throw KernelError(std::string(what) + ": " + msg);
  }
}

class NcclMpiAllToAllBench final : public AllToAllBench {
 public:
  NcclMpiAllToAllBench() {
    int initialised = 0;
    mpi_check(MPI_Initialized(&initialised), "MPI_Initialized");
    if (!initialised) {
      int provided = 0;
      mpi_check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SINGLE, &provided), "MPI_Init_thread");
      owns_mpi_ = true;
    }
    mpi_check(MPI_Comm_rank(MPI_COMM_WORLD, &rank_), "MPI_Comm_rank");
    mpi_check(MPI_Comm_size(MPI_COMM_WORLD, &size_), "MPI_Comm_size");
    // The node-local rank picks the GPU: ranks sharing a node are split off by MPI itself.
    MPI_Comm local;
    mpi_check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &local),
              "MPI_Comm_split_type");
    int local_rank = 0, local_size = 1;
    MPI_Comm_rank(local, &local_rank);
    MPI_Comm_size(local, &local_size);
    MPI_Comm_free(&local);
    int leaders = local_rank == 0 ? 1 : 0;
    mpi_check(MPI_Allreduce(&leaders, &nodes_, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce");
    const int visible = visible_gpus();
    if (local_size > visible)
      throw KernelError("all-to-all (mpi): " + std::to_string(local_size) + " processes on a node with " +
                        std::to_string(visible) + " GPUs");
    device_ = local_rank;
    use_device(device_);
    ncclUniqueId id{};
    if (rank_ == 0) nccl_check(ncclGetUniqueId(&id), "ncclGetUniqueId");
    mpi_check(MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD), "MPI_Bcast");
    nccl_check(ncclCommInitRank(&comm_, size_, id, rank_), "ncclCommInitRank");
    cuda_check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
  }
  NcclMpiAllToAllBench(const NcclMpiAllToAllBench&) = delete;
  NcclMpiAllToAllBench& operator=(const NcclMpiAllToAllBench&) = delete;
  ~NcclMpiAllToAllBench() override {
    if (stream_) cudaStreamDestroy(stream_);
    if (comm_) ncclCommDestroy(comm_);
    int finalised = 0;
    MPI_Finalized(&finalised);
    if (owns_mpi_ && !finalised) MPI_Finalize();
  }

  std::string_view backend() const override { return "nccl-mpi"; }
  int ranks() const override { return size_; }
  bool is_root() const override { return rank_ == 0; }
  DeviceInfo device_info() const override {
    DeviceInfo info = cuda_device_info(device_);
    info.add("ranks", std::to_string(size_));
    info.add("nodes", std::to_string(nodes_));
    info.add("launcher", "mpi (one process per GPU, ncclCommInitRank)");
    return info;
  }

  Timings run(const AllToAllPattern& p, const BenchSettings& settings) override {
    check_pattern_size(p, size_);
    auto* send = static_cast<char*>(send_.reserve(static_cast<std::size_t>(send_total(p, rank_)) + 256));
    auto* recv = static_cast<char*>(recv_.reserve(static_cast<std::size_t>(recv_total(p, rank_)) + 256));
    cudaEvent_t start = nullptr, stop = nullptr;
    cuda_check(cudaEventCreate(&start), "cudaEventCreate");
    cuda_check(cudaEventCreate(&stop), "cudaEventCreate");
    std::vector<double> mine;
    try {
      for (int i = 0; i < settings.warmup + settings.repetitions; ++i) {
        cuda_check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
        mpi_check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
        cuda_check(cudaEventRecord(start, stream_), "cudaEventRecord");
        nccl_check(ncclGroupStart(), "ncclGroupStart");
        enqueue_exchange(p, rank_, send, recv, comm_, stream_);
        nccl_check(ncclGroupEnd(), "ncclGroupEnd");
        cuda_check(cudaEventRecord(stop, stream_), "cudaEventRecord");
        cuda_check(cudaEventSynchronize(stop), "cudaEventSynchronize");
        float ms = 0;
        cuda_check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
        if (i >= settings.warmup) mine.push_back(static_cast<double>(ms) * 1e6);
      }
    } catch (...) {
      cudaEventDestroy(start);
      cudaEventDestroy(stop);
      throw;
    }
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    Timings slowest(mine.size());
    mpi_check(MPI_Allreduce(mine.data(), slowest.data(), static_cast<int>(mine.size()), MPI_DOUBLE, MPI_MAX,
                            MPI_COMM_WORLD),
              "MPI_Allreduce");
    return slowest;
  }

 private:
  bool owns_mpi_ = false;
  int rank_ = 0, size_ = 1, nodes_ = 1, device_ = 0;
  ncclComm_t comm_ = nullptr;
  cudaStream_t stream_ = nullptr;
  DeviceBuffer send_, recv_;
};

}  // namespace

std::unique_ptr<AllToAllBench> nccl_mpi_all_to_all_bench() { return std::make_unique<NcclMpiAllToAllBench>(); }

}  // namespace moesim::kernels
