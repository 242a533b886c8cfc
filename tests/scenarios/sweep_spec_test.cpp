// Sweep files: expansion (product, zip, derived) and the errors a bad sweep file gets.
#include <gtest/gtest.h>

#include <string>

#include "scenarios/loader.h"
#include "scenarios/sweep.h"
#include "tests/scenarios/scenario_test_support.h"

namespace moesim::scenarios {
namespace {

using testing::kMinimal;
using testing::TempDir;

// Loads `sweep` as <dir>/sw.yaml next to a minimal base scenario; returns the error or "<no error>".
struct SweepFixture {
  TempDir dir;
  std::string sweep_path;

  explicit SweepFixture(const std::string& sweep) {
    dir.write("base.yaml", kMinimal);
    sweep_path = dir.write("sw.yaml", sweep);
  }
  SweepSpec load() const { return load_sweep_file(sweep_path); }
  std::string error(bool check_paths = false) const {
    try {
      const SweepSpec spec = load();
      if (check_paths) check_sweep_paths(spec);
      expand_sweep(spec);
    } catch (const ScenarioError& e) {
      std::string what = e.what();
      const std::string prefix = sweep_path;
      return what.starts_with(prefix) ? "sw.yaml" + what.substr(prefix.size()) : what;
    }
    return "<no error>";
  }
};

std::string row(const SweepPoint& p) {
  std::string s = std::to_string(p.index) + ":";
  for (const auto& param : p.params) s += " " + param.path + "=" + param.value;
  return s;
}

TEST(SweepExpansion, CartesianProductLastAxisFastest) {
  const SweepFixture f("base: base.yaml\nsweep:\n  seed: [1, 2]\n  workload.requests: [10, 20, 30]\n");
  const auto points = expand_sweep(f.load());
  ASSERT_EQ(points.size(), 6u);
  EXPECT_EQ(row(points[0]), "0: seed=1 workload.requests=10");
  EXPECT_EQ(row(points[1]), "1: seed=1 workload.requests=20");
  EXPECT_EQ(row(points[2]), "2: seed=1 workload.requests=30");
  EXPECT_EQ(row(points[3]), "3: seed=2 workload.requests=10");
  EXPECT_EQ(row(points[5]), "5: seed=2 workload.requests=30");
  EXPECT_EQ(points[4].overrides(), (std::vector<std::string>{"seed=2", "workload.requests=20"}));
}

TEST(SweepExpansion, ZipGroupsVaryTogetherAfterTheAxes) {
  const SweepFixture f(
      "base: base.yaml\nsweep: {seed: [1, 2]}\n"
      "zip:\n  - {workload.requests: [10, 20], workload.arrivals.rate: [5/s, 9/s]}\n");
  const auto points = expand_sweep(f.load());
  ASSERT_EQ(points.size(), 4u);
  EXPECT_EQ(row(points[0]), "0: seed=1 workload.requests=10 workload.arrivals.rate=5/s");
  EXPECT_EQ(row(points[1]), "1: seed=1 workload.requests=20 workload.arrivals.rate=9/s");
  EXPECT_EQ(row(points[3]), "3: seed=2 workload.requests=20 workload.arrivals.rate=9/s");
  EXPECT_EQ(sweep_param_paths(f.load()),
            (std::vector<std::string>{"seed", "workload.requests", "workload.arrivals.rate"}));
}

TEST(SweepExpansion, DerivedKeysCopyOrMultiply) {
  const SweepFixture f(
      "base: base.yaml\nsweep: {deployment.colocated.ranks: [4, 8]}\n"
      "derived:\n  deployment.colocated.attention.dp: deployment.colocated.ranks\n"
      "  workload.requests: deployment.colocated.ranks * cluster.nodes * 3\n");
  const auto points = expand_sweep(f.load());
  ASSERT_EQ(points.size(), 2u);
  EXPECT_EQ(row(points[0]), "0: deployment.colocated.ranks=4 deployment.colocated.attention.dp=4 workload.requests=12");
  EXPECT_EQ(row(points[1]), "1: deployment.colocated.ranks=8 deployment.colocated.attention.dp=8 workload.requests=24");
  // Every point is a valid scenario through the ordinary override path.
  const SweepSpec spec = f.load();
  const Scenario s = load_scenario_string(spec.base_text, spec.base_file, points[1].overrides());
  EXPECT_EQ(s.deployment.colocated.attention_dp, 8);
  EXPECT_EQ(s.workload.requests, 24);
}

TEST(SweepExpansion, NonScalarValuesBecomeFlowYaml) {
  const SweepFixture f("base: base.yaml\nsweep:\n  cluster: [{preset: hgx, nodes: 1}, {nodes: 2}]\n");
  const auto points = expand_sweep(f.load());
  ASSERT_EQ(points.size(), 2u);
  EXPECT_EQ(points[0].params[0].value, "{preset: hgx, nodes: 1}");
  EXPECT_EQ(points[1].params[0].value, "{nodes: 2}");
}

TEST(SweepObjectiveSpec, DefaultsAndBounds) {
  const SweepSpec plain = SweepFixture("base: base.yaml\nsweep: {seed: [1]}\n").load();
  EXPECT_EQ(plain.objective.metric, "output_tokens_per_gpu_s");
  EXPECT_TRUE(plain.objective.maximize);
  const SweepSpec spec = SweepFixture(
                             "base: base.yaml\nsweep: {seed: [1]}\n"
                             "objective: {minimize: ttft_p90, subject_to: {tpot_p90: 50ms, slo_attainment: 0.9}}\n")
                             .load();
  EXPECT_EQ(spec.objective.metric, "ttft_p90");
  EXPECT_FALSE(spec.objective.maximize);
  ASSERT_EQ(spec.objective.subject_to.size(), 2u);
  EXPECT_EQ(spec.objective.subject_to[0].metric, "tpot_p90");
  EXPECT_DOUBLE_EQ(spec.objective.subject_to[0].bound, 0.05);
  EXPECT_DOUBLE_EQ(spec.objective.subject_to[1].bound, 0.9);
  // A cost bound is a plain number (USD per million output tokens), not a duration.
  const SweepSpec cost = SweepFixture(
                             "base: base.yaml\nsweep: {seed: [1]}\n"
                             "objective: {minimize: usd_per_million_output_tokens, "
                             "subject_to: {usd_per_million_output_tokens: 1.5}}\n")
                             .load();
  EXPECT_FALSE(cost.objective.maximize);
  EXPECT_DOUBLE_EQ(cost.objective.subject_to[0].bound, 1.5);
}

TEST(SweepErrors, UnknownTopLevelKeySuggests) {
  EXPECT_EQ(SweepFixture("base: base.yaml\nsweeps: {seed: [1]}\n").error(),
            "sw.yaml:2:1: sweeps: unknown key 'sweeps'; did you mean 'sweep'?");
}

TEST(SweepErrors, EmptyGridAndEmptyAxis) {
  EXPECT_EQ(SweepFixture("base: base.yaml\n").error(),
            "sw.yaml:1:1: nothing to sweep: give 'sweep' (or 'zip') with at least one key and its values");
  EXPECT_EQ(SweepFixture("base: base.yaml\nsweep:\n  seed: []\n").error(),
            "sw.yaml:3:9: sweep.seed: expected a non-empty list of values, got a list");
  EXPECT_EQ(SweepFixture("base: base.yaml\nsweep:\n  seed: 3\n").error(),
            "sw.yaml:3:9: sweep.seed: expected a non-empty list of values, got '3'");
}

TEST(SweepErrors, MissingOrUnreadableBase) {
  EXPECT_EQ(SweepFixture("sweep: {seed: [1]}\n").error(), "sw.yaml:1:1: missing required key 'base'");
  const SweepFixture f("base: nope.yaml\nsweep: {seed: [1]}\n");
  EXPECT_EQ(f.error(), "sw.yaml:1:7: base: cannot open base scenario '" + (f.dir.path() / "nope.yaml").string() + "'");
}

TEST(SweepErrors, ZipGroupsMustHaveEqualLengths) {
  EXPECT_EQ(SweepFixture("base: base.yaml\nzip:\n  - {seed: [1, 2], workload.requests: [1, 2, 3]}\n").error(),
            "sw.yaml:3:20: zip[0].workload.requests: has 3 values but 'seed' has 2; keys of a zip group vary "
            "together");
}

TEST(SweepErrors, APathIsVariedOnce) {
  EXPECT_EQ(SweepFixture("base: base.yaml\nsweep: {seed: [1]}\nzip: [{seed: [2]}]\n").error(),
            "sw.yaml:3:8: zip[0].seed: 'seed' is already varied at line 2");
  EXPECT_EQ(SweepFixture("base: base.yaml\nsweep: {a..b: [1]}\n").error(),
            "sw.yaml:2:9: sweep.a..b: malformed path 'a..b': expected keys joined by '.'");
}

TEST(SweepErrors, BadPathsAreReportedAtTheSweepKeyBeforeRunning) {
  EXPECT_EQ(SweepFixture("base: base.yaml\nsweep:\n  deployment.colocated.moe.epp: [8]\n").error(true),
            "sw.yaml:3:3: deployment.colocated.moe.epp: unknown key 'epp'; did you mean 'ep'?");
  EXPECT_EQ(SweepFixture("base: base.yaml\nsweep: {seed: [1]}\nderived: {clustr.nodes: seed}\n").error(true),
            "sw.yaml:3:11: clustr: unknown key 'clustr'; did you mean 'cluster'?");
  EXPECT_EQ(SweepFixture("base: base.yaml\nsweep:\n  deployment.colocated.ranks.x: [1]\n").error(true),
            "sw.yaml:3:3: deployment.colocated.ranks: expected a map, got '8'");
}

TEST(SweepErrors, DerivedSourcesMustBeSetAndIntegers) {
  EXPECT_EQ(SweepFixture("base: base.yaml\nsweep: {seed: [1]}\nderived: {workload.requests: routing.s}\n").error(),
            "sw.yaml:3:11: derived.workload.requests: 'routing.s' is not set by the base scenario nor by the sweep");
  EXPECT_EQ(SweepFixture("base: base.yaml\nsweep: {seed: [1]}\nderived: {workload.requests: model * 2}\n").error(),
            "sw.yaml:3:11: derived.workload.requests: 'model' is 'tiny-moe', not an integer");
  EXPECT_EQ(SweepFixture("base: base.yaml\nsweep: {seed: [1]}\nderived: {workload.requests: 'a b'}\n").error(),
            "sw.yaml:3:30: derived.workload.requests: expected a dotted key path or a product such as 'a.b * c.d', "
            "got 'a b'");
}

TEST(SweepErrors, ObjectiveMetricsSuggest) {
  EXPECT_EQ(SweepFixture("base: base.yaml\nsweep: {seed: [1]}\nobjective: {maximize: output_tokens_per_gpu}\n").error(),
            "sw.yaml:3:23: objective.maximize: unknown metric 'output_tokens_per_gpu'; did you mean "
            "'output_tokens_per_gpu_s'? (valid: output_tokens_per_gpu_s, input_tokens_per_gpu_s, ttft_p50, ttft_p90, "
            "ttft_p99, tpot_p50, tpot_p90, tpot_p99, itl_p99, e2e_p90, slo_attainment, goodput_requests_per_s, "
            "joules_per_output_token, "
            "usd_per_million_output_tokens)");
  EXPECT_EQ(SweepFixture("base: base.yaml\nsweep: {seed: [1]}\nobjective: {maximize: goodput_requests_per_s, "
                         "subject_to: {tpot_p99: 50ms, tpot_p9: 1s}}\n")
                .error()
                .substr(0, 95),
            "sw.yaml:3:76: objective.subject_to: unknown metric 'tpot_p9'; did you mean 'tpot_p90'? (valid: ");
  EXPECT_EQ(SweepFixture("base: base.yaml\nsweep: {seed: [1]}\nobjective: {subject_to: {tpot_p90: fast}}\n").error(),
            "sw.yaml:3:12: objective: missing 'maximize' or 'minimize'");
}

TEST(SweepPointYaml, IsTheBaseWithTheOverridesAndLoads) {
  const SweepFixture f(
      "base: base.yaml\nsweep: {deployment.colocated.ranks: [4]}\n"
      "derived: {deployment.colocated.moe.ep: deployment.colocated.ranks}\n");
  const SweepSpec spec = f.load();
  const auto points = expand_sweep(spec);
  const std::string text = point_scenario_yaml(spec, points[0], "# best point");
  EXPECT_EQ(text,
            "# best point\nmodel: tiny-moe\nhardware: h800\ncluster:\n  nodes: 1\ndeployment:\n  colocated:\n"
            "    ranks: 4\n    moe:\n      ep: 4\n");
  const Scenario s = load_scenario_string(text, "best.yaml");
  EXPECT_EQ(s.deployment.colocated.ranks, 4);
  EXPECT_EQ(s.deployment.colocated.moe_ep, 4);
}

TEST(SweepLibrary, ShippedSweepsLoadAndExpand) {
  const auto dir = std::filesystem::path(MOESIM_SOURCE_DIR) / "scenarios" / "library" / "sweeps";
  int loaded = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".yaml") continue;
    const SweepSpec spec = load_sweep_file(entry.path().string());
    EXPECT_NO_THROW(check_sweep_paths(spec)) << entry.path();
    const auto points = expand_sweep(spec);
    EXPECT_GE(points.size(), 2u) << entry.path();
    EXPECT_NO_THROW(load_scenario_string(spec.base_text, spec.base_file, points.back().overrides())) << entry.path();
    ++loaded;
  }
  EXPECT_GE(loaded, 1);
}

}  // namespace
}  // namespace moesim::scenarios
