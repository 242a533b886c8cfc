// The attention core shared by GQA and MLA: scaled scores of a sequence's new queries against
// every cached position, masked and normalised in place.
//
// Row i of `scores` is the query at position past + i; column j the key at position j. Allowed:
// j <= past + i (causal) and, on a local layer of window w, j > past + i - w (sliding) or
// j / w == (past + i) / w (chunked). Each row becomes softmax(scale · scores) over the allowed
// columns (zero elsewhere); with a sink logit s (gpt-oss attention sinks) the denominator gets an
// extra e^s, so the row sums to less than one.
#pragma once

#include "models/functional/tensor.h"
#include "models/model_spec.h"

namespace moesim::models::functional {

struct AttentionMask {
  int past = 0;
  int window = 0;  // 0: full causal attention
  WindowKind kind = WindowKind::kSliding;
};

void masked_softmax(Matrix& scores, float scale, const AttentionMask& mask, const float* sink = nullptr);

}  // namespace moesim::models::functional
