// libFuzzer target: a sharded checkpoint's model.safetensors.index.json
// (models/functional/checkpoint.h). The input becomes the index of a scratch checkpoint folder
// that also holds one small valid shard, "model-00001-of-00001.safetensors", with tensors "a"
// and "b"; every name in the index is then looked up. Bad input must throw ModelError.
#include <string>

#include "models/functional/checkpoint.h"
#include "models/model_error.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

// A safetensors file with "a": F32 [2] and "b": BF16 [1, 2].
std::string valid_shard() {
  const std::string header =
      R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"BF16","shape":[1,2],"data_offsets":[8,12]}})";
  std::string bytes(8, '\0');
  for (int i = 0; i < 8; ++i) bytes[static_cast<std::size_t>(i)] = static_cast<char>((header.size() >> (8 * i)) & 0xFF);
  return bytes + header + std::string(12, '\x3f');
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace moesim;
  static const auto shard = fuzz::write_scratch("model-00001-of-00001.safetensors", valid_shard());
  const auto index = fuzz::write_scratch("model.safetensors.index.json", fuzz::as_text(data, size));
  fuzz::expect_only<models::ModelError>([&] {
    const models::functional::Checkpoint ckpt(index.parent_path());
    for (const char* name : {"a", "b", "c", "model.layers.0.mlp.gate.weight"}) (void)ckpt.find(name);
  });
  return 0;
}
