// `moesim trace generate` and `moesim trace stats` end to end: the functional decoder writes a
// routing trace for the tiny model, the stats summarise it, and `moesim run` replays it with
// `routing: {model: trace, trace_path: ...}`; bad inputs exit 2 with one line.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/tools/cli_runner.h"

namespace {

namespace fs = std::filesystem;
using moesim::testing::run_moesim;

class TraceCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("moesim_trace_cli_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  void write(const std::string& name, const std::string& text) const { std::ofstream(dir_ / name) << text; }
  std::string read(const std::string& name) const {
    std::ifstream in(dir_ / name);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  fs::path dir_;
};

std::string scenario(const std::string& routing) {
  return "name: trace-replay\nseed: 3\nmodel: tiny-moe\nhardware: h800\ncluster: {preset: hgx, nodes: 1}\n"
         "deployment:\n  colocated:\n    ranks: 8\n    attention: {dp: 8}\n    moe: {ep: 8}\n"
         "routing: " +
         routing +
         "\n"
         "workload:\n  requests: 40\n  arrivals: {process: poisson, rate: 200/s}\n"
         "  input_tokens: {dist: fixed, value: 64}\n  output_tokens: {dist: fixed, value: 16}\n";
}

TEST_F(TraceCli, GenerateStatsAndReplayInASimulation) {
  auto r = run_moesim(
      "trace generate --model tiny-moe --random 4 --prompt-tokens 8 --max-new-tokens 6 --seed 3 "
      "--expert-bias-std 2 -o " +
      path("t.bin"));
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("4 prompts, 32 prefill tokens, 6 new tokens each (greedy); 6 steps, 20 decode tokens"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("wrote " + path("t.bin")), std::string::npos);

  r = run_moesim("trace stats " + path("t.bin"));
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("model 'tiny-moe', 3 MoE layers x 16 experts, top-2, router weights recorded"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("6 steps, 52 tokens (8.7 per step); mean router weight per token and layer 1.0000"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("moe_layer imbalance"), std::string::npos);

  write("trace.yaml", scenario("{model: trace, trace_path: t.bin}"));
  write("uniform.yaml", scenario("{model: uniform}"));
  r = run_moesim("run -q " + path("trace.yaml") + " -o " + path("out-trace"));
  ASSERT_EQ(r.exit_code, 0) << r.out;
  ASSERT_EQ(run_moesim("run -q " + path("uniform.yaml") + " -o " + path("out-uniform")).exit_code, 0);
  const auto summary = nlohmann::json::parse(read("out-trace/summary.json"));
  EXPECT_EQ(summary["requests"]["completed"], 40);
  EXPECT_EQ(summary["tokens"]["output"], 40 * 16);
  EXPECT_GT(summary["throughput"]["output_tokens_per_gpu_s"].get<double>(), 0);
  // The replayed routing (hot experts from --expert-bias-std 2) is not the uniform draw.
  const auto uniform = nlohmann::json::parse(read("out-uniform/summary.json"));
  const auto skew = [](const nlohmann::json& s) {
    return s.at("pools").at(0).at("load").at("expert_max_over_mean").get<double>();
  };
  EXPECT_GT(skew(summary), 2.0 * skew(uniform));
}

TEST_F(TraceCli, BadInputsExitTwoWithOneLine) {
  const auto one_line = [](const moesim::testing::CliResult& r) {
    EXPECT_EQ(r.exit_code, 2) << r.out;
    EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
    return r.out;
  };
  EXPECT_EQ(one_line(run_moesim("trace stats " + path("none.bin"))),
            "moesim: " + path("none.bin") + ": cannot open the routing trace\n");
  write("bad.bin", "MOESIMRT\x01");
  EXPECT_EQ(one_line(run_moesim("trace stats " + path("bad.bin"))),
            "moesim: " + path("bad.bin") + ": byte 9: truncated file: ends inside the header\n");
  EXPECT_EQ(one_line(run_moesim("trace generate --model tiny-moe --max-new-tokens 2 -o " + path("x.bin"))),
            "moesim: trace generate: give exactly one of --prompts FILE and --random N\n");
  write("p.txt", "1 2 3\n4 x1 5\n");
  EXPECT_EQ(one_line(run_moesim("trace generate --model tiny-moe --prompts " + path("p.txt") +
                                " --max-new-tokens 2 -o " + path("x.bin"))),
            "moesim: " + path("p.txt") + ":2: token 'x1' is not an integer id\n");
  write("p.txt", "1 2 3\n\n4 1024\n");
  EXPECT_EQ(one_line(run_moesim("trace generate --model tiny-moe --prompts " + path("p.txt") +
                                " --max-new-tokens 2 -o " + path("x.bin"))),
            "moesim: " + path("p.txt") + ":3: token 1024 outside the vocabulary (0..1023)\n");
  EXPECT_EQ(one_line(run_moesim("trace generate --model tiny-mo --random 1 --max-new-tokens 2 -o " + path("x.bin")))
                .rfind("moesim: --model: unknown model 'tiny-mo'; did you mean 'tiny-moe'?", 0),
            0u);
  const auto big =
      one_line(run_moesim("trace generate --model deepseek-v3 --random 1 --max-new-tokens 2 -o " + path("x.bin")));
  EXPECT_EQ(big.rfind("moesim: --model: deepseek-v3 needs ", 0), 0u) << big;
  EXPECT_NE(big.find(" GiB of float32 weights, over --max-memory 8.0 GiB\n"), std::string::npos) << big;
  // A truncated checkpoint: a header length and nothing else.
  fs::create_directories(dir_ / "ckpt");
  write("ckpt/model.safetensors", std::string("\x40\x00\x00\x00\x00\x00\x00\x00{}", 10));
  EXPECT_EQ(one_line(run_moesim("trace generate --model tiny-moe --weights " + path("ckpt") +
                                " --random 1 --max-new-tokens 2 -o " + path("x.bin"))),
            "moesim: " + path("ckpt/model.safetensors") +
                ": byte 10: truncated file: the header of 64 bytes runs past the end\n");
  // A trace of 16 experts replayed on an 8-expert model.
  ASSERT_EQ(run_moesim("trace generate --model tiny-moe --random 1 --max-new-tokens 2 -o " + path("t.bin")).exit_code,
            0);
  std::string mixtral = scenario("{model: trace, trace_path: t.bin}");
  mixtral.replace(mixtral.find("tiny-moe"), 8, "mixtral-8x7b");
  write("m.yaml", mixtral);
  EXPECT_EQ(one_line(run_moesim("run -q " + path("m.yaml") + " -o " + path("out-m"))),
            "moesim: " + path("t.bin") + ": routing trace has 16 experts, the model 8\n");
}

}  // namespace
