#include <fstream>

#include "tools/command_errors.h"
#include "tools/report.h"

namespace moesim::tools {
namespace {

std::ofstream open_for_writing(const std::filesystem::path& path) {
  std::ofstream out(path);
  if (!out) throw SystemError("cannot write '" + path.string() + "'");
  out.precision(10);
  return out;
}

}  // namespace

void write_requests_csv(const std::filesystem::path& path, const sim::SimulationResult& result) {
  auto out = open_for_writing(path);
  out << "id,instance,rank,arrival_s,input_tokens,output_tokens,cached_tokens,ttft_s,tpot_s,e2e_s,preemptions,"
         "status\n";
  for (const auto& r : result.requests) {
    out << r.id << ',' << r.instance << ',' << r.rank << ',' << r.arrival_ns * 1e-9 << ',' << r.input_tokens << ','
        << r.output_tokens << ',' << r.cached_tokens << ',';
    if (r.finished()) {
      const double tpot = r.output_tokens > 1 ? static_cast<double>(r.finish_ns - r.first_token_ns) * 1e-9 /
                                                    static_cast<double>(r.output_tokens - 1)
                                              : 0.0;
      out << (r.first_token_ns - r.arrival_ns) * 1e-9 << ',' << tpot << ',' << (r.finish_ns - r.arrival_ns) * 1e-9
          << ',' << r.preemptions << ",completed\n";
    } else {
      out << ",,," << r.preemptions << ',' << (r.rejected.empty() ? "unfinished" : "rejected") << '\n';
    }
  }
}

void write_steps_csv(const std::filesystem::path& path, const sim::SimulationResult& result) {
  auto out = open_for_writing(path);
  out << "step,pool,instance,start_s,duration_ms,decode_tokens,prefill_tokens,running,power_w\n";
  std::int64_t i = 0;
  for (const auto& s : result.steps)
    out << i++ << ',' << sim::to_string(result.pools[static_cast<std::size_t>(s.pool)].role) << ',' << s.instance << ','
        << s.start_ns * 1e-9 << ',' << s.duration_ns * 1e-6 << ',' << s.decode_tokens << ',' << s.prefill_tokens << ','
        << s.running << ',' << s.power_w << '\n';
}

}  // namespace moesim::tools
