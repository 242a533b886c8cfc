#include "models/dtype.h"

#include <array>
#include <utility>

namespace moesim::models {
namespace {
constexpr std::array<std::pair<DType, std::string_view>, 6> kNames{{
    {DType::kFp4, "fp4"},
    {DType::kFp8, "fp8"},
    {DType::kInt8, "int8"},
    {DType::kBf16, "bf16"},
    {DType::kFp16, "fp16"},
    {DType::kFp32, "fp32"},
}};
}  // namespace

double bytes_per_element(DType t) {
  switch (t) {
    case DType::kFp4: return 0.5;
    case DType::kFp8:
    case DType::kInt8: return 1.0;
    case DType::kBf16:
    case DType::kFp16: return 2.0;
    case DType::kFp32: return 4.0;
  }
  return 0.0;
}

std::string_view to_string(DType t) {
  for (const auto& [d, n] : kNames)
    if (d == t) return n;
  return "?";
}

std::optional<DType> parse_dtype(std::string_view name) {
  for (const auto& [d, n] : kNames)
    if (n == name) return d;
  return std::nullopt;
}

}  // namespace moesim::models
