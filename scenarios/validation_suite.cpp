// Reading the validation manifest (scenarios/validation_suite.h).
#include "scenarios/validation_suite.h"

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "models/yaml_reader.h"
#include "scenarios/reader_errors.h"

namespace moesim::scenarios {

// The YAML reader's types (models/yaml_reader.h); its functions are found by argument lookup.
using models::Field;
using models::MapReader;
using models::parse_yaml;
using models::YamlNode;
namespace {

sim::FixedBatchSpec read_fixed_batch(const MapReader& m) {
  sim::FixedBatchSpec s;
  const std::string pool = as_choice(m.require("pool"), "pool", {"colocated", "prefill", "decode"});
  s.pool = pool == "colocated" ? sim::PoolRole::kColocated
           : pool == "prefill" ? sim::PoolRole::kPrefill
                               : sim::PoolRole::kDecode;
  if (auto f = m.get("sequences")) s.sequences = as_int(*f, 1, 1 << 20);
  if (auto f = m.get("kv")) s.kv = as_int64(*f, 1, std::int64_t{1} << 30);
  if (auto f = m.get("prompt")) s.prompt = as_int64(*f, 1, std::int64_t{1} << 30);
  if (auto f = m.get("tokens")) s.prefill_tokens = as_int64(*f, 1, std::int64_t{1} << 30);
  if (auto f = m.get("warmup")) s.warmup_steps = as_int(*f, 0, 1000);
  if (auto f = m.get("steps")) s.steps = as_int(*f, 1, 1000);
  const bool decode = s.sequences > 0, prefill = s.prefill_tokens > 0;
  if (decode == prefill)
    fail_at(m.loc(), m.path(), "give either 'sequences' and 'kv' (decode) or 'prompt' and 'tokens' (prefill)");
  if (decode && s.kv == 0) fail_at(m.loc(), m.path(), "missing required key 'kv'");
  if (prefill && s.prompt == 0) fail_at(m.loc(), m.path(), "missing required key 'prompt'");
  return s;
}

void read_measure(const Field& f, ValidationCase& c) {
  const MapReader m(*f.node, f.path, {"fixed-batch", "run", "ratio"});
  const auto fixed = m.get("fixed-batch"), run = m.get("run"), ratio = m.get("ratio");
  if ((fixed ? 1 : 0) + (run ? 1 : 0) + (ratio ? 1 : 0) != 1)
    f.fail("give exactly one of 'fixed-batch', 'run' or 'ratio'");
  if (fixed) {
    c.kind = MeasureKind::kFixedBatch;
    c.fixed =
        read_fixed_batch(m.map("fixed-batch", {"pool", "sequences", "kv", "prompt", "tokens", "warmup", "steps"}));
  } else if (run) {
    c.kind = MeasureKind::kRun;
    const MapReader r = m.map("run", {"figure"});
    c.run_figure = as_choice(r.require("figure"), "figure",
                             {"output_tokens_per_gpu_s", "input_tokens_per_gpu_s", "steady_output_tokens_per_gpu_s"});
  } else {
    c.kind = MeasureKind::kRatio;
    const MapReader r = m.map("ratio", {"of", "to", "minus_one"});
    c.ratio_of = as_string(r.require("of"));
    c.ratio_to = as_string(r.require("to"));
    if (auto g = r.get("minus_one")) c.minus_one = as_bool(*g);
  }
}

ValidationCase read_case(const YamlNode& node, const std::string& path) {
  const MapReader m(node, path, {"name", "title", "scenario", "set", "measure", "published", "unit", "source"});
  ValidationCase c;
  c.name = as_string(m.require("name"));
  if (auto f = m.get("title")) c.title = as_string(*f);
  if (auto f = m.get("unit")) c.unit = as_string(*f);
  if (auto f = m.get("source")) c.source = as_string(*f);
  if (auto f = m.get("published")) {
    c.published = as_number(*f);
    if (*c.published <= 0) f->fail("expected a number > 0");
  }
  read_measure(m.require("measure"), c);
  if (auto f = m.get("scenario")) c.scenario = as_string(*f);
  if (c.kind != MeasureKind::kRatio && c.scenario.empty()) fail_at(m.loc(), path, "missing required key 'scenario'");
  if (auto f = m.get("set")) {
    if (f->node->kind != YamlNode::Kind::kList)
      f->fail("expected a list of overrides such as [a.b=1], got " + describe(*f->node));
    for (std::size_t i = 0; i < f->node->items.size(); ++i)
      c.overrides.push_back(as_string(Field{&f->node->items[i], f->key_loc, f->path + "[" + std::to_string(i) + "]"}));
  }
  return c;
}

}  // namespace

ValidationSuite load_validation_suite(const std::string& dir) {
  return scenario_errors([&] {
    const std::string file = (std::filesystem::path(dir) / "cases.yaml").string();
    std::ifstream in(file, std::ios::binary);
    std::error_code ec;
    if (!in || std::filesystem::is_directory(file, ec))
      throw ScenarioError("cannot open validation manifest '" + file + "'");
    std::ostringstream text;
    text << in.rdbuf();
    const YamlNode root = parse_yaml(text.str(), file, true);
    const MapReader top(root, "", {"cases"});
    const Field cases = top.require("cases");
    if (cases.node->kind != YamlNode::Kind::kList || cases.node->items.empty())
      cases.fail("expected a non-empty list of cases, got " + describe(*cases.node));
    ValidationSuite suite;
    suite.dir = dir;
    std::set<std::string> names;
    for (std::size_t i = 0; i < cases.node->items.size(); ++i) {
      const YamlNode& item = cases.node->items[i];
      const std::string path = "cases[" + std::to_string(i) + "]";
      ValidationCase c = read_case(item, path);
      if (!names.insert(c.name).second) fail_at(item.loc, path + ".name", "duplicate case name '" + c.name + "'");
      if (c.kind == MeasureKind::kRatio)
        for (const auto* ref : {&c.ratio_of, &c.ratio_to})
          if (!names.count(*ref))
            fail_at(item.loc, path + ".measure.ratio",
                    "case '" + *ref + "' is not defined before this one (a ratio names earlier cases)");
      suite.cases.push_back(std::move(c));
    }
    return suite;
  });
}

}  // namespace moesim::scenarios
