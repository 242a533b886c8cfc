// Numeric formats of weights, KV cache and communication payloads.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

namespace moesim::models {

// The two 4-bit formats differ in their block scales (OCP Microscaling Formats v1.0; NVIDIA's
// NVFP4, Blackwell architecture technical brief): MXFP4 carries an E8M0 scale per 32 values and
// is computed against 8-bit activations (W4A8: gpt-oss's checkpoints); NVFP4 carries an E4M3
// scale per 16 values and quantises activations to NVFP4 as well (W4A4: NVIDIA's FP4 DeepSeek-R1).
enum class DType { kMxfp4, kNvfp4, kFp8, kInt8, kBf16, kFp16, kFp32 };

// Storage bytes per element (FP4 is 0.5; block scales are accounted separately by callers).
double bytes_per_element(DType t);
// Bytes per cached element (KV cache), block scales included: FP4 caches carry their block
// scales (NVFP4 an E4M3 scale per 16 values, as TensorRT-LLM's NVFP4 KV cache; MXFP4 an E8M0
// scale per 32, OCP MX); FP8 and INT8 caches one scale per tensor or head, negligible per token.
double cache_bytes_per_element(DType t);
bool is_fp4(DType t);
std::string_view to_string(DType t);
std::optional<DType> parse_dtype(std::string_view name);  // "fp8", "bf16", ...
std::vector<std::string_view> dtype_names();              // every name parse_dtype takes, in order

}  // namespace moesim::models
