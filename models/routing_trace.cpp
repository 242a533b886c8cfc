#include "models/routing_trace.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <fstream>

#include "models/model_error.h"

namespace moesim::models {
namespace {

constexpr char kMagic[8] = {'M', 'O', 'E', 'S', 'I', 'M', 'R', 'T'};
constexpr std::uint32_t kMaxName = 4096;
constexpr std::uint32_t kMaxTokens = 1u << 28;

void put(std::ostream& out, std::uint64_t v, int bytes) {
  std::array<char, 8> b{};
  for (int i = 0; i < bytes; ++i) b[static_cast<std::size_t>(i)] = static_cast<char>((v >> (8 * i)) & 0xFF);
  out.write(b.data(), bytes);
}

class Reader {
 public:
  Reader(std::istream& in, const std::string& name) : in_(in), name_(name) {}
  [[noreturn]] void fail(const std::string& what) const {
    throw ModelError(name_ + ": byte " + std::to_string(offset_) + ": " + what);
  }
  void bytes(char* dst, std::size_t n, const std::string& what) {
    in_.read(dst, static_cast<std::streamsize>(n));
    if (static_cast<std::size_t>(in_.gcount()) != n) {
      offset_ += static_cast<std::uint64_t>(in_.gcount());
      fail("truncated file: ends inside " + what);
    }
    offset_ += n;
  }
  std::uint64_t uint(int n, const std::string& what) {
    std::array<unsigned char, 8> b{};
    bytes(reinterpret_cast<char*>(b.data()), static_cast<std::size_t>(n), what);
    std::uint64_t v = 0;
    for (int i = n - 1; i >= 0; --i) v = (v << 8) | b[static_cast<std::size_t>(i)];
    return v;
  }
  std::uint64_t offset() const { return offset_; }
  bool at_end() { return in_.peek() == std::char_traits<char>::eof(); }

