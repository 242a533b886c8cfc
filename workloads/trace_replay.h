// Request-trace replay: arrival time, input length and output length per request, read from
//  - CSV with a header row. Recognised columns (case-insensitive):
//      time:   TIMESTAMP / timestamp / arrival_s / arrival_time / time_s (seconds, or a date-time
//              "YYYY-MM-DD HH:MM:SS[.fffffff][Z|+HH:MM]" as in the Azure LLM inference traces
//              2023/2024, columns TIMESTAMP,ContextTokens,GeneratedTokens), or timestamp_ms /
//              arrival_ms / time_ms (milliseconds);
//      input:  ContextTokens / input_length / input_tokens / prompt_tokens;
//      output: GeneratedTokens / output_length / output_tokens / completion_tokens.
//  - JSONL, one object per line, as the Mooncake traces (FAST'25 release): `timestamp` in
//    milliseconds (or `arrival_s` in seconds), `input_length`, `output_length`, optional
//    `hash_ids` (block hashes; identical leading ids = shared prefix).
// Arrivals are made relative to the earliest request and sorted (stable). Lengths below 1 token
// become 1 (the simulator needs a prompt and a first token); the limits of
// workloads/input_limits.h (lengths, times, rows) are refused naming the line. Any malformed or truncated row throws
// WorkloadError naming file:line; nothing is read past a bad row.
#pragma once

#include <cstdint>
#include <istream>
#include <string>
#include <string_view>
#include <vector>

#include "workloads/registry.h"
#include "workloads/workload_config.h"

namespace moesim::workloads {

// auto, csv, jsonl, in the order of TraceFormat.
std::vector<RegistryEntry> trace_formats();
TraceFormat trace_format(std::string_view name);  // WorkloadError for an unknown name
std::string_view to_string(TraceFormat format);

struct TraceRequest {
  std::int64_t arrival_ns = 0;
  std::int64_t input_tokens = 0;
  std::int64_t output_tokens = 0;
  double prefix_hit = 0.0;              // from hash_ids (JSONL with hash_ids only), else 0
  std::vector<std::uint64_t> hash_ids;  // the row's hash_ids (JSONL), for the simulator's prefix caches
};

struct RequestTraceOptions {
  TraceFormat format = TraceFormat::kAuto;  // auto: .jsonl / .json → JSONL, anything else → CSV
  int block_tokens = 512;                   // tokens per hash block (Mooncake traces use 512)
  std::int64_t max_rows = -1;               // stop after this many requests (-1: all)
};

std::vector<TraceRequest> read_request_trace(const std::string& path, const RequestTraceOptions& options = {});
// The same from a stream; `name` is used in error messages.
std::vector<TraceRequest> parse_request_trace_csv(std::istream& in, const std::string& name,
                                                  std::int64_t max_rows = -1);
std::vector<TraceRequest> parse_request_trace_jsonl(std::istream& in, const std::string& name, int block_tokens = 512,
                                                    std::int64_t max_rows = -1);

// Nanoseconds since 1970-01-01 UTC of "YYYY-MM-DD[ T]HH:MM:SS[.f...][Z|±HH:MM|±HHMM]"; false if
// the text is not such a date-time.
bool parse_datetime_ns(const std::string& text, std::int64_t& ns);

}  // namespace moesim::workloads
