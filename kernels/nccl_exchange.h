// The NCCL calls of one all-to-all-v repetition for one rank, shared by the single-process and
// the MPI benchmarks: ncclAlltoAll when the pattern is uniform, otherwise one ncclSend and one
// ncclRecv per peer with traffic (the rank's own chunk is not sent), to be enqueued inside
// ncclGroupStart/ncclGroupEnd. Buffers are laid out by peer in rank order (kernels/all_to_all_bench.h).
#pragma once

#include <cuda_runtime.h>
#include <nccl.h>

#include <cstdint>
#include <string>

#include "kernels/all_to_all_bench.h"
#include "kernels/nccl_check.h"

namespace moesim::kernels {

// Bytes rank `rank` sends (row sum) and receives (column sum).
inline std::int64_t send_total(const AllToAllPattern& p, int rank) {
  std::int64_t s = 0;
  for (int d = 0; d < p.ranks; ++d) s += p.bytes[static_cast<std::size_t>(rank * p.ranks + d)];
  return s;
}
inline std::int64_t recv_total(const AllToAllPattern& p, int rank) {
  std::int64_t s = 0;
  for (int src = 0; src < p.ranks; ++src) s += p.bytes[static_cast<std::size_t>(src * p.ranks + rank)];
  return s;
}

inline void check_pattern_size(const AllToAllPattern& p, int ranks) {
  if (p.ranks != ranks || p.bytes.size() != static_cast<std::size_t>(ranks) * static_cast<std::size_t>(ranks))
    throw KernelError("all-to-all: pattern for " + std::to_string(p.ranks) + " ranks on a bench of " +
                      std::to_string(ranks));
  for (auto b : p.bytes)
    if (b < 0) throw KernelError("all-to-all: negative byte count");
}

inline void enqueue_exchange(const AllToAllPattern& p, int rank, const char* send, char* recv, ncclComm_t comm,
                             cudaStream_t stream) {
  if (p.uniform()) {
    nccl_check(ncclAlltoAll(send, recv, static_cast<std::size_t>(p.bytes[0]), ncclChar, comm, stream), "ncclAlltoAll");
    return;
  }
  std::int64_t send_off = 0, recv_off = 0;
  for (int peer = 0; peer < p.ranks; ++peer) {
    const std::int64_t out = p.bytes[static_cast<std::size_t>(rank * p.ranks + peer)];
    const std::int64_t in = p.bytes[static_cast<std::size_t>(peer * p.ranks + rank)];
    if (peer != rank) {
      if (out > 0)
        nccl_check(ncclSend(send + send_off, static_cast<std::size_t>(out), ncclChar, peer, comm, stream), "ncclSend");
      if (in > 0)
        nccl_check(ncclRecv(recv + recv_off, static_cast<std::size_t>(in), ncclChar, peer, comm, stream), "ncclRecv");
    }
    send_off += out;
    recv_off += in;
  }
}

}  // namespace moesim::kernels
