#include "workloads/trace_replay.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "test_files.h"
#include "workloads/workload_error.h"

namespace moesim::workloads {
namespace {

std::string error_of(const std::string& text, bool jsonl) {
  std::istringstream in(text);
  try {
    if (jsonl) {
      parse_request_trace_jsonl(in, "t.jsonl");
    } else {
      parse_request_trace_csv(in, "t.csv");
    }
  } catch (const WorkloadError& e) {
    return e.what();
  }
  return "";
}

TEST(DateTime, ParsesAzureTimestamps) {
  std::int64_t ns = 0;
  ASSERT_TRUE(parse_datetime_ns("1970-01-02 00:00:01.5", ns));
  EXPECT_EQ(ns, 86'401'500'000'000);
  ASSERT_TRUE(parse_datetime_ns("2024-05-10 00:00:00.0086110+00:00", ns));
  std::int64_t z = 0;
  ASSERT_TRUE(parse_datetime_ns("2024-05-10T00:00:00.008611Z", z));
  EXPECT_EQ(ns, z);
  ASSERT_TRUE(parse_datetime_ns("2024-05-10 02:00:00+02:00", ns));
  ASSERT_TRUE(parse_datetime_ns("2024-05-10 00:00:00", z));
  EXPECT_EQ(ns, z);
  EXPECT_FALSE(parse_datetime_ns("2024-05-10", ns));
  EXPECT_FALSE(parse_datetime_ns("2024-13-10 00:00:00", ns));
  EXPECT_FALSE(parse_datetime_ns("2024-05-10 00:00:00.", ns));
}

TEST(CsvTrace, AzureColumnsSortedAndRelative) {
  std::istringstream in(
      "TIMESTAMP,ContextTokens,GeneratedTokens\r\n"
      "2023-11-16 18:15:50.0000000,100,10\r\n"
      "2023-11-16 18:15:46.5000000,200,20\r\n");
  const auto t = parse_request_trace_csv(in, "azure.csv");
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t[0].arrival_ns, 0);
  EXPECT_EQ(t[0].input_tokens, 200);
  EXPECT_EQ(t[1].arrival_ns, 3'500'000'000);
  EXPECT_EQ(t[1].output_tokens, 10);
}

TEST(CsvTrace, NumericSecondsAndMilliseconds) {
  std::istringstream s("arrival_s,input_tokens,output_tokens\n1.5,10,2\n2.0,20,3\n");
  const auto a = parse_request_trace_csv(s, "s.csv");
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a[1].arrival_ns, 500'000'000);
  std::istringstream ms("timestamp_ms,input_length,output_length\n0,10,2\n250,20,3\n");
  EXPECT_EQ(parse_request_trace_csv(ms, "ms.csv")[1].arrival_ns, 250'000'000);
}

TEST(CsvTrace, ErrorsNameFileAndLine) {
  EXPECT_NE(error_of("", false).find("t.csv"), std::string::npos);
  EXPECT_NE(error_of("a,b,c\n1,2,3\n", false).find("t.csv:1:"), std::string::npos);
  const std::string head = "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.1,10,1\n";
  EXPECT_NE(error_of(head + "2023-11-16 18:15:47.1,abc,1\n", false).find("t.csv:3: bad input length"),
            std::string::npos);
  EXPECT_NE(error_of(head + "yesterday,10,1\n", false).find("t.csv:3: bad time"), std::string::npos);
  EXPECT_NE(error_of(head + "2023-11-16 18:15:47.1,10,-4\n", false).find("t.csv:3:"), std::string::npos);
}

TEST(CsvTrace, TruncatedAnywhereNeverCrashes) {
  const std::string full =
      "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.1,10,1\n2023-11-16 18:15:47.25,20,2\n";
  for (std::size_t cut = 0; cut < full.size(); ++cut) {
    std::istringstream in(full.substr(0, cut));
    try {
      const auto t = parse_request_trace_csv(in, "t.csv");
      EXPECT_LE(t.size(), 2u);
    } catch (const WorkloadError& e) {
      EXPECT_NE(std::string(e.what()).find("t.csv"), std::string::npos) << e.what();
    }
  }
}

TEST(JsonlTrace, MooncakeFieldsAndPrefixHits) {
  std::istringstream in(R"({"timestamp": 0, "input_length": 1024, "output_length": 52, "hash_ids": [46, 47]})"
                        "\n"
                        R"({"timestamp": 10535, "input_length": 1500, "output_length": 26, "hash_ids": [46, 47, 48]})"
                        "\n\n"
                        R"({"timestamp": 27482, "input_length": 512, "output_length": 5, "hash_ids": [99, 46]})"
                        "\n");
  const auto t = parse_request_trace_jsonl(in, "m.jsonl", 512);
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t[1].arrival_ns, 10'535'000'000);
  EXPECT_EQ(t[1].input_tokens, 1500);
  EXPECT_DOUBLE_EQ(t[0].prefix_hit, 0.0);
  EXPECT_DOUBLE_EQ(t[1].prefix_hit, 1024.0 / 1500.0);  // blocks 46, 47 seen before
  EXPECT_DOUBLE_EQ(t[2].prefix_hit, 0.0);              // first block new: no shared prefix
}

TEST(JsonlTrace, ErrorsNameFileAndLine) {
  EXPECT_NE(error_of("{\"timestamp\": 0, \"input_length\": 5, \"output_length\": 1}\n{\"timestamp\": 1,", true)
                .find("t.jsonl:2:"),
            std::string::npos);
  EXPECT_NE(error_of("{\"timestamp\": 0, \"output_length\": 1}\n", true).find("t.jsonl:1: missing field"),
            std::string::npos);
  EXPECT_NE(error_of("[1, 2]\n", true).find("t.jsonl:1:"), std::string::npos);
  EXPECT_NE(error_of("{\"timestamp\": \"x\", \"input_length\": 5, \"output_length\": 1}\n", true).find("t.jsonl:1:"),
            std::string::npos);
}

TEST(JsonlTrace, TruncatedAnywhereNeverCrashes) {
  const std::string full =
      R"({"timestamp": 0, "input_length": 1024, "output_length": 52, "hash_ids": [46, 47]})"
      "\n"
      R"({"timestamp": 10535, "input_length": 1500, "output_length": 26, "hash_ids": [46, 47, 48]})"
      "\n";
  for (std::size_t cut = 0; cut < full.size(); ++cut) {
    std::istringstream in(full.substr(0, cut));
    try {
      EXPECT_LE(parse_request_trace_jsonl(in, "t.jsonl").size(), 2u);
    } catch (const WorkloadError& e) {
      EXPECT_NE(std::string(e.what()).find("t.jsonl:"), std::string::npos) << e.what();
    }
  }
}

TEST(RequestTrace, FormatByExtensionAndMissingFile) {
  testing::TempFile j(".jsonl", R"({"timestamp": 5, "input_length": 3, "output_length": 4})"
                                "\n");
  const auto t = read_request_trace(j.path());
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t[0].input_tokens, 3);
  EXPECT_THROW(read_request_trace("/nonexistent/trace.csv"), WorkloadError);
}

