#include "kernels/cuda_fill.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include "kernels/cuda_check.h"

namespace moesim::kernels {
namespace {

__device__ float value_at(std::size_t i, std::uint32_t seed) {
  // A 32-bit integer hash (murmur3 finaliser) of index and seed, mapped to [-1, 1).
  std::uint32_t h = static_cast<std::uint32_t>(i) ^ (static_cast<std::uint32_t>(i >> 32) * 0x9e3779b9u) ^ seed;
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  h ^= h >> 16;
  return static_cast<float>(h >> 8) * (1.0f / 8388608.0f) - 1.0f;
}

template <typename T>
__global__ void fill_kernel(T* out, std::size_t n, std::uint32_t seed) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    out[i] = static_cast<T>(value_at(i, seed));
}

template <typename T>
void launch(void* data, std::size_t n, std::uint32_t seed, cudaStream_t stream) {
  if (n == 0) return;
  const unsigned blocks = static_cast<unsigned>(n / 256 + 1 < 4096 ? n / 256 + 1 : 4096);
  fill_kernel<T><<<blocks, 256, 0, stream>>>(static_cast<T*>(data), n, seed);
  cuda_check(cudaGetLastError(), "fill kernel launch");
}

template <typename T>
__global__ void to_float_kernel(const T* in, float* out, std::size_t n) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    out[i] = static_cast<float>(in[i]);
}

template <typename T>
void launch_to_float(const void* in, float* out, std::size_t n, cudaStream_t stream) {
  if (n == 0) return;
  const unsigned blocks = static_cast<unsigned>(n / 256 + 1 < 4096 ? n / 256 + 1 : 4096);
  to_float_kernel<T><<<blocks, 256, 0, stream>>>(static_cast<const T*>(in), out, n);
  cuda_check(cudaGetLastError(), "conversion kernel launch");
}

__global__ void fill_float_kernel(float* out, std::size_t n, float value) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    out[i] = value;
}

__device__ unsigned long long global_timer_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void gate_kernel(const volatile int* open, volatile int* timed_out, unsigned long long timeout_ns) {
  const unsigned long long start = global_timer_ns();
  while (*open == 0)
    if (global_timer_ns() - start > timeout_ns) {
      *timed_out = 1;
      return;
    }
}

}  // namespace

void fill_float_device(float* data, std::size_t elements, float value, cudaStream_t stream) {
  if (elements == 0) return;
  const unsigned blocks = static_cast<unsigned>(elements / 256 + 1 < 4096 ? elements / 256 + 1 : 4096);
  fill_float_kernel<<<blocks, 256, 0, stream>>>(data, elements, value);
  cuda_check(cudaGetLastError(), "fill kernel launch");
}

void wait_for_gate(const int* open, int* timed_out, unsigned long long timeout_ns, cudaStream_t stream) {
  gate_kernel<<<1, 1, 0, stream>>>(open, timed_out, timeout_ns);
  cuda_check(cudaGetLastError(), "launch gate kernel launch");
}

void to_float_device(const void* src, ElementType type, float* dst, std::size_t elements, cudaStream_t stream) {
  switch (type) {
    case ElementType::kFp32: return launch_to_float<float>(src, dst, elements, stream);
    case ElementType::kFp16: return launch_to_float<__half>(src, dst, elements, stream);
    case ElementType::kBf16: return launch_to_float<__nv_bfloat16>(src, dst, elements, stream);
    case ElementType::kFp8E4M3: return launch_to_float<__nv_fp8_e4m3>(src, dst, elements, stream);
  }
}

void fill_device(void* data, std::size_t elements, ElementType type, std::uint32_t seed, cudaStream_t stream) {
  switch (type) {
    case ElementType::kFp32: return launch<float>(data, elements, seed, stream);
    case ElementType::kFp16: return launch<__half>(data, elements, seed, stream);
    case ElementType::kBf16: return launch<__nv_bfloat16>(data, elements, seed, stream);
    case ElementType::kFp8E4M3: return launch<__nv_fp8_e4m3>(data, elements, seed, stream);
  }
}

void scrub_cache(void* scratch, std::size_t bytes, cudaStream_t stream) {
  if (bytes > 0) cuda_check(cudaMemsetAsync(scratch, 0x5a, bytes, stream), "cudaMemsetAsync (cache scrub)");
}

}  // namespace moesim::kernels
