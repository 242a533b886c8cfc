// How the CUDA GEMM benchmark lays out a grouped GEMM in memory, and the alignment rules that
// layout must meet, as plain functions so that they are checked without a GPU.
//
// The operands of all groups are packed one after another (as an MoE layer's permuted tokens
// are): activations [rows][K], weights one [K][N] (FP8: [N][K]) per group, outputs [rows][N].
// Each group's pointers therefore sit at byte offsets set by the rows before it, and two
// libraries care about those offsets:
//   - cuBLAS's tensor-core kernels need 16-byte aligned operand pointers (cuBLAS documentation,
//     "Tensor Core Usage"); cublasGemmGroupedBatchedEx takes one pointer per group, so with
//     16-bit types a row of K·2 or N·2 bytes that is not a multiple of 16 misaligns every other
//     group. Such a shape is refused (the deployments' hidden sizes are multiples of 128).
//   - cuBLASLt's algorithm search assumes 256-byte aligned pointers unless told otherwise
//     (CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_*_BYTES, default 256, cublasLt.h); an expert that
//     starts 17 rows of 128 FP8 bytes into the buffer is only 128-byte aligned. The FP8 path
//     passes each group's true alignment (pointer_alignment) to the search.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kernels/gemm_bench.h"

namespace moesim::kernels {

// Byte offsets of one non-empty group's operands from the start of each packed buffer.
struct GroupOffsets {
  std::size_t group = 0;  // index in m_per_group
  std::int64_t rows = 0;
  std::int64_t x = 0, w = 0, y = 0;
};

// The output element type of a GEMM of `t` operands: BF16 for FP8, `t` otherwise.
ElementType gemm_output_type(ElementType t);

// Every non-empty group of `shape`, in order (empty groups have no pointers: no launch).
std::vector<GroupOffsets> packed_group_offsets(const GemmShape& shape);

// The largest power of two, at most `cap`, that divides `address` (`cap` for 0): the alignment
// a pointer at that address (or offset from a cudaMalloc'd base, itself 256-byte aligned) has.
int pointer_alignment(std::uint64_t address, int cap = 256);

// Why the CUDA backend cannot run `shape` as laid out above (one line), or "" when it can:
// FP8 needs n and k multiples of 16 (cuBLASLt's FP8 kernels); every group's operands must start
// 16-byte aligned. Bounds (positive n and k, rows >= 0, one group for a dense GEMM) are checked
// before this.
std::string cuda_gemm_layout_problem(const GemmShape& shape);

}  // namespace moesim::kernels
