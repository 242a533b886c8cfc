// Files a scenario names: model files, Hugging Face configs, hardware profiles, request and
// routing traces, lengths files. Relative paths resolve against the scenario file's folder
// (against the working directory when a --set flag gave them); their readers' errors pass
// through as one line.
#include <gtest/gtest.h>

#include "scenarios/loader.h"
#include "tests/scenarios/scenario_test_support.h"

namespace moesim::scenarios {
namespace {

using testing::TempDir;

constexpr std::string_view kModelYaml = R"(name: my-moe
layers: 2
hidden: 128
vocab: 512
attention: {kind: gqa, heads: 4, kv_heads: 2, head_dim: 32}
moe: {routed_experts: 8, top_k: 2, intermediate: 64}
)";

constexpr std::string_view kHardwareYaml = R"(name: my-gpu
source: test
compute: {sm_count: 100, fp8: 1000TFLOPS, bf16: 500TFLOPS}
memory: {capacity: 64GiB, bandwidth: 2TB/s}
network: {scaleup: 100GB/s, nic: 200Gbps}
)";

constexpr std::string_view kHfConfig = R"({
  "architectures": ["MixtralForCausalLM"],
  "model_type": "mixtral",
  "hidden_size": 4096,
  "intermediate_size": 14336,
  "num_attention_heads": 32,
  "num_experts_per_tok": 2,
  "num_hidden_layers": 32,
  "num_key_value_heads": 8,
  "num_local_experts": 8,
  "vocab_size": 32000
})";

constexpr std::string_view kRest =
    "cluster: {nodes: 1}\n"
    "deployment: {colocated: {ranks: 8}}\n";

TEST(ScenarioFiles, ModelAndHardwareFilesRelativeToTheScenario) {
  TempDir dir;
  dir.write("models/my-moe.yaml", kModelYaml);
  dir.write("hw/my-gpu.yaml", kHardwareYaml);
  const std::string scn = dir.write("run.yaml",
                                    "model: {file: models/my-moe.yaml}\n"
                                    "hardware: {file: hw/my-gpu.yaml}\n" +
                                        std::string(kRest));
  const Scenario s = load_scenario_file(scn);
  EXPECT_EQ(s.model.name, "my-moe");
  EXPECT_EQ(s.model.routed_experts, 8);
  EXPECT_EQ(s.hardware.name, "my-gpu");
  EXPECT_EQ(s.hardware.sm_count, 100);
  EXPECT_EQ(s.cluster.nic_bytes_per_s, 25e9);  // hgx: the profile's 200 Gb/s NIC
  EXPECT_EQ(s.cluster.scaleup_bytes_per_s, 100e9);
}

TEST(ScenarioFiles, HuggingFaceConfig) {
  TempDir dir;
  dir.write("mixtral/config.json", kHfConfig);
  const Scenario s = load_scenario_file(
      dir.write("run.yaml", "model: {hf_config: mixtral/config.json}\nhardware: h800\n" + std::string(kRest)));
  EXPECT_EQ(s.model.name, "mixtral");
  EXPECT_EQ(s.model.routed_experts, 8);
  EXPECT_EQ(s.model.top_k, 2);
  EXPECT_EQ(s.model.num_layers, 32);
}

// A scenario serves a model in its own precisions: `dtypes` beside the preset, file or config
// overrides the model's, class by class; the rest stay the model's.
TEST(ScenarioFiles, DtypesOverrideTheModels) {
  TempDir dir;
  dir.write("mixtral/config.json", kHfConfig);
  const Scenario hf = load_scenario_file(dir.write(
      "run.yaml", "model: {hf_config: mixtral/config.json, dtypes: {kv_cache: fp8, dispatch: fp8}}\nhardware: h800\n" +
                      std::string(kRest)));
  EXPECT_EQ(hf.model.kv_dtype, models::DType::kFp8);
  EXPECT_EQ(hf.model.dispatch_dtype, models::DType::kFp8);
  EXPECT_EQ(hf.model.weight_dtype, models::DType::kBf16);
  const Scenario fp4 = load_scenario_file(
      dir.write("fp4.yaml",
                "model: {preset: deepseek-r1-fp4, dtypes: {kv_cache: nvfp4}}\nhardware: b200\n" + std::string(kRest)));
  EXPECT_EQ(fp4.model.kv_dtype, models::DType::kNvfp4);
  EXPECT_EQ(fp4.model.expert_dtype(), models::DType::kNvfp4);  // the preset's own
  const std::string scn = (dir.path() / "run.yaml").string();
  EXPECT_EQ(
      testing::load_error_as("model: {preset: tiny-moe, dtypes: {kv_cache: fp5}}\n", scn),
      scn +
          ":1:46: model.dtypes.kv_cache: unknown dtype 'fp5'; did you mean 'fp8'? (valid: mxfp4, nvfp4, fp8, int8, "
          "bf16, fp16, fp32)");
  EXPECT_EQ(testing::load_error_as("model: {preset: tiny-moe, dtypes: {kv: fp8}}\n", scn),
            scn + ":1:36: model.dtypes.kv: unknown key 'kv'; did you mean 'kv_cache'?");
  const std::string unknown = testing::load_error_as("model: {preset: tiny-mo}\n", scn);
  EXPECT_EQ(unknown.substr(0, unknown.find(" (valid")),
            scn + ":1:17: model.preset: unknown model 'tiny-mo'; did you mean 'tiny-moe'?");
}

