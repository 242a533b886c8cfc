#include "models/yaml_tree.h"

#include <algorithm>

#include <yaml-cpp/yaml.h>

#include "models/yaml_documents.h"

namespace moesim::models {
namespace {

struct Context {
  const std::string& origin;
  bool with_positions;

  SourceLoc loc(const YAML::Mark& mark) const {
    if (!with_positions) return {origin, 0, 0};
    return {origin, std::max(mark.line, 0) + 1, std::max(mark.column, 0) + 1};
  }
};

YamlNode convert(const YAML::Node& node, const Context& ctx, const std::string& path) {
  YamlNode out;
  out.loc = ctx.loc(node.Mark());
  switch (node.Type()) {
    case YAML::NodeType::Undefined:
    case YAML::NodeType::Null: out.kind = YamlNode::Kind::kNull; break;
    case YAML::NodeType::Scalar:
      out.kind = YamlNode::Kind::kScalar;
      out.scalar = node.Scalar();
      break;
    case YAML::NodeType::Sequence: {
      out.kind = YamlNode::Kind::kList;
      std::size_t i = 0;
      for (const YAML::Node& item : node)
        out.items.push_back(convert(item, ctx, path + "[" + std::to_string(i++) + "]"));
      break;
    }
    case YAML::NodeType::Map:
      out.kind = YamlNode::Kind::kMap;
      for (const auto& kv : node) {
        const SourceLoc key_loc = ctx.loc(kv.first.Mark());
        if (!kv.first.IsScalar()) {
          YamlNode key = convert(kv.first, ctx, path);
          fail_at(key_loc, path, "expected a string key, got " + describe(key));
        }
        const std::string& key = kv.first.Scalar();
        const std::string child_path = join_path(path, key);
        if (const YamlEntry* first = out.find(key)) {
          std::string msg = "duplicate key '" + key + "'";
          if (first->key_loc.line > 0)
            msg += " (first at line " + std::to_string(first->key_loc.line) + ", column " +
                   std::to_string(first->key_loc.column) + ")";
          fail_at(key_loc, child_path, msg);
        }
        YamlNode value = convert(kv.second, ctx, child_path);
        // yaml-cpp places an empty value where the next token starts; its key is a better spot.
        if (value.kind == YamlNode::Kind::kNull) value.loc = key_loc;
        out.entries.push_back(YamlEntry{key, key_loc, std::move(value)});
      }
      break;
  }
  return out;
}

}  // namespace

std::string SourceLoc::str() const {
  if (line <= 0) return origin;
  return origin + ":" + std::to_string(line) + ":" + std::to_string(column);
}

const YamlEntry* YamlNode::find(std::string_view key) const {
  for (const YamlEntry& e : entries)
    if (e.key == key) return &e;
  return nullptr;
}

YamlEntry* YamlNode::find(std::string_view key) {
  for (YamlEntry& e : entries)
    if (e.key == key) return &e;
  return nullptr;
}

std::string describe(const YamlNode& node) {
  switch (node.kind) {
    case YamlNode::Kind::kNull: return "an empty value";
    case YamlNode::Kind::kScalar: return quoted_excerpt(node.scalar);
    case YamlNode::Kind::kList: return "a list";
    case YamlNode::Kind::kMap: return "a map";
  }
  return "a value";
}

void fail_at(const SourceLoc& loc, std::string_view path, std::string_view message) {
  std::string line = loc.str() + ": ";
  if (!path.empty()) line += std::string(path) + ": ";
  line += message;
  throw YamlError(line, loc.str());
}

std::string join_path(std::string_view parent, std::string_view key) {
  if (parent.empty()) return std::string(key);
  return std::string(parent) + "." + std::string(key);
}

YamlNode parse_yaml(std::string_view text, const std::string& origin, bool with_positions, std::string_view base_path) {
  const Context ctx{origin, with_positions};
  YamlDocuments docs;
  try {
    docs = load_yaml_documents(std::string(text));
  } catch (const YAML::Exception& e) {
    SourceLoc loc{origin, 0, 0};
    if (with_positions && e.mark.line >= 0) loc = ctx.loc(e.mark);
    fail_at(loc, "", "YAML syntax error: " + e.msg);
  }
  if (docs.count > 1)
    fail_at(ctx.loc(docs.second), "", "expected one YAML document, found " + std::to_string(docs.count));
  if (docs.count == 0) {
    YamlNode empty;
    empty.loc = ctx.loc(YAML::Mark());
    return empty;
  }
  return convert(docs.first, ctx, std::string(base_path));
}

}  // namespace moesim::models
