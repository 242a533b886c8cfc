#include "topology/flow_solver.h"

#include <algorithm>
#include <limits>
#include <utility>

namespace moesim::topology {
namespace {

constexpr double kTiny = 1e-12;

// Progressive filling keeps, per link, the capacity left after the frozen flows (`rem_`) and the
// total fraction of the unfrozen flows (`weight_`); with every unfrozen flow at rate L the link
// saturates at L = rem / weight, an absolute level that freezing a flow on it can only raise. The
// live links sit in a heap keyed by that level, refreshed lazily when popped, so a round costs
// the links it freezes rather than a scan of every live link. The flows frozen in a round are
// charged to their links together afterwards (that leaves every saturation level unchanged).
// When every fraction is 1 (preset fabrics once ECMP groups are merged) the hops' fractions are
// never read, which halves the memory the filling walks.
class Solver {
 public:
  explicit Solver(const FlowProblem& p)
      : p_(p), unit_(std::all_of(p.fraction.begin(), p.fraction.end(), [](double f) { return f == 1.0; })) {
    const std::size_t links = p.capacity.size();
    const std::size_t flows = p.bytes.size();
    state_.assign(flows, kDone);
    active_.reserve(flows);
    for (std::size_t f = 0; f < flows; ++f)
      if (p.bytes[f] > 0 && p.offset[f + 1] > p.offset[f]) {
        state_[f] = kActive;
        active_.push_back(static_cast<int>(f));
      }
    // Link -> flows adjacency (CSR) over the flows with work, to freeze the flows of a saturated
    // link. Finished flows are dropped from a link's list whenever the list is walked.
    std::vector<int> count(links + 1, 0);
    for (const int f : active_)
      for (int h = p.offset[static_cast<std::size_t>(f)]; h < p.offset[static_cast<std::size_t>(f) + 1]; ++h)
        ++count[static_cast<std::size_t>(p.link[static_cast<std::size_t>(h)]) + 1];
    for (std::size_t l = 0; l < links; ++l) count[l + 1] += count[l];
    list_begin_.assign(count.begin(), count.end() - 1);
    list_end_ = list_begin_;
    list_flow_.resize(static_cast<std::size_t>(count.back()));
    total_weight_.assign(links, 0);
    for (const int f : active_)
      for (int h = p.offset[static_cast<std::size_t>(f)]; h < p.offset[static_cast<std::size_t>(f) + 1]; ++h) {
        const auto l = static_cast<std::size_t>(p.link[static_cast<std::size_t>(h)]);
        list_flow_[static_cast<std::size_t>(list_end_[l]++)] = f;
        total_weight_[l] += p.fraction[static_cast<std::size_t>(h)];
      }
    weight_.assign(links, 0);
    rem_.assign(links, 0);
    rate_.assign(flows, 0);
    remaining_ = p.bytes;
    // One slot beyond the flows: collect_unfrozen writes branch-free, also once all are frozen.
    frozen_.resize(active_.size() + 1);
  }

  double run(double tolerance) {
    double t = 0;
    while (!active_.empty()) {
      const double level = solve();
      // Finish times (a flow left unfrozen, only through rounding, takes the last level).
      double t_min = std::numeric_limits<double>::infinity();
      finish_.resize(active_.size());
      for (std::size_t k = 0; k < active_.size(); ++k) {
        const auto f = static_cast<std::size_t>(active_[k]);
        if (state_[f] == kActive) rate_[f] = std::max(level, kTiny);
        finish_[k] = remaining_[f] / rate_[f];
        t_min = std::min(t_min, finish_[k]);
      }
      // Everything finishing within `tolerance` of the current absolute time completes together.
      // (Never below t_min, which the subtraction can round under.)
      double horizon = std::max(t_min, (t + t_min) * (1 + tolerance) - t);
      // And at least the earliest-finishing eighth of the flows (bounds the re-solves to
      // about 8 ln(flows)). finish_ is only needed as a set from here on.
      if (active_.size() > 64) {
        const auto k = finish_.begin() + static_cast<std::ptrdiff_t>(finish_.size() / 8);
        std::nth_element(finish_.begin(), k, finish_.end());
        horizon = std::max(horizon, *k);
      }
      double dt = t_min;
      for (const double tf : finish_)
        if (tf <= horizon) dt = std::max(dt, tf);
      t += dt;
      // The finished flows leave their links; the others advance and are active again.
      std::size_t kept = 0;
      for (const int f : active_) {
        const auto i = static_cast<std::size_t>(f);
        if (remaining_[i] / rate_[i] <= horizon) {  // the same quotient as above, bit for bit
          state_[i] = kDone;
          for (int h = p_.offset[i]; h < p_.offset[i + 1]; ++h)
            total_weight_[static_cast<std::size_t>(p_.link[static_cast<std::size_t>(h)])] -=
                unit_ ? 1.0 : p_.fraction[static_cast<std::size_t>(h)];
        } else {
          remaining_[i] -= rate_[i] * dt;
          state_[i] = kActive;
          active_[kept++] = f;
        }
      }
      active_.resize(kept);
    }
    return t;
  }

