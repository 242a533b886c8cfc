// One process's place in an MPI-launched all-to-all (the NCCL and the fake MPI benches): rank,
// size, nodes, node-local rank, and the few collectives the benches need. Compiled only into the
// plugins, and only when MPI is found (kernels/CMakeLists.txt).
//
// Failure: a process whose benchmark throws cannot tell the others, which wait for it in a
// barrier or an NCCL kernel. The benches tear their communicator down without waiting
// (ncclCommAbort) while the exception unwinds, MpiJob then leaves MPI initialised, and
// moesim's top level calls abort_parallel_job (kernels/all_to_all_bench.h), which lands in
// abort_job here: MPI_Abort ends every process of the job.
#pragma once

#include <vector>

#include "kernels/bench_types.h"

namespace moesim::kernels {

class MpiJob {
 public:
  MpiJob();  // initialises MPI (MPI_THREAD_SINGLE) unless the program already did
  MpiJob(const MpiJob&) = delete;
  MpiJob& operator=(const MpiJob&) = delete;
  ~MpiJob();  // finalises MPI if it initialised it, except while an exception unwinds

  int rank() const { return rank_; }
  int size() const { return size_; }
  int nodes() const { return nodes_; }
  int local_rank() const { return local_rank_; }
  int local_size() const { return local_size_; }

  void barrier() const;
  // Per element, the maximum over ranks (every rank gets it).
  Timings slowest(const Timings& mine) const;
  // On rank 0 every rank's timings, in rank order; elsewhere only `mine`. Every rank passes the
  // same count.
  std::vector<Timings> gather(const Timings& mine) const;
  void broadcast(void* data, int bytes) const;

  // MPI_Abort(MPI_COMM_WORLD, exit_code) when MPI is initialised, not finalised, and the job has
  // more than one process; otherwise nothing.
  static void abort_job(int exit_code);

 private:
  bool owns_mpi_ = false;
  int rank_ = 0, size_ = 1, nodes_ = 1, local_rank_ = 0, local_size_ = 1;
};

}  // namespace moesim::kernels
