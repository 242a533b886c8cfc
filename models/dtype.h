// Numeric formats of weights, KV cache and communication payloads.
#pragma once

#include <optional>
#include <string_view>

namespace moesim::models {

enum class DType { kFp4, kFp8, kInt8, kBf16, kFp16, kFp32 };

// Storage bytes per element (FP4 is 0.5; block scales are accounted separately by callers).
double bytes_per_element(DType t);
std::string_view to_string(DType t);
std::optional<DType> parse_dtype(std::string_view name);  // "fp8", "bf16", ...

}  // namespace moesim::models