 private:
  std::istream& in_;
  const std::string& name_;
  std::uint64_t offset_ = 0;
};

}  // namespace

std::span<const std::uint16_t> RoutingTrace::layer_ids(std::size_t step, int layer) const {
  const auto& s = steps.at(step);
  const auto n = static_cast<std::size_t>(s.tokens) * static_cast<std::size_t>(header.top_k);
  return std::span<const std::uint16_t>(s.ids).subspan(static_cast<std::size_t>(layer) * n, n);
}

std::span<const float> RoutingTrace::layer_weights(std::size_t step, int layer) const {
  const auto& s = steps.at(step);
  if (s.weights.empty()) return {};
  const auto n = static_cast<std::size_t>(s.tokens) * static_cast<std::size_t>(header.top_k);
  return std::span<const float>(s.weights).subspan(static_cast<std::size_t>(layer) * n, n);
}

void write_routing_trace(std::ostream& out, const RoutingTrace& t) {
  const auto& h = t.header;
  if (h.moe_layers < 1 || h.experts < 1 || h.experts > 65535 || h.top_k < 1 || h.top_k > h.experts ||
      h.model.size() > kMaxName)
    throw ModelError("routing trace: bad header shape");
  out.write(kMagic, 8);
  put(out, kRoutingTraceVersion, 4);
  put(out, static_cast<std::uint64_t>(h.moe_layers), 4);
  put(out, static_cast<std::uint64_t>(h.experts), 4);
  put(out, static_cast<std::uint64_t>(h.top_k), 4);
  put(out, h.has_weights ? 1 : 0, 4);
  put(out, h.model.size(), 4);
  out.write(h.model.data(), static_cast<std::streamsize>(h.model.size()));
  put(out, t.steps.size(), 8);
  for (const auto& s : t.steps) {
    const auto per_layer = static_cast<std::size_t>(s.tokens) * static_cast<std::size_t>(h.top_k);
    if (s.tokens < 0 || s.tokens > kMaxTokens || s.ids.size() != per_layer * static_cast<std::size_t>(h.moe_layers) ||
        (h.has_weights ? s.weights.size() != s.ids.size() : !s.weights.empty()))
      throw ModelError("routing trace: a step's ids or weights do not match its token count");
    put(out, static_cast<std::uint64_t>(s.tokens), 4);
    for (int l = 0; l < h.moe_layers; ++l) {
      const auto first = static_cast<std::size_t>(l) * per_layer;
      for (std::size_t i = 0; i < per_layer; ++i) put(out, s.ids[first + i], 2);
      if (h.has_weights)
        for (std::size_t i = 0; i < per_layer; ++i) put(out, std::bit_cast<std::uint32_t>(s.weights[first + i]), 4);
    }
  }
}

void write_routing_trace(const std::string& path, const RoutingTrace& trace) {
  std::ofstream out(path, std::ios::binary);
  if (!out) throw ModelError(path + ": cannot write the routing trace");
  write_routing_trace(out, trace);
  if (!out) throw ModelError(path + ": write failed");
}

RoutingTrace read_routing_trace(std::istream& in, const std::string& name) {
  Reader r(in, name);
  RoutingTrace t;
  auto& h = t.header;
  char magic[8];
  r.bytes(magic, 8, "the magic number");
  if (std::memcmp(magic, kMagic, 8) != 0) throw ModelError(name + ": not a moesim routing trace (bad magic)");
  const auto version = r.uint(4, "the header");
  if (version != kRoutingTraceVersion)
    r.fail("unsupported routing-trace version " + std::to_string(version) + " (this build reads " +
           std::to_string(kRoutingTraceVersion) + ")");
  const auto layers = r.uint(4, "the header"), experts = r.uint(4, "the header"), k = r.uint(4, "the header");
  const auto flags = r.uint(4, "the header"), name_bytes = r.uint(4, "the header");
  if (layers < 1 || layers > 4096) r.fail("moe_layers " + std::to_string(layers) + " out of range 1..4096");
  if (experts < 1 || experts > 65535) r.fail("experts " + std::to_string(experts) + " out of range 1..65535");
  if (k < 1 || k > experts) r.fail("top_k " + std::to_string(k) + " out of range 1..experts");
  if (flags > 1) r.fail("unknown flags " + std::to_string(flags));
  if (name_bytes > kMaxName) r.fail("model name of " + std::to_string(name_bytes) + " bytes (max 4096)");
  h.moe_layers = static_cast<int>(layers);
  h.experts = static_cast<int>(experts);
  h.top_k = static_cast<int>(k);
  h.has_weights = flags & 1;
  h.model.resize(name_bytes);
  r.bytes(h.model.data(), name_bytes, "the model name");
  const auto steps = r.uint(8, "the step count");
  for (std::uint64_t s = 0; s < steps; ++s) {
    const std::string where = "step " + std::to_string(s);
    RoutingTraceStep st;
    st.tokens = static_cast<std::int64_t>(r.uint(4, where + " token count"));
    if (st.tokens > kMaxTokens) r.fail(where + ": " + std::to_string(st.tokens) + " tokens (max 2^28)");
    const auto per_layer = static_cast<std::size_t>(st.tokens) * k;
    // Read in chunks, so a corrupt token count fails at the end of the file instead of allocating.
    constexpr std::size_t kChunk = 1 << 16;
    std::vector<char> buf;
    for (std::uint64_t l = 0; l < layers; ++l) {
      const std::string wl = where + " layer " + std::to_string(l);
      for (std::size_t done = 0; done < per_layer;) {
        const std::size_t n = std::min(kChunk, per_layer - done);
        buf.resize(n * 2);
        const auto start = r.offset();
        r.bytes(buf.data(), buf.size(), wl + " expert ids");
        for (std::size_t j = 0; j < n; ++j) {
          const std::size_t i = done + j;
          const auto id = static_cast<std::uint16_t>(static_cast<unsigned char>(buf[2 * j]) |
                                                     (static_cast<unsigned char>(buf[2 * j + 1]) << 8));
          const auto at = [&] { return name + ": byte " + std::to_string(start + 2 * j) + ": " + wl + ": "; };
          if (id >= experts)
            throw ModelError(at() + "expert id " + std::to_string(id) + " >= experts " + std::to_string(experts));
          const std::size_t tok_first = st.ids.size() - (i % k);
          if (std::find(st.ids.begin() + static_cast<std::ptrdiff_t>(tok_first), st.ids.end(), id) != st.ids.end())
            throw ModelError(at() + "token " + std::to_string(i / k) + " lists expert " + std::to_string(id) +
                             " twice");
          st.ids.push_back(id);
        }
        done += n;
      }
      if (!h.has_weights) continue;
      for (std::size_t done = 0; done < per_layer;) {
        const std::size_t n = std::min(kChunk, per_layer - done);
        buf.resize(n * 4);
        r.bytes(buf.data(), buf.size(), wl + " weights");
        for (std::size_t j = 0; j < n; ++j) {
          std::uint32_t u = 0;
          for (int b = 3; b >= 0; --b)
            u = (u << 8) | static_cast<unsigned char>(buf[4 * j + static_cast<std::size_t>(b)]);
          const float w = std::bit_cast<float>(u);
          if (!std::isfinite(w))
            throw ModelError(name + ": byte " + std::to_string(r.offset() - buf.size() + 4 * j) + ": " + wl +
                             ": router weight is not a finite number");
          st.weights.push_back(w);
        }
        done += n;
      }
    }
    t.steps.push_back(std::move(st));
  }
  if (!r.at_end()) r.fail("trailing bytes after the last step");
  return t;
}

RoutingTrace read_routing_trace(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ModelError(path + ": cannot open the routing trace");
  return read_routing_trace(in, path);
}

}  // namespace moesim::models
