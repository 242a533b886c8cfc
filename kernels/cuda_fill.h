// Device-side helpers of the GPU benchmarks (kernels/cuda_fill.cu): filling operand buffers with
// small pseudo-random values of any element type or with one FP32 value, scrubbing the L2 cache
// between runs, and the launch gate's kernel (kernels/launch_gate.h).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "kernels/bench_types.h"

namespace moesim::kernels {

// `elements` values in [-1, 1) (hash of index and seed), converted to `type`, on `stream`.
void fill_device(void* data, std::size_t elements, ElementType type, std::uint32_t seed, cudaStream_t stream);

// `elements` FP32 values equal to `value`, on `stream` (scale factors).
void fill_float_device(float* data, std::size_t elements, float value, cudaStream_t stream);

// Writes `bytes` of `scratch` so that the next kernel finds none of its operands in L2.
void scrub_cache(void* scratch, std::size_t bytes, cudaStream_t stream);

// Enqueues on `stream` one thread that spins until the host sets *open (mapped pinned memory)
// to non-zero, or until `timeout_ns` have passed on the GPU's global timer; then it sets
// *timed_out to 1.
void wait_for_gate(const int* open, int* timed_out, unsigned long long timeout_ns, cudaStream_t stream);

}  // namespace moesim::kernels

namespace moesim::kernels {

// Converts `elements` values of `type` at `src` to FP32 at `dst` (both device memory).
void to_float_device(const void* src, ElementType type, float* dst, std::size_t elements, cudaStream_t stream);

}  // namespace moesim::kernels
