// `moesim trace generate`: runs the functional decoder (models/functional/) over prompts and
// records its routing as a routing trace; `moesim trace stats`: summarises a trace
// (tools/trace_stats.h). Documented in docs/functional-decoder.md.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "models/did_you_mean.h"
#include "models/functional/checkpoint_layouts.h"
#include "models/functional/decoder.h"
#include "models/functional/sampling.h"
#include "models/functional/trace_generation.h"
#include "models/functional/weights_random.h"
#include "models/hf_config.h"
#include "models/model_yaml.h"
#include "models/presets.h"
#include "tools/commands.h"
#include "tools/trace_stats.h"

namespace moesim::tools {
namespace {

namespace fs = std::filesystem;
namespace fn = models::functional;

struct GenerateOptions {
  std::string model;
  std::string weights;
  std::string prompts;
  int random = 0;
  int prompt_tokens = 16;
  int max_new_tokens = 0;
  std::uint64_t seed = 1;
  double temperature = 0;
  double router_logit_std = 1.0;
  double expert_bias_std = 0.5;
  double max_memory_gib = 8;
  std::string output;
};

// A preset name, a model YAML file, or a config.json; with only --weights, its config.json.
models::ModelSpec resolve_model(const GenerateOptions& o) {
  std::string m = o.model;
  if (m.empty()) {
    if (o.weights.empty())
      throw UsageError("trace generate: give --model (a preset, model file or config.json) or --weights DIR");
    m = (fs::path(o.weights) / "config.json").string();
    if (!fs::exists(m)) throw UsageError("--weights: " + o.weights + " has no config.json; give --model");
  }
  if (const auto preset = models::find_model_preset(m)) return *preset;
  if (!fs::exists(m)) {
    std::vector<std::string_view> names;
    const auto presets = models::model_presets();
    for (const auto& p : presets) names.push_back(p.name);
    throw UsageError("--model: " + models::unknown_name_message("model", m, names) +
                     " (or a model file / config.json)");
  }
  return m.ends_with(".json") ? models::load_hf_config(m) : models::load_model_file(m);
}

std::vector<std::vector<int>> read_prompts(const std::string& path, int vocab) {
  std::ifstream in(path);
  if (!in) throw UsageError("--prompts: cannot open " + path);
  std::vector<std::vector<int>> prompts;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    std::istringstream words(line);
    std::vector<int> tokens;
    for (std::string w; words >> w;) {
      if (w.starts_with("#")) break;
      std::size_t used = 0;
      long long v = -1;
      try {
        v = std::stoll(w, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used != w.size())
        throw UsageError(path + ":" + std::to_string(n) + ": token '" + w + "' is not an integer id");
      if (v < 0 || v >= vocab)
        throw UsageError(path + ":" + std::to_string(n) + ": token " + w + " outside the vocabulary (0.." +
                         std::to_string(vocab - 1) + ")");
      tokens.push_back(static_cast<int>(v));
    }
    if (!tokens.empty()) prompts.push_back(std::move(tokens));
  }
  if (prompts.empty()) throw UsageError(path + ": no prompts (one per line, token ids separated by spaces)");
  return prompts;
}

std::vector<std::vector<int>> random_prompts(int n, int length, int vocab, std::uint64_t seed) {
  fn::Sampler draw(0, seed ^ 0x70726F6D707473ULL);  // its own stream ("prompts")
  std::vector<std::vector<int>> prompts(static_cast<std::size_t>(n));
  for (auto& p : prompts)
    for (int i = 0; i < length; ++i) p.push_back(static_cast<int>(draw.uniform() * vocab));
  return prompts;
}

int generate(const GenerateOptions& o) {
  if (o.max_new_tokens < 1) throw UsageError("--max-new-tokens must be >= 1");
  if (o.prompts.empty() == (o.random == 0))
    throw UsageError("trace generate: give exactly one of --prompts FILE and --random N");
  if (o.random < 0 || o.prompt_tokens < 1) throw UsageError("--random must be >= 1 and --prompt-tokens >= 1");
  if (o.temperature < 0) throw UsageError("--temperature must be >= 0");
  if (o.router_logit_std < 0 || o.expert_bias_std < 0)
    throw UsageError("--router-logit-std and --expert-bias-std must be >= 0");
  const models::ModelSpec spec = resolve_model(o);
  if (spec.num_moe_layers() == 0) throw UsageError("--model: " + spec.name + " has no MoE layer: no routing to trace");
  const double gib = static_cast<double>(fn::decoder_parameters(spec)) * 4 / (1 << 30);
  if (gib > o.max_memory_gib) {
    char msg[256];
    std::snprintf(msg, sizeof msg, "%s needs %.1f GiB of float32 weights, over --max-memory %.1f GiB",
                  spec.name.c_str(), gib, o.max_memory_gib);
    throw UsageError(std::string("--model: ") + msg);
  }
  const auto prompts = o.prompts.empty() ? random_prompts(o.random, o.prompt_tokens, spec.vocab, o.seed)
                                         : read_prompts(o.prompts, spec.vocab);
  const auto t0 = std::chrono::steady_clock::now();
  fn::DecoderWeights weights = o.weights.empty()
                                   ? fn::random_weights(spec, {o.seed, o.router_logit_std, o.expert_bias_std})
                                   : fn::load_checkpoint(spec, o.weights);
  fn::Decoder decoder(spec, std::move(weights));
  const auto t1 = std::chrono::steady_clock::now();
  const fn::Generation g = fn::generate_trace(decoder, prompts, {o.max_new_tokens, o.temperature, o.seed});
  const auto t2 = std::chrono::steady_clock::now();
  models::write_routing_trace(o.output, g.trace);

  const double load_s = std::chrono::duration<double>(t1 - t0).count(),
               run_s = std::chrono::duration<double>(t2 - t1).count();
  std::printf("%s: %d layers (%d MoE, %d experts, top-%d), %.1f M parameters, weights %s\n", spec.name.c_str(),
              spec.num_layers, spec.num_moe_layers(), spec.routed_experts, spec.top_k,
              static_cast<double>(fn::decoder_parameters(spec)) * 1e-6,
              o.weights.empty() ? ("random (seed " + std::to_string(o.seed) + ")").c_str() : o.weights.c_str());
  std::printf("%zu prompts, %lld prefill tokens, %d new tokens each (%s); %zu steps, %lld decode tokens\n",
              prompts.size(), static_cast<long long>(g.prefill_tokens), o.max_new_tokens,
              o.temperature > 0 ? ("temperature " + std::to_string(o.temperature)).c_str() : "greedy",
              g.trace.steps.size(), static_cast<long long>(g.decode_tokens));
  std::printf("weights %.2f s, generation %.2f s (%.1f tokens/s)\n", load_s, run_s,
              run_s > 0 ? static_cast<double>(g.prefill_tokens + g.decode_tokens) / run_s : 0.0);
  std::printf("wrote %s\n", o.output.c_str());
  return 0;
}

}  // namespace

Command add_trace_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("trace", "Routing traces: generate with the functional decoder, summarise");
  cmd->require_subcommand(1);
  auto o = std::make_shared<GenerateOptions>();
  auto* gen = cmd->add_subcommand("generate", "Run the functional MoE decoder and record its routing");
  gen->add_option("--model", o->model,
                  "Preset name, model YAML file or config.json (default: --weights DIR/config.json)");
  gen->add_option("--weights", o->weights,
                  "Hugging Face safetensors checkpoint (directory or file); default random weights");
  gen->add_option("--prompts", o->prompts, "Prompt file: one prompt per line, token ids separated by spaces");
  gen->add_option("--random", o->random, "Use N random prompts instead of --prompts");
  gen->add_option("--prompt-tokens", o->prompt_tokens, "Tokens per random prompt (default 16)");
  gen->add_option("--max-new-tokens", o->max_new_tokens, "Tokens to generate per prompt (= trace steps)")->required();
  gen->add_option("--seed", o->seed, "Seed of the random weights, random prompts and sampling (default 1)");
  gen->add_option("--temperature", o->temperature, "Sampling temperature (default 0: greedy)");
  gen->add_option("--router-logit-std", o->router_logit_std,
                  "Random weights: std of token-dependent router logits (default 1)");
  gen->add_option("--expert-bias-std", o->expert_bias_std,
                  "Random weights: std of per-expert logit offsets, hot experts (default 0.5)");
  gen->add_option("--max-memory", o->max_memory_gib,
                  "Refuse models whose float32 weights exceed this many GiB (default 8)");
  gen->add_option("-o,--output", o->output, "Routing-trace file to write")->required();
  auto path = std::make_shared<std::string>();
  auto loads = std::make_shared<int>(8);
  auto* stats = cmd->add_subcommand("stats", "Per-layer expert load, imbalance, co-selection and stability of a trace");
  stats->add_option("file", *path, "Routing-trace file")->required();
  stats->add_option("--loads", *loads,
                    "Experts listed per layer in the load table, hottest first (0 = all; default 8)");
  return {cmd, [o, gen, path, loads] { return gen->parsed() ? generate(*o) : print_trace_stats(*path, *loads); }};
}

}  // namespace moesim::tools
