#include "calibration/capture.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <memory>
#include <numeric>

#include "calibration/calibration_error.h"
#include "calibration/capture_cases.h"
#include "calibration/measurements.h"
#include "calibration/token_split.h"
#include "kernels/all_to_all_bench.h"
#include "kernels/gemm_bench.h"
#include "kernels/timing_summary.h"
#include "models/did_you_mean.h"

namespace moesim::calibration {
namespace {

using kernels::ElementType;

[[noreturn]] void bad(const std::string& flag, const std::string& what) { throw CalibrationError(flag + ": " + what); }

void check_choice(const std::string& flag, std::string_view what, const std::string& value,
                  const std::vector<CaptureEntry>& entries) {
  std::vector<std::string_view> valid;
  for (const auto& e : entries) valid.push_back(e.name);
  if (std::find(valid.begin(), valid.end(), value) == valid.end())
    bad(flag, models::unknown_name_message(what, value, valid));
}

std::string fmt(double v, const char* f = "%.1f") {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

ElementType element_type(const std::string& dtype) {
  if (dtype == "fp32") return ElementType::kFp32;
  if (dtype == "fp16") return ElementType::kFp16;
  if (dtype == "bf16") return ElementType::kBf16;
  if (dtype == "fp8") return ElementType::kFp8E4M3;
  bad("--dtype", models::unknown_name_message("dtype", dtype, {"bf16", "fp16", "fp8", "fp32"}));
}

std::string join_ints(const std::vector<std::int64_t>& v) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ";" : "") + std::to_string(v[i]);
  return s;
}

// One case of a suite: the kernel's input plus the descriptive cells of its row.
struct Case {
  kernels::GemmShape gemm;
  kernels::AllToAllPattern a2a;
  std::string distribution;
  int groups = 1;
  std::int64_t tokens = 0, peer_bytes = 0;
  std::string what;
  kernels::Timings timings;
  std::string skipped;  // why the backend refused this case
};

struct Resolved {
  SuiteDefaults d;
  std::string dtype;
  int warmup, reps, rounds;
};

Resolved resolve(const CaptureOptions& o) {
  check_choice("--backend", "backend", o.backend, capture_backends());
  check_choice("--suite", "suite", o.suite, capture_suites());
  Resolved r{suite_defaults(o.backend, o.suite), o.dtype, 0, 0, 0};
  SuiteDefaults& d = r.d;
  if (!o.shapes.empty()) d.shapes = o.shapes;
  if (!o.m.empty()) d.m = o.m;
  if (!o.groups.empty()) d.groups = o.groups;
  if (!o.distributions.empty()) d.distributions = o.distributions;
  if (!o.sizes.empty()) d.sizes = o.sizes;
  if (o.max_tokens > 0) d.max_tokens = o.max_tokens;
  if (o.ranks > 0) d.ranks = o.ranks;
  if (r.dtype.empty()) r.dtype = o.backend == "cpu" ? "fp32" : "bf16";
  if (o.suite != "alltoall") element_type(r.dtype);
  for (const auto& dist : d.distributions)
    if (dist != "uniform" && dist != "zipf")
      bad("--distribution", models::unknown_name_message("distribution", dist, {"uniform", "zipf"}));
  if (!(o.skew >= 0)) bad("--skew", "expected a zipf exponent >= 0");
  for (const auto& [n, k] : d.shapes)
    if (n < 1 || k < 1) bad("--shape", "n and k must be >= 1");
  for (auto m : d.m)
    if (m < 1) bad("--m", "rows must be >= 1");
  for (auto g : d.groups)
    if (g < 1) bad("--groups", "groups must be >= 1");
  for (auto s : d.sizes)
    if (s < 1) bad("--size", "sizes must be >= 1 byte");
  if (o.clock != "wall" && o.clock != "cpu") bad("--clock", models::unknown_name_message("clock", o.clock, {"wall", "cpu"}));
  if (o.clock == "cpu" && o.backend != "cpu") bad("--clock", "the cuda backend times with CUDA events (cpu clock is for --backend cpu)");
  if (o.launcher != "local" && o.launcher != "mpi")
    bad("--launcher", models::unknown_name_message("launcher", o.launcher, {"local", "mpi"}));
  if (o.launcher == "mpi" && (o.backend != "cuda" || o.suite != "alltoall"))
    bad("--launcher", "mpi launches the cuda alltoall suite only");
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
    if (o.suite == "gemm") {
      for (auto m : r.d.m) {
        Case c;
        c.gemm = {{m}, n, k, t, false};
        c.tokens = m;
        c.distribution = "uniform";
        c.what = "gemm m=" + std::to_string(m) + " n=" + std::to_string(n) + " k=" + std::to_string(k);
        out.push_back(std::move(c));
      }
      continue;
    }
    for (int g : r.d.groups)
      for (auto m : r.d.m) {
        if (r.d.max_tokens > 0 && g * m > r.d.max_tokens) continue;
        for (const auto& dist : r.d.distributions) {
          Case c;
          c.groups = g;
          c.tokens = g * m;
          c.distribution = dist;
          c.gemm = {split_tokens(c.tokens, g, dist, o.skew), n, k, t, true};
          c.what = "grouped " + std::to_string(g) + "x" + std::to_string(m) + " " + dist + " n=" + std::to_string(n) +
                   " k=" + std::to_string(k);
          out.push_back(std::move(c));
        }
      }
  }
  return out;
}

