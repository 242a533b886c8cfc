// Sweep expansion (cartesian product of the axes, zip groups, derived keys), the path check that
// runs before any point, and the YAML text of a point (scenarios/sweep.h).
#include <cctype>
#include <cstdint>
#include <limits>
#include <string>

#include <yaml-cpp/yaml.h>

#include "scenarios/loader.h"
#include "scenarios/reader_errors.h"
#include "scenarios/set_override.h"
#include "scenarios/sweep.h"

namespace moesim::scenarios {

// The YAML reader's types (models/yaml_reader.h); its functions are found by argument lookup.
using models::join_path;
using models::parse_yaml;
using models::SourceLoc;
using models::YamlEntry;
using models::YamlNode;
namespace {

void emit(YAML::Emitter& out, const YamlNode& node) {
  switch (node.kind) {
    case YamlNode::Kind::kNull: out << YAML::Null; break;
    case YamlNode::Kind::kScalar: out << node.scalar; break;
    case YamlNode::Kind::kList: {
      bool scalars = true;
      for (const YamlNode& item : node.items) scalars = scalars && item.kind == YamlNode::Kind::kScalar;
      if (scalars) out << YAML::Flow;
      out << YAML::BeginSeq;
      for (const YamlNode& item : node.items) emit(out, item);
      out << YAML::EndSeq;
      break;
    }
    case YamlNode::Kind::kMap:
      out << YAML::BeginMap;
      for (const YamlEntry& e : node.entries) {
        out << YAML::Key << e.key << YAML::Value;
        emit(out, e.value);
      }
      out << YAML::EndMap;
      break;
  }
}

YamlNode parse_base(const SweepSpec& spec) { return parse_yaml(spec.base_text, spec.base_file, true); }

// The node at a dotted path, or null.
const YamlNode* find_path(const YamlNode& root, std::string_view path) {
  const YamlNode* node = &root;
  while (true) {
    const std::size_t dot = path.find('.');
    const YamlEntry* e = node->find(path.substr(0, dot));
    if (e == nullptr) return nullptr;
    node = &e->value;
    if (dot == std::string_view::npos) return node;
    path.remove_prefix(dot + 1);
  }
}

std::string derived_value(const SweepDerived& d, const YamlNode& tree) {
  const std::string where = join_path("derived", d.target);
  std::int64_t product = 1;
  for (const std::string& factor : d.factors) {
    std::string text = factor;
    if (!factor.empty() && (std::isdigit(static_cast<unsigned char>(factor[0])) || factor[0] == '-')) {
      text = factor;
    } else {
      const YamlNode* node = find_path(tree, factor);
      if (node == nullptr || node->kind == YamlNode::Kind::kNull)
        fail_at(d.loc, where, "'" + factor + "' is not set by the base scenario nor by the sweep");
      if (d.factors.size() == 1) return flow_yaml(*node);
      if (node->kind != YamlNode::Kind::kScalar)
        fail_at(d.loc, where, "'" + factor + "' is " + describe(*node) + ", not an integer");
      text = node->scalar;
    }
    std::size_t used = 0;
    long long value = 0;
    try {
      value = std::stoll(text, &used);
    } catch (const std::exception&) {
      used = std::string::npos;
    }
    if (used != text.size()) fail_at(d.loc, where, "'" + factor + "' is '" + text + "', not an integer");
    if (__builtin_mul_overflow(product, static_cast<std::int64_t>(value), &product))
      fail_at(d.loc, where, "the product overflows");
  }
  return std::to_string(product);
}

}  // namespace

std::vector<std::string> SweepPoint::overrides() const {
  std::vector<std::string> out;
  out.reserve(params.size());
  for (const SweepParam& p : params) out.push_back(p.path + "=" + p.value);
  return out;
}

std::string flow_yaml(const YamlNode& node) {
  YAML::Emitter out;
  out.SetMapFormat(YAML::Flow);
  out.SetSeqFormat(YAML::Flow);
  emit(out, node);
  return out.c_str();
}

std::size_t sweep_size(const SweepSpec& spec) {
  std::size_t n = 1;
  auto times = [&](std::size_t k) {
    if (k != 0 && n > std::numeric_limits<std::size_t>::max() / k)
      throw ScenarioError(spec.source_file + ": too many points");
    n *= k;
  };
  for (const SweepAxis& a : spec.axes) times(a.values.size());
  for (const auto& group : spec.zips) times(group.front().values.size());
  return n;
}

std::vector<SweepPoint> expand_sweep(const SweepSpec& spec) {
  return scenario_errors([&] {
    // Each dimension is an axis or a zip group; the last one varies fastest.
    std::vector<std::vector<const SweepAxis*>> dims;
    for (const SweepAxis& a : spec.axes) dims.push_back({&a});
    for (const auto& group : spec.zips) {
      dims.emplace_back();
      for (const SweepAxis& a : group) dims.back().push_back(&a);
    }
    const std::size_t total = sweep_size(spec);
    const YamlNode base = spec.derived.empty() ? YamlNode{} : parse_base(spec);

    std::vector<SweepPoint> points(total);
    for (std::size_t index = 0; index < total; ++index) {
      SweepPoint& p = points[index];
      p.index = index;
      std::vector<std::size_t> choice(dims.size());
      std::size_t rest = index;
      for (std::size_t d = dims.size(); d-- > 0;) {
        const std::size_t n = dims[d].front()->values.size();
        choice[d] = rest % n;
        rest /= n;
      }
      for (std::size_t d = 0; d < dims.size(); ++d)
        for (const SweepAxis* a : dims[d]) p.params.push_back({a->path, a->values[choice[d]]});
      if (spec.derived.empty()) continue;
      YamlNode tree = base;
      if (tree.kind == YamlNode::Kind::kNull) tree.kind = YamlNode::Kind::kMap;
      for (const std::string& flag : p.overrides()) apply_override(tree, flag);
      for (const SweepDerived& d : spec.derived) {
        SweepParam param{d.target, derived_value(d, tree)};
        apply_override(tree, param.path + "=" + param.value);
        p.params.push_back(std::move(param));
      }
    }
    return points;
  });
}

void check_sweep_paths(const SweepSpec& spec) {
  return scenario_errors([&] {
    std::vector<std::pair<std::string, const SourceLoc*>> probes;
    for (const SweepAxis& a : spec.axes) probes.emplace_back(a.path + "=" + a.values.front(), &a.loc);
    for (const auto& group : spec.zips)
      for (const SweepAxis& a : group) probes.emplace_back(a.path + "=" + a.values.front(), &a.loc);
    for (const SweepDerived& d : spec.derived) probes.emplace_back(d.target + "=0", &d.loc);
    const YamlNode base = parse_base(spec);
    for (const auto& probe : probes) {
      // Not a structured binding: lambdas may capture those only from clang 16 on.
      const std::string& flag = probe.first;
      const SourceLoc* loc = probe.second;
      const std::string prefix = "--set " + flag + ": ";
      auto rethrow_at_sweep_key = [&](const std::string& message) {
        if (message.starts_with(prefix)) fail_at(*loc, "", message.substr(prefix.size()));
        throw ScenarioError(message);
      };
      YamlNode tree = base;
      try {
        apply_override(tree, flag);
      } catch (const ScenarioError& e) {
        rethrow_at_sweep_key(e.what());
      }
      try {
        load_scenario_string(spec.base_text, spec.base_file, {flag});
      } catch (const ScenarioError& e) {
        const std::string message = e.what();
        if (message.starts_with(prefix) && message.find(": unknown key '") != std::string::npos)
          rethrow_at_sweep_key(message);
      } catch (const std::exception&) {
        // Any other problem is the point's, reported when it runs.
      }
    }
  });
}

std::string point_scenario_yaml(const SweepSpec& spec, const SweepPoint& point, std::string_view header) {
  return scenario_errors([&] {
    YamlNode tree = parse_base(spec);
    if (tree.kind == YamlNode::Kind::kNull) tree.kind = YamlNode::Kind::kMap;
    for (const std::string& flag : point.overrides()) apply_override(tree, flag);
    YAML::Emitter out;
    emit(out, tree);
    std::string text(header);
    if (!text.empty() && text.back() != '\n') text += '\n';
    return text + out.c_str() + "\n";
  });
}

}  // namespace moesim::scenarios
