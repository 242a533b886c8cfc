// One captured CUDA graph (kernels/ GPU sources only): the work `issue` enqueues on a stream,
// recorded once and replayed with one launch, so that a loop of library calls (the FP8 grouped
// GEMM's matmul per expert) runs without host launches between them.
#pragma once

#include <cuda_runtime.h>

#include <functional>

#include "kernels/cuda_check.h"

namespace moesim::kernels {

class CudaGraph {
 public:
  // Captures what `issue` enqueues on `stream` (which must be idle) and instantiates it.
  CudaGraph(cudaStream_t stream, const std::function<void()>& issue) {
    cuda_check(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture");
    cudaGraph_t graph = nullptr;
    try {
      issue();
    } catch (...) {
      cudaStreamEndCapture(stream, &graph);
      if (graph) cudaGraphDestroy(graph);
      throw;
    }
    cuda_check(cudaStreamEndCapture(stream, &graph), "cudaStreamEndCapture");
    const cudaError_t e = cudaGraphInstantiate(&exec_, graph, 0);
    cudaGraphDestroy(graph);
    cuda_check(e, "cudaGraphInstantiate");
  }
  CudaGraph(const CudaGraph&) = delete;
  CudaGraph& operator=(const CudaGraph&) = delete;
  ~CudaGraph() {
    if (exec_) cudaGraphExecDestroy(exec_);
  }

  void launch(cudaStream_t stream) const { cuda_check(cudaGraphLaunch(exec_, stream), "cudaGraphLaunch"); }

 private:
  cudaGraphExec_t exec_ = nullptr;
};

}  // namespace moesim::kernels
