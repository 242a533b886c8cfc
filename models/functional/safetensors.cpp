#include "models/functional/safetensors.h"

#include <bit>
#include <cstring>
#include <fstream>

#include <nlohmann/json.hpp>

#include "models/model_error.h"

namespace moesim::models::functional {
namespace {

constexpr std::uint64_t kMaxHeader = 100u << 20;  // the format's own limit is 100 MB

int dtype_bytes(const std::string& d) {
  if (d == "BOOL" || d == "U8" || d == "I8" || d == "F8_E4M3" || d == "F8_E5M2") return 1;
  if (d == "BF16" || d == "F16" || d == "I16" || d == "U16") return 2;
  if (d == "F32" || d == "I32" || d == "U32") return 4;
  if (d == "F64" || d == "I64" || d == "U64") return 8;
  return 0;
}

std::uint16_t u16_at(const unsigned char* p) { return static_cast<std::uint16_t>(p[0] | (p[1] << 8)); }

}  // namespace

float bf16_to_float(std::uint16_t bits) { return std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16); }

float half_to_float(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  std::uint32_t exp = (h >> 10) & 0x1Fu, mant = h & 0x3FFu;
  if (exp == 0x1F) return std::bit_cast<float>(sign | 0x7F800000u | (mant << 13));  // inf / nan
  if (exp == 0) {
    if (mant == 0) return std::bit_cast<float>(sign);
    // Subnormal: normalise the mantissa.
    int shift = 0;
    while ((mant & 0x400u) == 0) {
      mant <<= 1;
      ++shift;
    }
    mant &= 0x3FFu;
    exp = static_cast<std::uint32_t>(1 - shift);
    return std::bit_cast<float>(sign | ((exp + 112) << 23) | (mant << 13));
  }
  return std::bit_cast<float>(sign | ((exp + 112) << 23) | (mant << 13));
}

std::int64_t TensorInfo::elements() const {
  std::int64_t n = 1;
  for (auto d : shape) n *= d;
  return n;
}

SafetensorsFile::SafetensorsFile(std::filesystem::path path) : path_(std::move(path)) {
  const std::string file = path_.string();
  const auto fail = [&](std::uint64_t at, const std::string& what) {
    throw ModelError(file + ": byte " + std::to_string(at) + ": " + what);
  };
  std::ifstream in(path_, std::ios::binary);
  if (!in) throw ModelError(file + ": cannot open the safetensors file");
  in.seekg(0, std::ios::end);
  const auto size = static_cast<std::uint64_t>(in.tellg());
  in.seekg(0);
  unsigned char len[8] = {};
  in.read(reinterpret_cast<char*>(len), 8);
  if (size < 8) fail(size, "truncated file: ends inside the 8-byte header length");
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | len[i];
  if (n > kMaxHeader) fail(0, "header length " + std::to_string(n) + " exceeds 100 MB (not a safetensors file?)");
  if (n > size - 8) fail(size, "truncated file: the header of " + std::to_string(n) + " bytes runs past the end");
  std::string header(n, '\0');
  in.read(header.data(), static_cast<std::streamsize>(n));
  data_start_ = 8 + n;
  const std::uint64_t data_size = size - data_start_;

  nlohmann::json j;
  try {
    j = nlohmann::json::parse(header);
  } catch (const nlohmann::json::parse_error& e) {
    fail(8 + (e.byte > 0 ? e.byte - 1 : 0), "header is not valid JSON");
  } catch (const nlohmann::json::out_of_range&) {
    fail(8, "header is not valid JSON (a number is out of range)");
  }
  if (!j.is_object()) fail(8, "header is not a JSON object");
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (it.key() == "__metadata__") continue;
    const std::string what = "tensor '" + it.key() + "': ";
    const auto& v = it.value();
    TensorInfo t;
    t.name = it.key();
    const auto dtype = v.is_object() ? v.find("dtype") : v.end();
    const auto shape = v.is_object() ? v.find("shape") : v.end();
    const auto offsets = v.is_object() ? v.find("data_offsets") : v.end();
    if (!v.is_object() || dtype == v.end() || !dtype->is_string() || shape == v.end() || !shape->is_array() ||
        offsets == v.end() || !offsets->is_array() || offsets->size() != 2)
      fail(8, what + "expected {\"dtype\", \"shape\", \"data_offsets\": [begin, end]}");
    t.dtype = dtype->get<std::string>();
    for (const auto& d : *shape) {
      if (!d.is_number_unsigned()) fail(8, what + "shape " + shape->dump() + " is not a list of sizes");
      t.shape.push_back(d.get<std::int64_t>());
    }
    if (!(*offsets)[0].is_number_unsigned() || !(*offsets)[1].is_number_unsigned())
      fail(8, what + "data_offsets " + offsets->dump() + " are not byte offsets");
    t.begin = (*offsets)[0].get<std::uint64_t>();
    t.end = (*offsets)[1].get<std::uint64_t>();
    const int bytes = dtype_bytes(t.dtype);
    if (bytes == 0) fail(8, what + "unknown dtype '" + t.dtype + "'");
    if (t.begin > t.end) fail(8, what + "data_offsets " + offsets->dump() + " run backwards");
    std::uint64_t need = static_cast<std::uint64_t>(bytes);
    for (auto d : t.shape) {
      if (d != 0 && need > data_size / static_cast<std::uint64_t>(d) + 1)
        fail(size, "truncated file: tensor '" + t.name + "' of shape " + shape->dump() + " is larger than the data");
      need *= static_cast<std::uint64_t>(d);
    }
    if (t.end - t.begin != need)
      fail(8, what + "data_offsets " + offsets->dump() + " hold " + std::to_string(t.end - t.begin) + " bytes, shape " +
                  shape->dump() + " of " + t.dtype + " needs " + std::to_string(need));
    if (t.end > data_size)
      fail(size, "truncated file: tensor '" + t.name + "' ends at data byte " + std::to_string(t.end) +
                     ", the data has " + std::to_string(data_size));
    tensors_.emplace(t.name, std::move(t));
  }
}

