#include "workloads/arrivals.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "test_files.h"
#include "workloads/prefix_hit.h"
#include "workloads/trace_replay.h"
#include "workloads/workload_error.h"

namespace moesim::workloads {
namespace {

WorkloadConfig config(const char* process, double rate, std::int64_t requests) {
  WorkloadConfig c;
  c.requests = requests;
  c.arrivals.process = arrival_process(process);
  c.arrivals.rate_per_s = rate;
  c.input_tokens = {LengthDist::kFixed, 2000};
  c.output_tokens = {LengthDist::kFixed, 300};
  return c;
}

std::vector<Request> generate(const WorkloadConfig& c, std::uint64_t seed) {
  Rng rng = make_stream(seed, "arrivals");
  return generate_requests(c, rng);
}

TEST(PoissonArrivals, MeanGapIsInverseRateAndGapsAreExponential) {
  const double rate = 250.0;
  const int n = 50'000;
  const auto reqs = generate(config("poisson", rate, n), 1);
  ASSERT_EQ(reqs.size(), static_cast<std::size_t>(n));
  double prev = 0, sum = 0, sum2 = 0;
  for (const auto& r : reqs) {
    const double gap = (static_cast<double>(r.arrival_ns) - prev) * 1e-9;
    prev = static_cast<double>(r.arrival_ns);
    sum += gap;
    sum2 += gap * gap;
  }
  const double mean = sum / n;
  const double var = sum2 / n - mean * mean;
  // Exponential(rate): mean 1/rate, standard deviation 1/rate; 5 standard errors.
  EXPECT_NEAR(mean, 1 / rate, 5 * (1 / rate) / std::sqrt(n));
  // Coefficient of variation 1 (Var = mean²); Var of s² for an exponential is 8/rate⁴ / n.
  EXPECT_NEAR(var, 1 / (rate * rate), 5 * std::sqrt(8.0 / n) / (rate * rate));
}

TEST(ConstantArrivals, SpacingIsExact) {
  for (double rate : {10.0, 3.0, 7.0}) {
    const int n = 200'000;
    const auto reqs = generate(config("constant", rate, n), 1);
    ASSERT_EQ(reqs.size(), static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i)
      ASSERT_EQ(reqs[static_cast<std::size_t>(i)].arrival_ns, std::llround(i * 1e9 / rate))
          << "rate " << rate << " request " << i;
  }
}

TEST(Arrivals, SortedWithSequentialIdsAndFixedLengths) {
  for (const char* process : {"poisson", "constant"}) {
    const auto reqs = generate(config(process, 1000.0, 5000), 2);
    ASSERT_EQ(reqs.size(), 5000u);
    EXPECT_TRUE(std::is_sorted(reqs.begin(), reqs.end(),
                               [](const Request& a, const Request& b) { return a.arrival_ns < b.arrival_ns; }));
    for (std::size_t i = 0; i < reqs.size(); ++i) {
      EXPECT_EQ(reqs[i].id, static_cast<std::int64_t>(i));
      EXPECT_GE(reqs[i].arrival_ns, 0);
      EXPECT_EQ(reqs[i].input_tokens, 2000);
      EXPECT_EQ(reqs[i].output_tokens, 300);
    }
  }
}

TEST(Arrivals, SameSeedSameRequestsOtherSeedOtherTimes) {
  const auto c = config("poisson", 100.0, 1000);
  const auto a = generate(c, 9), b = generate(c, 9), other = generate(c, 10);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].arrival_ns, b[i].arrival_ns);
    EXPECT_EQ(a[i].input_tokens, b[i].input_tokens);
    EXPECT_EQ(a[i].output_tokens, b[i].output_tokens);
  }
  int same = 0;
  for (std::size_t i = 0; i < a.size(); ++i) same += a[i].arrival_ns == other[i].arrival_ns;
  EXPECT_LT(same, 10);
}

TEST(Arrivals, ZeroRequestsGiveAnEmptyList) { EXPECT_TRUE(generate(config("poisson", 1.0, 0), 1).empty()); }

TEST(Arrivals, BadNamesAndRatesThrow) {
  try {
    config("bursty", 10.0, 10);
    FAIL() << "expected WorkloadError";
  } catch (const WorkloadError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("bursty"), std::string::npos) << msg;
    for (const auto& p : arrival_processes()) EXPECT_NE(msg.find(p.name), std::string::npos) << msg;
  }
  auto c = config("poisson", 0.0, 10);
  EXPECT_THROW(generate(c, 1), WorkloadError);
  EXPECT_THROW(length_distribution("zipf"), WorkloadError);
}

// Each registry lists its names in the order of its enum: a name resolves to the value at its
// index, the value prints as the name, and an unknown name lists the valid ones.
template <typename Enum>
void expect_round_trip(const std::vector<RegistryEntry>& entries, Enum (*value)(std::string_view),
                       std::string_view (*name)(Enum)) {
  for (std::size_t i = 0; i < entries.size(); ++i) {
    EXPECT_EQ(static_cast<std::size_t>(value(entries[i].name)), i) << entries[i].name;
    EXPECT_EQ(name(static_cast<Enum>(i)), entries[i].name);
  }
}

TEST(WorkloadRegistries, NamesAndValuesRoundTrip) {
  expect_round_trip<ArrivalProcess>(arrival_processes(), arrival_process, to_string);
  expect_round_trip<LengthDist>(length_distributions(), length_distribution, to_string);
  expect_round_trip<PrefixHitDist>(prefix_hit_distributions(), prefix_hit_distribution, to_string);
  expect_round_trip<TraceFormat>(trace_formats(), trace_format, to_string);
  EXPECT_EQ(to_string(ArrivalProcess::kClosedLoop), "closed-loop");
  EXPECT_EQ(to_string(LengthDist::kLognormal), "lognormal");
  EXPECT_EQ(to_string(PrefixHitDist::kCache), "cache");
  EXPECT_EQ(to_string(TraceFormat::kJsonl), "jsonl");
}

