#include "sim/simulation.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>

#include "calibration/cost_model.h"
#include "sim/check.h"
#include "sim/deployment.h"
#include "sim/event_queue.h"
#include "sim/invariants.h"
#include "sim/pipeline_step.h"
#include "sim/request_router.h"
#include "sim/scheduler.h"
#include "sim/step_workers.h"
#include "topology/collectives.h"
#include "workloads/arrivals.h"
#include "workloads/prefix_hit.h"
#include "workloads/routing_model.h"

namespace moesim::sim {
namespace {

// At one instant: arrivals and KV arrivals join before a step end starts the next step.
constexpr int kArrivalPriority = 0;
constexpr int kKvArrivalPriority = 1;
// KV hand-off queues per device: to a peer of its scale-up domain (0) or across the network (1).
constexpr std::size_t kKvLinkClasses = 2;
constexpr int kStepEndPriority = 2;

struct Instance {
  Instance(const SimulationConfig& c, const PoolLayout& pool, int pool_index, int index,
           const topology::Cluster& cluster, const calibration::CostModel& cost, const workloads::RoutingModel& routing,
           const std::vector<workloads::Request>& requests, std::vector<RequestRecord>& records)
      : pool_index(pool_index),
        scheduler(pool.config, pool.memory.kv_capacity_tokens, requests, records,
                  workloads::make_stream(
                      c.seed, std::string("speculative.") + to_string(pool.config.role) + "." + std::to_string(index))),
        step_model(c.model, pool, index, cluster, cost, routing),
        layout(step_model.layout()),
        rng(workloads::make_stream(
            c.seed, std::string("routing.") + to_string(pool.config.role) + "." + std::to_string(index))),
        next_rebalance_s(pool.config.placement.rebalance_interval_s),
        work(c.model, pool.mean_weights(), pool.config.ranks, pool.slots_per_rank * pool.config.expert_ranks()) {
    scheduler.reserve_state_tokens(pool.memory.state_tokens_per_request());
  }
  int pool_index;
  Scheduler scheduler;
  InstanceStep step_model;
  const InstanceLayout& layout;  // the first pipeline stage
  workloads::Rng rng;
  std::vector<RankBatch> batches;
  bool busy = false;
  bool waking = false;  // an idle instance's next step is scheduled for this instant
  std::int64_t steps = 0;
  double next_rebalance_s;
  StepWorkCounter work;  // what a step does, for its power (sim/energy.h)
  // What the instance's steps add up (the per-layer split, the load statistics as a pool of one
  // instance), summed into its pool's at the end in instance order: the sums are then the same
  // whether the instances' steps are computed one by one or on several threads.
  LayerBreakdown own_breakdown;
  LoadStats own_load;
};

// A step computed on the step workers while the run reads ahead (SimulationConfig::threads).
struct StepInFlight {
  Instance* instance = nullptr;
  StepRecord record;
  std::size_t record_index = 0;  // its place in steps_
  Time start;
  Time bound;                // start + a lower bound of its duration: nothing at or after it runs before it ends
  std::uint64_t seq = 0;     // its end event's, reserved when it started
  std::uint64_t ticket = 0;  // its job's
  Duration duration;         // written by the job
};

class ServingRun {
 public:
  explicit ServingRun(const SimulationConfig& c)
      : config_(c),
        wall_start_(std::chrono::steady_clock::now()),
        cluster_(c.fabric ? *c.fabric : topology::Cluster(c.cluster)),
        deployment_(c.deployment, c.model, c.hardware, cluster_),
        routing_(workloads::make_routing_model(c.routing, workloads::routing_shape(c.model),
                                               workloads::make_stream(c.seed, "routing-model")())),
        arrival_rng_(workloads::make_stream(c.seed, "arrivals")),
        requests_(workloads::generate_requests(c.workload, arrival_rng_)),
        router_(c.deployment.router) {
    records_.resize(requests_.size());
    for (std::size_t i = 0; i < requests_.size(); ++i)
      if (requests_[i].arrival_ns != workloads::kArrivesOnRelease) timed_.push_back(i);
    kv_send_free_.assign(static_cast<std::size_t>(cluster_.num_devices()) * kKvLinkClasses, Time{});
    kv_recv_free_ = kv_send_free_;
    for (std::size_t i = 0; i < requests_.size(); ++i) {
      const auto& q = requests_[i];
      auto& r = records_[i];
      r.id = q.id;
      r.arrival_ns = q.arrival_ns;
      r.input_tokens = q.input_tokens;
      r.output_tokens = q.output_tokens;
    }
    const auto& pools = deployment_.pools();
    pool_results_.resize(pools.size());
    for (std::size_t p = 0; p < pools.size(); ++p) {
      // Each pool's own cost model, and a power meter per kind of device (sim/energy.h).
      costs_.push_back(calibration::make_cost_model(c.cost_model, pools[p].hardware));
      std::size_t meter = 0;
      while (meter < meters_.size() && meters_[meter].hardware != pools[p].hardware.name) ++meter;
      if (meter == meters_.size())
        meters_.push_back({pools[p].hardware.name, PowerModel(pools[p].hardware, c.model, *costs_.back())});
      meters_[meter].gpus += pools[p].config.instances * pools[p].config.ranks;
      pool_meter_.push_back(meter);
      pool_results_[p].hardware = pools[p].hardware.name;
      pool_results_[p].role = pools[p].config.role;
      pool_results_[p].instances = pools[p].config.instances;
      pool_results_[p].ranks = pools[p].config.ranks;
      if (pools[p].config.afd.enabled()) {
        pool_results_[p].afd_attention_ranks = pools[p].config.attention_ranks();
        pool_results_[p].afd_expert_ranks = pools[p].config.expert_ranks();
        pool_results_[p].afd_micro_batches = pools[p].config.afd.micro_batches;
      }
      pool_results_[p].memory = pools[p].memory;
      pool_results_[p].load = LoadStats(c.model.num_moe_layers(), c.model.routed_experts, pools[p].config.instances,
                                        pools[p].config.moe_ep, cluster_.num_links());
      pool_first_.push_back(instances_.size());
      for (int i = 0; i < pools[p].config.instances; ++i) {
        instances_.push_back(std::make_unique<Instance>(c, pools[p], static_cast<int>(p), i, cluster_, *costs_[p],
                                                        *routing_, requests_, records_));
        Instance& inst = *instances_.back();
        if (c.model.num_moe_layers() > 0) {
          inst.own_load = LoadStats(c.model.num_moe_layers(), c.model.routed_experts, 1, pools[p].config.moe_ep,
                                    cluster_.num_links());
          inst.step_model.set_load_stats(&inst.own_load, 0);
        }
        instances_.back()->step_model.set_reuse_draws(c.routing.reuse_draws, c.routing.share_draws);
      }
    }
    pool_first_.push_back(instances_.size());
    // More threads than instances would have nothing to do (and one instance alone only hands its
    // steps to and fro).
    if (const auto threads = std::min(static_cast<std::size_t>(std::max(1, c.threads)), instances_.size());
        threads > 1 && !c.trace)
      workers_.emplace(static_cast<int>(threads));
    const bool caches = workloads::PrefixHitSampler(c.workload.prefix_hit).from_caches();
    for (std::size_t i = pool_first_[0]; i < pool_first_[1]; ++i) {
      if (caches) instances_[i]->scheduler.enable_prefix_caches(c.workload.prefix_hit.block_tokens);
      entry_.push_back(&instances_[i]->scheduler);
    }
    if (caches && pools.front().config.kv_tiers.enabled()) enable_kv_tiers(pools.front());
    if (c.trace) {
      recorder_.emplace(*c.trace);
      for (auto& inst : instances_) inst->step_model.set_trace(&*recorder_, inst->pool_index, inst->layout.instance());
    }
  }

