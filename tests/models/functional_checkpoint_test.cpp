// Safetensors checkpoints: small real checkpoints in the Mixtral, Qwen-MoE and DeepSeek layouts
// (single file and sharded, F32/BF16/F16) are written by the test's own writer and loaded back
// bit for bit; truncated or corrupt files, missing tensors and wrong shapes are clear errors.
#include <gtest/gtest.h>

#include "tests/thrown.h"

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "functional_test_support.h"
#include "models/functional/checkpoint_layouts.h"
#include "models/functional/decoder.h"
#include "models/functional/safetensors.h"
#include "models/functional/weight_slots.h"
#include "models/functional/weights_random.h"
#include "models/model_error.h"
#include "safetensors_writer.h"

namespace moesim::models::functional {
namespace {

namespace fs = std::filesystem;
using test::TensorToWrite;

class TempDir {
 public:
  TempDir() {
    static int counter = 0;
    path_ = fs::temp_directory_path() / ("moesim_ckpt_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() { fs::remove_all(path_); }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

std::string error_of(const std::function<void()>& f) { return moesim::testing::thrown_message<ModelError>(f); }

// The tensors of `w` under `layout`'s names; experts in BF16 (their values rounded to BF16 first,
// so the round trip is exact), norms in F16 (ones), the rest F32.
std::vector<TensorToWrite> checkpoint_tensors(const ModelSpec& spec, DecoderWeights& w, CheckpointLayout layout) {
  std::vector<TensorToWrite> out;
  for (const WeightSlot& slot : weight_slots(spec, w)) {
    TensorToWrite t;
    t.name = tensor_name(layout, slot);
    t.dtype = slot.role == WeightRole::kNorm ? "F16" : slot.expert >= 0 ? "BF16" : "F32";
    float* data = slot.matrix ? slot.matrix->data() : slot.vector->data();
    const auto n = static_cast<std::size_t>(slot.rows) * static_cast<std::size_t>(slot.cols == 0 ? 1 : slot.cols);
    if (t.dtype == "BF16")
      for (std::size_t i = 0; i < n; ++i) data[i] = test::bf16_round(data[i]);
    t.values.assign(data, data + n);
    t.shape = slot.cols == 0 ? std::vector<std::int64_t>{slot.rows} : std::vector<std::int64_t>{slot.rows, slot.cols};
    out.push_back(std::move(t));
  }
  return out;
}

void expect_same_weights(const ModelSpec& spec, DecoderWeights& a, DecoderWeights& b) {
  const auto sa = weight_slots(spec, a), sb = weight_slots(spec, b);
  ASSERT_EQ(sa.size(), sb.size());
  for (std::size_t i = 0; i < sa.size(); ++i) {
    if (sa[i].matrix)
      EXPECT_EQ(*sa[i].matrix, *sb[i].matrix) << sa[i].describe();
    else
      EXPECT_EQ(*sa[i].vector, *sb[i].vector) << sa[i].describe();
  }
}

ModelSpec mixtral_like() {
  ModelSpec m = test::tiny_gqa();
  m.first_k_dense = 0;
  m.shared_experts = 0;
  m.dense_intermediate = 0;
  return m;
}

ModelSpec qwen2_like() {
  ModelSpec m = test::tiny_gqa();
  m.qkv_bias = true;
  m.shared_expert_gate = true;
  m.norm_top_k = false;
  return m;
}

TEST(CheckpointLayouts, TensorNamesFollowTheHuggingFaceLayouts) {
  const auto names = [](const ModelSpec& spec, CheckpointLayout layout, int layer) {
    DecoderWeights w;
    std::map<std::string, int> out;
    for (const WeightSlot& s : weight_slots(spec, w))
      if (s.layer == layer && s.expert <= 0) out[tensor_name(layout, s)] = 1;
    return out;
  };
  const auto has = [](const std::map<std::string, int>& m, const char* name) { return m.count(name) == 1; };
  const auto mixtral = names(mixtral_like(), CheckpointLayout::kMixtral, 0);
  for (const char* n :
       {"model.layers.0.input_layernorm.weight", "model.layers.0.self_attn.q_proj.weight",
        "model.layers.0.self_attn.o_proj.weight", "model.layers.0.post_attention_layernorm.weight",
        "model.layers.0.block_sparse_moe.gate.weight", "model.layers.0.block_sparse_moe.experts.0.w1.weight",
        "model.layers.0.block_sparse_moe.experts.0.w2.weight", "model.layers.0.block_sparse_moe.experts.0.w3.weight"})
    EXPECT_TRUE(has(mixtral, n)) << n;
  const auto qwen = names(qwen2_like(), CheckpointLayout::kQwenMoe, 1);
  for (const char* n :
       {"model.layers.1.self_attn.q_proj.bias", "model.layers.1.mlp.gate.weight",
        "model.layers.1.mlp.experts.0.gate_proj.weight", "model.layers.1.mlp.experts.0.up_proj.weight",
        "model.layers.1.mlp.experts.0.down_proj.weight", "model.layers.1.mlp.shared_expert.gate_proj.weight",
        "model.layers.1.mlp.shared_expert_gate.weight"})
    EXPECT_TRUE(has(qwen, n)) << n;
  const auto dense = names(qwen2_like(), CheckpointLayout::kQwenMoe, 0);
  EXPECT_TRUE(has(dense, "model.layers.0.mlp.gate_proj.weight"));
  const auto ds = names(test::tiny_mla(), CheckpointLayout::kDeepseek, 2);
  for (const char* n :
       {"model.layers.2.self_attn.q_a_proj.weight", "model.layers.2.self_attn.q_a_layernorm.weight",
        "model.layers.2.self_attn.q_b_proj.weight", "model.layers.2.self_attn.kv_a_proj_with_mqa.weight",
        "model.layers.2.self_attn.kv_a_layernorm.weight", "model.layers.2.self_attn.kv_b_proj.weight",
        "model.layers.2.self_attn.o_proj.weight", "model.layers.2.mlp.gate.weight",
        "model.layers.2.mlp.gate.e_score_correction_bias", "model.layers.2.mlp.experts.0.gate_proj.weight",
        "model.layers.2.mlp.shared_experts.down_proj.weight"})
    EXPECT_TRUE(has(ds, n)) << n;
  EXPECT_EQ(ds.size(), 17u);  // 2 norms + 6 MLA + router + bias + expert 0's 3 + the shared 3
}

// Each layout, single file or sharded: load gives the written weights exactly and the same logits.
TEST(Checkpoint, RoundTripsEveryLayout) {
  struct Case {
    ModelSpec spec;
    CheckpointLayout layout;
    int shards;
  };
  for (const Case& c :
       {Case{mixtral_like(), CheckpointLayout::kMixtral, 1}, Case{qwen2_like(), CheckpointLayout::kQwenMoe, 3},
        Case{test::tiny_mla(), CheckpointLayout::kDeepseek, 2}}) {
    SCOPED_TRACE(std::string(layout_name(c.layout)));
    TempDir dir;
    DecoderWeights w = random_weights(c.spec, {17, 1.0, 0.5});
    for (auto& l : w.layers) l.moe.logit_bias = Vector();  // a random-init knob, not a checkpoint tensor
    if (c.spec.scoring == RouterScoring::kSigmoid)
      for (int e = 0; e < c.spec.routed_experts; ++e) w.layers[1].moe.score_bias(e) = 0.01f * static_cast<float>(e);
    const auto tensors = checkpoint_tensors(c.spec, w, c.layout);
    if (c.shards == 1) {
      test::write_bytes(dir.path() / "model.safetensors", test::safetensors_bytes(tensors));
    } else {
      nlohmann::json index = {{"metadata", {{"total_size", 0}}}, {"weight_map", nlohmann::json::object()}};
      std::vector<std::vector<TensorToWrite>> parts(static_cast<std::size_t>(c.shards));
      for (std::size_t i = 0; i < tensors.size(); ++i) parts[i % parts.size()].push_back(tensors[i]);
      for (std::size_t p = 0; p < parts.size(); ++p) {
        const std::string file =
            "model-0000" + std::to_string(p + 1) + "-of-0000" + std::to_string(c.shards) + ".safetensors";
        test::write_bytes(dir.path() / file, test::safetensors_bytes(parts[p]));
        for (const auto& t : parts[p]) index["weight_map"][t.name] = file;
      }
      test::write_bytes(dir.path() / "model.safetensors.index.json", index.dump(2));
    }
    DecoderWeights loaded = load_checkpoint(c.spec, dir.path());
    expect_same_weights(c.spec, w, loaded);
    EXPECT_EQ(detect_layout(c.spec, Checkpoint(dir.path())), c.layout);
    Decoder a(c.spec, w), b(c.spec, loaded);
    const std::vector<BatchEntry> batch{{a.add_sequence(), {1, 5, 9, 13}}};
    b.add_sequence();
    EXPECT_EQ(a.forward(batch).logits, b.forward(batch).logits);
  }
}

TEST(Safetensors, HalfAndBf16Conversions) {
  EXPECT_EQ(half_to_float(0x3C00), 1.0f);
  EXPECT_EQ(half_to_float(0xC000), -2.0f);
  EXPECT_EQ(half_to_float(0x7BFF), 65504.0f);
  EXPECT_EQ(half_to_float(0x0001), std::ldexp(1.0f, -24));  // smallest subnormal
  EXPECT_EQ(half_to_float(0x03FF), 1023 * std::ldexp(1.0f, -24));
  EXPECT_EQ(half_to_float(0x0400), std::ldexp(1.0f, -14));  // smallest normal
  EXPECT_TRUE(std::isinf(half_to_float(0x7C00)));
  EXPECT_TRUE(std::isnan(half_to_float(0x7E00)));
  EXPECT_EQ(bf16_to_float(0x3F80), 1.0f);
  EXPECT_EQ(bf16_to_float(0xC0A0), -5.0f);
}

std::string two_tensor_file() {
  return test::safetensors_bytes({{"a", "F32", {2, 3}, {1, 2, 3, 4, 5, 6}}, {"b", "BF16", {4}, {1, 2, 3, 4}}});
}

TEST(Safetensors, EveryTruncationIsAnErrorWithAnOffset) {
  TempDir dir;
  const std::string full = two_tensor_file();
  const fs::path file = dir.path() / "t.safetensors";
  for (std::size_t cut = 0; cut < full.size(); ++cut) {
    test::write_bytes(file, full.substr(0, cut));
    const std::string msg = error_of([&] { SafetensorsFile f(file); });
    EXPECT_EQ(msg.rfind(file.string() + ": byte ", 0), 0u) << cut << ": " << msg;
  }
  test::write_bytes(file, full);
  SafetensorsFile f(file);
  std::vector<float> a(6), b(4);
  f.read(*f.find("a"), a.data());
  f.read(*f.find("b"), b.data());
  EXPECT_EQ(a, (std::vector<float>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(b, (std::vector<float>{1, 2, 3, 4}));
  // The last cut: a header that promises more data than the file holds.
  test::write_bytes(file, full.substr(0, full.size() - 1));
  EXPECT_EQ(error_of([&] { SafetensorsFile g(file); }),
            file.string() + ": byte " + std::to_string(full.size() - 1) +
                ": truncated file: tensor 'b' ends at data byte 32, the data has 31");
}

TEST(Safetensors, CorruptHeadersAreRejected) {
  TempDir dir;
  const fs::path file = dir.path() / "c.safetensors";
  const auto error_for = [&](const std::string& bytes) {
    test::write_bytes(file, bytes);
    return error_of([&] { SafetensorsFile f(file); });
  };
  const std::string f = file.string();
  std::string huge = two_tensor_file();
  huge[5] = 0x01;  // + 2^40
  const std::uint64_t n =
      (1ULL << 40) + static_cast<unsigned char>(huge[0]) + 256ULL * static_cast<unsigned char>(huge[1]);
  EXPECT_EQ(error_for(huge),
            f + ": byte 0: header length " + std::to_string(n) + " exceeds 100 MB (not a safetensors file?)");
  const auto with_header = [](std::string json) {
    std::string out;
    for (int b = 0; b < 8; ++b) out.push_back(static_cast<char>((json.size() >> (8 * b)) & 0xFF));
    return out + json;
  };
  // The 7-byte header {"a": [ ends at byte 15, where the parser runs out of input.
  EXPECT_EQ(error_for(with_header("{\"a\": [")), f + ": byte 15: header is not valid JSON");
  EXPECT_EQ(error_for(with_header("[1]")), f + ": byte 8: header is not a JSON object");
  EXPECT_EQ(error_for(with_header(R"({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 4]}})") + "12345678"),
            f + ": byte 8: tensor 'a': data_offsets [0,4] hold 4 bytes, shape [2] of F32 needs 8");
  EXPECT_EQ(error_for(with_header(R"({"a": {"dtype": "Q4", "shape": [2], "data_offsets": [0, 1]}})") + "1"),
            f + ": byte 8: tensor 'a': unknown dtype 'Q4'");
  EXPECT_EQ(error_for(with_header(R"({"a": {"dtype": "F32", "shape": [2]}})")),
            f + ": byte 8: tensor 'a': expected {\"dtype\", \"shape\", \"data_offsets\": [begin, end]}");
  // Found by fuzzing: a number too large for a double escaped as nlohmann's out_of_range.
  EXPECT_EQ(error_for(with_header(R"({"a": {"dtype": "F32", "shape": [1e999], "data_offsets": [0, 4]}})")),
            f + ": byte 8: header is not valid JSON (a number is out of range)");
  test::write_bytes(file, with_header(R"({"w": {"dtype": "F8_E4M3", "shape": [2], "data_offsets": [0, 2]}})") + "xy");
  const SafetensorsFile fp8(file);
  std::vector<float> out(2);
  EXPECT_EQ(error_of([&] { fp8.read(*fp8.find("w"), out.data()); }),
            f + ": tensor 'w': dtype F8_E4M3 is not supported (BF16, F16, F32); convert the checkpoint first");
}

// Found by fuzzing: reading an empty tensor passed null pointers to memcpy (undefined behaviour).
TEST(Safetensors, EmptyTensorsReadAsNothing) {
  TempDir dir;
  const fs::path file = dir.path() / "e.safetensors";
  const std::string json = R"({"z": {"dtype": "F32", "shape": [0, 5], "data_offsets": [0, 0]}})";
  std::string bytes;
  for (int b = 0; b < 8; ++b) bytes.push_back(static_cast<char>((json.size() >> (8 * b)) & 0xFF));
  test::write_bytes(file, bytes + json);
  const SafetensorsFile f(file);
  ASSERT_NE(f.find("z"), nullptr);
  EXPECT_EQ(f.find("z")->elements(), 0);
  std::vector<float> out;
  EXPECT_EQ(error_of([&] { f.read(*f.find("z"), out.data()); }), "(no error)");
}

TEST(Checkpoint, MissingTensorsWrongShapesAndBadIndexesAreErrors) {
  const ModelSpec spec = qwen2_like();
  DecoderWeights w = random_weights(spec);
  auto tensors = checkpoint_tensors(spec, w, CheckpointLayout::kQwenMoe);
  TempDir dir;
  const fs::path file = dir.path() / "model.safetensors";
  const auto write_without = [&](const std::string& drop) {
    std::vector<TensorToWrite> kept;
    for (const auto& t : tensors)
      if (t.name != drop) kept.push_back(t);
    test::write_bytes(file, test::safetensors_bytes(kept));
  };
  write_without("model.layers.2.mlp.experts.7.down_proj.weight");
  EXPECT_EQ(error_of([&] { load_checkpoint(spec, dir.path()); }),
            dir.path().string() + ": missing tensor 'model.layers.2.mlp.experts.7.down_proj.weight' (qwen-moe layout)");
  for (auto& t : tensors)
    if (t.name == "model.layers.1.self_attn.k_proj.weight") {
      t.shape = {16, 64};
      t.values.resize(16 * 64);
    }
  write_without("");
  EXPECT_EQ(error_of([&] { load_checkpoint(spec, dir.path()); }),
            file.string() +
                ": tensor 'model.layers.1.self_attn.k_proj.weight': shape [16, 64], expected [32, 64] from the model");
  fs::remove(file);
  EXPECT_EQ(error_of([&] { load_checkpoint(spec, dir.path()); }),
            dir.path().string() + ": no model.safetensors.index.json or model.safetensors");
  const fs::path index = dir.path() / "model.safetensors.index.json";
  test::write_bytes(index, "{\"weight_map\": {\"model.norm.weight\": \"shard-1.safetensors\"}}");
  EXPECT_EQ(error_of([&] { load_checkpoint(spec, dir.path()); }),
            index.string() + ": weight_map: shard 'shard-1.safetensors' not found");
  test::write_bytes(dir.path() / "shard-1.safetensors", two_tensor_file());
  EXPECT_EQ(error_of([&] { Checkpoint(dir.path()).find("model.norm.weight"); }),
            (dir.path() / "shard-1.safetensors").string() +
                ": tensor 'model.norm.weight' is listed in the index but not in the shard");
  test::write_bytes(index, "{\"weight_map\": {}}");  // an index of nothing: no shard to look in
  EXPECT_EQ(error_of([&] { Checkpoint c(dir.path()); }),
            index.string() + ": weight_map: empty, expected {tensor: file}");
  test::write_bytes(index, "{\"weight_map\": {\"a\": \"shard-1.safetensors\",}");
  EXPECT_EQ(error_of([&] { Checkpoint c(dir.path()); }).rfind(index.string() + ":1:", 0), 0u);
}

}  // namespace
}  // namespace moesim::models::functional
