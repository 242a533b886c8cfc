// Reader of Hugging Face safetensors files (https://huggingface.co/docs/safetensors): a
// little-endian u64 header length N, N bytes of JSON mapping each tensor name to
// {"dtype", "shape", "data_offsets": [begin, end]} (offsets into the data that follows the
// header; "__metadata__" is skipped), then the data, C-ordered.
//
// Opening a file reads and validates the whole header against the file size: every tensor's
// byte range must lie inside the data and hold exactly shape × dtype-size bytes, so a truncated
// or corrupt file fails on open with ModelError "<file>: byte <offset>: <what>" (the offset of
// the bad header length, of the header for JSON errors, or where the data ends). read() converts
// BF16, F16 and F32 tensors to float32; other dtypes are refused naming the tensor.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace moesim::models::functional {

struct TensorInfo {
  std::string name;
  std::string dtype;  // "BF16", "F16", "F32", ...
  std::vector<std::int64_t> shape;
  std::uint64_t begin = 0, end = 0;  // byte range within the data section
  std::int64_t elements() const;
};

class SafetensorsFile {
 public:
  explicit SafetensorsFile(std::filesystem::path path);

  const std::filesystem::path& path() const { return path_; }
  const TensorInfo* find(const std::string& name) const;
  const std::map<std::string, TensorInfo>& tensors() const { return tensors_; }
  // Converts the tensor to float32 into out[0 .. elements()).
  void read(const TensorInfo& tensor, float* out) const;

 private:
  std::filesystem::path path_;
  std::uint64_t data_start_ = 0;
  std::map<std::string, TensorInfo> tensors_;
};

// IEEE half and bfloat16 bit patterns to float (exact).
float half_to_float(std::uint16_t bits);
float bf16_to_float(std::uint16_t bits);

}  // namespace moesim::models::functional
