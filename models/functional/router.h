// The MoE router: per token, k distinct experts and their weights.
//
// logits = x·routerᵀ (+ logit_bias, a knob of the random initialisation). Scores:
//   softmax  p = softmax(logits) (Mixtral, Qwen-MoE, OLMoE, DeepSeek-V2);
//   sigmoid  p = sigmoid(logits), chosen by p + score_bias (DeepSeek-V3's aux-loss-free
//            e_score_correction_bias) but weighted by p itself.
// Group-limited routing (expert_groups > 1, DeepSeek-V2/V3): experts form equal contiguous
// groups; a group scores the sum of its two best choice scores (sigmoid, DeepSeek-V3
// "noaux_tc") or its best score (softmax, DeepSeek-V2 "group_limited_greedy"); only the
// top_groups best groups compete. The k best choice scores win (ties: lower expert id), listed
// best first. Weights are the chosen p, renormalised to sum 1 when norm_top_k, times
// routed_scaling.
#pragma once

#include <cstdint>
#include <vector>

#include "models/functional/tensor.h"
#include "models/functional/weights.h"
#include "models/model_spec.h"

namespace moesim::models::functional {

struct Routing {
  int top_k = 0;
  std::vector<int> ids;        // [rows][k], token-major
  std::vector<float> weights;  // same layout
  int rows() const { return top_k == 0 ? 0 : static_cast<int>(ids.size()) / top_k; }
};

Routing route(const ModelSpec& spec, const MoeWeights& w, const Matrix& x);

}  // namespace moesim::models::functional
