// Dense float32 tensors of the functional decoder (Eigen). Activations are row-major
// [rows × features] with one row per token; weights keep the Hugging Face nn.Linear layout
// [out × in], so a projection is `x * w.transpose()`. RowBuffer is a growable [rows × cols]
// matrix (the KV cache): appending a row never copies the rows already held more than
// amortised-once, and `view()` maps the filled rows without copying.
#pragma once

#include <cstdint>
#include <vector>

#include <Eigen/Core>

namespace moesim::models::functional {

using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Vector = Eigen::VectorXf;
using MatrixMap = Eigen::Map<Matrix>;
using ConstMatrixMap = Eigen::Map<const Matrix>;

class RowBuffer {
 public:
  RowBuffer() = default;
  explicit RowBuffer(int cols) : cols_(cols) {}

  int cols() const { return cols_; }
  int rows() const { return rows_; }
  // Appends the rows of `block` (block.cols() == cols()).
  template <typename Block>
  void append(const Block& block) {
    const auto first = static_cast<std::size_t>(rows_) * static_cast<std::size_t>(cols_);
    data_.resize(first + static_cast<std::size_t>(block.rows()) * static_cast<std::size_t>(cols_));
    MatrixMap(data_.data() + first, block.rows(), cols_) = block;
    rows_ += static_cast<int>(block.rows());
  }
  ConstMatrixMap view() const { return ConstMatrixMap(data_.data(), rows_, cols_); }
  std::int64_t bytes() const { return static_cast<std::int64_t>(data_.size() * sizeof(float)); }

 private:
  int cols_ = 0;
  int rows_ = 0;
  std::vector<float> data_;
};

}  // namespace moesim::models::functional
