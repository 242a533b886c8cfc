#include "tools/trace_writer.h"

#include <cstdio>
#include <map>
#include <string>
#include <tuple>

namespace moesim::tools {
namespace {

using RankKey = std::tuple<int, int, int>;  // pool, instance, rank

std::string us(std::int64_t ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", static_cast<double>(ns) * 1e-3);
  return buf;
}

}  // namespace

void write_chrome_trace(std::ostream& out, const sim::SimulationResult& result) {
  std::map<RankKey, int> pids;
  for (const auto& e : result.trace) pids.emplace(RankKey{e.pool, e.instance, e.rank}, 0);
  int next = 1;
  for (auto& [key, pid] : pids) pid = next++;

  out << "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n";
  bool first = true;
  auto sep = [&] {
    if (!first) out << ",\n";
    first = false;
  };
  for (const auto& [key, pid] : pids) {
    const auto [pool, instance, rank] = key;
    const char* role = pool < static_cast<int>(result.pools.size())
                           ? sim::to_string(result.pools[static_cast<std::size_t>(pool)].role)
                           : "pool";
    sep();
    out << "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":" << pid << ",\"args\":{\"name\":\"" << role << '/'
        << instance << " rank " << rank << "\"}}";
    sep();
    out << "{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":" << pid << ",\"args\":{\"sort_index\":" << pid
        << "}}";
    for (int tid = 0; tid < 2; ++tid) {
      sep();
      out << "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":" << pid << ",\"tid\":" << tid << ",\"args\":{\"name\":\""
          << (tid == 0 ? "compute" : "communication") << "\"}}";
    }
  }
  // Flow arrows: dispatch -> expert_gemm -> combine of the same rank, layer and micro-batch.
  std::map<std::tuple<int, int, int, int>, const sim::TraceEvent*> pending;  // pid, layer, mb, stage
  std::int64_t flow_id = 0;
  auto flow = [&](const sim::TraceEvent& from, int from_tid, const sim::TraceEvent& to, int to_tid, int pid) {
    ++flow_id;
    sep();
    out << "{\"ph\":\"s\",\"id\":" << flow_id << ",\"name\":\"data\",\"cat\":\"flow\",\"pid\":" << pid
        << ",\"tid\":" << from_tid << ",\"ts\":" << us(from.start_ns + from.duration_ns - 1) << "}";
    sep();
    out << "{\"ph\":\"f\",\"bp\":\"e\",\"id\":" << flow_id << ",\"name\":\"data\",\"cat\":\"flow\",\"pid\":" << pid
        << ",\"tid\":" << to_tid << ",\"ts\":" << us(to.start_ns) << "}";
  };
  for (const auto& e : result.trace) {
    const int pid = pids[RankKey{e.pool, e.instance, e.rank}];
    const int tid = e.comm ? 1 : 0;
    sep();
    out << "{\"ph\":\"X\",\"name\":\"" << e.name << "\",\"pid\":" << pid << ",\"tid\":" << tid
        << ",\"ts\":" << us(e.start_ns) << ",\"dur\":" << us(e.duration_ns) << ",\"args\":{\"layer\":" << e.layer
        << ",\"micro_batch\":" << static_cast<int>(e.micro_batch) << "}}";
    const std::string name = e.name;
    if (name == "dispatch") {
      pending[{pid, e.layer, e.micro_batch, 0}] = &e;
    } else if (name == "expert_gemm") {
      auto it = pending.find({pid, e.layer, e.micro_batch, 0});
      if (it != pending.end()) flow(*it->second, 1, e, 0, pid);
      pending[{pid, e.layer, e.micro_batch, 1}] = &e;
    } else if (name == "combine") {
      auto it = pending.find({pid, e.layer, e.micro_batch, 1});
      if (it != pending.end()) flow(*it->second, 0, e, 1, pid);
    }
  }
  out << "\n]}\n";
}

}  // namespace moesim::tools
