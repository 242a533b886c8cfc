// A sweep over MPI ranks (tools/sweep_world.h). Only compiled with MOESIM_MPI.
//
// Messages: worker -> 0, tag kRowTag, the finished row as characters (empty on the first
// request); 0 -> worker, tag kPointTag, one int64 point index (-1: stop). Rank 0 polls for
// requests with MPI_Iprobe and a short sleep rather than a blocking receive, which in Open MPI
// spins a core that rank 0's own worker threads need.
#define OMPI_SKIP_MPICXX 1
#include <mpi.h>

#include <chrono>
#include <cstdlib>
#include <exception>
#include <thread>

#include "tools/command_errors.h"
#include "tools/sweep_world.h"

namespace moesim::tools {

namespace {

constexpr int kRowTag = 1;
constexpr int kPointTag = 2;

void check(int rc, const char* what) {
  if (rc != MPI_SUCCESS) throw SystemError(std::string("MPI: ") + what + " failed");
}

class MpiWorld final : public SweepWorld {
 public:
  MpiWorld() {
    int provided = 0;
    check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
  }
  ~MpiWorld() override {
    if (finished_) return;
    if (std::uncaught_exceptions() > 0 && size_ > 1) MPI_Abort(MPI_COMM_WORLD, 2);
    MPI_Finalize();
  }
  int rank() const override { return rank_; }
  int size() const override { return size_; }

  bool agree(bool ok) override {
    int flag = ok ? 1 : 0;
    check(MPI_Bcast(&flag, 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Bcast");
    return flag != 0;
  }

  Request next_request() override {
    MPI_Status status;
    for (;;) {
      int ready = 0;
      check(MPI_Iprobe(MPI_ANY_SOURCE, kRowTag, MPI_COMM_WORLD, &ready, &status), "MPI_Iprobe");
      if (ready) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    int count = 0;
    MPI_Get_count(&status, MPI_CHAR, &count);
    Request r;
    r.worker = status.MPI_SOURCE;
    r.row.resize(static_cast<std::size_t>(count));
    check(MPI_Recv(r.row.data(), count, MPI_CHAR, r.worker, kRowTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "MPI_Recv");
    return r;
  }

  void assign(int worker, std::int64_t point) override {
    check(MPI_Send(&point, 1, MPI_INT64_T, worker, kPointTag, MPI_COMM_WORLD), "MPI_Send");
  }

  std::int64_t request(const std::string& finished_row) override {
    check(MPI_Send(finished_row.data(), static_cast<int>(finished_row.size()), MPI_CHAR, 0, kRowTag, MPI_COMM_WORLD),
          "MPI_Send");
    std::int64_t point = -1;
    check(MPI_Recv(&point, 1, MPI_INT64_T, 0, kPointTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "MPI_Recv");
    return point;
  }

  void finish() override {
    if (finished_) return;
    finished_ = true;
    MPI_Finalize();
  }

 private:
  int rank_ = 0, size_ = 1;
  bool finished_ = false;
};

// mpirun (Open MPI), srun with PMIx or PMI-2, and MPICH's launchers set these in each rank.
bool launched_by_mpi() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"})
    if (std::getenv(name) != nullptr) return true;
  return false;
}

}  // namespace

std::unique_ptr<SweepWorld> make_sweep_world() {
  if (!launched_by_mpi()) return make_local_sweep_world();
  return std::make_unique<MpiWorld>();
}

}  // namespace moesim::tools
