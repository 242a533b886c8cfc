// A sweep on one process (the build without MOESIM_MPI, or moesim not started by mpirun).
#include <cstdlib>
#include <string>

#include "sim/check.h"
#include "tools/command_errors.h"
#include "tools/sweep_world.h"

namespace moesim::tools {
namespace {

class LocalWorld final : public SweepWorld {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  bool agree(bool ok) override { return ok; }
  Request next_request() override { throw sim::InvariantError("a single-process sweep has no workers"); }
  void assign(int, std::int64_t) override { throw sim::InvariantError("a single-process sweep has no workers"); }
  std::int64_t request(const std::string&) override {
    throw sim::InvariantError("a single-process sweep has no coordinator");
  }
  void finish() override {}
};

}  // namespace

std::unique_ptr<SweepWorld> make_local_sweep_world() { return std::make_unique<LocalWorld>(); }

#ifndef MOESIM_WITH_MPI
// Started as one of several MPI ranks, every copy would run the whole sweep into the same files.
std::unique_ptr<SweepWorld> make_sweep_world() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"}) {
    const char* size = std::getenv(name);
    if (size != nullptr && std::atoi(size) > 1)
      throw UsageError(std::string("started as one of ") + size +
                       " MPI ranks, but this moesim was built without MPI (MOESIM_MPI): run the sweep without "
                       "mpirun (-j N for threads), or rebuild with Open MPI installed");
  }
  return make_local_sweep_world();
}
#endif

}  // namespace moesim::tools
