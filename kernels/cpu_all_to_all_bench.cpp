// The CPU reference all-to-all: one thread per rank exchanging through shared memory
// (kernels/all_to_all_bench.h).
#include <algorithm>
#include <barrier>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "kernels/all_to_all_bench.h"
#include "kernels/cpu_device_info.h"

namespace moesim::kernels {
namespace {

void check_pattern(const AllToAllPattern& p, int ranks) {
  if (p.ranks != ranks)
    throw KernelError("all-to-all: pattern for " + std::to_string(p.ranks) + " ranks on a bench of " +
                      std::to_string(ranks));
  if (p.bytes.size() != static_cast<std::size_t>(ranks) * static_cast<std::size_t>(ranks))
    throw KernelError("all-to-all: the byte matrix must have ranks x ranks entries");
  for (auto b : p.bytes)
    if (b < 0) throw KernelError("all-to-all: negative byte count");
}

class CpuAllToAllBench final : public AllToAllBench {
 public:
  explicit CpuAllToAllBench(int ranks) : ranks_(ranks) {}

  std::string_view backend() const override { return "cpu"; }
  int ranks() const override { return ranks_; }
  bool is_root() const override { return true; }
  DeviceInfo device_info() const override {
    DeviceInfo info = cpu_device_info(ranks_);
    add_all_to_all_fields(info, ranks_, 1, "threads");
    return info;
  }

  std::string algorithm(const AllToAllPattern&) const override { return "memcpy"; }

  RunResult run(const AllToAllPattern& p, const BenchSettings& settings) override {
    check_pattern(p, ranks_);
    const auto r = static_cast<std::size_t>(ranks_);
    std::vector<std::vector<char>> send(r), recv(r);
    std::vector<const char*> send_ptr(r);
    for (std::size_t a = 0; a < r; ++a) {
      std::int64_t out = 0, in = 0;
      for (std::size_t b = 0; b < r; ++b) {
        out += p.bytes[a * r + b];
        in += p.bytes[b * r + a];
      }
      send[a].assign(static_cast<std::size_t>(out), static_cast<char>(a + 1));
      recv[a].assign(static_cast<std::size_t>(in), 0);
      send_ptr[a] = send[a].data();
    }
    const int total = settings.warmup + settings.repetitions;
    std::vector<std::vector<double>> start(r, std::vector<double>(static_cast<std::size_t>(total))), end = start;
    std::barrier sync(ranks_);
    auto body = [&](int rank) {
      const auto me = static_cast<std::size_t>(rank);
      for (int i = 0; i < total; ++i) {
        sync.arrive_and_wait();
        start[me][static_cast<std::size_t>(i)] = cpu_clock_ns(settings.clock);
        cpu_all_to_all_receive(p, rank, send_ptr, recv[me].data());
        end[me][static_cast<std::size_t>(i)] = cpu_clock_ns(settings.clock);
        sync.arrive_and_wait();  // nobody starts the next repetition before everyone finished
      }
    };
    {
      std::vector<std::jthread> threads;
      for (int rank = 1; rank < ranks_; ++rank) threads.emplace_back(body, rank);
      body(0);
    }
    // Wall clock: first start to last end. Thread CPU time: each thread's clock has its own
    // origin, so the repetition takes as long as its busiest thread.
    RunResult out;
    out.per_rank.assign(r, {});
    for (int i = settings.warmup; i < total; ++i) {
      const auto at = static_cast<std::size_t>(i);
      double first = start[0][at], last = end[0][at], busiest = 0;
      for (std::size_t a = 0; a < r; ++a) {
        first = std::min(first, start[a][at]);
        last = std::max(last, end[a][at]);
        busiest = std::max(busiest, end[a][at] - start[a][at]);
        out.per_rank[a].push_back(end[a][at] - start[a][at]);
      }
      out.time.push_back(settings.clock == CpuClock::kWall ? last - first : busiest);
    }
    return out;
  }

 private:
  int ranks_;
};

}  // namespace

void cpu_all_to_all_receive(const AllToAllPattern& p, int rank, const std::vector<const char*>& send, char* recv) {
  const auto r = static_cast<std::size_t>(p.ranks);
  const auto me = static_cast<std::size_t>(rank);
  std::int64_t recv_offset = 0;
  for (std::size_t s = 0; s < r; ++s) {
    const std::int64_t n = p.bytes[s * r + me];
    if (s != me && n > 0) {  // a rank's own chunk stays where it is
      std::int64_t send_offset = 0;
      for (std::size_t d = 0; d < me; ++d) send_offset += p.bytes[s * r + d];
      std::memcpy(recv + recv_offset, send[s] + send_offset, static_cast<std::size_t>(n));
    }
    recv_offset += n;
  }
}

std::unique_ptr<AllToAllBench> make_cpu_all_to_all_bench(int ranks) {
  if (ranks < 1) throw KernelError("all-to-all: ranks must be >= 1, got " + std::to_string(ranks));
  return std::make_unique<CpuAllToAllBench>(ranks);
}

}  // namespace moesim::kernels
