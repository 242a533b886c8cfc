#include "sim/deployment.h"

#include <algorithm>

#include "sim/deployment_rules.h"

namespace moesim::sim {

const char* to_string(PoolRole role) {
  switch (role) {
    case PoolRole::kColocated: return "colocated";
    case PoolRole::kPrefill: return "prefill";
    case PoolRole::kDecode: return "decode";
  }
  return "?";
}

std::vector<std::pair<int, int>> split_layers(int layers, int stages) {
  std::vector<int> count(static_cast<std::size_t>(stages), layers / stages);
  // vLLM's get_pp_indices: the remainder goes to the stages before the last, one each.
  for (int i = 0; i < layers % stages; ++i) ++count[static_cast<std::size_t>(stages - 2 - i)];
  std::vector<std::pair<int, int>> out;
  int first = 0;
  for (int c : count) {
    out.emplace_back(first, first + c);
    first += c;
  }
  return out;
}

InstanceLayout::InstanceLayout(const PoolLayout& pool, int instance, int stage)
    : pool_(&pool),
      instance_(instance),
      stage_(stage),
      ep_(pool.config.moe_ep),
      moe_tp_(pool.config.moe_tp),
      first_layer_(pool.stage_layers[static_cast<std::size_t>(stage)].first),
      end_layer_(pool.stage_layers[static_cast<std::size_t>(stage)].second),
      last_stage_(stage + 1 == pool.config.pipeline_stages) {
  const auto& all = pool.instance_devices[static_cast<std::size_t>(instance)];
  const auto per = static_cast<std::size_t>(pool.config.stage_ranks());
  const auto first = all.begin() + static_cast<std::ptrdiff_t>(per * static_cast<std::size_t>(stage));
  devices_.assign(first, first + static_cast<std::ptrdiff_t>(per));
}

InstanceLayout InstanceLayout::with_layers(int first, int end) const {
  InstanceLayout v = *this;
  v.first_layer_ = first;
  v.end_layer_ = end;
  v.last_stage_ = true;
  return v;
}

InstanceLayout InstanceLayout::moe_view() const {
  InstanceLayout v = *this;
  if (moe_tp_ <= 1) return v;
  v.devices_.clear();
  for (std::size_t r = 0; r < devices_.size(); r += static_cast<std::size_t>(moe_tp_))
    v.devices_.push_back(devices_[r]);
  v.moe_tp_ = 1;
  return v;
}

namespace {

std::string str(int v) { return std::to_string(v); }

PoolLayout layout_pool(const PoolConfig& p, const models::ModelSpec& model, const calibration::HardwareProfile& hw,
                       int devices_per_node) {
  const std::string name = std::string(to_string(p.role)) + " pool: ";
  if (const auto bad = pool_problem(p, model, devices_per_node)) throw DeploymentError(name + bad->text());
  PoolLayout pool;
  pool.config = p;
  pool.hardware = hw;
  pool.stage_layers = split_layers(model.num_layers, p.pipeline_stages);
  if (model.routed_experts > 0) pool.slots_per_rank = (model.routed_experts + p.placement.redundant) / p.moe_ep;
  models::MemoryOptions mem;
  mem.ep = p.moe_ep;
  mem.redundant_experts = p.placement.redundant;
  mem.attention_tp = p.attention_tp;
  mem.moe_tp = p.moe_tp;
  mem.shared_expert_split = p.moe_tp > 1 ? p.stage_ranks() : 1;
  mem.moe_token_groups = p.moe_tp > 1 ? p.attention_dp : 1;
  mem.token_budget_per_rank = p.batch.token_budget_per_rank;
  mem.capacity_bytes = hw.hbm_bytes;
  mem.load_mtp = p.speculative.enabled() && p.speculative.method == SpeculativeMethod::kMtp;
  if (p.speculative.enabled() && p.speculative.method == SpeculativeMethod::kDraft)
    mem.draft_model = &p.speculative.draft_model;
  if (p.afd.enabled()) {
    mem.side = models::MemorySide::kExperts;
    // An expert rank receives the tokens of attention_ranks / expert_ranks attention ranks' budgets.
    mem.token_budget_per_rank =
        (p.batch.token_budget_per_rank * p.attention_ranks() + p.expert_ranks() - 1) / p.expert_ranks();
    const models::MemoryPlan experts = models::plan_rank_memory(model, mem);
    pool.expert_memory = experts;
    if (!(experts.kv_bytes >= 0))
      throw DeploymentError("out of memory: " + name + model.name + "'s experts on " + str(p.expert_ranks()) + " x " +
                            hw.name + " (ep " + str(p.moe_ep) + ") do not fit:\n" + experts.table());
    mem.side = models::MemorySide::kAttention;
    mem.token_budget_per_rank = p.batch.token_budget_per_rank;
  }
  for (std::size_t s = 0; s < pool.stage_layers.size(); ++s) {
    mem.layer_begin = pool.stage_layers[s].first;
    mem.layer_end = pool.stage_layers[s].second;
    const models::MemoryPlan plan = models::plan_rank_memory(model, mem);
    const std::string stage = p.pipeline_stages == 1 ? "" : ", stage " + str(static_cast<int>(s));
    if (!plan.fits())
      throw DeploymentError("out of memory: " + name + model.name + " on " + std::to_string(p.ranks) + " x " + hw.name +
                            " (ep " + std::to_string(p.moe_ep) + stage + ") leaves no room for the KV cache:\n" +
                            plan.table());
    if (s == 0 || plan.kv_capacity_tokens < pool.memory.kv_capacity_tokens) pool.memory = plan;
  }
  return pool;
}

}  // namespace

Deployment::Deployment(const DeploymentConfig& config, const models::ModelSpec& model,
                       const calibration::HardwareProfile& hw, const topology::Cluster& cluster)
    : disaggregated_(config.disaggregated) {
  if (const auto why = pool_hardware_problem(config, hw, cluster.config().devices_per_node); !why.empty())
    throw DeploymentError(why);
  int next_device = 0;
  for (const PoolConfig& p : config.pools()) {
    PoolLayout pool = layout_pool(p, model, pool_hardware(p, hw), cluster.config().devices_per_node);
    const int needed = p.instances * p.ranks;
    if (next_device + needed > cluster.num_devices())
      throw DeploymentError("the pools need " + std::to_string(next_device + needed) + " devices; the cluster has " +
                            std::to_string(cluster.num_devices()));
    for (int i = 0; i < p.instances; ++i) {
      std::vector<int> devices(static_cast<std::size_t>(p.ranks));
      for (int r = 0; r < p.ranks; ++r) devices[static_cast<std::size_t>(r)] = next_device++;
      pool.instance_devices.push_back(std::move(devices));
    }
    pools_.push_back(std::move(pool));
  }
}

namespace {

// Each pool's first device and device count, in device order.
struct PoolSpan {
  const PoolConfig* pool;
  std::int64_t first, count;
};
std::vector<PoolSpan> pool_spans(const std::vector<PoolConfig>& pools) {
  std::vector<PoolSpan> out;
  std::int64_t next = 0;
  for (const auto& p : pools) {
    const std::int64_t n = std::int64_t{p.instances} * p.ranks;
    out.push_back({&p, next, n});
    next += n;
  }
  return out;
}

}  // namespace

std::string pool_hardware_problem(const DeploymentConfig& config, const calibration::HardwareProfile& fallback,
                                  int devices_per_node) {
  const std::vector<PoolConfig> pools = config.pools();
  const auto spans = pool_spans(pools);
  const std::int64_t per_node = std::max(1, devices_per_node);
  for (std::size_t a = 0; a + 1 < spans.size(); ++a) {
    const PoolSpan &x = spans[a], &y = spans[a + 1];
    const auto& hx = pool_hardware(*x.pool, fallback);
    const auto& hy = pool_hardware(*y.pool, fallback);
    if (hx.name == hy.name || x.count == 0 || y.count == 0) continue;
    const std::int64_t last_node = (x.first + x.count - 1) / per_node, next_node = y.first / per_node;
    if (last_node == next_node)
      return std::string("node ") + std::to_string(next_node) + " would hold both " + hx.name + " (" +
             to_string(x.pool->role) + " pool) and " + hy.name + " (" + to_string(y.pool->role) +
             " pool) devices: a scale-up domain holds one kind of device, so the " + to_string(x.pool->role) +
             " pool's " + std::to_string(x.count) + " devices must fill whole nodes of " + std::to_string(per_node);
  }
  return "";
}

std::vector<topology::ClusterConfig::NodeGroup> pool_node_groups(const DeploymentConfig& config,
                                                                 const calibration::HardwareProfile& fallback,
                                                                 int devices_per_node) {
  const std::vector<PoolConfig> pools = config.pools();
  std::vector<topology::ClusterConfig::NodeGroup> groups;
  const std::int64_t per_node = std::max(1, devices_per_node);
  for (const PoolSpan& s : pool_spans(pools)) {
    const auto& hw = pool_hardware(*s.pool, fallback);
    if (hw.name == fallback.name || s.count == 0) continue;
    topology::ClusterConfig::NodeGroup g;
    g.first_node = static_cast<int>(s.first / per_node);
    g.nodes = static_cast<int>((s.first + s.count - 1) / per_node) - g.first_node + 1;
    g.scaleup_bytes_per_s = hw.scaleup_bytes_per_s;
    g.nic_bytes_per_s = hw.nic_bytes_per_s;
    groups.push_back(g);
  }
  return groups;
}

models::MemoryPlan PoolLayout::mean_weights() const {
  if (!config.afd.enabled()) return memory;
  models::MemoryPlan m = memory;
  const double a = config.attention_ranks(), e = config.expert_ranks();
  m.weight_bytes = (memory.weight_bytes * a + expert_memory.weight_bytes * e) / (a + e);
  m.routed_expert_bytes = (memory.routed_expert_bytes * a + expert_memory.routed_expert_bytes * e) / (a + e);
  return m;
}

int Deployment::total_ranks() const {
  int n = 0;
  for (const auto& p : pools_) n += p.config.instances * p.config.ranks;
  return n;
}

}  // namespace moesim::sim