// hardware: {preset: ascend-910c, rank: die}: a rank per die of the two-die package, each with
// half the package's memory, compute and ports; nodes and boards of packages hold twice the
// devices, and a one-die device refuses it.
TEST(ScenarioFiles, HardwareRanksCanBeDies) {
  TempDir dir;
  const Scenario s = load_scenario_file(dir.write(
      "cm.yaml",
      "model: deepseek-v3\nhardware: {preset: ascend-910c, rank: die}\ncluster: {preset: cloudmatrix384, nodes: 1}\n"
      "deployment: {colocated: {ranks: 320, moe: {ep: 320, placement: eplb, redundant_experts: 64}}}\n"));
  EXPECT_EQ(s.hardware.name, "ascend-910c/die");
  EXPECT_DOUBLE_EQ(s.hardware.hbm_bytes, 64.0 * 1024 * 1024 * 1024);
  EXPECT_EQ(s.cluster.dies_per_package, 2);
  EXPECT_EQ(s.cluster.devices_per_node, 768);
  EXPECT_EQ(s.cluster.devices_per_board, 16);
  EXPECT_DOUBLE_EQ(s.cluster.scaleup_bytes_per_s, 196e9);
  EXPECT_DOUBLE_EQ(s.cluster.nic_bytes_per_s, 25e9);
  const Scenario pkg = load_scenario_file(
      dir.write("pkg.yaml",
                "model: deepseek-v3\nhardware: {preset: ascend-910c}\ncluster: {preset: cloudmatrix384, nodes: 1}\n"
                "deployment: {colocated: {ranks: 320, moe: {ep: 320, placement: eplb, redundant_experts: 64}}}\n"));
  EXPECT_EQ(pkg.cluster.devices_per_node, 384);
  EXPECT_DOUBLE_EQ(pkg.hardware.hbm_bytes, 128.0 * 1024 * 1024 * 1024);
  const std::string scn = (dir.path() / "run.yaml").string();
  EXPECT_EQ(testing::load_error_as("model: tiny-moe\nhardware: {preset: h100, rank: die}\n", scn),
            scn + ":2:32: hardware.rank: h100 is a one-die device (no package.dies in its profile)");
  EXPECT_EQ(testing::load_error_as("model: tiny-moe\nhardware: {preset: h100, rank: chip}\n", scn),
            scn + ":2:32: hardware.rank: unknown rank unit 'chip' (valid: package, die)");
}

TEST(ScenarioFiles, ReaderErrorsPassThroughAsOneLine) {
  TempDir dir;
  const std::string model = dir.write("m.yaml", std::string(kModelYaml) + "colour: red\n");
  const std::string hw = dir.write("hw.yaml", "name: x\nsource: y\ncompute: {sm_count: 0}\n");
  const std::string hf = dir.write("config.json", "{\"architectures\": [\"FooForCausalLM\"]}");
  const std::string scn = (dir.path() / "run.yaml").string();
  EXPECT_EQ(testing::load_error_as("model: {file: m.yaml}\n", scn),
            model +
                ":7:1: colour: unknown key 'colour' (valid keys: name, description, source, layers, hidden, vocab, "
                "tie_embeddings, mtp_layers, norm_eps, rope, attention, mlp, moe, dtypes)");
  EXPECT_EQ(testing::load_error_as("model: tiny-moe\nhardware: {file: hw.yaml}\n", scn),
            hw + ":3:21: compute.sm_count: expected an integer >= 1, got 0");
  const std::string prefix = hf + ": architectures: unknown architecture 'FooForCausalLM'";
  EXPECT_EQ(testing::load_error_as("model: {hf_config: config.json}\n", scn).substr(0, prefix.size()), prefix);
}