const TensorInfo* SafetensorsFile::find(const std::string& name) const {
  const auto it = tensors_.find(name);
  return it == tensors_.end() ? nullptr : &it->second;
}

void SafetensorsFile::read(const TensorInfo& t, float* out) const {
  if (t.dtype != "BF16" && t.dtype != "F16" && t.dtype != "F32")
    throw ModelError(path_.string() + ": tensor '" + t.name + "': dtype " + t.dtype +
                     " is not supported (BF16, F16, F32); convert the checkpoint first");
  if (t.end == t.begin) return;  // an empty tensor: nothing to read (and memcpy must not see null)
  std::ifstream in(path_, std::ios::binary);
  std::vector<unsigned char> raw(t.end - t.begin);
  in.seekg(static_cast<std::streamoff>(data_start_ + t.begin));
  in.read(reinterpret_cast<char*>(raw.data()), static_cast<std::streamsize>(raw.size()));
  if (static_cast<std::size_t>(in.gcount()) != raw.size())
    throw ModelError(path_.string() + ": byte " + std::to_string(data_start_ + t.begin) + ": tensor '" + t.name +
                     "': read failed (file changed since it was opened?)");
  const auto n = static_cast<std::size_t>(t.elements());
  if (t.dtype == "F32") {
    if constexpr (std::endian::native == std::endian::little) {
      std::memcpy(out, raw.data(), raw.size());
    } else {
      for (std::size_t i = 0; i < n; ++i)
        out[i] = std::bit_cast<float>(static_cast<std::uint32_t>(u16_at(&raw[4 * i])) |
                                      static_cast<std::uint32_t>(u16_at(&raw[4 * i + 2])) << 16);
    }
  } else if (t.dtype == "BF16") {
    for (std::size_t i = 0; i < n; ++i) out[i] = bf16_to_float(u16_at(&raw[2 * i]));
  } else {
    for (std::size_t i = 0; i < n; ++i) out[i] = half_to_float(u16_at(&raw[2 * i]));
  }
}

}  // namespace moesim::models::functional
