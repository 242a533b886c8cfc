// The fake backend's MPI-launched all-to-all (kernels/fake_benches.h): one process per fake GPU,
// the same MpiJob, GPU binding, per-rank gathering and failure path as the NCCL MPI bench, with
// analytic timings. `fail_rank` >= 0 makes that rank throw on its first run, which is how the
// tests check that one failing process ends the whole job instead of hanging it.
#include <memory>
#include <string>

#include "kernels/fake_benches.h"
#include "kernels/local_gpu.h"
#include "kernels/mpi_job.h"

namespace moesim::kernels {
namespace {

class FakeMpiAllToAllBench final : public AllToAllBench {
 public:
  explicit FakeMpiAllToAllBench(int fail_rank)
      : fail_rank_(fail_rank), gpu_(local_gpu(job_.local_rank(), job_.local_size(), job_.local_size())) {}

  std::string_view backend() const override { return "fake-mpi"; }
  int ranks() const override { return job_.size(); }
  bool is_root() const override { return job_.rank() == 0; }
  DeviceInfo device_info() const override {
    DeviceInfo info = fake_device_info();
    add_all_to_all_fields(info, job_.size(), job_.nodes(), "mpi (fake: one process per fake GPU)");
    return info;
  }
  std::string algorithm(const AllToAllPattern&) const override { return "fake"; }

  RunResult run(const AllToAllPattern& p, const BenchSettings& settings) override {
    if (p.ranks != job_.size() ||
        p.bytes.size() != static_cast<std::size_t>(p.ranks) * static_cast<std::size_t>(p.ranks))
      throw KernelError("all-to-all: pattern for " + std::to_string(p.ranks) + " ranks on a bench of " +
                        std::to_string(job_.size()));
    if (job_.rank() == fail_rank_)
      throw KernelError("fake failure on rank " + std::to_string(fail_rank_) + " (GPU " + std::to_string(gpu_) +
                        ", MOESIM_FAKE_FAIL_RANK)");
    Timings mine;
    for (int i = 0; i < settings.repetitions; ++i)
      mine.push_back(fake_all_to_all_rank_ns(p, job_.rank()) * fake_repetition_factor(i));
    job_.barrier();
    RunResult out;
    out.per_rank = job_.gather(mine);
    out.time = job_.slowest(mine);
    out.state = {true, 1980, 3201, kClocksSwPowerCap};
    return out;
  }

 private:
  MpiJob job_;
  int fail_rank_;
  int gpu_;
};

}  // namespace

std::unique_ptr<AllToAllBench> make_fake_mpi_all_to_all_bench(int fail_rank) {
  return std::make_unique<FakeMpiAllToAllBench>(fail_rank);
}

}  // namespace moesim::kernels