TEST(ScenarioFiles, MissingFilesAreReportedAtTheKey) {
  TempDir dir;
  const std::string scn = (dir.path() / "run.yaml").string();
  const std::string d = dir.path().string();
  EXPECT_EQ(testing::load_error_as("model: {file: nope.yaml}\n", scn),
            scn + ":1:15: model.file: cannot open model file '" + d + "/nope.yaml'");
  EXPECT_EQ(testing::load_error_as("model: {hf_config: x/config.json}\n", scn),
            scn + ":1:20: model.hf_config: cannot open config.json '" + d + "/x/config.json'");
  EXPECT_EQ(testing::load_error_as("model: tiny-moe\nhardware: {file: /nonexistent/hw.yaml}\n", scn),
            scn + ":2:18: hardware.file: cannot open hardware profile '/nonexistent/hw.yaml'");
  EXPECT_EQ(testing::load_error_as("model: {file: a.yaml, hf_config: b.json}\n", scn),
            scn + ":1:8: model: give one of 'preset', 'file' and 'hf_config', not two");
  EXPECT_EQ(testing::load_error_as("model: {}\n", scn),
            scn + ":1:8: model: give a preset name, or a map with 'preset', 'file' or 'hf_config'");
  EXPECT_EQ(testing::load_error_as("model: tiny-moe\nhardware: {path: hw.yaml}\n", scn),
            scn + ":2:12: hardware.path: unknown key 'path' (valid keys: preset, file, rank)");
  EXPECT_EQ(testing::load_error_as("model: tiny-moe\nhardware: {preset: h800, file: hw.yaml}\n", scn),
            scn + ":2:11: hardware: give either 'preset' or 'file', not both");
  EXPECT_EQ(testing::load_error_as("model: tiny-moe\nhardware: {rank: die}\n", scn),
            scn + ":2:11: hardware: give a preset name, or a map with 'preset' or 'file'");
}

TEST(ScenarioFiles, TraceAndLengthPathsResolveAgainstTheScenarioFolder) {
  TempDir dir;
  dir.write("traces/azure.csv", "TIMESTAMP,ContextTokens,GeneratedTokens\n0,100,10\n");
  dir.write("traces/routing.bin", "x");
  dir.write("lengths.txt", "100\n200,3\n");
  const std::string scn = dir.write(
      "sub/run.yaml",
      "model: tiny-moe\nhardware: h800\n" + std::string(kRest) +
          "routing: {model: trace, trace_path: ../traces/routing.bin}\n"
          "workload:\n"
          "  arrivals: {process: trace, trace_path: ../traces/azure.csv, trace_format: csv, time_scale: 0.5}\n"
          "  output_tokens: {dist: empirical, path: ../lengths.txt, max: 150}\n");
  const Scenario s = load_scenario_file(scn);
  const std::string sub = (dir.path() / "sub").string();
  EXPECT_EQ(s.routing.trace_path, sub + "/../traces/routing.bin");
  EXPECT_EQ(s.workload.arrivals.process, workloads::ArrivalProcess::kTrace);
  EXPECT_EQ(s.workload.arrivals.trace_path, sub + "/../traces/azure.csv");
  EXPECT_EQ(s.workload.arrivals.trace_format, workloads::TraceFormat::kCsv);
  EXPECT_EQ(s.workload.arrivals.time_scale, 0.5);
  EXPECT_EQ(s.workload.output_tokens.dist, workloads::LengthDist::kEmpirical);
  EXPECT_EQ(s.workload.output_tokens.path, sub + "/../lengths.txt");
  EXPECT_EQ(s.workload.output_tokens.max, 150);

  EXPECT_EQ(testing::load_error_as("model: tiny-moe\nhardware: h800\n" + std::string(kRest) +
                                       "workload: {arrivals: {process: trace, trace_path: gone.csv}}\n",
                                   scn),
            scn + ":5:51: workload.arrivals.trace_path: cannot open request trace '" + sub + "/gone.csv'");
}

TEST(ScenarioFiles, PathsFromSetFlagsResolveAgainstTheWorkingDirectory) {
  TempDir dir;
  const std::string scn = (dir.path() / "run.yaml").string();
  EXPECT_EQ(testing::load_error_as("model: tiny-moe\nhardware: h800\n" + std::string(kRest), scn,
                                   {"routing={model: trace, trace_path: nowhere/r.bin}"}),
            "--set routing={model: trace, trace_path: nowhere/r.bin}: routing.trace_path: cannot open routing trace "
            "'nowhere/r.bin'");
}

}  // namespace
}  // namespace moesim::scenarios