std::vector<Case> all_to_all_cases(const CaptureOptions& o, const Resolved& r, int ranks) {
  std::vector<Case> out;
  for (auto size : r.d.sizes)
    for (const auto& dist : r.d.distributions) {
      Case c;
      c.peer_bytes = size;
      c.distribution = dist;
      c.a2a = {ranks, all_to_all_bytes(ranks, size, dist, o.skew)};
      c.what = "alltoall " + std::to_string(ranks) + " ranks " + std::to_string(size) + " B/peer " + dist;
      out.push_back(std::move(c));
    }
  return out;
}

// Off-diagonal send / receive maxima and total.
struct Volumes {
  std::int64_t max_send = 0, max_recv = 0, total = 0;
};
Volumes volumes(const kernels::AllToAllPattern& p) {
  Volumes v;
  const auto r = static_cast<std::size_t>(p.ranks);
  for (std::size_t a = 0; a < r; ++a) {
    std::int64_t send = 0, recv = 0;
    for (std::size_t b = 0; b < r; ++b)
      if (a != b) {
        send += p.bytes[a * r + b];
        recv += p.bytes[b * r + a];
      }
    v.max_send = std::max(v.max_send, send);
    v.max_recv = std::max(v.max_recv, recv);
    v.total += send;
  }
  return v;
}

}  // namespace

std::vector<CaptureEntry> capture_backends() {
  return {{"cpu", "reference kernels on this CPU: Eigen FP32 GEMMs, threads exchanging through shared memory"},
          {"cuda", kernels::cuda_backend_built()
                       ? "cuBLAS/cuBLASLt GEMMs (bf16, fp16, fp8, fp32) and NCCL all-to-all on the local GPUs"
                       : "cuBLAS/cuBLASLt GEMMs and NCCL all-to-all (not in this build: no CUDA toolkit found)"}};
}

std::vector<CaptureEntry> capture_suites() {
  return {{"gemm", "dense GEMMs over a sweep of rows (m) at each (n, k)"},
          {"grouped-gemm", "grouped GEMMs: experts x rows per expert, uniform and zipf-skewed, at each (n, k)"},
          {"alltoall", "all-to-all-v over a sweep of bytes per peer, uniform and zipf-skewed receivers"}};
}

