#include "workloads/arrivals.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace moesim::workloads {
namespace {

WorkloadConfig config(const char* process, double rate, std::int64_t requests) {
  WorkloadConfig c;
  c.requests = requests;
  c.arrivals.process = process;
  c.arrivals.rate_per_s = rate;
  c.input_tokens = {"fixed", 2000};
  c.output_tokens = {"fixed", 300};
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
  auto c = config("bursty", 10.0, 10);
  try {
    generate(c, 1);
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("bursty"), std::string::npos) << msg;
    for (const auto& p : arrival_processes()) EXPECT_NE(msg.find(p.name), std::string::npos) << msg;
  }
  c = config("poisson", 0.0, 10);
  EXPECT_THROW(generate(c, 1), std::invalid_argument);
  c = config("poisson", 10.0, 10);
  c.input_tokens.dist = "zipf";
  EXPECT_THROW(generate(c, 1), std::invalid_argument);
}

}  // namespace
}  // namespace moesim::workloads
