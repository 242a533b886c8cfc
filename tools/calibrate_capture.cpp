// `moesim calibrate capture --backend cpu|cuda --suite gemm|grouped-gemm|alltoall -o data.csv`:
// measures a suite (calibration/capture.h) and writes one row per case under the device's
// metadata. Progress goes to stderr unless -q.
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "calibration/calibration_error.h"
#include "calibration/capture.h"
#include "models/units.h"
#include "tools/calibrate_commands.h"

namespace moesim::tools {
namespace {

// The named choices are read as words and resolved once, before the capture runs: an unknown
// word is one line naming the flag and the valid words (calibration/capture_names.h).
struct CaptureFlags {
  calibration::CaptureOptions options;
  std::string backend = "cpu", suite = "gemm", launcher = "local", clock = "wall", throttled = "flag";
  std::string dtype;  // empty: the backend's default
  std::vector<std::string> distributions;
  std::vector<std::string> shapes, sizes;
  std::string output;
  bool quiet = false;
  bool no_flush = false;
};

std::pair<std::int64_t, std::int64_t> parse_shape(const std::string& s) {
  const auto x = s.find('x');
  try {
    std::size_t a = 0, b = 0;
    if (x != std::string::npos) {
      const long long n = std::stoll(s.substr(0, x), &a), k = std::stoll(s.substr(x + 1), &b);
      if (a == x && b == s.size() - x - 1 && n > 0 && k > 0) return {n, k};
    }
  } catch (const std::exception&) {}
  throw UsageError("--shape: expected NxK with positive integers (e.g. 4096x7168), got '" + s + "'");
}

int capture(CaptureFlags& f) {
  calibration::CaptureOptions& o = f.options;
  for (const auto& s : f.shapes) o.shapes.push_back(parse_shape(s));
  for (const auto& s : f.sizes) {
    try {
      o.sizes.push_back(static_cast<std::int64_t>(models::parse_bytes(s)));
    } catch (const models::UnitError& e) {
      throw UsageError(std::string("--size: ") + e.what());
    }
  }
  using calibration::capture_value;
  o.backend = capture_value<calibration::CaptureBackend>(f.backend);
  o.suite = capture_value<calibration::CaptureSuite>(f.suite);
  if (!f.dtype.empty()) o.dtype = capture_value<calibration::CaptureDtype>(f.dtype);
  for (const auto& d : f.distributions) o.distributions.push_back(capture_value<calibration::SplitDistribution>(d));
  o.clock = capture_value<calibration::CaptureClock>(f.clock);
  o.launcher = capture_value<calibration::CaptureLauncher>(f.launcher);
  o.throttled = capture_value<calibration::ThrottlePolicy>(f.throttled);
  o.flush_cache = !f.no_flush;
  const auto progress = [&](int done, int total, const std::string& what) {
    if (!f.quiet) std::fprintf(stderr, "[%d/%d] %s\n", done, total, what.c_str());
  };
  const calibration::CaptureOutput out = calibration::run_capture(o, progress);
  if (!out.is_root) return 0;
  std::ofstream file(f.output, std::ios::binary);
  if (!file) throw UsageError("-o: cannot write '" + f.output + "'");
  file << calibration::calibration_csv_text(out.table);
  file.close();
  if (!file) throw UsageError("-o: failed writing '" + f.output + "'");
  if (!f.quiet) std::printf("wrote %d rows to %s\n", out.cases, f.output.c_str());
  return 0;
}

}  // namespace

Command add_calibrate_capture(CLI::App& calibrate, std::string command_line) {
  auto f = std::make_shared<CaptureFlags>();
  f->options.command_line = std::move(command_line);
  calibration::CaptureOptions& o = f->options;
  auto* cmd = calibrate.add_subcommand("capture", "Measure GEMMs, grouped GEMMs or all-to-alls into a calibration CSV");
  cmd->add_option("--backend", f->backend, "cpu, cuda, or fake (analytic timings for dry runs; see 'moesim list')");
  cmd->add_option("--suite", f->suite, "gemm, grouped-gemm or alltoall");
  cmd->add_option("--dtype", f->dtype, "GEMM operands: bf16, fp16, fp8 or fp32 (default: fp32 on cpu, bf16 on cuda)");
  cmd->add_option("--shape", f->shapes, "GEMM shapes NxK (output columns x reduction), comma separated")
      ->delimiter(',');
  cmd->add_option("--m", o.m, "Rows per GEMM, or mean rows per expert for grouped-gemm, comma separated")
      ->delimiter(',');
  cmd->add_option("--groups", o.groups, "grouped-gemm: experts per GEMM, comma separated")->delimiter(',');
  cmd->add_option("--distribution", f->distributions, "uniform and/or zipf (rows over experts, bytes over receivers)")
      ->delimiter(',');
  cmd->add_option("--skew", o.skew, "zipf exponent (default 1)");
  cmd->add_option("--max-tokens", o.max_tokens, "grouped-gemm: skip cases with more rows in total");
  cmd->add_option("--size", f->sizes, "alltoall: mean bytes per peer (e.g. 64KiB,1MiB), comma separated")
      ->delimiter(',');
  cmd->add_option("--ranks", o.ranks, "alltoall: threads (cpu, default 2) or local GPUs (cuda, default all)");
  cmd->add_option("--launcher", f->launcher,
                  "alltoall on cuda or fake: local (one process, all GPUs) or mpi (one process per GPU)");
  cmd->add_option("--device", o.device, "cuda GEMM suites: GPU index");
  cmd->add_option("--warmup", o.warmup, "untimed runs before timing (per round)");
  cmd->add_option("--reps", o.repetitions, "timed runs per case");
  cmd->add_option("--rounds", o.rounds, "interleaved passes over all cases (cpu default 6, cuda 1)");
  cmd->add_flag("--no-flush", f->no_flush, "cuda: do not scrub the L2 cache before each timed run");
  cmd->add_option("--clock", f->clock,
                  "cpu: wall (steady_clock, default) or cpu (thread CPU time: ignores other load)");
  cmd->add_option(
      "--throttled", f->throttled,
      "a case run while the GPU throttled: flag (default: kept, column throttled = yes) or refuse (left out)");
  cmd->add_option("-o,--output", f->output, "CSV file to write")->required();
  cmd->add_flag("-q,--quiet", f->quiet, "No progress lines");
  return {cmd, [f] { return capture(*f); }};
}

}  // namespace moesim::tools
