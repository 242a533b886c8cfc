// RMSNorm (Zhang & Sennrich 2019): y = x / sqrt(mean(x²) + eps) ⊙ w, applied to every row of a
// [rows × n] matrix, or to every `n`-wide group of columns of it (per-head q/k norms, Qwen3).
#pragma once

#include "models/functional/tensor.h"

namespace moesim::models::functional {

Matrix rms_norm(const Matrix& x, const Vector& weight, double eps);
// In place over column groups of weight.size() (x.cols() must be a multiple of it).
void rms_norm_groups(Matrix& x, const Vector& weight, double eps);

}  // namespace moesim::models::functional