CaptureOutput run_capture(const CaptureOptions& o, const CaptureProgress& progress) {
  const Resolved r = resolve(o);
  const bool a2a = o.suite == "alltoall";
  std::unique_ptr<kernels::GemmBench> gemm;
  std::unique_ptr<kernels::AllToAllBench> comm;
  if (a2a) {
    if (o.backend == "cpu") comm = kernels::make_cpu_all_to_all_bench(r.d.ranks);
    else if (o.launcher == "mpi") comm = kernels::make_nccl_mpi_all_to_all_bench();
    else comm = kernels::make_nccl_all_to_all_bench(r.d.ranks);
    if (comm->ranks() < 2) bad("--ranks", "an all-to-all needs at least 2 ranks, got " + std::to_string(comm->ranks()));
  } else {
    gemm = o.backend == "cpu" ? kernels::make_cpu_gemm_bench() : kernels::make_cuda_gemm_bench(o.device);
    if (!gemm->supports(element_type(r.dtype)))
      throw kernels::KernelError("the " + o.backend + " backend does not run " + r.dtype + " GEMMs");
  }
  std::vector<Case> cases = a2a ? all_to_all_cases(o, r, comm->ranks()) : gemm_cases(o, r);
  if (cases.empty()) bad("--suite", "no cases to measure (every case was filtered out)");

  const int total = r.rounds * static_cast<int>(cases.size());
  int done = 0;
  for (int round = 0; round < r.rounds; ++round) {
    // Spread the repetitions over the rounds: the first (reps % rounds) rounds take one more.
    const int reps = r.reps / r.rounds + (round < r.reps % r.rounds ? 1 : 0);
    for (Case& c : cases) {
      const kernels::BenchSettings s{r.warmup, reps, o.flush_cache,
                                     o.clock == "cpu" ? kernels::CpuClock::kThreadCpu : kernels::CpuClock::kWall};
      if (c.skipped.empty()) {
        if (a2a) {
          const kernels::Timings t = comm->run(c.a2a, s);  // every MPI rank must run every case
          c.timings.insert(c.timings.end(), t.begin(), t.end());
        } else {
          // A shape the library refuses (no algorithm for it) is left out with its reason, so
          // that one odd shape does not cost a whole GPU capture.
          try {
            const kernels::Timings t = gemm->run(c.gemm, s);
            c.timings.insert(c.timings.end(), t.begin(), t.end());
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
  std::vector<std::string> skipped;
  for (const Case& c : cases)
    if (!c.skipped.empty()) skipped.push_back(c.what + ": " + c.skipped);
  if (skipped.size() == cases.size()) throw kernels::KernelError(cases.front().skipped);

  CaptureOutput out;
  out.cases = static_cast<int>(cases.size() - skipped.size());
  out.is_root = a2a ? comm->is_root() : true;
  CalibrationTable& t = out.table;
  t.add_meta("format", std::string(kCalibrationFormat));
  t.add_meta("suite", o.suite);
  t.add_meta("backend", o.backend);
  for (const auto& [k, v] : (a2a ? comm->device_info() : gemm->device_info()).fields) t.add_meta(k, v);
  if (!a2a) t.add_meta("dtype", r.dtype);
  if (a2a) t.add_meta("launcher", o.backend == "cpu" ? "threads" : o.launcher);
  t.add_meta("warmup", std::to_string(r.warmup) + (r.rounds > 1 ? " per round" : ""));
  t.add_meta("repetitions", std::to_string(r.reps));
  t.add_meta("rounds", std::to_string(r.rounds));
  if (o.backend == "cuda") t.add_meta("flush_l2", o.flush_cache ? "yes" : "no");
  t.add_meta("clock", o.backend == "cuda" ? "cuda events"
                      : o.clock == "cpu"  ? "thread cpu time (CLOCK_THREAD_CPUTIME_ID)"
                                          : "wall (steady_clock)");
  t.add_meta("date", utc_now());
  t.add_meta("skipped_cases", std::to_string(skipped.size()));
  for (std::size_t i = 0; i < skipped.size(); ++i) t.add_meta("skipped_" + std::to_string(i + 1), skipped[i]);
  std::string command = o.command_line;
  std::replace(command.begin(), command.end(), '\n', ' ');
  t.add_meta("command", command.empty() ? "n/a" : command);

  t.columns = a2a ? all_to_all_columns() : gemm_columns();
  for (const Case& c : cases) {
    if (!c.skipped.empty()) continue;
    const kernels::TimingSummary s = kernels::summarize(c.timings);
    std::vector<std::string> cells;
    const std::string skew = c.distribution == "zipf" ? fmt(o.skew, "%g") : "0";
    if (a2a) {
      const Volumes v = volumes(c.a2a);
      const double bw = static_cast<double>(std::max(v.max_send, v.max_recv)) / s.median_ns;  // GB/s
      cells = {o.suite, std::to_string(c.a2a.ranks), c.distribution, skew, std::to_string(c.peer_bytes),
               std::to_string(v.max_send), std::to_string(v.max_recv), std::to_string(v.total),
               o.backend == "cpu" ? "memcpy" : c.a2a.uniform() ? "ncclAlltoAll" : "ncclSend/ncclRecv",
               std::to_string(r.warmup), std::to_string(s.count), fmt(s.median_ns), fmt(s.p10_ns), fmt(s.p90_ns),
               fmt(s.min_ns), fmt(bw, "%.3f")};
    } else {
      const double flops = 2.0 * static_cast<double>(c.tokens) * static_cast<double>(c.gemm.n) *
                           static_cast<double>(c.gemm.k);
      cells = {o.suite, r.dtype, std::to_string(c.groups), std::to_string(c.tokens), c.distribution, skew,
               join_ints(c.gemm.m_per_group), std::to_string(c.gemm.n), std::to_string(c.gemm.k),
               std::to_string(r.warmup), std::to_string(s.count), fmt(s.median_ns), fmt(s.p10_ns), fmt(s.p90_ns),
               fmt(s.min_ns), fmt(flops / s.median_ns * 1e-3, "%.4f")};
    }
    t.rows.push_back({0, std::move(cells)});
  }
  return out;
}

}  // namespace moesim::calibration
