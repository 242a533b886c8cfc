#include "models/dtype.h"

#include <array>
#include <utility>

namespace moesim::models {
namespace {
constexpr std::array<std::pair<DType, std::string_view>, 7> kNames{{
    {DType::kMxfp4, "mxfp4"},
    {DType::kNvfp4, "nvfp4"},
    {DType::kFp8, "fp8"},
    {DType::kInt8, "int8"},
    {DType::kBf16, "bf16"},
    {DType::kFp16, "fp16"},
    {DType::kFp32, "fp32"},
}};
}  // namespace

double bytes_per_element(DType t) {
  switch (t) {
    case DType::kMxfp4:
    case DType::kNvfp4: return 0.5;
    case DType::kFp8:
    case DType::kInt8: return 1.0;
    case DType::kBf16:
    case DType::kFp16: return 2.0;
    case DType::kFp32: return 4.0;
  }
  return 0.0;
}

double cache_bytes_per_element(DType t) {
  if (t == DType::kNvfp4) return 0.5 + 1.0 / 16.0;
  if (t == DType::kMxfp4) return 0.5 + 1.0 / 32.0;
  return bytes_per_element(t);
}

bool is_fp4(DType t) { return t == DType::kMxfp4 || t == DType::kNvfp4; }

std::string_view to_string(DType t) {
  for (const auto& [d, n] : kNames)
    if (d == t) return n;
  return "?";
}

std::vector<std::string_view> dtype_names() {
  std::vector<std::string_view> out;
  for (const auto& [d, n] : kNames) out.push_back(n);
  return out;
}

std::optional<DType> parse_dtype(std::string_view name) {
  for (const auto& [d, n] : kNames)
    if (n == name) return d;
  return std::nullopt;
}

}  // namespace moesim::models
