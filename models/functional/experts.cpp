#include "models/functional/experts.h"

#include <cmath>
#include <vector>

#include "models/functional/swiglu.h"

namespace moesim::models::functional {

Matrix run_experts(const MoeWeights& w, const Matrix& x, const Routing& r, ExpertWork& work) {
  const int experts = static_cast<int>(w.experts.size());
  const auto pairs = r.ids.size();
  // Counting sort of the pairs by expert: order[first[e] .. first[e + 1]) are expert e's.
  std::vector<std::size_t> first(static_cast<std::size_t>(experts) + 1, 0);
  for (int id : r.ids) ++first[static_cast<std::size_t>(id) + 1];
  for (int e = 0; e < experts; ++e) first[static_cast<std::size_t>(e) + 1] += first[static_cast<std::size_t>(e)];
  std::vector<std::size_t> order(pairs), fill(first.begin(), first.end() - 1);
  for (std::size_t p = 0; p < pairs; ++p) order[fill[static_cast<std::size_t>(r.ids[p])]++] = p;

  Matrix out = Matrix::Zero(x.rows(), x.cols());
  const auto k = static_cast<std::size_t>(r.top_k);
  for (int e = 0; e < experts; ++e) {
    const std::size_t begin = first[static_cast<std::size_t>(e)], end = first[static_cast<std::size_t>(e) + 1];
    if (begin == end) continue;
    Matrix xe(static_cast<Eigen::Index>(end - begin), x.cols());
    for (std::size_t i = begin; i < end; ++i)
      xe.row(static_cast<Eigen::Index>(i - begin)) = x.row(static_cast<Eigen::Index>(order[i] / k));
    const Matrix ye = swiglu(xe, w.experts[static_cast<std::size_t>(e)]);
    for (std::size_t i = begin; i < end; ++i)
      out.row(static_cast<Eigen::Index>(order[i] / k)) +=
          r.weights[order[i]] * ye.row(static_cast<Eigen::Index>(i - begin));
    ++work.groups;
  }
  work.pairs += static_cast<std::int64_t>(pairs);
  if (w.shared.width() > 0) {
    Matrix shared = swiglu(x, w.shared);
    if (w.shared_gate.size() > 0) {
      const Matrix g = x * w.shared_gate.transpose();  // [rows × 1]
      for (Eigen::Index t = 0; t < x.rows(); ++t) shared.row(t) *= 1.0f / (1.0f + std::exp(-g(t, 0)));
    }
    out += shared;
    work.shared_rows += x.rows();
  }
  return out;
}

}  // namespace moesim::models::functional
