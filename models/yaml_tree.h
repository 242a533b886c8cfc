// YamlNode: a parsed YAML document as a small tree whose every node and key knows where it came
// from (file:line:column, or the --set flag that produced it). Every YAML input is read through
// it: scenarios and sweeps, model files, hardware profiles, fabric files (docs/design.md §3).
//
// Readers validate this tree (models/yaml_reader.h) rather than yaml-cpp nodes so that override
// values can carry the flag as their origin, and so that duplicate keys (which yaml-cpp keeps
// silently) are reported. Lines and columns are 1-based. Every error is a YamlError whose what()
// is one line, "<origin>:<line>:<column>: <dotted.key>: <message>"; each boundary's reader
// rethrows it as its own error type (ModelError, HardwareError, TopologyError, ScenarioError).
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "models/error.h"

namespace moesim::models {

class YamlError : public Error {
 public:
  explicit YamlError(const std::string& what, std::string position = {})
      : Error(ErrorKind::kYaml, what, std::move(position)) {}
};

struct SourceLoc {
  std::string origin;  // file or source name, or "--set a.b=v" for an override
  int line = 0;        // 1-based; 0 when the origin has no positions (override values)
  int column = 0;

  // "scn.yaml:12:7", or just the origin when there is no position.
  std::string str() const;
};

struct YamlEntry;

struct YamlNode {
  enum class Kind { kNull, kScalar, kList, kMap };

  Kind kind = Kind::kNull;
  std::string scalar;              // kScalar: the text, quotes removed
  std::vector<YamlNode> items;     // kList
  std::vector<YamlEntry> entries;  // kMap: document order, keys unique
  SourceLoc loc;

  const YamlEntry* find(std::string_view key) const;
  YamlEntry* find(std::string_view key);
};

struct YamlEntry {
  std::string key;
  SourceLoc key_loc;
  YamlNode value;
};

// For "expected X, got <describe>": "'text'", "a map", "a list" or "an empty value".
std::string describe(const YamlNode& node);

// Throws YamlError "<loc>: <path>: <message>" (no "<path>: " when path is empty).
[[noreturn]] void fail_at(const SourceLoc& loc, std::string_view path, std::string_view message);

// "a.b" + "c" -> "a.b.c"; "" + "c" -> "c".
std::string join_path(std::string_view parent, std::string_view key);

// Parses one YAML document (empty text gives a kNull node). With `with_positions` every node gets
// `origin` plus its line and column; without, just `origin`. Throws YamlError for YAML syntax
// errors ("<origin>:<line>:<col>: YAML syntax error: ..."), more than one document, map keys that
// are not scalars, and duplicate keys. `base_path` is the dotted path the document will sit under,
// for messages. An empty value in a map takes its key's position.
YamlNode parse_yaml(std::string_view text, const std::string& origin, bool with_positions,
                    std::string_view base_path = "");

}  // namespace moesim::models
