// A sweep on one process (the build without MOESIM_MPI, or moesim not started by mpirun).
#include <stdexcept>

#include "tools/sweep_world.h"

namespace moesim::tools {
namespace {

class LocalWorld final : public SweepWorld {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  bool agree(bool ok) override { return ok; }
  Request next_request() override { throw std::logic_error("a single-process sweep has no workers"); }
  void assign(int, std::int64_t) override { throw std::logic_error("a single-process sweep has no workers"); }
  std::int64_t request(const std::string&) override { throw std::logic_error("a single-process sweep has no coordinator"); }
  void finish() override {}
};

}  // namespace

std::unique_ptr<SweepWorld> make_local_sweep_world() { return std::make_unique<LocalWorld>(); }

#ifndef MOESIM_WITH_MPI
std::unique_ptr<SweepWorld> make_sweep_world() { return make_local_sweep_world(); }
#endif

}  // namespace moesim::tools
