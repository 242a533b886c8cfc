#include "models/did_you_mean.h"

#include <gtest/gtest.h>

namespace moesim::models {
namespace {

TEST(EditDistance, CountsEditsAndTranspositions) {
  EXPECT_EQ(edit_distance("", ""), 0u);
  EXPECT_EQ(edit_distance("ep", "epp"), 1u);
  EXPECT_EQ(edit_distance("nodes", "nodse"), 1u);
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(edit_distance("abc", ""), 3u);
}

TEST(ClosestMatch, PrefersSmallestDistanceThenEarliest) {
  EXPECT_EQ(closest_match("epp", {"dp", "ep"}), "ep");
  EXPECT_EQ(closest_match("h900", {"h800", "h100"}), "h800");
  EXPECT_EQ(closest_match("nodse", {"preset", "nodes"}), "nodes");
}

TEST(ClosestMatch, FallsBackToPrefixes) {
  EXPECT_EQ(closest_match("max_running", {"max_running_per_rank", "token_budget_per_rank"}), "max_running_per_rank");
  EXPECT_EQ(closest_match("requests_csv_file", {"requests_csv"}), "requests_csv");
}

TEST(ClosestMatch, NothingCloseGivesNothing) {
  EXPECT_EQ(closest_match("colour", {"name", "seed", "model"}), std::nullopt);
  EXPECT_EQ(closest_match("xy", {"ep"}), std::nullopt);
  EXPECT_EQ(closest_match("", {"ep"}), std::nullopt);
}

TEST(UnknownNameMessage, WithAndWithoutSuggestion) {
  EXPECT_EQ(unknown_name_message("model", "deepseek-v4", {"deepseek-v3", "tiny-moe"}),
            "unknown model 'deepseek-v4'; did you mean 'deepseek-v3'? (valid: deepseek-v3, tiny-moe)");
  EXPECT_EQ(unknown_name_message("cluster preset", "dgx-superpod", {"hgx"}),
            "unknown cluster preset 'dgx-superpod' (valid: hgx)");
}

}  // namespace
}  // namespace moesim::models
