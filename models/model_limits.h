// Input limits of the model readers (docs/robustness.md): a model beyond these is refused when
// it is read (model YAML, config.json), before anything loops or allocates per layer or expert.
#pragma once

namespace moesim::models {

inline constexpr int kMaxLayers = 4096;          // decoder layers, and MTP modules
inline constexpr int kMaxRoutedExperts = 65535;  // per MoE layer (routing traces store u16 ids)

}  // namespace moesim::models
