// Overlap schemes (registry): how a step's communication and computation interleave.
//
// - none: every phase in sequence; all communication is exposed.
// - shared-expert: the shared expert runs on the compute stream while the dispatch all-to-all
//   is in flight (DeepSeek-V3, SGLang).
// - two-batch: the batch is split into two micro-batches A and B; while one communicates the
//   other computes (DeepSeek's and SGLang's two-batch overlap). A step with prefill work (a
//   prefill or mixed step) issues A.attn, B.attn, A.experts, B.experts per layer, a combine's
//   receive waiting until its micro-batch next computes (SGLang's extend schedule). A decode
//   step runs the five-stage decode pipeline (DeepSeek, "Day 6: DeepSeek-V3/R1 Inference System
//   Overview", 2025: attention split in two, a 5-stage pipeline; SGLang's decode strategy, B two
//   stages behind A; sim/step_model_decode.cpp): each dispatch hides under its shared expert and
//   the other micro-batch's attention before its core, each combine under the other's
//   attention core and router, and the grouped GEMMs overlap nothing.
//   Communication kernels that occupy SMs (`comm_sm_share`, e.g. DeepEP normal mode with 24 of
//   132 SMs) slow the concurrent computation by 1 / (1 - share); DeepEP's low-latency kernels
//   receive via hooks and occupy none (share 0).
#pragma once

#include <optional>
#include <string_view>
#include <vector>

namespace moesim::sim {

enum class OverlapScheme { kNone, kSharedExpert, kTwoBatch };

struct OverlapConfig {
  OverlapScheme scheme = OverlapScheme::kNone;
  double comm_sm_share = 0.0;  // fraction of SMs communication kernels hold while overlapping
};

struct OverlapSchemeInfo {
  std::string_view name;
  OverlapScheme scheme;
  std::string_view description;
};

std::vector<OverlapSchemeInfo> overlap_schemes();
std::optional<OverlapScheme> parse_overlap_scheme(std::string_view name);
std::string_view to_string(OverlapScheme s);

}  // namespace moesim::sim
