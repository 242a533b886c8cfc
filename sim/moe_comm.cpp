#include "sim/moe_comm.h"

#include <string>

#include "topology/cluster.h"

namespace moesim::sim {
namespace {

constexpr std::string_view kGatherScatter = "allgather-reducescatter";

}  // namespace

std::vector<workloads::RegistryEntry> moe_comm_algorithms() {
  std::vector<workloads::RegistryEntry> out;
  for (const topology::AllToAllAlgorithm* a : topology::all_to_all_registry())
    out.push_back({a->name(), a->description()});
  out.push_back({kGatherScatter,
                 "AllGather of every rank's tokens, local experts, ReduceScatter of the outputs "
                 "(TensorRT-LLM at small EP)"});
  return out;
}

const topology::AllToAllAlgorithm* find_moe_comm(std::string_view name) {
  for (const topology::AllToAllAlgorithm* a : topology::all_to_all_registry())
    if (a->name() == name) return a;
  if (name == kGatherScatter) return nullptr;
  throw topology::TopologyError("unknown all-to-all algorithm '" + std::string(name) +
                                "' (valid: " + workloads::join_names(moe_comm_algorithms()) + ")");
}

}  // namespace moesim::sim
