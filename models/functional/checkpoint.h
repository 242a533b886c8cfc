// A Hugging Face checkpoint on disk: a directory with model.safetensors.index.json (sharded:
// {"weight_map": {tensor: shard file}}), or with model.safetensors, or a single .safetensors
// file. Every shard's header is read and validated on open (safetensors.h); a tensor is looked
// up by name through the index.
//
// Errors are ModelError: "<dir>: no model.safetensors.index.json or model.safetensors",
// "<index>:<line>:<col>: JSON syntax error: ...", "<index>: weight_map: shard '<f>' not found",
// "<shard>: tensor '<name>' is listed in the index but not in the shard".
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "models/functional/safetensors.h"

namespace moesim::models::functional {

class Checkpoint {
 public:
  explicit Checkpoint(const std::filesystem::path& path);

  const std::filesystem::path& path() const { return path_; }
  // The shard holding `name` and its entry, or {nullptr, nullptr}.
  std::pair<const SafetensorsFile*, const TensorInfo*> find(const std::string& name) const;
  std::size_t shards() const { return files_.size(); }

 private:
  std::filesystem::path path_;
  std::vector<std::unique_ptr<SafetensorsFile>> files_;
  std::map<std::string, const SafetensorsFile*> index_;  // sharded: tensor → shard
};

}  // namespace moesim::models::functional
