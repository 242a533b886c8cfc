#include "models/hf_config.h"

#include <fstream>
#include <sstream>
#include <string>

#include "models/did_you_mean.h"
#include "models/hf_architectures.h"
#include "models/hf_json.h"
#include "models/model_limits.h"

namespace moesim::models {
namespace {

void apply_quantization(const HfJson& root, ModelSpec& m) {
  if (!root.has("quantization_config")) return;
  const std::string method = root.object("quantization_config").get_string("quant_method", "");
  if (method == "fp8" || method == "fbgemm_fp8") {
    m.weight_dtype = DType::kFp8;
    m.dispatch_dtype = DType::kFp8;
  } else if (method == "mxfp4") {
    m.expert_weight_dtype = DType::kMxfp4;
  }
}

std::string model_name(const HfJson& root, const HfJson& config) {
  std::string path = root.get_string("_name_or_path", "");
  while (!path.empty() && path.back() == '/') path.pop_back();
  if (const auto slash = path.find_last_of('/'); slash != std::string::npos) path = path.substr(slash + 1);
  if (!path.empty()) return path;
  return config.get_string("model_type", root.get_string("model_type", "hf-model"));
}

}  // namespace

std::vector<std::string_view> hf_supported_architectures() {
  std::vector<std::string_view> out;
  for (const HfArchitecture& a : hf_architecture_table()) out.push_back(a.name);
  return out;
}

ModelSpec load_hf_config_text(std::string_view text, std::string_view source_name) {
  const std::string source(source_name);
  const nlohmann::json json = parse_hf_json(text, source);
  const HfJson root(json, source);
  const std::vector<std::string> archs = root.get_string_list("architectures");
  if (archs.empty()) root.fail("architectures", "missing: expected e.g. [\"DeepseekV3ForCausalLM\"]");
  const HfArchitecture* arch = nullptr;
  for (const HfArchitecture& a : hf_architecture_table())
    if (a.name == archs.front()) arch = &a;
  if (arch == nullptr)
    root.fail("architectures", unknown_name_message("architecture", archs.front(), hf_supported_architectures()));
  const HfJson config = arch->text_config ? root.object("text_config") : root;
  // Limits before the mapping, which walks the layers.
  if (const int layers = config.get_int("num_hidden_layers", 1); layers > kMaxLayers)
    config.fail("num_hidden_layers", std::to_string(layers) + " exceeds the limit of " + std::to_string(kMaxLayers));
  ModelSpec m = arch->map(config);
  if (m.routed_experts > kMaxRoutedExperts || m.shared_experts > kMaxRoutedExperts || m.mtp_layers > kMaxLayers)
    config.fail("num_experts", std::to_string(m.routed_experts) + " routed, " + std::to_string(m.shared_experts) +
                                   " shared experts and " + std::to_string(m.mtp_layers) +
                                   " MTP layers exceed the limits of " + std::to_string(kMaxRoutedExperts) +
                                   " experts and " + std::to_string(kMaxLayers) + " layers");
  if (m.routed_experts > 0 && m.top_k > m.routed_experts)
    config.fail("num_experts_per_tok", "top-k " + std::to_string(m.top_k) + " exceeds the " +
                                           std::to_string(m.routed_experts) + " routed experts");
  if (arch->text_config && !config.has("tie_word_embeddings"))
    m.tie_embeddings = root.get_bool("tie_word_embeddings", false);
  apply_quantization(root, m);
  m.name = model_name(root, config);
  m.source = source;
  m.description = std::string(arch->name) + " imported from " + source;
  return m;
}

ModelSpec load_hf_config(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ModelError(path.string() + ": cannot open config.json");
  std::ostringstream text;
  text << in.rdbuf();
  return load_hf_config_text(text.str(), path.string());
}

}  // namespace moesim::models