 private:
  static constexpr char kDone = 0, kActive = 1, kFrozen = 2;
  using Entry = std::pair<double, int>;  // (saturation level when pushed, link)

  // Progressive filling over the active flows (all kActive on entry): raise every unfrozen rate
  // together until a link saturates, freeze the flows crossing it, repeat. Returns the last level.
  double solve() {
    heap_.clear();
    for (std::size_t l = 0; l < total_weight_.size(); ++l)
      if (total_weight_[l] > kTiny) {
        rem_[l] = p_.capacity[l];
        weight_[l] = total_weight_[l];
        heap_.push_back({rem_[l] / weight_[l], static_cast<int>(l)});
      }
    std::make_heap(heap_.begin(), heap_.end(), later);
    double level = 0;
    std::size_t unfrozen = active_.size();
    while (unfrozen > 0) {
      // The lowest saturation level: an entry's key may be stale, but freezing only raises
      // keys, so a popped entry whose key still holds is the minimum.
      int first = -1;
      while (first < 0 && !heap_.empty()) {
        const auto [key, l] = pop();
        const auto i = static_cast<std::size_t>(l);
        if (weight_[i] <= kTiny) continue;  // every flow froze elsewhere
        const double now = rem_[i] / weight_[i];
        if (now > key) {
          push(now, l);
        } else {
          first = l;
          level = std::max(level, now);
        }
      }
      if (first < 0) break;
      frozen_count_ = 0;
      collect_unfrozen(static_cast<std::size_t>(first));
      // Every other link saturated at this level (to rounding) freezes in the same round.
      const double tie = level * (1 + 1e-9);
      while (!heap_.empty() && heap_.front().first <= tie) {
        const auto [key, l] = pop();
        const auto i = static_cast<std::size_t>(l);
        if (weight_[i] <= kTiny) continue;
        const double now = rem_[i] / weight_[i];
        if (now <= tie) {
          collect_unfrozen(i);
        } else {
          push(now, l);
        }
      }
      if (unit_) {
        freeze<true>(level);
      } else {
        freeze<false>(level);
      }
      unfrozen -= frozen_count_;
    }
    return level;
  }

  static bool later(const Entry& a, const Entry& b) { return a.first > b.first; }
  Entry pop() {
    std::pop_heap(heap_.begin(), heap_.end(), later);
    const Entry e = heap_.back();
    heap_.pop_back();
    return e;
  }
  void push(double key, int l) {
    heap_.push_back({key, l});
    std::push_heap(heap_.begin(), heap_.end(), later);
  }

  // Appends the unfrozen flows of saturated link `l` to frozen_ (marking them) and drops the
  // finished ones from its list; branch-free, as the states along a list are random.
  void collect_unfrozen(std::size_t l) {
    int* const list = list_flow_.data();
    char* const state = state_.data();
    int* const frozen = frozen_.data();
    std::size_t count = frozen_count_;
    int out = list_begin_[l];
    const int end = list_end_[l];
    for (int k = list_begin_[l]; k < end; ++k) {
      const int f = list[k];
      const char s = state[f];
      list[out] = f;
      out += s != kDone;
      frozen[count] = f;
      count += s == kActive;
      state[f] = static_cast<char>(s == kActive ? kFrozen : s);
    }
    frozen_count_ = count;
    list_end_[l] = out;
    weight_[l] = 0;
  }

  // Fixes the collected flows at `level` and takes them out of their links' unfrozen weight.
  template <bool kUnit>
  void freeze(double level) {
    const std::size_t n = frozen_count_;
    const int* const frozen = frozen_.data();
    const int* const offset = p_.offset.data();
    const int* const link = p_.link.data();
    const double* const fraction = p_.fraction.data();
    double* const rem = rem_.data();
    double* const weight = weight_.data();
    double* const rate = rate_.data();
    for (std::size_t j = 0; j < n; ++j) {
      // The flows lie scattered: fetch their hop ranges, then their hops, ahead.
      if (j + 16 < n) __builtin_prefetch(offset + frozen[j + 16]);
      if (j + 8 < n) __builtin_prefetch(link + offset[frozen[j + 8]]);
      const int f = frozen[j];
      rate[f] = level;
      for (int h = offset[f]; h < offset[f + 1]; ++h) {
        const double phi = kUnit ? 1.0 : fraction[h];
        rem[link[h]] -= phi * level;
        weight[link[h]] -= phi;
      }
    }
  }

  const FlowProblem& p_;
  const bool unit_;  // every hop's fraction is 1
  std::vector<int> list_begin_, list_end_, list_flow_;
  std::vector<double> weight_, total_weight_, rem_, rate_, remaining_, finish_;
  std::vector<char> state_;
  std::vector<int> active_, frozen_;  // frozen_: the flows of one round, frozen_count_ of them
  std::size_t frozen_count_ = 0;
  std::vector<Entry> heap_;  // live links by saturation level
};

}  // namespace

double max_min_completion_s(const FlowProblem& problem, double batch_tolerance) {
  return Solver(problem).run(batch_tolerance);
}

}  // namespace moesim::topology
