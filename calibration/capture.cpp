#include "calibration/capture.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>

#include "calibration/calibration_error.h"
#include "calibration/capture_cases.h"
#include "calibration/capture_table.h"
#include "calibration/measurements.h"
#include "calibration/token_split.h"
#include "kernels/all_to_all_bench.h"
#include "kernels/gemm_bench.h"

namespace moesim::calibration {
namespace {

using kernels::ElementType;

[[noreturn]] void bad(const std::string& flag, const std::string& what) { throw CalibrationError(flag + ": " + what); }

ElementType element_type(CaptureDtype dtype) {
  switch (dtype) {
    case CaptureDtype::kBf16: return ElementType::kBf16;
    case CaptureDtype::kFp16: return ElementType::kFp16;
    case CaptureDtype::kFp8: return ElementType::kFp8E4M3;
    case CaptureDtype::kFp32: return ElementType::kFp32;
  }
  throw CalibrationError("capture: bad dtype value");
}

using Case = CapturedCase;

struct Resolved {
  SuiteDefaults d;
  CaptureDtype dtype;
  int warmup, reps, rounds;
  ResolvedSettings settings() const { return {dtype, warmup, reps, rounds}; }
};

Resolved resolve(const CaptureOptions& o) {
  const CaptureDtype dtype =
      o.dtype.value_or(o.backend == CaptureBackend::kCpu ? CaptureDtype::kFp32 : CaptureDtype::kBf16);
  Resolved r{suite_defaults(o.backend, o.suite), dtype, 0, 0, 0};
  SuiteDefaults& d = r.d;
  if (!o.shapes.empty()) d.shapes = o.shapes;
  if (!o.m.empty()) d.m = o.m;
  if (!o.groups.empty()) d.groups = o.groups;
  if (!o.distributions.empty()) d.distributions = o.distributions;
  if (!o.sizes.empty()) d.sizes = o.sizes;
  if (o.max_tokens > 0) d.max_tokens = o.max_tokens;
  if (o.ranks > 0) d.ranks = o.ranks;
  if (!(o.skew >= 0)) bad("--skew", "expected a zipf exponent >= 0");
  for (const auto& [n, k] : d.shapes)
    if (n < 1 || k < 1) bad("--shape", "n and k must be >= 1");
  for (auto m : d.m)
    if (m < 1) bad("--m", "rows must be >= 1");
  for (auto g : d.groups)
    if (g < 1) bad("--groups", "groups must be >= 1");
  for (auto s : d.sizes)
    if (s < 1) bad("--size", "sizes must be >= 1 byte");
  if (o.clock == CaptureClock::kCpu && o.backend != CaptureBackend::kCpu)
    bad("--clock", "the cuda backend times with CUDA events (cpu clock is for --backend cpu)");
  if (o.launcher == CaptureLauncher::kMpi && (o.backend == CaptureBackend::kCpu || o.suite != CaptureSuite::kAllToAll))
    bad("--launcher", "mpi launches the cuda (or fake) alltoall suite only");
  r.warmup = o.warmup >= 0 ? o.warmup : d.warmup;
  r.reps = o.repetitions > 0 ? o.repetitions : d.repetitions;
  r.rounds = o.rounds > 0 ? o.rounds : d.rounds;
  r.rounds = std::min(r.rounds, r.reps);
  return r;
}

std::vector<Case> gemm_cases(const CaptureOptions& o, const Resolved& r) {
  std::vector<Case> out;
  const ElementType t = element_type(r.dtype);
  for (const auto& [n, k] : r.d.shapes) {
    if (o.suite == CaptureSuite::kGemm) {
      for (auto m : r.d.m) {
        Case c;
        c.gemm = {{m}, n, k, t, false};
        c.tokens = m;
        c.distribution = SplitDistribution::kUniform;
        c.what = "gemm m=" + std::to_string(m) + " n=" + std::to_string(n) + " k=" + std::to_string(k);
        out.push_back(std::move(c));
      }
      continue;
    }
    for (int g : r.d.groups)
      for (auto m : r.d.m) {
        if (r.d.max_tokens > 0 && g * m > r.d.max_tokens) continue;
        for (const SplitDistribution dist : r.d.distributions) {
          Case c;
          c.groups = g;
          c.tokens = g * m;
          c.distribution = dist;
          c.gemm = {split_tokens(c.tokens, g, dist, o.skew), n, k, t, true};
          c.what = "grouped " + std::to_string(g) + "x" + std::to_string(m) + " " + std::string(to_string(dist)) +
                   " n=" + std::to_string(n) + " k=" + std::to_string(k);
          out.push_back(std::move(c));
        }
      }
  }
  return out;
}

std::vector<Case> all_to_all_cases(const CaptureOptions& o, const Resolved& r, int ranks) {
  std::vector<Case> out;
  for (auto size : r.d.sizes)
    for (const SplitDistribution dist : r.d.distributions) {
      Case c;
      c.peer_bytes = size;
      c.distribution = dist;
      c.a2a = {ranks, all_to_all_bytes(ranks, size, dist, o.skew)};
      c.what = "alltoall " + std::to_string(ranks) + " ranks " + std::to_string(size) + " B/peer " +
               std::string(to_string(dist));
      out.push_back(std::move(c));
    }
  return out;
}

// The backend's own benchmarks, unless the caller handed in others.
CaptureBenches backend_benches(const CaptureOptions& o, const Resolved& r, const CaptureBenches& given) {
  CaptureBenches b = given;
  if (!b.gemm) {
    switch (o.backend) {
      case CaptureBackend::kCpu: b.gemm = [] { return kernels::make_cpu_gemm_bench(); }; break;
      case CaptureBackend::kFake: b.gemm = [d = o.device] { return kernels::make_fake_plugin_gemm_bench(d); }; break;
      case CaptureBackend::kCuda: b.gemm = [d = o.device] { return kernels::make_cuda_gemm_bench(d); }; break;
    }
  }
  if (!b.all_to_all) {
    const int ranks = r.d.ranks;
    const bool mpi = o.launcher == CaptureLauncher::kMpi;
    switch (o.backend) {
      case CaptureBackend::kCpu: b.all_to_all = [ranks] { return kernels::make_cpu_all_to_all_bench(ranks); }; break;
      case CaptureBackend::kFake:
        b.all_to_all = [ranks, mpi] {
          return mpi ? kernels::make_fake_plugin_mpi_all_to_all_bench()
                     : kernels::make_fake_plugin_all_to_all_bench(ranks);
        };
        break;
      case CaptureBackend::kCuda:
        b.all_to_all = [ranks, mpi] {
          return mpi ? kernels::make_nccl_mpi_all_to_all_bench() : kernels::make_nccl_all_to_all_bench(ranks);
        };
        break;
    }
  }
  return b;
}

// Adds one round's result of case `c`.
void take(Case& c, const kernels::RunResult& run) {
  c.timings.insert(c.timings.end(), run.time.begin(), run.time.end());
  if (c.per_rank.size() < run.per_rank.size()) c.per_rank.resize(run.per_rank.size());
  for (std::size_t rank = 0; rank < run.per_rank.size(); ++rank)
    c.per_rank[rank].insert(c.per_rank[rank].end(), run.per_rank[rank].begin(), run.per_rank[rank].end());
  c.state.merge(run.state);
  c.exposed_launches += run.exposed_launches;
}

}  // namespace

CaptureOutput run_capture(const CaptureOptions& o, const CaptureProgress& progress) {
  return run_capture(o, CaptureBenches{}, progress);
}

CaptureOutput run_capture(const CaptureOptions& o, const CaptureBenches& given, const CaptureProgress& progress) {
  const Resolved r = resolve(o);
  const bool a2a = o.suite == CaptureSuite::kAllToAll;
  const CaptureBenches benches = backend_benches(o, r, given);
  std::unique_ptr<kernels::GemmBench> gemm;
  std::unique_ptr<kernels::AllToAllBench> comm;
  if (a2a) {
    comm = benches.all_to_all();
    if (comm->ranks() < 2) bad("--ranks", "an all-to-all needs at least 2 ranks, got " + std::to_string(comm->ranks()));
  } else {
    gemm = benches.gemm();
    if (!gemm->supports(element_type(r.dtype)))
      throw kernels::KernelError("the " + std::string(to_string(o.backend)) + " backend does not run " +
                                 std::string(to_string(r.dtype)) + " GEMMs");
  }
  std::vector<Case> cases = a2a ? all_to_all_cases(o, r, comm->ranks()) : gemm_cases(o, r);
  if (a2a)
    for (Case& c : cases) c.algorithm = comm->algorithm(c.a2a);
  if (cases.empty()) bad("--suite", "no cases to measure (every case was filtered out)");

  const int total = r.rounds * static_cast<int>(cases.size());
  int done = 0;
  for (int round = 0; round < r.rounds; ++round) {
    // Spread the repetitions over the rounds: the first (reps % rounds) rounds take one more.
    const int reps = r.reps / r.rounds + (round < r.reps % r.rounds ? 1 : 0);
    for (Case& c : cases) {
      const kernels::BenchSettings s{
          r.warmup, reps, o.flush_cache,
          o.clock == CaptureClock::kCpu ? kernels::CpuClock::kThreadCpu : kernels::CpuClock::kWall};
      if (c.skipped.empty()) {
        if (a2a) {
          take(c, comm->run(c.a2a, s));  // every MPI rank must run every case
        } else {
          // A shape the library refuses (no algorithm for it) is left out with its reason, so
          // that one odd shape does not cost a whole GPU capture.
          try {
            take(c, gemm->run(c.gemm, s));
          } catch (const kernels::KernelError& e) {
            c.skipped = e.what();
            c.timings.clear();
          }
        }
      }
      ++done;
      if (progress && (!comm || comm->is_root()))  // one progress stream under MPI
        progress(done, total, c.what + (c.skipped.empty() ? "" : " (skipped: " + c.skipped + ")"));
    }
  }
  for (Case& c : cases)
    if (c.skipped.empty() && o.throttled == ThrottlePolicy::kRefuse && c.state.known &&
        kernels::throttled(c.state.reasons))
      c.skipped = "ran throttled (" + kernels::clocks_reason_names(c.state.reasons) + ", SM clock down to " +
                  std::to_string(c.state.sm_clock_mhz) + " MHz)";
  const auto refused = std::count_if(cases.begin(), cases.end(), [](const Case& c) { return !c.skipped.empty(); });
  if (refused == static_cast<std::ptrdiff_t>(cases.size())) throw kernels::KernelError(cases.front().skipped);

  CaptureOutput out;
  out.cases = static_cast<int>(cases.size()) - static_cast<int>(refused);
  out.is_root = a2a ? comm->is_root() : true;
  const kernels::DeviceInfo device = a2a ? comm->device_info() : gemm->device_info();
  const std::string kernel = a2a ? "" : gemm->kernel(element_type(r.dtype), o.suite == CaptureSuite::kGroupedGemm);
  out.table = capture_table(o, r.settings(), device, kernel, cases);
  return out;
}

}  // namespace moesim::calibration
