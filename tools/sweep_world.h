// The processes a sweep runs on (docs/sweeps.md, "Distributed sweeps"): one process, or, when
// moesim is built with MOESIM_MPI and launched by mpirun or srun, the ranks of MPI_COMM_WORLD.
// Rank 0 coordinates: it hands out point indices one at a time to whichever worker asks
// (dynamic assignment), receives every finished row and writes the results; the other ranks
// only run points. This interface keeps MPI out of everything else: a build without MPI
// compiles tools/sweep_world_local.cpp, which is always a single process.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

namespace moesim::tools {

class SweepWorld {
 public:
  virtual ~SweepWorld() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;

  // Collective: rank 0's `ok` (whether the sweep loaded and may start), returned on every rank.
  virtual bool agree(bool ok) = 0;

  struct Request {
    int worker = -1;
    std::string row;  // the worker's finished row (a results.jsonl line), empty on its first request
  };
  // Rank 0: the next worker request, in arrival order.
  virtual Request next_request() = 0;
  // Rank 0: the point `worker` runs next, or -1 for "no more: stop".
  virtual void assign(int worker, std::int64_t point) = 0;

  // A worker: sends its finished row (empty at first) and receives its next point (-1: stop).
  virtual std::int64_t request(const std::string& finished_row) = 0;

  // Ends MPI normally (MPI_Finalize). A world destroyed without finish() while an exception is
  // propagating aborts every rank, so none waits forever for a rank that failed.
  virtual void finish() = 0;
};

// An MPI world when built with MPI and launched by an MPI launcher (its environment says so),
// else a single process.
std::unique_ptr<SweepWorld> make_sweep_world();
// Always a single process.
std::unique_ptr<SweepWorld> make_local_sweep_world();

}  // namespace moesim::tools
