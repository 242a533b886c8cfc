#include "sim/simulation.h"

#include "calibration/cost_model.h"
#include "sim/check.h"
#include "sim/deployment.h"
#include "sim/event_queue.h"
#include "sim/scheduler.h"
#include "workloads/arrivals.h"
#include "workloads/routing_model.h"

namespace moesim::sim {
namespace {

// Arrivals run before a step end at the same instant, so a request arriving exactly at a step
// boundary joins the next step.
constexpr int kArrivalPriority = 0;
constexpr int kStepEndPriority = 1;

class ServingRun {
 public:
  explicit ServingRun(const SimulationConfig& c)
      : config_(c),
        cluster_(c.cluster),
        deployment_(c.deployment, c.model, c.hardware, cluster_),
        cost_(calibration::make_cost_model(c.cost_model, c.hardware)),
        routing_(workloads::make_routing_model(c.routing, std::max(1, c.model.routed_experts))),
        step_model_(c.model, deployment_, cluster_, *cost_, *routing_, c.deployment.colocated.overlap),
        arrival_rng_(workloads::make_stream(c.seed, "arrivals")),
        routing_rng_(workloads::make_stream(c.seed, "routing")),
        requests_(workloads::generate_requests(c.workload, arrival_rng_)),
        scheduler_(deployment_.pool(), deployment_.memory().kv_capacity_tokens, requests_) {}

  SimulationResult run() {
    if (!requests_.empty()) schedule_arrival(0);
    events_.run();
    SimulationResult r;
    r.requests = scheduler_.records();
    for (const auto& rec : r.requests)
      MOESIM_CHECK(rec.finished() || !rec.rejected.empty(), "a request neither finished nor was rejected");
    MOESIM_CHECK(breakdown_.tokens_routed == breakdown_.tokens_combined, "dispatched != combined tokens");
    r.summary = summarize(r.requests, steps_, itl_samples_, breakdown_, deployment_.ranks());
    r.steps = std::move(steps_);
    r.breakdown = std::move(breakdown_);
    r.memory = deployment_.memory();
    r.events = events_.dispatched();
    return r;
  }

 private:
  void schedule_arrival(std::size_t index) {
    events_.schedule(Time::from_ns(requests_[index].arrival_ns), kArrivalPriority, &ServingRun::on_arrival, this,
                     index);
  }

  static void on_arrival(void* self, std::uint64_t index) {
    auto& s = *static_cast<ServingRun*>(self);
    s.scheduler_.on_arrival(index, s.events_.now());
    if (index + 1 < s.requests_.size()) s.schedule_arrival(index + 1);
    if (!s.busy_) s.start_step();
  }

  static void on_step_end(void* self, std::uint64_t) {
    auto& s = *static_cast<ServingRun*>(self);
    s.busy_ = false;
    s.scheduler_.complete_step(s.events_.now(), s.itl_samples_);
    s.start_step();
  }

  void start_step() {
    if (!scheduler_.has_work()) return;
    StepRecord rec;
    rec.start_ns = events_.now().count_ns();
    if (scheduler_.form_batches(batches_, rec) == 0) return;  // nothing admissible until work finishes
    const Duration d = step_model_.run(batches_, static_cast<std::int64_t>(steps_.size()), routing_rng_, breakdown_);
    rec.duration_ns = d.count_ns();
    steps_.push_back(rec);
    busy_ = true;
    events_.schedule(events_.now() + d, kStepEndPriority, &ServingRun::on_step_end, this, 0);
  }

  const SimulationConfig& config_;
  topology::Cluster cluster_;
  Deployment deployment_;
  std::unique_ptr<calibration::CostModel> cost_;
  std::unique_ptr<workloads::RoutingModel> routing_;
  StepModel step_model_;
  workloads::Rng arrival_rng_;
  workloads::Rng routing_rng_;
  std::vector<workloads::Request> requests_;
  Scheduler scheduler_;
  EventQueue events_;
  std::vector<RankBatch> batches_;
  std::vector<StepRecord> steps_;
  std::vector<std::pair<std::int64_t, std::int64_t>> itl_samples_;
  LayerBreakdown breakdown_;
  bool busy_ = false;
};

}  // namespace

SimulationResult simulate(const SimulationConfig& config) { return ServingRun(config).run(); }

}  // namespace moesim::sim