  // KV tiers below the entry pool's prefix caches (sim/prefix_cache.h), sized in blocks of the
  // bytes a rank's memory plan gives a token of KV.
  void enable_kv_tiers(const PoolLayout& pool) {
    const KvTierConfig& t = pool.config.kv_tiers;
    const auto& m = pool.memory;
    const double per_token = m.kv_capacity_tokens > 0 ? m.kv_bytes / static_cast<double>(m.kv_capacity_tokens) : 0;
    if (!(per_token > 0)) return;
    const double per_block = per_token * config_.workload.prefix_hit.block_tokens;
    const auto blocks = [&](double bytes) { return static_cast<std::int64_t>(bytes / per_block); };
    if (t.remote_bytes > 0) {
      remote_.emplace(config_.workload.prefix_hit.block_tokens);
      const double ranks = static_cast<double>(pool.config.instances) * pool.config.attention_dp;
      remote_->set_capacity(blocks(t.remote_bytes * ranks));
    }
    const double remote_rate = t.remote_bytes_per_s > 0 ? t.remote_bytes_per_s : pool.hardware.nic_bytes_per_s;
    for (std::size_t i = pool_first_[0]; i < pool_first_[1]; ++i)
      instances_[i]->scheduler.enable_kv_tiers(blocks(t.host_bytes), remote_ ? &*remote_ : nullptr, per_token,
                                               t.host_bytes_per_s, remote_rate);
  }

