// SwiGLU MLP (Shazeer 2020, "GLU Variants Improve Transformer"): down(silu(x·gateᵀ) ⊙ x·upᵀ)
// for every row of x at once: two GEMMs for gate/up, one for down. Dense layers, shared experts
// and each routed expert's grouped GEMM use it.
#pragma once

#include "models/functional/tensor.h"
#include "models/functional/weights.h"

namespace moesim::models::functional {

Matrix swiglu(const Matrix& x, const SwiGluWeights& w);

}  // namespace moesim::models::functional
