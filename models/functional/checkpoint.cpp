#include "models/functional/checkpoint.h"

#include <fstream>
#include <sstream>

#include "models/hf_json.h"
#include "models/model_error.h"

namespace moesim::models::functional {

namespace fs = std::filesystem;

Checkpoint::Checkpoint(const fs::path& path) : path_(path) {
  if (fs::is_regular_file(path)) {
    files_.push_back(std::make_unique<SafetensorsFile>(path));
    return;
  }
  if (!fs::is_directory(path)) throw ModelError(path.string() + ": no such checkpoint file or directory");
  const fs::path index = path / "model.safetensors.index.json";
  if (!fs::exists(index)) {
    if (!fs::exists(path / "model.safetensors"))
      throw ModelError(path.string() + ": no model.safetensors.index.json or model.safetensors");
    files_.push_back(std::make_unique<SafetensorsFile>(path / "model.safetensors"));
    return;
  }
  std::ifstream in(index, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  const std::string source = index.string();
  const nlohmann::json j = parse_hf_json(text.str(), source);
  const auto map = j.find("weight_map");
  if (map == j.end() || !map->is_object()) throw ModelError(source + ": weight_map: missing, expected {tensor: file}");
  if (map->empty()) throw ModelError(source + ": weight_map: empty, expected {tensor: file}");
  std::map<std::string, const SafetensorsFile*> opened;
  for (auto it = map->begin(); it != map->end(); ++it) {
    if (!it.value().is_string()) throw ModelError(source + ": weight_map: " + it.key() + ": expected a file name");
    const std::string shard = it.value().get<std::string>();
    auto found = opened.find(shard);
    if (found == opened.end()) {
      if (shard.find('/') != std::string::npos || !fs::exists(path / shard))
        throw ModelError(source + ": weight_map: shard '" + shard + "' not found");
      files_.push_back(std::make_unique<SafetensorsFile>(path / shard));
      found = opened.emplace(shard, files_.back().get()).first;
    }
    index_[it.key()] = found->second;
  }
}

std::pair<const SafetensorsFile*, const TensorInfo*> Checkpoint::find(const std::string& name) const {
  if (index_.empty()) {
    const TensorInfo* t = files_.front()->find(name);
    return {t ? files_.front().get() : nullptr, t};
  }
  const auto it = index_.find(name);
  if (it == index_.end()) return {nullptr, nullptr};
  const TensorInfo* t = it->second->find(name);
  if (t == nullptr)
    throw ModelError(it->second->path().string() + ": tensor '" + name +
                     "' is listed in the index but not in the shard");
  return {it->second, t};
}

}  // namespace moesim::models::functional