  SimulationResult run() {
    if (config_.workload.arrivals.process == workloads::ArrivalProcess::kClosedLoop) {
      closed_loop_.emplace(requests_, config_.workload.arrivals);
      for (std::size_t index : closed_loop_->initial()) release(index);
    } else if (!timed_.empty()) {
      schedule_arrival(timed_[next_timed_++]);
    }
    SimulationResult r;
    run_events(r);
    while (!flight_.empty()) commit_step();
    for (auto& inst : instances_) inst->step_model.settle_load_stats();
    for (auto& inst : instances_) {  // each instance's sums into its pool's, in instance order
      PoolResult& pr = pool_results_[static_cast<std::size_t>(inst->pool_index)];
      pr.breakdown.add(inst->own_breakdown);
      if (config_.model.num_moe_layers() > 0) pr.load.add(inst->own_load, inst->layout.instance());
    }
    check_requests_accounted(records_, r.partial);
    std::int64_t sent_to_remote = 0;
    for (std::size_t p = 0; p < pool_results_.size(); ++p) {
      auto& pr = pool_results_[p];
      MOESIM_CHECK(pr.breakdown.tokens_routed == pr.breakdown.tokens_combined,
                   "pool " + std::to_string(p) + ": token-expert pairs dispatched != combined");
      for (std::size_t i = pool_first_[p]; i < pool_first_[p + 1]; ++i) {
        const Scheduler& scheduler = instances_[i]->scheduler;
        if (!r.partial) scheduler.check_drained();
        check_rank_memory(pr.memory, scheduler.kv_peak_tokens(), to_string(pr.role));
        pr.kv_peak_utilisation = std::max(pr.kv_peak_utilisation, instances_[i]->scheduler.kv_peak_utilisation());
        pr.preemptions += instances_[i]->scheduler.preemptions();
        pr.drafts_proposed += instances_[i]->scheduler.drafts_proposed();
        pr.drafts_accepted += instances_[i]->scheduler.drafts_accepted();
        if (scheduler.has_prefix_caches()) {
          const PrefixCacheStats st = scheduler.prefix_cache_stats();
          MOESIM_CHECK(st.inserted_blocks == st.resident_blocks + st.evicted_blocks,
                       "prefix cache: blocks inserted != resident + evicted");
          scheduler.check_kv_tiers();
          sent_to_remote += scheduler.sent_to_remote();
          pr.prefix_caches.push_back(st);
        }
      }
      summarize_pool(steps_, static_cast<int>(p), pr);
    }
    r.summary = summarize(records_, itl_samples_, deployment_.total_ranks(), config_.slo);
    if (!pool_results_.empty() && !pool_results_.front().prefix_caches.empty()) {
      PrefixCacheStats total;
      for (const auto& st : pool_results_.front().prefix_caches) total += st;
      if (remote_) {
        MOESIM_CHECK(remote_->received() == sent_to_remote, "KV tiers: remote store received != blocks sent to it");
        MOESIM_CHECK(remote_->inserted() == remote_->size() + remote_->evicted(),
                     "KV tiers: remote blocks inserted != resident + evicted");
        total.remote_resident_blocks = remote_->size();
      }
      r.summary.prefix_cache = total;
    }
    summarize_energy(r.summary);
    r.requests = std::move(records_);
    r.steps = std::move(steps_);
    r.pools = std::move(pool_results_);
    r.events = events_.dispatched();
    if (recorder_) {
      r.trace_truncated = recorder_->truncated();
      r.trace = recorder_->events();
    }
    return r;
  }

