// report.html rendered in headless Chromium: no script or console errors, nothing fetched from
// outside the file, and every chart drawn with the elements of its kind (lines, bars, heatmap
// images, markers). Chromium missing: skipped with a message, except in CI (CI set), where it
// fails.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "tests/tools/cli_runner.h"

namespace {

namespace fs = std::filesystem;
using moesim::testing::read_file;
using moesim::testing::run_moesim;

constexpr const char* kReportBase =
    "name: tiny-report\nseed: 5\nmodel: tiny-moe\nhardware: h800\ncluster: {preset: hgx, nodes: 2}\n"
    "deployment:\n  colocated:\n    ranks: 16\n    attention: {dp: 16}\n    moe: {ep: 16, comm: hierarchical}\n"
    "routing: {model: zipf, s: 1.0}\n"
    "workload:\n  requests: 60\n  arrivals: {process: poisson, rate: 300/s}\n"
    "  input_tokens: {dist: fixed, value: 200}\n  output_tokens: {dist: fixed, value: 16}\n"
    "slo: {ttft_p90: 2s, tpot_p90: 50ms}\n";

constexpr const char* kReportSweep =
    "base: base.yaml\n"
    "sweep:\n  deployment.colocated.ranks: [8, 16, 3]\n  workload.arrivals.rate: [100/s, 400/s]\n"
    "derived:\n  deployment.colocated.attention.dp: deployment.colocated.ranks\n"
    "  deployment.colocated.moe.ep: deployment.colocated.ranks\n"
    "objective: {maximize: output_tokens_per_gpu_s, subject_to: {tpot_p90: 50ms}}\n";

std::string chromium() {
  for (const char* p : {"/usr/bin/chromium", "/usr/bin/chromium-browser"})
    if (fs::exists(p)) return p;
  return "";
}

struct Rendered {
  int exit_code = -1;
  std::string dom;
  std::vector<std::string> console;  // the page's console lines in Chromium's log
};

class ReportHtml : public ::testing::Test {
 protected:
  void SetUp() override {
    browser_ = chromium();
    if (browser_.empty()) {
      if (std::getenv("CI") != nullptr) FAIL() << "chromium is not installed; CI must install it (tools/install-deps)";
      GTEST_SKIP() << "chromium is not installed (tools/install-deps installs it); this test runs in CI";
    }
    dir_ = fs::temp_directory_path() / ("moesim-report-test-" + std::to_string(std::random_device{}()));
    fs::create_directories(dir_);
    std::ofstream(dir_ / "base.yaml", std::ios::binary) << kReportBase;
    std::ofstream(dir_ / "sw.yaml", std::ios::binary) << kReportSweep;
  }
  void TearDown() override {
    std::error_code ec;
    if (!dir_.empty()) fs::remove_all(dir_, ec);
  }

  // Loads the page offline (every host name fails to resolve) and dumps the DOM once the
  // page's timers have run. /dev/shm is not used: containers often keep it small.
  Rendered render(const fs::path& html) const {
    const fs::path profile = dir_ / ("profile-" + html.parent_path().filename().string());
    const fs::path dom = dir_ / "dom.html", log = dir_ / "chromium.log";
    const std::string cmd = "timeout 90 " + browser_ +
                            " --headless --no-sandbox --disable-gpu --disable-quic --no-first-run"
                            " --disable-background-networking --disable-component-update --disable-sync"
                            " --disable-dev-shm-usage"
                            " --user-data-dir=" +
                            profile.string() +
                            " --enable-logging=stderr --v=0 '--host-resolver-rules=MAP * ~NOTFOUND'"
                            " --virtual-time-budget=20000 --dump-dom 'file://" +
                            html.string() + "' >" + dom.string() + " 2>" + log.string();
    Rendered r;
    const int status = std::system(cmd.c_str());
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.dom = read_file(dom);
    std::istringstream lines(read_file(log));
    for (std::string line; std::getline(lines, line);)
      if (line.find(":CONSOLE") != std::string::npos) r.console.push_back(line);
    return r;
  }

