#include "sim/moe_comm.h"

#include "topology/all_to_all.h"

namespace moesim::sim {

std::vector<workloads::RegistryEntry> moe_comm_algorithms() {
  std::vector<workloads::RegistryEntry> out;
  for (const auto& a : topology::all_to_all_algorithms()) out.push_back({a.name, a.description});
  out.push_back({kGatherScatter,
                 "AllGather of every rank's tokens, local experts, ReduceScatter of the outputs "
                 "(TensorRT-LLM at small EP)"});
  return out;
}

}  // namespace moesim::sim
