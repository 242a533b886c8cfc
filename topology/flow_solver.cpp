#include "topology/flow_solver.h"

#include <algorithm>
#include <limits>

namespace moesim::topology {
namespace {

constexpr double kTiny = 1e-12;

class Solver {
 public:
  explicit Solver(const FlowProblem& p) : p_(p) {
    const std::size_t links = p.capacity.size();
    const std::size_t flows = p.bytes.size();
    // Link -> flows adjacency (CSR), to freeze the flows of a saturated link.
    std::vector<int> count(links + 1, 0);
    for (const int l : p.link) ++count[static_cast<std::size_t>(l) + 1];
    for (std::size_t l = 0; l < links; ++l) count[l + 1] += count[l];
    link_offset_ = count;
    link_flows_.resize(p.link.size());
    for (std::size_t f = 0; f < flows; ++f)
      for (int h = p.offset[f]; h < p.offset[f + 1]; ++h)
        link_flows_[static_cast<std::size_t>(count[static_cast<std::size_t>(p.link[static_cast<std::size_t>(h)])]++)] =
            static_cast<int>(f);
    weight_.assign(links, 0);
    residual_.assign(links, 0);
    rate_.assign(flows, 0);
    state_.assign(flows, kDone);
    for (std::size_t f = 0; f < flows; ++f)
      if (p.bytes[f] > 0 && p.offset[f + 1] > p.offset[f]) {
        state_[f] = kActive;
        active_.push_back(static_cast<int>(f));
      }
    remaining_ = p.bytes;
    total_weight_.assign(links, 0);
    for (const int f : active_)
      for (int h = p.offset[static_cast<std::size_t>(f)]; h < p.offset[static_cast<std::size_t>(f) + 1]; ++h)
        total_weight_[static_cast<std::size_t>(p.link[static_cast<std::size_t>(h)])] += p.fraction[static_cast<std::size_t>(h)];
  }

  double run(double tolerance) {
    double t = 0;
    while (!active_.empty()) {
      solve();
      double t_min = std::numeric_limits<double>::infinity();
      for (const int f : active_) t_min = std::min(t_min, remaining_[static_cast<std::size_t>(f)] / rate_[static_cast<std::size_t>(f)]);
      // Everything finishing within `tolerance` of the current absolute time completes together.
      double horizon = (t + t_min) * (1 + tolerance) - t;
      // And at least the earliest-finishing eighth of the flows (bounds the re-solves to
      // about 8 ln(flows)).
      if (active_.size() > 64) {
        finish_.clear();
        for (const int f : active_) finish_.push_back(remaining_[static_cast<std::size_t>(f)] / rate_[static_cast<std::size_t>(f)]);
        const auto k = finish_.begin() + static_cast<std::ptrdiff_t>(finish_.size() / 8);
        std::nth_element(finish_.begin(), k, finish_.end());
        horizon = std::max(horizon, *k);
      }
      double dt = t_min;
      for (const int f : active_) {
        const double tf = remaining_[static_cast<std::size_t>(f)] / rate_[static_cast<std::size_t>(f)];
        if (tf <= horizon) dt = std::max(dt, tf);
      }
      t += dt;
      std::size_t kept = 0;
      for (const int f : active_) {
        const auto i = static_cast<std::size_t>(f);
        const double tf = remaining_[i] / rate_[i];
        if (tf <= horizon) {
          state_[i] = kDone;
          for (int h = p_.offset[i]; h < p_.offset[i + 1]; ++h)
            total_weight_[static_cast<std::size_t>(p_.link[static_cast<std::size_t>(h)])] -= p_.fraction[static_cast<std::size_t>(h)];
        } else {
          remaining_[i] -= rate_[i] * dt;
          active_[kept++] = f;
        }
      }
      active_.resize(kept);
    }
    return t;
  }

 private:
  enum : char { kDone, kActive, kFrozen };

  // Progressive filling over the active flows: raise every unfrozen rate together until a link
  // saturates, freeze the flows crossing it, repeat.
  void solve() {
    weight_ = total_weight_;  // kept up to date as flows finish
    for (const int f : active_) state_[static_cast<std::size_t>(f)] = kActive;
    links_.clear();
    for (std::size_t l = 0; l < weight_.size(); ++l)
      if (weight_[l] > kTiny) {
        links_.push_back(static_cast<int>(l));
        residual_[l] = p_.capacity[l];
      }
    double level = 0;
    std::size_t unfrozen = active_.size();
    while (unfrozen > 0 && !links_.empty()) {
      double delta = std::numeric_limits<double>::infinity();
      for (const int l : links_) delta = std::min(delta, residual_[static_cast<std::size_t>(l)] / weight_[static_cast<std::size_t>(l)]);
      level += delta;
      // Charge every link for this increment first, then freeze (freezing changes weights).
      for (const int l : links_) residual_[static_cast<std::size_t>(l)] -= delta * weight_[static_cast<std::size_t>(l)];
      std::size_t kept = 0;
      for (const int l : links_) {
        const auto i = static_cast<std::size_t>(l);
        if (residual_[i] <= 1e-9 * p_.capacity[i]) {
          unfrozen -= freeze_link(l, level);
        } else {
          links_[kept++] = l;
        }
      }
      links_.resize(kept);
      // Drop links whose every flow froze elsewhere.
      kept = 0;
      for (const int l : links_)
        if (weight_[static_cast<std::size_t>(l)] > kTiny) links_[kept++] = l;
      links_.resize(kept);
    }
    for (const int f : active_)  // only through rounding: a flow whose links all drained
      if (state_[static_cast<std::size_t>(f)] == kActive) rate_[static_cast<std::size_t>(f)] = std::max(level, kTiny);
  }

  std::size_t freeze_link(int l, double level) {
    std::size_t frozen = 0;
    for (int k = link_offset_[static_cast<std::size_t>(l)]; k < link_offset_[static_cast<std::size_t>(l) + 1]; ++k) {
      const auto f = static_cast<std::size_t>(link_flows_[static_cast<std::size_t>(k)]);
      if (state_[f] != kActive) continue;
      state_[f] = kFrozen;
      rate_[f] = level;
      ++frozen;
      for (int h = p_.offset[f]; h < p_.offset[f + 1]; ++h)
        weight_[static_cast<std::size_t>(p_.link[static_cast<std::size_t>(h)])] -= p_.fraction[static_cast<std::size_t>(h)];
    }
    weight_[static_cast<std::size_t>(l)] = 0;
    return frozen;
  }

  const FlowProblem& p_;
  std::vector<int> link_offset_, link_flows_;
  std::vector<double> weight_, total_weight_, residual_, rate_, remaining_, finish_;
  std::vector<char> state_;
  std::vector<int> active_, links_;
};

}  // namespace

double max_min_completion_s(const FlowProblem& problem, double batch_tolerance) {
  return Solver(problem).run(batch_tolerance);
}

}  // namespace moesim::topology
