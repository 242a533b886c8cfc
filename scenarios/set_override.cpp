#include "scenarios/set_override.h"

#include <vector>

#include "scenarios/reader_errors.h"

namespace moesim::scenarios {

// The YAML reader's types (models/yaml_reader.h); its functions are found by argument lookup.
using models::join_path;
using models::parse_yaml;
using models::SourceLoc;
using models::YamlEntry;
using models::YamlNode;
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::vector<std::string> split_path(std::string_view path, const SourceLoc& flag) {
  std::vector<std::string> keys;
  std::size_t start = 0;
  while (true) {
    const std::size_t dot = path.find('.', start);
    const std::string_view key = path.substr(start, dot == std::string_view::npos ? dot : dot - start);
    if (key.empty()) fail_at(flag, "", "malformed override: empty key in '" + std::string(path) + "'");
    keys.emplace_back(key);
    if (dot == std::string_view::npos) return keys;
    start = dot + 1;
  }
}

}  // namespace

void apply_override(YamlNode& root, const std::string& flag) {
  return scenario_errors([&] {
    const SourceLoc flag_loc{"--set " + flag, 0, 0};
    const std::size_t eq = flag.find('=');
    if (eq == std::string::npos) fail_at(flag_loc, "", "malformed override: expected path=value");
    const std::string_view path = trim(std::string_view(flag).substr(0, eq));
    if (path.empty()) fail_at(flag_loc, "", "malformed override: empty path before '='");
    const std::vector<std::string> keys = split_path(path, flag_loc);
    YamlNode value = parse_yaml(std::string_view(flag).substr(eq + 1), flag_loc.origin, false, path);

    if (root.kind == YamlNode::Kind::kNull) root.kind = YamlNode::Kind::kMap;
    YamlNode* node = &root;
    std::string node_path;
    for (std::size_t i = 0; i + 1 < keys.size(); ++i) {
      const std::string& key = keys[i];
      node_path = join_path(node_path, key);
      YamlEntry* entry = node->find(key);
      if (entry == nullptr) {
        YamlNode map;
        map.kind = YamlNode::Kind::kMap;
        map.loc = flag_loc;
        node->entries.push_back(YamlEntry{key, flag_loc, std::move(map)});
        entry = &node->entries.back();
      } else if (entry->value.kind == YamlNode::Kind::kNull) {
        entry->value.kind = YamlNode::Kind::kMap;
      } else if (entry->value.kind != YamlNode::Kind::kMap) {
        fail_at(flag_loc, node_path, "expected a map, got " + describe(entry->value));
      }
      node = &entry->value;
    }

    if (YamlEntry* entry = node->find(keys.back())) {
      entry->key_loc = flag_loc;
      entry->value = std::move(value);
    } else {
      node->entries.push_back(YamlEntry{keys.back(), flag_loc, std::move(value)});
    }
  });
}

}  // namespace moesim::scenarios