 private:
  // Runs the events, stopping early (and marking `r` partial) at a RunLimits bound.
  void run_events(SimulationResult& r) {
    const RunLimits& limits = config_.limits;
    const Time sim_limit = limits.max_sim_time ? Time::zero() + *limits.max_sim_time : Time::max();
    for (std::uint64_t n = 0;; ++n) {
      if (limits.max_wall_s && n % 256 == 0 &&
          std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start_).count() >= *limits.max_wall_s) {
        if (events_.pending() == 0 && flight_.empty()) break;
        r.partial = true;
        r.partial_reason = "max-wall-time " + seconds_text(*limits.max_wall_s) + " reached";
        break;
      }
      if (!advance(sim_limit)) break;
    }
    if (!r.partial && events_.pending() > 0) {
      r.partial = true;
      r.partial_reason = "max-sim-time " + seconds_text(limits.max_sim_time->seconds()) + " reached";
    }
  }

  // Runs the next event up to `limit`, or, when the steps in flight hold it back, ends the oldest
  // of them; false when neither is left. A step in flight ends at or after its bound, so every
  // event before the earliest bound runs where it would have run had the steps been computed
  // when they started, and the oldest step's end event, scheduled under the sequence number it
  // reserved then, takes the place it would have had.
  bool advance(Time limit) {
    for (;;) {
      Time horizon = limit;
      for (const StepInFlight& f : flight_) horizon = std::min(horizon, Time::from_ns(f.bound.count_ns() - 1));
      if (horizon >= events_.now() && events_.step_within(horizon)) return true;
      if (flight_.empty()) return false;
      commit_step();
    }
  }

  static std::string seconds_text(double s) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g s", s);
    return buf;
  }

  // The least-loaded instance of pool `p` (sim/request_router.h).
  Instance& pick(std::size_t p) {
    const std::size_t first = pool_first_[p];
    return *instances_[first + least_loaded(pool_first_[p + 1] - first, [&](std::size_t i) -> const Scheduler& {
                         return instances_[first + i]->scheduler;
                       })];
  }

  void schedule_arrival(std::size_t index) {
    events_.schedule(Time::from_ns(requests_[index].arrival_ns), kArrivalPriority, &ServingRun::on_arrival, this,
                     index);
  }

  // Closed loop, or a session's next turn: a released request arrives at the arrival time the
  // release gave it.
  void release(std::size_t index) {
    records_[index].arrival_ns = requests_[index].arrival_ns;
    events_.schedule(Time::from_ns(requests_[index].arrival_ns), kArrivalPriority, &ServingRun::on_arrival, this,
                     index);
  }

  // Request `index` is done (finished or rejected): in a closed loop its user sends the next
  // request; in a session, the user sends the next turn after thinking.
  void on_done(std::size_t index) {
    ++requests_done_;
    if (const std::int64_t turn = requests_[index].next_turn; turn >= 0) {
      auto& next = requests_[static_cast<std::size_t>(turn)];
      next.arrival_ns = events_.now().count_ns() + next.think_ns;
      release(static_cast<std::size_t>(turn));
    }
    if (!closed_loop_) return;
    const std::int64_t next = closed_loop_->on_finish(events_.now().count_ns());
    if (next >= 0) release(static_cast<std::size_t>(next));
  }

  static void on_arrival(void* self, std::uint64_t index) {
    auto& s = *static_cast<ServingRun*>(self);
    const RouteChoice route = s.router_.route(index, s.entry_);
    Instance& inst = *s.instances_[s.pool_first_[0] + route.instance];
    const int rank = inst.scheduler.enqueue(index, route.rank, s.events_.now());
    s.records_[index].rank = rank;
    if (const std::int64_t wait = s.records_[index].kv_load_ns; wait > 0)  // its prefix loads first
      s.events_.schedule(s.events_.now() + Duration::ns(wait), kStepEndPriority, &ServingRun::on_wake, &s,
                         s.instance_index(inst));
    s.records_[index].instance = inst.layout.instance();
    // The next open-loop arrival, once this one (the earliest not yet arrived) has.
    if (!s.closed_loop_ && s.next_timed_ < s.timed_.size() && s.timed_[s.next_timed_ - 1] == index)
      s.schedule_arrival(s.timed_[s.next_timed_++]);
    if (rank < 0) s.on_done(index);
    if (rank >= 0) s.wake(inst);
  }