  // Checks the status line and that each chart holds every element in its list.
  void expect_charts(const Rendered& r, const std::vector<std::pair<std::string, std::vector<std::string>>>& charts) {
    ASSERT_EQ(r.exit_code, 0) << r.dom.substr(0, 2000);
    for (const auto& line : r.console) ADD_FAILURE() << "console output: " << line;
    std::smatch m;
    ASSERT_TRUE(
        std::regex_search(r.dom, m,
                          std::regex("<div id=\"report-status\" data-charts=\"([^\"]*)\" data-errors=\"([0-9]+)\" "
                                     "data-fetched=\"([0-9]+)\"[^>]*>([^<]*)")))
        << "no status element: the page script did not finish";
    EXPECT_EQ(m[2].str(), "0") << m[4].str();
    EXPECT_EQ(m[3].str(), "0") << m[4].str();
    std::string expected;
    for (const auto& [id, kinds] : charts) expected += (expected.empty() ? "" : " ") + id;
    EXPECT_EQ(m[1].str(), expected) << m[4].str();
    for (const auto& [id, kinds] : charts) {
      const auto at = r.dom.find("id=\"" + id + "\"");
      ASSERT_NE(at, std::string::npos) << id;
      const auto end = std::min(r.dom.find("<div class=\"chart", at), r.dom.find("id=\"report-status\"", at));
      const std::string chart = r.dom.substr(at, end - at);
      for (const auto& element : kinds) EXPECT_NE(chart.find(element), std::string::npos) << id << " lacks " << element;
    }
  }

  std::string browser_;
  fs::path dir_;
};

const std::string kLine = "class=\"js-line\"", kBars = "class=\"trace bars\"", kHeatmap = "<g class=\"hm\"",
                  kImage = "<image", kPoint = "class=\"point\"";

TEST_F(ReportHtml, RunReportRendersEveryChartOffline) {
  const auto out = dir_ / "run";
  const auto r = run_moesim("run " + (dir_ / "base.yaml").string() + " -o " + out.string() + " --report -q");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const std::string html = read_file(out / "report.html");
  EXPECT_EQ(html.find("<script src"), std::string::npos);
  EXPECT_EQ(html.find("<link "), std::string::npos);
  expect_charts(render(out / "report.html"), {
                                                 {"chart-ttft-cdf", {kLine}},
                                                 {"chart-tpot-cdf", {kLine}},
                                                 {"chart-layers-colocated", {kBars, kLine}},
                                                 {"chart-expert-load-colocated", {kHeatmap, kImage}},
                                                 {"chart-rank-load-colocated", {kHeatmap, kImage}},
                                                 {"chart-power-colocated", {kLine}},
                                                 {"chart-link-classes-colocated", {kBars}},
                                                 {"chart-busiest-links-colocated", {kBars}},
                                             });
}

// Multi-turn chat on four single-GPU replicas with prefix-aware routing: the prefix-cache chart.
TEST_F(ReportHtml, RunReportDrawsThePrefixCachePerInstance) {
  const auto out = dir_ / "chat";
  std::ofstream(dir_ / "chat.yaml", std::ios::binary)
      << "model: tiny-moe\nhardware: h800\ncluster: {nodes: 1}\n"
         "deployment:\n  router: {policy: prefix-aware}\n  colocated: {instances: 4, ranks: 1}\n"
         "workload:\n  requests: 60\n  arrivals: {process: poisson, rate: 20/s}\n"
         "  sessions: {turns: {dist: fixed, value: 3}, system_prompt_tokens: 500}\n"
         "  input_tokens: {dist: fixed, value: 100}\n  output_tokens: {dist: fixed, value: 10}\n";
  const auto r = run_moesim("run " + (dir_ / "chat.yaml").string() + " -o " + out.string() + " --report -q");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const Rendered page = render(out / "report.html");
  ASSERT_NE(page.dom.find("id=\"chart-prefix-cache-colocated\""), std::string::npos);
  const auto at = page.dom.find("id=\"chart-prefix-cache-colocated\"");
  EXPECT_NE(page.dom.find(kBars, at), std::string::npos);
  EXPECT_NE(page.dom.find("prefix-cache hit rate"), std::string::npos);
}

TEST_F(ReportHtml, SweepReportRendersBothFrontiers) {
  const auto out = dir_ / "sweep";
  const auto r = run_moesim("sweep " + (dir_ / "sw.yaml").string() + " -o " + out.string() + " -j 2 -q");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  expect_charts(render(out / "report.html"), {
                                                 {"chart-pareto-tpot", {kPoint, kLine}},
                                                 {"chart-pareto-ttft", {kPoint, kLine}},
                                             });
}

}  // namespace
