#include "models/functional/router.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace moesim::models::functional {
namespace {

// Indices of the `k` largest values, best first, ties to the lower index.
void top_indices(const std::vector<float>& v, int k, std::vector<int>& out) {
  out.resize(v.size());
  std::iota(out.begin(), out.end(), 0);
  const auto better = [&](int a, int b) {
    const float x = v[static_cast<std::size_t>(a)], y = v[static_cast<std::size_t>(b)];
    return x > y || (x == y && a < b);
  };
  std::partial_sort(out.begin(), out.begin() + k, out.end(), better);
  out.resize(static_cast<std::size_t>(k));
}

// Keeps the top_groups best groups' choice scores, the others -inf.
void limit_groups(const ModelSpec& s, std::vector<float>& choice) {
  const int groups = s.expert_groups, size = s.routed_experts / groups;
  std::vector<float> group_score(static_cast<std::size_t>(groups));
  std::vector<float> members(static_cast<std::size_t>(size));
  for (int g = 0; g < groups; ++g) {
    std::copy_n(choice.begin() + static_cast<std::ptrdiff_t>(g) * size, size, members.begin());
    std::sort(members.begin(), members.end(), std::greater<>());
    float score = members[0];
    if (s.scoring == RouterScoring::kSigmoid && size > 1) score += members[1];
    group_score[static_cast<std::size_t>(g)] = score;
  }
  std::vector<int> keep;
  top_indices(group_score, s.top_groups, keep);
  std::vector<bool> kept(static_cast<std::size_t>(groups), false);
  for (int g : keep) kept[static_cast<std::size_t>(g)] = true;
  for (int e = 0; e < s.routed_experts; ++e)
    if (!kept[static_cast<std::size_t>(e / size)])
      choice[static_cast<std::size_t>(e)] = -std::numeric_limits<float>::infinity();
}

}  // namespace

Routing route(const ModelSpec& s, const MoeWeights& w, const Matrix& x) {
  Matrix logits = x * w.router.transpose();
  if (w.logit_bias.size() > 0) logits.rowwise() += w.logit_bias.transpose();
  const int experts = s.routed_experts, k = s.top_k;
  Routing r;
  r.top_k = k;
  r.ids.reserve(static_cast<std::size_t>(x.rows() * k));
  r.weights.reserve(r.ids.capacity());
  std::vector<float> score(static_cast<std::size_t>(experts)), choice(score.size());
  std::vector<int> best;
  for (Eigen::Index t = 0; t < x.rows(); ++t) {
    const auto row = logits.row(t);
    if (s.scoring == RouterScoring::kSoftmax) {
      const float max = row.maxCoeff();
      double sum = 0;
      for (int e = 0; e < experts; ++e) sum += score[static_cast<std::size_t>(e)] = std::exp(row(e) - max);
      for (auto& p : score) p = static_cast<float>(p / sum);
      choice = score;
    } else {
      for (int e = 0; e < experts; ++e) {
        score[static_cast<std::size_t>(e)] = 1.0f / (1.0f + std::exp(-row(e)));
        choice[static_cast<std::size_t>(e)] =
            score[static_cast<std::size_t>(e)] + (w.score_bias.size() > 0 ? w.score_bias(e) : 0.0f);
      }
    }
    if (s.expert_groups > 1) limit_groups(s, choice);
    top_indices(choice, k, best);
    double total = 0;
    for (int e : best) total += score[static_cast<std::size_t>(e)];
    const double norm = s.norm_top_k ? 1.0 / (total + 1e-20) : 1.0;
    for (int e : best) {
      r.ids.push_back(e);
      r.weights.push_back(static_cast<float>(score[static_cast<std::size_t>(e)] * norm * s.routed_scaling));
    }
  }
  return r;
}

}  // namespace moesim::models::functional
