#include "models/functional/swiglu.h"

namespace moesim::models::functional {

Matrix swiglu(const Matrix& x, const SwiGluWeights& w) {
  Matrix g = x * w.gate.transpose();
  const Matrix u = x * w.up.transpose();
  // silu(g) = g / (1 + e^-g)
  g.array() = g.array() / ((-g.array()).exp() + 1.0f) * u.array();
  return g * w.down.transpose();
}

}  // namespace moesim::models::functional
