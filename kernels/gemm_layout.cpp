#include "kernels/gemm_layout.h"

namespace moesim::kernels {
namespace {

// cuBLAS's tensor-core kernels read operands in 16-byte vectors (cuBLAS documentation, "Tensor
// Core Usage").
constexpr std::int64_t kCublasPointerAlignment = 16;
// cuBLASLt's FP8 matmuls need leading dimensions that are multiples of 16 elements (cuBLAS
// documentation, cublasLtMatmul, FP8 requirements).
constexpr std::int64_t kLtFp8Multiple = 16;

std::int64_t bytes_of(std::int64_t elements, ElementType t) {
  return static_cast<std::int64_t>(static_cast<double>(elements) * element_bytes(t));
}

}  // namespace

ElementType gemm_output_type(ElementType t) { return t == ElementType::kFp8E4M3 ? ElementType::kBf16 : t; }

std::vector<GroupOffsets> packed_group_offsets(const GemmShape& s) {
  std::vector<GroupOffsets> out;
  std::int64_t row = 0;
  for (std::size_t g = 0; g < s.m_per_group.size(); ++g) {
    const std::int64_t m = s.m_per_group[g];
    if (m > 0)
      out.push_back({g, m, bytes_of(row * s.k, s.type), bytes_of(static_cast<std::int64_t>(g) * s.k * s.n, s.type),
                     bytes_of(row * s.n, gemm_output_type(s.type))});
    row += m;
  }
  return out;
}

int pointer_alignment(std::uint64_t address, int cap) {
  int a = 1;
  while (a < cap && address % (2 * static_cast<std::uint64_t>(a)) == 0) a *= 2;
  return a;
}

std::string cuda_gemm_layout_problem(const GemmShape& s) {
  if (s.type == ElementType::kFp8E4M3 && (s.k % kLtFp8Multiple != 0 || s.n % kLtFp8Multiple != 0))
    return "fp8 gemm: cuBLASLt FP8 needs n and k multiples of 16, got n=" + std::to_string(s.n) +
           " k=" + std::to_string(s.k);
  const std::string dtype(element_type_name(s.type));
  for (const GroupOffsets& o : packed_group_offsets(s)) {
    const std::pair<const char*, std::int64_t> parts[] = {{"activations", o.x}, {"weights", o.w}, {"outputs", o.y}};
    for (const auto& [what, offset] : parts)
      if (offset % kCublasPointerAlignment != 0)
        return "gemm: " + dtype + " group " + std::to_string(o.group) + "'s " + what + " start at byte " +
               std::to_string(offset) + " of the packed buffer, not 16-byte aligned (cuBLAS's tensor-core kernels " +
               "need 16-byte aligned operands: k and n times the element size must be multiples of 16 bytes)";
  }
  return "";
}

}  // namespace moesim::kernels