  // An idle instance takes up work at the end of the instant it arrives in, so that every request
  // arriving at that instant (a closed-loop benchmark's clients all start at t = 0) joins the same
  // step, as an engine's scheduler takes its whole waiting queue when it forms a batch.
  void wake(Instance& inst) {
    if (inst.busy || inst.waking) return;
    inst.waking = true;
    events_.schedule(events_.now(), kStepEndPriority, &ServingRun::on_wake, this, instance_index(inst));
  }

  std::uint64_t instance_index(const Instance& inst) const {
    return static_cast<std::uint64_t>(pool_first_[static_cast<std::size_t>(inst.pool_index)] +
                                      static_cast<std::size_t>(inst.layout.instance()));
  }

  static void on_wake(void* self, std::uint64_t instance) {
    auto& s = *static_cast<ServingRun*>(self);
    Instance& inst = *s.instances_[instance];
    inst.waking = false;
    if (!inst.busy) s.start_step(inst);
  }

  static void on_kv_arrival(void* self, std::uint64_t index) {
    auto& s = *static_cast<ServingRun*>(self);
    auto& rec = s.records_[index];
    rec.first_token_ns = s.events_.now().count_ns();  // the first token streams once decode has the KV
    if (rec.output_tokens == 1) {
      rec.finish_ns = rec.first_token_ns;
      s.on_done(index);
      return;
    }
    Instance& inst = s.pick(1);
    rec.instance = inst.layout.instance();
    rec.rank = inst.scheduler.enqueue(index);
    if (rec.rank < 0) s.on_done(index);
    if (rec.rank >= 0) s.wake(inst);
  }

  static void on_step_end(void* self, std::uint64_t instance) {
    auto& s = *static_cast<ServingRun*>(self);
    Instance& inst = *s.instances_[instance];
    inst.busy = false;
    s.finished_.clear();
    s.handed_over_.clear();
    inst.scheduler.complete_step(s.events_.now(), s.itl_samples_, s.finished_, s.handed_over_);
    for (std::size_t index : s.handed_over_) s.send_kv(inst, index);
    for (std::size_t index : s.finished_) s.on_done(index);
    s.start_step(inst);
  }

  // Sends a finished prompt's KV cache from its prefill rank (the first device of its attention
  // group, first stage) to the decode instance that will take it (the least-loaded one now; its
  // rank is chosen on arrival, costed as rank 0's node).
  //
  // Transfers queue at their endpoints: a device sends one cache at a time and receives one at
  // a time over each of its link classes (scale-up to a peer of its node, scale-out otherwise),
  // each at the path's full rate. So the prompts a prefill step finishes on one rank leave in
  // turn, as they share that rank's NIC, and the last of a burst reaches decode once all of them
  // have crossed it (the same completion as sharing the link fairly, with the earlier ones
  // first). The queues see only KV traffic, not the pools' own all-to-alls.
  void send_kv(const Instance& from, std::size_t index) {
    const auto& rec = records_[index];
    const auto group = static_cast<std::size_t>(std::max(0, rec.rank) * from.layout.attention_tp());
    const int src = from.layout.rank_devices()[group];
    const Instance& to = pick(1);
    const int dst = to.layout.rank_devices()[static_cast<std::size_t>(src) % to.layout.rank_devices().size()];
    const Duration d = kv_transfer(src, dst, rec.input_tokens);
    const std::size_t link_class = cluster_.same_scaleup_domain(src, dst) ? 0 : 1;
    Time& send_free = kv_send_free_[static_cast<std::size_t>(src) * kKvLinkClasses + link_class];
    Time& recv_free = kv_recv_free_[static_cast<std::size_t>(dst) * kKvLinkClasses + link_class];
    const Time start = std::max({events_.now(), send_free, recv_free});
    const Time end = start + d;
    send_free = end;
    recv_free = end;
    events_.schedule(end, kKvArrivalPriority, &ServingRun::on_kv_arrival, this, index);
  }

  // One prompt's KV cache from device src to dst: a pure function of the endpoints and the prompt's
  // length, so each one is computed once (a burst of equal prompts between the same devices is
  // costed as one; the memo is dropped whole when it grows large, which changes nothing computed).
  Duration kv_transfer(int src, int dst, std::int64_t input_tokens) {
    const KvPath path{src, dst, input_tokens};
    if (const auto it = kv_durations_.find(path); it != kv_durations_.end()) return it->second;
    const double bytes = config_.model.kv_bytes_for_context(input_tokens);
    const auto& fidelity = *deployment_.pools().back().config.comm.fidelity;
    const Duration d =
        Duration::from_ns_rounded(topology::point_to_point(cluster_, {{src, dst, bytes}}, fidelity).duration_ns);
    if (kv_durations_.size() >= kKvDurationsKept) kv_durations_.clear();
    kv_durations_.emplace(path, d);
    return d;
  }

