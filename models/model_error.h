// ModelError: the one exception type of the models/ input boundary (model YAML, Hugging Face
// config.json, routing traces, safetensors checkpoints). what() is one line naming where and
// what (file:line:column for text, file and byte offset or tensor name for binary files), e.g.
//   "my-model.yaml:7:3: moe.top_kk: unknown key 'top_kk'; did you mean 'top_k'?"
//   "config.json:12:5: JSON syntax error: ..."
//   "config.json: architectures: unknown architecture 'FooForCausalLM' (valid: ...)"
#pragma once

#include <string>
#include <utility>

#include "models/error.h"

namespace moesim::models {

class ModelError : public Error {
 public:
  explicit ModelError(const std::string& what, std::string position = {})
      : Error(ErrorKind::kModel, what, std::move(position)) {}
};

}  // namespace moesim::models
