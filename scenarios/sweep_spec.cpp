// Sweep file -> SweepSpec (scenarios/sweep.h): the keys, the axes, `derived:` and the objective.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "models/did_you_mean.h"
#include "models/yaml_reader.h"
#include "scenarios/reader_errors.h"
#include "scenarios/sweep.h"
#include "scenarios/sweep_analysis.h"

namespace moesim::scenarios {

// The YAML reader's types (models/yaml_reader.h); its functions are found by argument lookup.
using models::Field;
using models::join_path;
using models::MapReader;
using models::parse_yaml;
using models::SourceLoc;
using models::YamlEntry;
using models::YamlNode;
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool is_dotted_path(std::string_view p) {
  if (p.empty() || p.front() == '.' || p.back() == '.' || p.find("..") != std::string_view::npos) return false;
  for (char c : p)
    if (std::isspace(static_cast<unsigned char>(c)) || c == '=') return false;
  return true;
}

bool is_integer_literal(std::string_view s) {
  if (s.starts_with('-')) s.remove_prefix(1);
  if (s.empty()) return false;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

// Every swept, zipped or derived path once: a second mention is an error naming the first.
class PathRegistry {
 public:
  void add(const Field& key) {
    const std::string path = key.path.substr(key.path.find('.') + 1);
    if (!is_dotted_path(path)) key.fail_at_key("malformed path '" + path + "': expected keys joined by '.'");
    const auto [it, inserted] = seen_.emplace(path, *key.key_loc);
    if (!inserted)
      key.fail_at_key("'" + path + "' is already varied" +
                      (it->second.line > 0 ? " at line " + std::to_string(it->second.line) : std::string()));
  }

 private:
  std::map<std::string, SourceLoc> seen_;
};

std::vector<YamlEntry> const& map_entries(const Field& f, std::string_view expected) {
  if (f.node->kind == YamlNode::Kind::kNull) {
    static const std::vector<YamlEntry> kNone;
    return kNone;
  }
  if (f.node->kind != YamlNode::Kind::kMap) f.fail("expected " + std::string(expected) + ", got " + describe(*f.node));
  return f.node->entries;
}

SweepAxis read_axis(const YamlEntry& e, const std::string& parent, PathRegistry& registry) {
  const Field f{&e.value, &e.key_loc, join_path(parent, e.key)};
  registry.add(f);
  if (e.value.kind != YamlNode::Kind::kList || e.value.items.empty())
    f.fail("expected a non-empty list of values, got " + describe(e.value));
  SweepAxis axis{e.key, {}, e.key_loc};
  for (const YamlNode& item : e.value.items) axis.values.push_back(flow_yaml(item));
  return axis;
}

std::vector<SweepAxis> read_zip_group(const YamlNode& group, const std::string& path, PathRegistry& registry) {
  const Field g{&group, &group.loc, path};
  if (group.kind != YamlNode::Kind::kMap || group.entries.empty())
    g.fail("expected a map of dotted paths to lists of values, got " + describe(group));
  std::vector<SweepAxis> axes;
  for (const YamlEntry& e : group.entries) {
    axes.push_back(read_axis(e, path, registry));
    if (axes.back().values.size() != axes.front().values.size())
      fail_at(e.key_loc, join_path(path, e.key),
              "has " + std::to_string(axes.back().values.size()) + " values but '" + axes.front().path + "' has " +
                  std::to_string(axes.front().values.size()) + "; keys of a zip group vary together");
  }
  return axes;
}

SweepDerived read_derived(const YamlEntry& e, PathRegistry& registry) {
  const Field f{&e.value, &e.key_loc, join_path("derived", e.key)};
  registry.add(f);
  const std::string expr = as_string(f);
  SweepDerived d{e.key, {}, e.key_loc};
  std::size_t start = 0;
  while (true) {
    const std::size_t star = expr.find('*', start);
    const std::string_view factor =
        trim(std::string_view(expr).substr(start, star == std::string::npos ? star : star - start));
    if (!is_integer_literal(factor) && !is_dotted_path(factor))
      f.fail("expected a dotted key path or a product such as 'a.b * c.d', got '" + expr + "'");
    d.factors.emplace_back(factor);
    if (star == std::string::npos) break;
    start = star + 1;
  }
  if (d.factors.size() == 1 && is_integer_literal(d.factors[0]))
    f.fail("expected a dotted key path or a product such as 'a.b * c.d', got '" + expr + "'");
  return d;
}

SweepObjective read_objective(const MapReader& m) {
  SweepObjective o;
  const auto max = m.get("maximize");
  const auto min = m.get("minimize");
  if (max && min) min->fail_at_key("give either 'maximize' or 'minimize', not both");
  if (max || min) {
    o.metric = as_choice(max ? *max : *min, "metric", sweep_metric_names());
    o.maximize = max.has_value();
  } else if (m.get("subject_to")) {
    fail_at(m.loc(), m.path(), "missing 'maximize' or 'minimize'");
  }
  if (auto s = m.get("subject_to")) {
    for (const YamlEntry& e : map_entries(*s, "a map of metric bounds such as {tpot_p90: 50ms}")) {
      const Field metric_key{&e.value, &e.key_loc, join_path(s->path, e.key)};
      const auto names = sweep_metric_names();
      if (std::find(names.begin(), names.end(), e.key) == names.end())
        fail_at(e.key_loc, s->path, models::unknown_name_message("metric", e.key, names));
      const SweepMetric& metric = sweep_metrics()[sweep_metric_index(e.key)];
      const double bound = metric.latency ? as_duration_ns(metric_key) / 1e9 : as_number(metric_key);
      o.subject_to.push_back({e.key, bound});
    }
  }
  return o;
}

}  // namespace

SweepSpec load_sweep_file(const std::string& path) {
  std::error_code ec;
  std::ifstream in(path, std::ios::binary);
  if (!in || std::filesystem::is_directory(path, ec)) throw ScenarioError("cannot open sweep file '" + path + "'");
  std::ostringstream text;
  text << in.rdbuf();
  return load_sweep_string(text.str(), path);
}

SweepSpec load_sweep_string(std::string_view yaml, std::string_view source_name) {
  return scenario_errors([&] {
    const YamlNode root = parse_yaml(yaml, std::string(source_name), true);
    if (root.kind != YamlNode::Kind::kMap && root.kind != YamlNode::Kind::kNull)
      fail_at(root.loc, "", "expected a map of sweep keys, got " + describe(root));
    const MapReader top(root, "", {"base", "sweep", "zip", "derived", "objective"});
    SweepSpec spec;
    spec.source_file = std::string(source_name);

    const Field base = top.require("base");
    std::filesystem::path base_path(as_string(base));
    if (base_path.is_relative()) base_path = std::filesystem::path(source_name).parent_path() / base_path;
    spec.base_file = base_path.string();
    std::error_code ec;
    std::ifstream in(spec.base_file, std::ios::binary);
    if (!in || std::filesystem::is_directory(base_path, ec))
      base.fail("cannot open base scenario '" + spec.base_file + "'");
    std::ostringstream text;
    text << in.rdbuf();
    spec.base_text = text.str();

    PathRegistry registry;
    if (auto f = top.get("sweep"))
      for (const YamlEntry& e : map_entries(*f, "a map of dotted paths to lists of values"))
        spec.axes.push_back(read_axis(e, "sweep", registry));
    if (auto f = top.get("zip")) {
      if (f->node->kind != YamlNode::Kind::kList)
        f->fail("expected a list of groups such as [{a.b: [1, 2], c.d: [3, 4]}], got " + describe(*f->node));
      for (std::size_t i = 0; i < f->node->items.size(); ++i)
        spec.zips.push_back(read_zip_group(f->node->items[i], "zip[" + std::to_string(i) + "]", registry));
    }
    if (spec.axes.empty() && spec.zips.empty())
      fail_at(top.loc(), "", "nothing to sweep: give 'sweep' (or 'zip') with at least one key and its values");
    if (auto f = top.get("derived"))
      for (const YamlEntry& e : map_entries(*f, "a map of dotted paths to key paths or products"))
        spec.derived.push_back(read_derived(e, registry));
    spec.objective = read_objective(top.map("objective", {"maximize", "minimize", "subject_to"}));
    return spec;
  });
}

std::vector<std::string> sweep_param_paths(const SweepSpec& spec) {
  std::vector<std::string> paths;
  for (const SweepAxis& a : spec.axes) paths.push_back(a.path);
  for (const auto& group : spec.zips)
    for (const SweepAxis& a : group) paths.push_back(a.path);
  for (const SweepDerived& d : spec.derived) paths.push_back(d.target);
  return paths;
}

}  // namespace moesim::scenarios
