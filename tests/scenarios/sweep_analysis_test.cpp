// Sweep analysis: constraints, the best row, Pareto frontiers and the CSV text of rows.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "scenarios/sweep_analysis.h"

namespace moesim::scenarios {
namespace {

// An ok row with the given throughput, p90 TPOT and p90 TTFT (seconds); other metrics 0.
SweepRow ok_row(std::size_t index, double tput, double tpot, double ttft) {
  SweepRow r{index, "ok", "", {{"x", std::to_string(index)}}, std::vector<double>(sweep_metrics().size(), 0.0)};
  r.metrics[sweep_metric_index("output_tokens_per_gpu_s")] = tput;
  r.metrics[sweep_metric_index("tpot_p90")] = tpot;
  r.metrics[sweep_metric_index("ttft_p90")] = ttft;
  return r;
}

std::vector<std::size_t> front_indices(const std::vector<SweepRow>& rows, std::string_view metric) {
  std::vector<std::size_t> out;
  for (std::size_t i : pareto_front(rows, metric)) out.push_back(rows[i].index);
  return out;
}

TEST(SweepMetrics, FixedListWithUnitsInColumns) {
  EXPECT_EQ(sweep_metrics().size(), 14u);
  EXPECT_EQ(sweep_metrics()[sweep_metric_index("tpot_p90")].column, "tpot_p90_s");
  EXPECT_TRUE(sweep_metrics()[sweep_metric_index("itl_p99")].latency);
  EXPECT_FALSE(sweep_metrics()[sweep_metric_index("slo_attainment")].latency);
  // Energy and cost: lower is better, but they are not latencies (bounds are plain numbers).
  EXPECT_FALSE(sweep_metrics()[sweep_metric_index("usd_per_million_output_tokens")].latency);
  EXPECT_TRUE(sweep_metrics()[sweep_metric_index("usd_per_million_output_tokens")].lower_better);
  EXPECT_TRUE(sweep_metrics()[sweep_metric_index("joules_per_output_token")].lower_better);
  EXPECT_FALSE(sweep_metrics()[sweep_metric_index("goodput_requests_per_s")].lower_better);
  sim::Summary s;
  s.output_tokens_per_gpu_s = 7;
  s.tpot.p90_s = 0.03;
  s.goodput_requests_per_s = 2;
  const auto v = sweep_metric_values(s);
  EXPECT_EQ(v[sweep_metric_index("output_tokens_per_gpu_s")], 7);
  EXPECT_EQ(v[sweep_metric_index("tpot_p90")], 0.03);
  EXPECT_EQ(v[sweep_metric_index("goodput_requests_per_s")], 2);
}

TEST(SweepPareto, KeepsOnlyNonDominatedRowsByLatency) {
  std::vector<SweepRow> rows = {ok_row(0, 100, 0.010, 1.0), ok_row(1, 300, 0.030, 0.5), ok_row(2, 200, 0.040, 0.4),
                                ok_row(3, 300, 0.020, 2.0), ok_row(4, 50, 0.005, 3.0)};
  rows.push_back({5, "skipped", "does not fit", {{"x", "5"}}, {}});
  EXPECT_EQ(front_indices(rows, "tpot_p90"), (std::vector<std::size_t>{4, 0, 3}));
  EXPECT_EQ(front_indices(rows, "ttft_p90"), (std::vector<std::size_t>{2, 1}));
}

TEST(SweepPareto, EqualRowsAreAllKept) {
  const std::vector<SweepRow> rows = {ok_row(0, 100, 0.01, 1), ok_row(1, 100, 0.01, 1)};
  EXPECT_EQ(front_indices(rows, "tpot_p90"), (std::vector<std::size_t>{0, 1}));
}

TEST(SweepBest, MaximisesUnderConstraintsTiesToLowestIndex) {
  const std::vector<SweepRow> rows = {ok_row(0, 100, 0.010, 1.0), ok_row(1, 500, 0.060, 1.0),
                                      ok_row(2, 300, 0.040, 3.0), ok_row(3, 250, 0.050, 2.0),
                                      ok_row(4, 250, 0.020, 1.0)};
  SweepObjective o;
  o.subject_to = {{"tpot_p90", 0.05}, {"ttft_p90", 2.0}};
  EXPECT_EQ(rows[*best_row(rows, o)].index, 3u);  // 1 and 2 break a bound; 3 ties 4 and comes first
  o.subject_to = {};
  EXPECT_EQ(rows[*best_row(rows, o)].index, 1u);
  o.metric = "tpot_p90";
  o.maximize = false;
  EXPECT_EQ(rows[*best_row(rows, o)].index, 0u);
  o.subject_to = {{"output_tokens_per_gpu_s", 200}};  // a lower bound
  EXPECT_EQ(rows[*best_row(rows, o)].index, 4u);
  o.subject_to = {{"tpot_p90", 0.001}};
  EXPECT_FALSE(best_row(rows, o).has_value());
}

// Cost is minimised; a cost bound is an upper bound in plain units; a point whose cost is not
// known (its hardware gives no power, or no price is set: NaN) never wins.
TEST(SweepBest, MinimisesCostUnderAnUpperBoundAndSkipsUnknownCosts) {
  std::vector<SweepRow> rows = {ok_row(0, 100, 0.01, 1), ok_row(1, 50, 0.02, 0.5), ok_row(2, 80, 0.02, 0.5)};
  const std::size_t usd = sweep_metric_index("usd_per_million_output_tokens");
  rows[0].metrics[usd] = std::nan("");
  rows[1].metrics[usd] = 2.0;
  rows[2].metrics[usd] = 1.2;
  SweepObjective o;
  o.metric = "usd_per_million_output_tokens";
  o.maximize = false;
  EXPECT_EQ(best_row(rows, o), std::optional<std::size_t>(2));
  o.subject_to = {{"usd_per_million_output_tokens", 1.0}};
  EXPECT_FALSE(best_row(rows, o).has_value());
  o.subject_to = {{"usd_per_million_output_tokens", 2.0}};
  EXPECT_EQ(best_row(rows, o), std::optional<std::size_t>(2));
  rows[2].metrics[usd] = std::nan("");
  EXPECT_EQ(best_row(rows, o), std::optional<std::size_t>(1));
}

TEST(SweepCsv, RowsRoundTripNumbersAndQuoteFields) {
  EXPECT_EQ(results_csv_header({"a.b", "c"}).substr(0, 43), "index,status,a.b,c,output_tokens_per_gpu_s,");
  SweepRow skipped{7, "skipped", "a, \"quoted\" reason", {{"a.b", "{x: 1, y: 2}"}}, {}};
  EXPECT_EQ(results_csv_line(skipped), "7,skipped,\"{x: 1, y: 2}\",,,,,,,,,,,,,,,\"a, \"\"quoted\"\" reason\"\n");
  EXPECT_EQ(number_text_exact(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(std::stod(number_text_exact(1.0 / 3)), 1.0 / 3);
  const std::vector<SweepRow> rows = {ok_row(0, 100, 0.01, 1), ok_row(1, 50, 0.02, 0.5)};
  EXPECT_EQ(pareto_csv(rows, {"x"}),
            "frontier,index,x,output_tokens_per_gpu_s,latency_s\n"
            "tpot_p90,0,0,100,0.01\n"
            "ttft_p90,1,1,50,0.5\nttft_p90,0,0,100,1\n");
}

}  // namespace
}  // namespace moesim::scenarios