  void start_step(Instance& inst) {
    if (!inst.scheduler.has_work()) return;
    StepRecord rec;
    rec.pool = inst.pool_index;
    rec.instance = inst.layout.instance();
    rec.start_ns = events_.now().count_ns();
    if (inst.scheduler.form_batches(inst.batches, rec) == 0) return;  // nothing admissible until work finishes
    const std::int64_t step = inst.steps++;
    if (workers_) {
      // Prepared here, computed on a worker; committed (commit_step) before the run passes its bound.
      StepInFlight& f = flight_.emplace_back();
      f.instance = &inst;
      f.start = events_.now();
      f.bound = f.start + inst.step_model.prepare(inst.batches, f.start, inst.own_breakdown);
      f.seq = events_.reserve();
      f.record = rec;
      f.record_index = steps_.size();
      steps_.push_back(rec);
      f.ticket = workers_->submit(
          [&inst, &f, step] { f.duration = inst.step_model.execute(step, inst.rng, inst.own_breakdown); });
      inst.busy = true;
      report_progress();
      return;
    }
    const Duration d = inst.step_model.run(inst.batches, step, inst.rng, inst.own_breakdown, events_.now());
    steps_.push_back(rec);
    end_step(inst, steps_.back(), d, events_.now(), events_.reserve());
    inst.busy = true;
    report_progress();
  }

  void report_progress() {
    if (config_.progress && steps_.size() % SimulationConfig::kProgressSteps == 0)
      config_.progress({events_.now().count_ns(), requests_done_, static_cast<std::int64_t>(requests_.size()),
                        static_cast<std::int64_t>(steps_.size())});
  }

  // The oldest step in flight: waits for its duration, then ends it as a serial run would have.
  void commit_step() {
    StepInFlight& f = flight_.front();
    workers_->wait(f.ticket);
    MOESIM_CHECK(f.start + f.duration >= f.bound, "parallel steps: a step of " + std::to_string(f.duration.count_ns()) +
                                                      " ns ended before its lower bound of " +
                                                      std::to_string((f.bound - f.start).count_ns()) + " ns");
    end_step(*f.instance, f.record, f.duration, f.start, f.seq);
    steps_[f.record_index] = f.record;
    flight_.pop_front();
  }

  // What follows a step of `d` that started at `start`: EPLB rebalancing when due, its record
  // and energy, and its end event (under sequence number `seq`, reserved when it started).
  void end_step(Instance& inst, StepRecord& rec, Duration d, Time start, std::uint64_t seq) {
    auto& pool = pool_results_[static_cast<std::size_t>(inst.pool_index)];
    const double interval = inst.layout.config().placement.rebalance_interval_s;
    if (interval > 0 && start.seconds() >= inst.next_rebalance_s) {
      // EPLB rebalancing from the load seen since the last one; the weight migration blocks.
      const Duration migration = inst.step_model.rebalance();
      pool.rebalances += 1;
      pool.migration_s += migration.seconds();
      d += migration;
      inst.next_rebalance_s = start.seconds() + interval;
    }
    rec.duration_ns = d.count_ns();
    if (meters_[pool_meter_[static_cast<std::size_t>(inst.pool_index)]].power.known())
      meter_step(inst, d.seconds(), rec);
    events_.schedule_reserved(seq, start + d, kStepEndPriority, &ServingRun::on_step_end, this, instance_index(inst));
  }

  // The board power of the instance's GPUs over a step of `seconds`, and the energy it draws.
  void meter_step(const Instance& inst, double seconds, StepRecord& rec) {
    StepWork w = inst.work(inst.batches);
    const double gpus = inst.layout.config().ranks;
    w.gemm_flops /= gpus;
    w.expert_flops /= gpus;
    w.attention_flops /= gpus;
    w.hbm_bytes /= gpus;
    const auto p = static_cast<std::size_t>(inst.pool_index);
    PowerMeter& meter = meters_[pool_meter_[p]];
    rec.power_w = meter.power.power_w(w, seconds);
    meter.busy_joules += rec.power_w * seconds * gpus;
    meter.busy_gpu_s += seconds * gpus;
    pool_results_[p].busy_joules += rec.power_w * seconds * gpus;
    pool_results_[p].busy_gpu_s += seconds * gpus;
  }

