// `moesim validate [DIR]`: runs the validation suite of DIR (default scenarios/validation) and
// prints one table: each case's published and simulated figure, the error, and the time split of
// the step the figure comes from; then the median and max |error| over the direct cases.
// Writes validation.json into `-o DIR` when given (docs/validation.md). `--set a.b=v` overrides a
// key in every case's scenario, after the case's own overrides (e.g. routing.reuse_draws=8 runs
// the whole suite in the kept-draws mode).
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "scenarios/validation_suite.h"
#include "tools/commands.h"

namespace moesim::tools {
namespace {

using Json = nlohmann::ordered_json;

struct ValidateOptions {
  std::string dir = "scenarios/validation";
  std::string out;
  std::vector<std::string> only;
  std::vector<std::string> overrides;  // --set, applied to every case after its own
};

// The step split as printed: attention (and router, shared expert, dense MLP), the two
// all-to-alls, the expert GEMMs, everything else on the step (TP collectives, LM head, runtime).
struct Split {
  double attention = 0, dispatch = 0, gemm = 0, combine = 0, other = 0;
};

Split split_of(const scenarios::ValidationRow& r) {
  using sim::Phase;
  const auto at = [&](Phase p) { return r.phase_ms[static_cast<std::size_t>(p)]; };
  Split s;
  s.attention = at(Phase::kAttention) + at(Phase::kRouter) + at(Phase::kSharedExpert) + at(Phase::kDenseMlp);
  s.dispatch = at(Phase::kDispatch);
  s.gemm = at(Phase::kExpertGemm);
  s.combine = at(Phase::kCombine);
  s.other = at(Phase::kTpComm) + r.other_ms;
  return s;
}

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, std::abs(v) < 10 ? "%.3f" : "%.0f", v);
  return buf;
}

std::string percent(double fraction) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.1f%%", 100 * fraction);
  return buf;
}

Json row_json(const scenarios::ValidationRow& r) {
  Json j{{"case", r.c->name}, {"title", r.c->title}, {"unit", r.c->unit}, {"source", r.c->source}};
  j["published"] = r.c->published ? Json(*r.c->published) : Json();
  j["simulated"] = r.simulated;
  j["error"] = r.error ? Json(*r.error) : Json();
  j["ratio"] = r.c->kind == scenarios::MeasureKind::kRatio;
  if (r.has_split) {
    const Split s = split_of(r);
    j["step_ms"] = r.step_ms;
    j["split_ms"] = {{"attention", s.attention}, {"dispatch", s.dispatch}, {"expert_gemm", s.gemm},
                     {"combine", s.combine},     {"other", s.other},       {"exposed_comm", r.exposed_comm_ms}};
  }
  return j;
}

int run_validate(const ValidateOptions& o) {
  auto suite = scenarios::load_validation_suite(o.dir);
  for (auto& c : suite.cases) c.overrides.insert(c.overrides.end(), o.overrides.begin(), o.overrides.end());
  const auto report = scenarios::run_validation(suite, o.only);
  std::printf("%-22s %10s %10s %8s | %8s %8s %8s %8s %8s %8s %8s\n", "case", "published", "simulated", "error",
              "step_ms", "attn", "dispatch", "gemm", "combine", "other", "exposed");
  for (const auto& r : report.rows) {
    const std::string pub = r.c->published ? number(*r.c->published) : "-";
    const std::string err = r.error ? percent(*r.error) : "-";
    std::printf("%-22s %10s %10s %8s", r.c->name.c_str(), pub.c_str(), number(r.simulated).c_str(), err.c_str());
    if (r.has_split) {
      const Split s = split_of(r);
      std::printf(" | %8.1f %8.1f %8.1f %8.1f %8.1f %8.1f %8.1f", r.step_ms, s.attention, s.dispatch, s.gemm, s.combine,
                  s.other, r.exposed_comm_ms);
    }
    std::printf("\n");
  }
  std::printf("\n%d direct cases: median |error| %.1f %%, max |error| %.1f %%\n", report.counted,
              100 * report.median_abs_error, 100 * report.max_abs_error);
  if (!o.out.empty()) {
    std::filesystem::create_directories(o.out);
    Json j{{"suite", o.dir},
           {"median_abs_error", report.median_abs_error},
           {"max_abs_error", report.max_abs_error},
           {"counted", report.counted}};
    Json rows = Json::array();
    for (const auto& r : report.rows) rows.push_back(row_json(r));
    j["cases"] = rows;
    const std::string file = (std::filesystem::path(o.out) / "validation.json").string();
    std::ofstream(file) << j.dump(2) << "\n";
    std::printf("wrote %s\n", file.c_str());
  }
  return 0;
}

}  // namespace

Command add_validate_command(CLI::App& app) {
  auto opts = std::make_shared<ValidateOptions>();
  CLI::App* sub = app.add_subcommand("validate", "run the validation suite against published deployments");
  sub->add_option("dir", opts->dir, "folder holding cases.yaml and its scenarios (default scenarios/validation)");
  sub->add_option("-o,--out", opts->out, "write validation.json into this folder");
  sub->add_option("--case", opts->only, "run only these cases (and the cases their ratios need)");
  sub->add_option("--set", opts->overrides,
                  "Override a scenario key in every case, after the case's own: --set a.b.c=value (repeatable)");
  return {sub, [opts] { return run_validate(*opts); }};
}

}  // namespace moesim::tools
