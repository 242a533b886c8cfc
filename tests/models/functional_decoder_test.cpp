// The functional decoder's KV cache is exact: decoding with the cache gives the logits of
// recomputing the whole sequence, prefill and incremental decode route identically, and a
// decode step runs only its new tokens through the layers.
#include "models/functional/decoder.h"

#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "functional_test_support.h"
#include "models/functional/weights_random.h"
#include "models/model_error.h"

namespace moesim::models::functional {
namespace {

using test::max_relative_difference;

std::vector<int> tokens_of(int n, int vocab, int salt) {
  std::vector<int> t;
  for (int i = 0; i < n; ++i) t.push_back((i * 37 + salt * 11 + 5) % vocab);
  return t;
}

// Prefills `prompt`, then feeds `next` one token at a time with the cache; compares each step's
// logits with a fresh decoder's single forward over the whole sequence so far.
void expect_cache_matches_recompute(const ModelSpec& spec) {
  const DecoderWeights w = random_weights(spec, {7, 1.0, 0.5});
  Decoder cached(spec, w);
  const std::vector<int> prompt = tokens_of(7, spec.vocab, 1), next = tokens_of(6, spec.vocab, 2);
  const int seq = cached.add_sequence();
  std::vector<int> so_far = prompt;
  cached.forward(std::vector<BatchEntry>{{seq, prompt}});
  for (int t : next) {
    so_far.push_back(t);
    const Matrix step = cached.forward(std::vector<BatchEntry>{{seq, {t}}}).logits;
    Decoder fresh(spec, w);
    const int s = fresh.add_sequence();
    const Matrix full = fresh.forward(std::vector<BatchEntry>{{s, so_far}}).logits;
    ASSERT_EQ(step.rows(), 1);
    EXPECT_LE(max_relative_difference(step, full), 1e-4) << "position " << so_far.size() - 1;
  }
  EXPECT_EQ(cached.sequence_length(seq), static_cast<int>(so_far.size()));
  // The tolerance is meaningful: the last token without its history gives other logits.
  Decoder amnesic(spec, w);
  const Matrix alone = amnesic.forward(std::vector<BatchEntry>{{amnesic.add_sequence(), {so_far.back()}}}).logits;
  Decoder fresh(spec, w);
  const Matrix full = fresh.forward(std::vector<BatchEntry>{{fresh.add_sequence(), so_far}}).logits;
  EXPECT_GT(max_relative_difference(alone, full), 1e-2);
}

TEST(FunctionalDecoder, GqaCachedDecodeMatchesRecompute) { expect_cache_matches_recompute(test::tiny_gqa()); }

TEST(FunctionalDecoder, MlaCachedDecodeMatchesRecompute) { expect_cache_matches_recompute(test::tiny_mla()); }

TEST(FunctionalDecoder, LocalAttentionSinksBiasesAndQkNormsKeepTheCacheExact) {
  ModelSpec s = test::tiny_gqa();
  s.window = {4, WindowKind::kSliding, 2};  // layer 1 full, layers 0 and 2 slide over 4 positions
  s.attention_sinks = true;
  s.qkv_bias = true;
  s.qk_norm = QkNorm::kPerHead;
  expect_cache_matches_recompute(s);
  s.window = {5, WindowKind::kChunked, 0};  // every layer local: the last position sees its chunk
  s.qk_norm = QkNorm::kFull;
  s.shared_expert_gate = true;
  s.tie_embeddings = true;
  expect_cache_matches_recompute(s);
}

// Two sequences of different lengths decoded in one batch give each the logits it gets alone.
TEST(FunctionalDecoder, BatchedSequencesKeepSeparateCaches) {
  for (const ModelSpec& spec : {test::tiny_gqa(), test::tiny_mla()}) {
    const DecoderWeights w = random_weights(spec, {3, 1.0, 0.5});
    Decoder batch(spec, w);
    const int a = batch.add_sequence(), b = batch.add_sequence();
    const auto pa = tokens_of(5, spec.vocab, 3), pb = tokens_of(9, spec.vocab, 4);
    batch.forward(std::vector<BatchEntry>{{a, pa}, {b, pb}});
    const Matrix both = batch.forward(std::vector<BatchEntry>{{a, {11}}, {b, {12}}}).logits;
    for (int which = 0; which < 2; ++which) {
      Decoder alone(spec, w);
      const int s = alone.add_sequence();
      auto seq = which == 0 ? pa : pb;
      seq.push_back(which == 0 ? 11 : 12);
      const Matrix ref = alone.forward(std::vector<BatchEntry>{{s, seq}}).logits;
      EXPECT_LE(max_relative_difference(both.row(which), ref), 1e-4) << spec.name << " sequence " << which;
    }
  }
}

// The experts a position gets are the same whether it arrives in the prompt or is decoded.
TEST(FunctionalDecoder, PrefillAndIncrementalDecodeChooseTheSameExperts) {
  for (const ModelSpec& spec : {test::tiny_gqa(), test::tiny_mla()}) {
    const DecoderWeights w = random_weights(spec, {11, 1.0, 0.5});
    const std::vector<int> seq = tokens_of(12, spec.vocab, 5);
    Decoder whole(spec, w);
    const int s = whole.add_sequence();
    const ForwardResult prefill = whole.forward(std::vector<BatchEntry>{{s, seq}});
    Decoder step(spec, w);
    const int t = step.add_sequence();
    const ForwardResult head = step.forward(std::vector<BatchEntry>{{t, {seq.begin(), seq.begin() + 4}}});
    std::vector<ForwardResult> steps;
    for (std::size_t i = 4; i < seq.size(); ++i) steps.push_back(step.forward(std::vector<BatchEntry>{{t, {seq[i]}}}));
    const int k = spec.top_k;
    ASSERT_EQ(prefill.routing.size(), static_cast<std::size_t>(spec.num_moe_layers()));
    for (std::size_t l = 0; l < prefill.routing.size(); ++l)
      for (int pos = 0; pos < static_cast<int>(seq.size()); ++pos) {
        const Routing& r = pos < 4 ? head.routing[l] : steps[static_cast<std::size_t>(pos - 4)].routing[l];
        const int row = pos < 4 ? pos : 0;
        for (int j = 0; j < k; ++j) {
          const auto a = static_cast<std::size_t>(pos * k + j), b = static_cast<std::size_t>(row * k + j);
          EXPECT_EQ(prefill.routing[l].ids[a], r.ids[b]) << spec.name << " layer " << l << " position " << pos;
          EXPECT_NEAR(prefill.routing[l].weights[a], r.weights[b], 1e-4);
        }
      }
  }
}

// A decode step over B sequences with long histories runs B rows through every projection, MLP,
// router and expert: the history is only read by attention.
TEST(FunctionalDecoder, HistoryNeverReentersTheMlpOrMoe) {
  for (const ModelSpec& spec : {test::tiny_gqa(), test::tiny_mla()}) {
    Decoder d(spec, random_weights(spec));
    std::vector<BatchEntry> prompts;
    for (int i = 0; i < 3; ++i) prompts.push_back({d.add_sequence(), tokens_of(10 + i, spec.vocab, i)});
    const std::int64_t prompt_tokens = 10 + 11 + 12;
    const int moe = spec.num_moe_layers(), dense = spec.num_dense_layers(), k = spec.top_k;
    const ForwardResult p = d.forward(prompts);
    EXPECT_EQ(p.work.tokens, prompt_tokens);
    EXPECT_EQ(p.work.experts.pairs, prompt_tokens * k * moe);
    for (int step = 0; step < 4; ++step) {
      const ForwardResult r = d.forward(std::vector<BatchEntry>{{0, {1}}, {1, {2}}, {2, {3}}});
      EXPECT_EQ(r.work.tokens, 3);
      EXPECT_EQ(r.work.attention_rows, 3 * spec.num_layers);
      EXPECT_EQ(r.work.dense_rows, 3 * dense);
      EXPECT_EQ(r.work.routed_rows, 3 * moe);
      EXPECT_EQ(r.work.experts.pairs, 3 * k * moe);
      EXPECT_EQ(r.work.experts.shared_rows, 3 * moe);
      // One GEMM group per distinct expert of each layer, never one per pair.
      std::int64_t distinct = 0;
      for (const Routing& rt : r.routing)
        distinct += static_cast<std::int64_t>(std::set<int>(rt.ids.begin(), rt.ids.end()).size());
      EXPECT_EQ(r.work.experts.groups, distinct);
      EXPECT_EQ(r.logits.rows(), 3);
      EXPECT_EQ(d.sequence_length(2), 12 + step + 1);
    }
  }
}

TEST(FunctionalDecoder, RejectsBadBatches) {
  const ModelSpec spec = test::tiny_gqa();
  Decoder d(spec, random_weights(spec));
  const int s = d.add_sequence();
  const auto message = [&](std::vector<BatchEntry> batch) {
    try {
      d.forward(batch);
    } catch (const ModelError& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  EXPECT_EQ(message({{s, {97}}}), "forward: token 97 outside the vocabulary (0..96)");
  EXPECT_EQ(message({{s, {1}}, {s, {2}}}), "forward: sequence 0 is unknown or appears twice in the batch");
  EXPECT_EQ(message({{s, {}}}), "forward: sequence 0 has no new tokens");
  EXPECT_EQ(d.sequence_length(s), 0);  // nothing was cached by the failed calls
}

}  // namespace
}  // namespace moesim::models::functional
