// A small safetensors writer for the tests (the format: u64 header length, JSON header, data),
// written from the format description independently of the reader under test.
#pragma once

#include <bit>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace moesim::models::functional::test {

struct TensorToWrite {
  std::string name;
  std::string dtype;  // F32, BF16 or F16
  std::vector<std::int64_t> shape;
  std::vector<float> values;
};

// float → bfloat16 / half, round to nearest even (normal half range only: what the tests use).
inline std::uint16_t to_bf16(float f) {
  const std::uint32_t u = std::bit_cast<std::uint32_t>(f);
  return static_cast<std::uint16_t>((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}
inline float bf16_round(float f) { return std::bit_cast<float>(static_cast<std::uint32_t>(to_bf16(f)) << 16); }
inline std::uint16_t to_half(float f) {
  const std::uint32_t u = std::bit_cast<std::uint32_t>(f);
  const std::uint32_t sign = (u >> 16) & 0x8000u;
  const int exp = static_cast<int>((u >> 23) & 0xFFu) - 127 + 15;
  if ((u & 0x7FFFFFFFu) == 0) return static_cast<std::uint16_t>(sign);
  std::uint32_t mant = u & 0x7FFFFFu;
  std::uint32_t h = (static_cast<std::uint32_t>(exp) << 10) | (mant >> 13);
  const std::uint32_t rest = mant & 0x1FFFu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;
  return static_cast<std::uint16_t>(sign | h);
}

inline std::string safetensors_bytes(const std::vector<TensorToWrite>& tensors) {
  nlohmann::json header = nlohmann::json::object();
  header["__metadata__"] = {{"format", "pt"}};
  std::string data;
  for (const auto& t : tensors) {
    const std::size_t begin = data.size();
    for (float v : t.values) {
      if (t.dtype == "F32") {
        const std::uint32_t u = std::bit_cast<std::uint32_t>(v);
        for (int b = 0; b < 4; ++b) data.push_back(static_cast<char>((u >> (8 * b)) & 0xFF));
      } else {
        const std::uint16_t u = t.dtype == "BF16" ? to_bf16(v) : to_half(v);
        data.push_back(static_cast<char>(u & 0xFF));
        data.push_back(static_cast<char>(u >> 8));
      }
    }
    header[t.name] = {{"dtype", t.dtype}, {"shape", t.shape}, {"data_offsets", {begin, data.size()}}};
  }
  std::string json = header.dump();
  while (json.size() % 8 != 0) json.push_back(' ');  // the format pads the header with spaces
  std::string out;
  const std::uint64_t n = json.size();
  for (int b = 0; b < 8; ++b) out.push_back(static_cast<char>((n >> (8 * b)) & 0xFF));
  return out + json + data;
}

inline void write_bytes(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

}  // namespace moesim::models::functional::test
