#include <charconv>
#include <fstream>
#include <string>
#include <string_view>
#include <system_error>

#include "tools/command_errors.h"
#include "tools/report.h"

namespace moesim::tools {
namespace {

// Rows formatted into one buffer and written whole: numbers by std::to_chars, doubles as "%.10g"
// (what an ostream of precision 10 writes, without its per-field formatting machinery; 20,000
// requests are a few per cent of a fast run otherwise).
class CsvWriter {
 public:
  explicit CsvWriter(const std::filesystem::path& path) : path_(path) {}
  CsvWriter& operator<<(std::string_view s) {
    buffer_.append(s);
    return *this;
  }
  CsvWriter& operator<<(char c) {
    buffer_.push_back(c);
    return *this;
  }
  CsvWriter& operator<<(double v) { return put(v, std::chars_format::general, 10); }
  CsvWriter& operator<<(std::int64_t v) { return put(v); }
  CsvWriter& operator<<(int v) { return put(v); }
  // Writes what was formatted; throws SystemError if the file cannot be written.
  void close() const {
    std::ofstream out(path_, std::ios::binary);
    if (!out) throw SystemError("cannot write '" + path_.string() + "'");
    out.write(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
    if (!out) throw SystemError("cannot write '" + path_.string() + "'");
  }

 private:
  template <typename... Format>
  CsvWriter& put(auto v, Format... format) {
    char text[64];
    const auto [end, error] = std::to_chars(text, text + sizeof text, v, format...);
    if (error == std::errc{}) buffer_.append(text, end);
    return *this;
  }
  std::filesystem::path path_;
  std::string buffer_;
};

}  // namespace

void write_requests_csv(const std::filesystem::path& path, const sim::SimulationResult& result) {
  CsvWriter out(path);
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
  out.close();
}

void write_steps_csv(const std::filesystem::path& path, const sim::SimulationResult& result) {
  CsvWriter out(path);
  out << "step,pool,instance,start_s,duration_ms,decode_tokens,prefill_tokens,running,power_w\n";
  std::int64_t i = 0;
  for (const auto& s : result.steps)
    out << i++ << ',' << sim::to_string(result.pools[static_cast<std::size_t>(s.pool)].role) << ',' << s.instance << ','
        << s.start_ns * 1e-9 << ',' << s.duration_ns * 1e-6 << ',' << s.decode_tokens << ',' << s.prefill_tokens << ','
        << s.running << ',' << s.power_w << '\n';
  out.close();
}

}  // namespace moesim::tools
