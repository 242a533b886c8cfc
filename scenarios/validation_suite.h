// The validation suite: published end-to-end deployments the simulator is checked against
// (docs/validation.md). A manifest, `cases.yaml` in a folder of scenarios, lists the cases:
//
//   cases:
//     - name: d2-prefill-1k
//       title: "SGLang prefill, 32 x H100, EP32, 16,384 tokens per GPU, 1K prompts"
//       scenario: sglang-32xh100-prefill.yaml      # relative to the manifest
//       set: [routing.model=uniform]               # optional --set overrides
//       measure: {fixed-batch: {pool: prefill, prompt: 1024, tokens: 16384}}
//       published: 7209                            # optional: without it the row is informative
//       unit: input tokens/s per GPU
//       source: "LMSYS blog, 2025-05-05: 57,674 input tokens/s per node of 8"
//
// A case measures one figure in one of three ways, each the one comparable to how its source
// measured (never a makespan with ramp-up when the source measured a steady state):
// - `fixed-batch`: a benchmark at a fixed batch (every rank full, step after step): the mean
//   step of the pool at that batch (sim::run_fixed_batch); the figure is the tokens fed per GPU
//   per second (output tokens for decode without speculation, input tokens for prefill).
// - `run`: a whole serving run of the scenario (a closed-loop benchmark client, say); the figure
//   is one of summary.json's: `output_tokens_per_gpu_s`, `input_tokens_per_gpu_s` (the whole
//   run), or `steady_output_tokens_per_gpu_s` (the last pool's steady decode state, sim/metrics.h).
// - `ratio`: case `of`'s figure over case `to`'s (minus one with `minus_one: true`): the
//   overlap gain of an ablation, the growth of a step with the prompt length. Ratio cases are
//   reported apart: the suite's median and max |error| are over the direct cases.
// Errors in the manifest throw ScenarioError naming file:line:column.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "scenarios/scenario_error.h"
#include "sim/fixed_batch.h"
#include "sim/step_model.h"

namespace moesim::scenarios {

enum class MeasureKind { kFixedBatch, kRun, kRatio };

struct ValidationCase {
  std::string name, title, scenario, unit, source;
  std::vector<std::string> overrides;
  MeasureKind kind = MeasureKind::kFixedBatch;
  sim::FixedBatchSpec fixed;       // kFixedBatch
  std::string run_figure;          // kRun
  std::string ratio_of, ratio_to;  // kRatio
  bool minus_one = false;          // kRatio
  std::optional<double> published;
};

struct ValidationSuite {
  std::string dir;  // the manifest's folder (scenario paths are relative to it)
  std::vector<ValidationCase> cases;
};

// Reads `<dir>/cases.yaml`.
ValidationSuite load_validation_suite(const std::string& dir);

struct ValidationRow {
  const ValidationCase* c = nullptr;
  double simulated = 0;
  std::optional<double> error;  // (simulated - published) / published
  // The step the figure comes from (not for ratios): mean step, its phases and exposed
  // communication (ms), and what else the step holds (LM head, runtime).
  double step_ms = 0;
  sim::PhaseTimes phase_ms{};
  double exposed_comm_ms = 0;
  double other_ms = 0;
  bool has_split = false;
};

struct ValidationReport {
  std::vector<ValidationRow> rows;  // in manifest order
  // Over the direct cases with a published figure.
  double median_abs_error = 0, max_abs_error = 0;
  int counted = 0;
};

// Runs every case (those named in `only`, and the cases their ratios need, when non-empty).
ValidationReport run_validation(const ValidationSuite& suite, const std::vector<std::string>& only = {});

}  // namespace moesim::scenarios