TEST(WorkloadRegistries, UnknownNamesListTheValidOnes) {
  const auto message = [](auto resolve, std::string_view name) {
    try {
      resolve(name);
    } catch (const WorkloadError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message(arrival_process, "bursty"),
            "unknown arrival process 'bursty' (valid: poisson, gamma, constant, closed-loop, trace)");
  EXPECT_EQ(message(length_distribution, "pareto"),
            "unknown length distribution 'pareto' (valid: fixed, uniform, normal, lognormal, empirical)");
  EXPECT_EQ(message(prefix_hit_distribution, "zipf"),
            "unknown prefix hit distribution 'zipf' (valid: fixed, uniform, beta, trace, cache)");
  EXPECT_EQ(message(trace_format, "parquet"), "unknown trace format 'parquet' (valid: auto, csv, jsonl)");
}

}  // namespace
}  // namespace moesim::workloads

namespace moesim::workloads {
namespace {

TEST(GammaArrivals, GapsHaveTheConfiguredMeanAndCv) {
  for (double cv : {0.5, 1.0, 3.0}) {
    auto c = config("gamma", 100.0, 100'000);
    c.arrivals.cv = cv;
    const auto reqs = generate(c, 21);
    double prev = 0, sum = 0, sum2 = 0;
    for (const auto& r : reqs) {
      const double gap = (static_cast<double>(r.arrival_ns) - prev) * 1e-9;
      prev = static_cast<double>(r.arrival_ns);
      sum += gap;
      sum2 += gap * gap;
    }
    const double n = static_cast<double>(reqs.size());
    const double mean = sum / n;
    const double measured_cv = std::sqrt(sum2 / n - mean * mean) / mean;
    EXPECT_NEAR(mean, 0.01, 5 * cv * 0.01 / std::sqrt(n)) << "cv " << cv;
    EXPECT_NEAR(measured_cv, cv, 0.05 * cv) << "cv " << cv;
  }
}

TEST(ClosedLoopArrivals, ReleasedByCompletions) {
  auto c = config("closed-loop", 1.0, 10);
  c.arrivals.concurrency = 3;
  c.arrivals.think_time_s = 0.5;
  auto reqs = generate(c, 22);
  for (const auto& r : reqs) EXPECT_EQ(r.arrival_ns, kArrivesOnRelease);
  ClosedLoop loop(reqs, c.arrivals);
  const auto first = loop.initial();
  ASSERT_EQ(first.size(), 3u);
  for (auto i : first) EXPECT_EQ(reqs[i].arrival_ns, 0);
  const auto next = loop.on_finish(2'000'000'000);
  ASSERT_EQ(next, 3);
  EXPECT_EQ(reqs[3].arrival_ns, 2'500'000'000);
  for (int i = 4; i < 10; ++i) EXPECT_EQ(loop.on_finish(3'000'000'000), i);
  EXPECT_EQ(loop.on_finish(4'000'000'000), -1);
}

TEST(PrefixHits, ConstantAndDistributed) {
  auto c = config("poisson", 100.0, 20'000);
  c.prefix_hit.value = 0.25;
  for (const auto& r : generate(c, 23)) {
    EXPECT_DOUBLE_EQ(r.prefix_hit, 0.25);
    EXPECT_EQ(r.cached_tokens(), 500);
  }
  c.prefix_hit.dist = PrefixHitDist::kBeta;
  c.prefix_hit.mean = 0.6;
  c.prefix_hit.concentration = 5;
  double sum = 0;
  for (const auto& r : generate(c, 24)) {
    ASSERT_GE(r.prefix_hit, 0.0);
    ASSERT_LE(r.prefix_hit, 1.0);
    ASSERT_LT(r.cached_tokens(), r.input_tokens);
    sum += r.prefix_hit;
  }
  EXPECT_NEAR(sum / 20'000, 0.6, 0.01);
  c.prefix_hit.dist = PrefixHitDist::kUniform;
  c.prefix_hit.min = 0.5;
  c.prefix_hit.max = 0.2;
  EXPECT_THROW(generate(c, 1), WorkloadError);
}

TEST(TraceArrivals, ReplayAzureCsvScaledAndCapped) {
  testing::TempFile f(".csv",
                      "TIMESTAMP,ContextTokens,GeneratedTokens\n"
                      "2023-11-16 18:15:46.6805900,374,44\n"
                      "2023-11-16 18:15:50.9951690,396,109\n"
                      "2023-11-16 18:15:51.0000000,879,0\n");
  auto c = config("trace", 1.0, 100);
  c.arrivals.trace_path = f.path();
  c.arrivals.time_scale = 0.5;
  const auto reqs = generate(c, 25);
  ASSERT_EQ(reqs.size(), 3u);
  EXPECT_EQ(reqs[0].arrival_ns, 0);
  EXPECT_EQ(reqs[1].arrival_ns, std::llround(4.314579 * 0.5 * 1e9));
  EXPECT_EQ(reqs[1].input_tokens, 396);
  EXPECT_EQ(reqs[2].output_tokens, 1);  // 0 generated tokens → 1
  c.requests = 2;
  EXPECT_EQ(generate(c, 25).size(), 2u);
}

}  // namespace
}  // namespace moesim::workloads