  // Energy and cost: per kind of device (its idle power, its price), then summed over them; and
  // each pool's own share for the report.
  void summarize_energy(Summary& s) {
    std::vector<EnergySummary> energy;
    std::vector<DeviceUse> uses;
    for (const PowerMeter& m : meters_) {
      energy.push_back(
          energy_summary(m.power, m.busy_joules, m.busy_gpu_s, m.gpus, s.makespan_s, s.output_tokens, s.completed));
      uses.push_back({m.hardware, m.gpus});
    }
    s.energy = total_energy(energy, s.gpus, s.makespan_s, s.output_tokens, s.completed);
    s.cost = cost_summary(config_.cost, uses, s.energy, s.makespan_s, s.output_tokens);
    for (std::size_t p = 0; p < pool_results_.size(); ++p) {
      PoolResult& pr = pool_results_[p];
      const PowerMeter& m = meters_[pool_meter_[p]];
      const int gpus = pr.instances * pr.ranks;
      pr.energy =
          energy_summary(m.power, pr.busy_joules, pr.busy_gpu_s, gpus, s.makespan_s, s.output_tokens, s.completed);
      pr.cost = cost_summary(config_.cost, std::vector<DeviceUse>{{pr.hardware, gpus}}, pr.energy, s.makespan_s,
                             s.output_tokens);
    }
  }

  const SimulationConfig& config_;
  std::chrono::steady_clock::time_point wall_start_;
  topology::Cluster cluster_;
  Deployment deployment_;
  std::vector<std::unique_ptr<calibration::CostModel>> costs_;  // per pool
  std::unique_ptr<workloads::RoutingModel> routing_;
  workloads::Rng arrival_rng_;
  std::vector<workloads::Request> requests_;
  std::vector<std::size_t> timed_;  // requests with an arrival time of their own, in order
  std::size_t next_timed_ = 0;      // the next of them to schedule
  RequestRouter router_;
  std::vector<const Scheduler*> entry_;  // the entry pool's instances, for the router
  std::optional<PrefixCache> remote_;    // the entry pool's remote KV store (KV tiers), if any
  std::vector<RequestRecord> records_;
  std::vector<std::unique_ptr<Instance>> instances_;
  std::vector<std::size_t> pool_first_;  // instances_ index of each pool's first instance, plus the end
  std::vector<PoolResult> pool_results_;
  EventQueue events_;
  std::vector<StepRecord> steps_;
  ItlSamples itl_samples_;
  std::vector<std::size_t> finished_, handed_over_;
  // [device * kKvLinkClasses + link class]: when the device's KV sends / receives queued so far are done.
  std::vector<Time> kv_send_free_, kv_recv_free_;
  struct KvPath {
    int src = 0, dst = 0;
    std::int64_t input_tokens = 0;
    bool operator==(const KvPath&) const = default;
  };
  struct KvPathHash {
    std::size_t operator()(const KvPath& p) const {
      return std::hash<std::int64_t>{}((static_cast<std::int64_t>(p.src) << 40) ^
                                       (static_cast<std::int64_t>(p.dst) << 20) ^ p.input_tokens);
    }
  };
  static constexpr std::size_t kKvDurationsKept = 1 << 16;  // memory bound of kv_transfer's memo (~4 MB)
  std::unordered_map<KvPath, Duration, KvPathHash> kv_durations_;
  std::optional<TraceRecorder> recorder_;
  std::optional<workloads::ClosedLoop> closed_loop_;
  std::int64_t requests_done_ = 0;
  // One meter per kind of device: the energy drawn by its GPUs in their instances' steps.
  struct PowerMeter {
    std::string hardware;
    PowerModel power;
    int gpus = 0;
    double busy_joules = 0, busy_gpu_s = 0;
  };
  std::vector<PowerMeter> meters_;
  std::vector<std::size_t> pool_meter_;  // [pool] -> meters_ index
  std::deque<StepInFlight> flight_;      // steps computing on the workers, in start order
  std::optional<StepWorkers> workers_;   // last: joined before the instances its jobs use go
};

}  // namespace

SimulationResult simulate(const SimulationConfig& config) { return ServingRun(config).run(); }

}  // namespace moesim::sim
