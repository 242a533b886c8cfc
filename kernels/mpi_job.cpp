#include "kernels/mpi_job.h"

#include <mpi.h>

#include <exception>
#include <string>

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

}  // namespace

MpiJob::MpiJob() {
  int initialised = 0;
  mpi_check(MPI_Initialized(&initialised), "MPI_Initialized");
  if (!initialised) {
    int provided = 0;
    mpi_check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SINGLE, &provided), "MPI_Init_thread");
    owns_mpi_ = true;
  }
  mpi_check(MPI_Comm_rank(MPI_COMM_WORLD, &rank_), "MPI_Comm_rank");
  mpi_check(MPI_Comm_size(MPI_COMM_WORLD, &size_), "MPI_Comm_size");
  // Ranks sharing a node are split off by MPI itself.
  MPI_Comm local;
  mpi_check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &local),
            "MPI_Comm_split_type");
  MPI_Comm_rank(local, &local_rank_);
  MPI_Comm_size(local, &local_size_);
  MPI_Comm_free(&local);
  int leaders = local_rank_ == 0 ? 1 : 0;
  mpi_check(MPI_Allreduce(&leaders, &nodes_, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce");
}

MpiJob::~MpiJob() {
  if (std::uncaught_exceptions() > 0) return;  // the job ends in abort_job, not in a finalise that would wait
  int finalised = 0;
  MPI_Finalized(&finalised);
  if (owns_mpi_ && !finalised) MPI_Finalize();
}

void MpiJob::barrier() const { mpi_check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier"); }

Timings MpiJob::slowest(const Timings& mine) const {
  Timings out(mine.size());
  mpi_check(MPI_Allreduce(mine.data(), out.data(), static_cast<int>(mine.size()), MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD),
            "MPI_Allreduce");
  return out;
}

std::vector<Timings> MpiJob::gather(const Timings& mine) const {
  const auto n = mine.size();
  Timings all(rank_ == 0 ? n * static_cast<std::size_t>(size_) : 0);
  mpi_check(MPI_Gather(mine.data(), static_cast<int>(n), MPI_DOUBLE, all.data(), static_cast<int>(n), MPI_DOUBLE, 0,
                       MPI_COMM_WORLD),
            "MPI_Gather");
  if (rank_ != 0) return {mine};
  std::vector<Timings> out(static_cast<std::size_t>(size_));
  for (std::size_t r = 0; r < out.size(); ++r)
    out[r].assign(all.begin() + static_cast<std::ptrdiff_t>(r * n),
                  all.begin() + static_cast<std::ptrdiff_t>((r + 1) * n));
  return out;
}

void MpiJob::broadcast(void* data, int bytes) const {
  mpi_check(MPI_Bcast(data, bytes, MPI_BYTE, 0, MPI_COMM_WORLD), "MPI_Bcast");
}

void MpiJob::abort_job(int exit_code) {
  int initialised = 0, finalised = 0, size = 1;
  if (MPI_Initialized(&initialised) != MPI_SUCCESS || !initialised) return;
  if (MPI_Finalized(&finalised) != MPI_SUCCESS || finalised) return;
  if (MPI_Comm_size(MPI_COMM_WORLD, &size) != MPI_SUCCESS || size < 2) return;
  MPI_Abort(MPI_COMM_WORLD, exit_code);
}

}  // namespace moesim::kernels