// Input limits (workloads/input_limits.h): absurd lengths and times are refused naming the line,
// before they can overflow nanoseconds or reach the simulator.
TEST(TraceLimits, AbsurdLengthsAndTimesAreRefused) {
  const std::string head = "arrival_s,input_tokens,output_tokens\n";
  EXPECT_EQ(error_of(head + "0,1000000000,1\n", false),
            "t.csv:2: input length 1000000000 exceeds the limit of 33554432 tokens");
  EXPECT_EQ(error_of(head + "0,10,1e300\n", false),
            "t.csv:2: output length 9000000000000000000 exceeds the limit of 33554432 tokens");
  EXPECT_EQ(error_of(head + "0,10,1\n-9.1e9,10,1\n", false),
            "t.csv:3: time -9.1e+09 s is out of range (at most 4e9 s either side of zero)");
  EXPECT_EQ(error_of("TIMESTAMP,ContextTokens,GeneratedTokens\n2200-01-01 00:00:00,5,5\n", false),
            "t.csv:2: date-time '2200-01-01 00:00:00' is out of range (years 1844 to 2096)");
  EXPECT_EQ(error_of("{\"timestamp\": 1e300, \"input_length\": 5, \"output_length\": 1}\n", true),
            "t.jsonl:1: time 1e+300 ms is out of range (at most 4e9 s either side of zero)");
  EXPECT_EQ(error_of("{\"timestamp\": 0, \"input_length\": 2e9, \"output_length\": 1}\n", true),
            "t.jsonl:1: input length 2000000000 exceeds the limit of 33554432 tokens");
}

// Found by fuzzing: a number beyond a double made nlohmann throw out_of_range, which escaped.
TEST(TraceLimits, JsonNumberOverflowIsAWorkloadError) {
  EXPECT_EQ(error_of("{\"timestamp\": 1e999, \"input_length\": 5, \"output_length\": 1}\n", true)
                .rfind("t.jsonl:1: a number is out of range: ", 0),
            0u);
}

}  // namespace
}  // namespace moesim::workloads
