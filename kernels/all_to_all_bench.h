// AllToAllBench: times an all-to-all-v among `ranks` participants (docs/design.md §1, dispatch and
// combine): rank s sends bytes[s·ranks + d] to rank d; a uniform pattern (every off-diagonal and
// diagonal entry equal) may use the library's all-to-all collective. Every backend returns each
// rank's own time per repetition (RunResult::per_rank) and a repetition's time (RunResult::time):
//
//   cpu        one std::thread per rank in this process; each rank copies its peers' chunks
//              (memcpy from their send buffers into its receive buffer) between two barriers;
//              a rank's own chunk stays in place (it would not cross a fabric either).
//              A repetition's time is from the first rank leaving the start barrier to the last
//              rank finishing its copies (steady_clock), or, with the thread CPU clock, the
//              busiest rank's CPU time in its copies.
//   nccl       one process driving all local GPUs (ncclCommInitAll): ncclAlltoAll for uniform
//              patterns, otherwise ncclSend/ncclRecv pairs inside one ncclGroupStart/End. Each
//              GPU's start event waits behind a launch gate (kernels/launch_gate.h) that the host
//              opens only once every rank's work is enqueued, so host launch time is not timed
//              and all GPUs start together; a repetition's time is the slowest rank's.
//   nccl-mpi   one process per GPU under mpirun/srun (ncclGetUniqueId broadcast with MPI,
//              ncclCommInitRank, kernels/mpi_job.h); each process enqueues behind its gate,
//              the ranks meet at an MPI barrier, then open their gates; a repetition's time is
//              the maximum over ranks (MPI_Allreduce) and rank 0 gathers every rank's times.
//              Every process must run the same sequence of patterns; only the root should write
//              results. A process that fails tears its communicator down (ncclCommAbort) and
//              abort_parallel_job ends the others, which would otherwise wait for it forever.
//   fake       analytic timings, no device (kernels/fake_benches.h): dry runs of the pipeline.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kernels/bench_types.h"

namespace moesim::kernels {

struct AllToAllPattern {
  int ranks = 0;
  std::vector<std::int64_t> bytes;  // ranks × ranks, row = sender, column = receiver
  bool uniform() const;             // every entry equal (then the collective may be used)
};

class AllToAllBench {
 public:
  virtual ~AllToAllBench() = default;
  virtual std::string_view backend() const = 0;  // "cpu", "nccl", "nccl-mpi"
  virtual int ranks() const = 0;
  virtual bool is_root() const = 0;  // the process that should write results
  virtual DeviceInfo device_info() const = 0;
  // What moves `pattern`'s bytes: "memcpy", "ncclAlltoAll", "ncclSend/ncclRecv", "fake".
  virtual std::string algorithm(const AllToAllPattern& pattern) const = 0;
  // Throws KernelError for a pattern of the wrong size or a failing library call.
  virtual RunResult run(const AllToAllPattern& pattern, const BenchSettings& settings) = 0;
};

// The device-info fields every all-to-all bench adds after its device's (one place, so that no
// backend writes a key twice): ranks, nodes and how the ranks were launched.
void add_all_to_all_fields(DeviceInfo& info, int ranks, int nodes, const std::string& launcher);

// `ranks` threads; throws KernelError for ranks < 1.
std::unique_ptr<AllToAllBench> make_cpu_all_to_all_bench(int ranks);
// The first `gpus` GPUs of this process (0: all visible). Throws KernelError without a CUDA
// backend, without NCCL, or with fewer GPUs than asked for.
std::unique_ptr<AllToAllBench> make_nccl_all_to_all_bench(int gpus);
// One GPU per MPI process (kernels/local_gpu.h picks it). Throws KernelError when the build has
// no MPI launcher.
std::unique_ptr<AllToAllBench> make_nccl_mpi_all_to_all_bench();
// The fake backend's all-to-alls, loaded from its plugin exactly as the CUDA ones are
// (kernels/fake_benches.h): `gpus` fake GPUs in one process (0: 8), or one per MPI process.
std::unique_ptr<AllToAllBench> make_fake_plugin_all_to_all_bench(int gpus);
std::unique_ptr<AllToAllBench> make_fake_plugin_mpi_all_to_all_bench();

// After an error in a process of an MPI-launched all-to-all: ends every process of the job with
// `exit_code` (MPI_Abort), since the others would wait for this one forever. Does nothing when
// no benchmark plugin started a multi-process MPI job here, or the job already finished.
void abort_parallel_job(int exit_code);

// The CPU exchange itself (what the cpu bench times), run by rank `rank` of `pattern.ranks`:
// copies chunk [s → rank] of every sender s from send[s] (laid out by destination, in rank
// order) into recv (laid out by source, in rank order); the chunk from `rank` itself is skipped.
void cpu_all_to_all_receive(const AllToAllPattern& pattern, int rank, const std::vector<const char*>& send, char* recv);

}  // namespace moesim::kernels
