#include "models/routing_trace.h"

#include <gtest/gtest.h>

#include "tests/thrown.h"

#include <sstream>
#include <string>

#include "models/model_error.h"

namespace moesim::models {
namespace {

RoutingTrace sample_trace(bool weights) {
  RoutingTrace t;
  t.header = {2, 16, 2, weights, "tiny-moe"};
  for (int s = 0; s < 3; ++s) {
    RoutingTraceStep st;
    st.tokens = s + 1;
    for (int l = 0; l < 2; ++l)
      for (int tok = 0; tok < st.tokens; ++tok)
        for (int k = 0; k < 2; ++k) {
          st.ids.push_back(static_cast<std::uint16_t>((tok * 3 + l * 5 + k * 7 + s) % 16));
          if (weights) st.weights.push_back(0.25f * static_cast<float>(k + 1));
        }
    t.steps.push_back(st);
  }
  return t;
}

std::string bytes_of(const RoutingTrace& t) {
  std::ostringstream out;
  write_routing_trace(out, t);
  return out.str();
}

RoutingTrace read_bytes(const std::string& b) {
  std::istringstream in(b);
  return read_routing_trace(in, "r.trace");
}

TEST(RoutingTrace, RoundTripsWithAndWithoutWeights) {
  for (bool weights : {false, true}) {
    const auto t = sample_trace(weights);
    const auto back = read_bytes(bytes_of(t));
    EXPECT_EQ(back.header.moe_layers, 2);
    EXPECT_EQ(back.header.experts, 16);
    EXPECT_EQ(back.header.top_k, 2);
    EXPECT_EQ(back.header.has_weights, weights);
    EXPECT_EQ(back.header.model, "tiny-moe");
    ASSERT_EQ(back.steps.size(), 3u);
    for (std::size_t s = 0; s < 3; ++s) {
      EXPECT_EQ(back.steps[s].tokens, t.steps[s].tokens);
      EXPECT_EQ(back.steps[s].ids, t.steps[s].ids);
      EXPECT_EQ(back.steps[s].weights, t.steps[s].weights);
    }
    const auto ids = back.layer_ids(2, 1);
    ASSERT_EQ(ids.size(), 6u);
    EXPECT_EQ(ids[0], (0 * 3 + 1 * 5 + 0 * 7 + 2) % 16);
  }
}

TEST(RoutingTrace, EveryTruncationIsAnErrorWithAnOffset) {
  const std::string full = bytes_of(sample_trace(true));
  for (std::size_t cut = 0; cut < full.size(); ++cut) {
    try {
      read_bytes(full.substr(0, cut));
      FAIL() << "truncated at " << cut << " was accepted";
    } catch (const ModelError& e) {
      const std::string msg = e.what();
      EXPECT_EQ(msg.rfind("r.trace:", 0), 0u) << msg;
    }
  }
  EXPECT_THROW(read_bytes(full + "x"), ModelError);  // trailing bytes
}

TEST(RoutingTrace, MalformedContentIsRejected) {
  std::string b = bytes_of(sample_trace(false));
  auto corrupt = [&](std::size_t at, char v) {
    std::string c = b;
    c[at] = v;
    return c;
  };
  EXPECT_THROW(read_bytes(corrupt(0, 'X')), ModelError);  // magic
  EXPECT_THROW(read_bytes(corrupt(8, 2)), ModelError);    // version 2
  EXPECT_THROW(read_bytes(corrupt(20, 17)), ModelError);  // top_k > experts
  const std::size_t first_id = 32 + 8 + 8 + 4;            // header, name, step count, token count
  try {
    read_bytes(corrupt(first_id, 16));  // expert id 16 of 16
    FAIL();
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("expert id 16"), std::string::npos) << e.what();
  }
  const auto dup = corrupt(first_id, static_cast<char>(b[first_id + 2]));  // token 0 lists one expert twice
  EXPECT_THROW(read_bytes(dup), ModelError);
}

std::string read_error(const std::string& b) {
  return moesim::testing::thrown_message<ModelError>([&] { read_bytes(b); });
}

// Input limits: a header that claims 2^40 steps (or a step of 2^28 tokens) fails where the file
// ends, having allocated only one chunk; a non-finite router weight is refused.
TEST(RoutingTrace, AbsurdClaimsFailWithoutAllocatingForThem) {
  std::string b = bytes_of(sample_trace(false));
  const std::size_t steps_at = 32 + 8;  // header, then the 8-byte name "tiny-moe"
  b[steps_at + 5] = 1;                  // + 2^40 steps
  EXPECT_EQ(read_error(b),
            "r.trace: byte " + std::to_string(b.size()) + ": truncated file: ends inside step 3 token count");
  std::string big = bytes_of(sample_trace(false));
  big[steps_at + 8 + 3] = 0x08;  // step 0: 2^27 + 1 tokens
  EXPECT_EQ(read_error(big),
            "r.trace: byte " + std::to_string(big.size()) + ": truncated file: ends inside step 0 layer 0 expert ids");
  big[steps_at + 8 + 3] = 0x10;  // 2^28 + 1: above the format's limit
  EXPECT_EQ(read_error(big), "r.trace: byte 52: step 0: 268435457 tokens (max 2^28)");
}

TEST(RoutingTrace, NonFiniteRouterWeightsAreRefused) {
  std::string b = bytes_of(sample_trace(true));
  const std::size_t first_weight = 32 + 8 + 8 + 4 + 2 * 2;  // after step 0 layer 0's two ids
  b[first_weight + 2] = static_cast<char>(0xC0);            // 0x7FC00000: a quiet NaN
  b[first_weight + 3] = 0x7F;
  EXPECT_EQ(read_error(b),
            "r.trace: byte " + std::to_string(first_weight) + ": step 0 layer 0: router weight is not a finite number");
}

TEST(RoutingTrace, WriterRejectsInconsistentSteps) {
  auto t = sample_trace(false);
  t.steps[1].ids.pop_back();
  std::ostringstream out;
  EXPECT_THROW(write_routing_trace(out, t), ModelError);
}

}  // namespace
}  // namespace moesim::models
