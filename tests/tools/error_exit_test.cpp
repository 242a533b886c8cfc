// One error base (models/error.h): every boundary error type is a models::Error of its kind, and
// the command line turns each kind into the same exit code and line as before (tools/error_exit.h).
#include "tools/error_exit.h"

#include <gtest/gtest.h>

#include <string>

#include "calibration/calibration_error.h"
#include "calibration/hardware_yaml.h"
#include "kernels/bench_types.h"
#include "models/model_error.h"
#include "models/units.h"
#include "models/yaml_tree.h"
#include "scenarios/scenario_error.h"
#include "sim/check.h"
#include "sim/deployment_error.h"
#include "tests/tools/cli_runner.h"
#include "tools/command_errors.h"
#include "topology/cluster.h"
#include "workloads/workload_error.h"

namespace moesim::tools {
namespace {

using models::ErrorKind;

template <typename E>
void expect_kind(ErrorKind kind) {
  const E e("one line");
  const models::Error& base = e;
  EXPECT_EQ(base.kind(), kind) << models::error_kind_name(kind);
  EXPECT_STREQ(base.what(), "one line");
}

TEST(ErrorBase, EveryBoundaryErrorIsAnErrorOfItsKind) {
  expect_kind<UsageError>(ErrorKind::kUsage);
  expect_kind<scenarios::ScenarioError>(ErrorKind::kScenario);
  expect_kind<models::ModelError>(ErrorKind::kModel);
  expect_kind<models::YamlError>(ErrorKind::kYaml);
  expect_kind<models::UnitError>(ErrorKind::kUnit);
  expect_kind<calibration::HardwareError>(ErrorKind::kHardware);
  expect_kind<calibration::CalibrationError>(ErrorKind::kCalibration);
  expect_kind<workloads::WorkloadError>(ErrorKind::kWorkload);
  expect_kind<sim::DeploymentError>(ErrorKind::kDeployment);
  expect_kind<topology::TopologyError>(ErrorKind::kTopology);
  expect_kind<kernels::KernelError>(ErrorKind::kKernel);
  expect_kind<SystemError>(ErrorKind::kSystem);
  expect_kind<sim::InvariantError>(ErrorKind::kInvariant);
}

TEST(ErrorBase, KindsMapToTheExitCodesOfTheCommandLine) {
  for (const auto kind : {ErrorKind::kUsage, ErrorKind::kScenario, ErrorKind::kModel, ErrorKind::kYaml,
                          ErrorKind::kUnit, ErrorKind::kHardware, ErrorKind::kCalibration, ErrorKind::kWorkload,
                          ErrorKind::kDeployment, ErrorKind::kTopology, ErrorKind::kKernel})
    EXPECT_EQ(exit_code(kind), 2) << models::error_kind_name(kind);
  EXPECT_EQ(exit_code(ErrorKind::kSystem), 1);
  EXPECT_EQ(exit_code(ErrorKind::kInvariant), 3);
}

TEST(ErrorBase, LinesKeepTheirPrefixes) {
  EXPECT_EQ(error_line(sim::DeploymentError("out of memory")), "deployment: out of memory");
  EXPECT_EQ(error_line(topology::TopologyError("--ep 64 does not fit")), "cluster: --ep 64 does not fit");
  EXPECT_EQ(error_line(kernels::KernelError("no CUDA device")), "kernels: no CUDA device");
  EXPECT_EQ(error_line(sim::InvariantError("clock ran back")), "internal error: clock ran back");
  EXPECT_EQ(error_line(scenarios::ScenarioError("scn.yaml:1:1: bad")), "scn.yaml:1:1: bad");
  EXPECT_EQ(error_line(UsageError("--steps: bad")), "--steps: bad");
}

TEST(ErrorBase, InvariantErrorsNameTheCheck) {
  try {
    MOESIM_CHECK(1 + 1 == 3, "arithmetic");
    FAIL() << "expected InvariantError";
  } catch (const models::Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kInvariant);
    EXPECT_NE(e.position().find("error_exit_test.cpp:"), std::string::npos) << e.position();
    EXPECT_NE(std::string(e.what()).find(e.position()), std::string::npos) << e.what();
  }
}

using moesim::testing::kDefaultScenario;

TEST(ErrorExitCli, BadInputOfEveryFolderExitsTwo) {
  const auto usage = testing::run_moesim("run " + kDefaultScenario + " --trace out.json --trace-steps 5");
  EXPECT_EQ(usage.exit_code, 2);
  EXPECT_EQ(usage.out, "moesim: --trace-steps: expected FIRST:LAST step numbers, got '5'\n");
  const auto scenario = testing::run_moesim("run " + kDefaultScenario + " --set seed=x");
  EXPECT_EQ(scenario.exit_code, 2);
  EXPECT_EQ(scenario.out.rfind("moesim: --set seed=x: seed: ", 0), 0u) << scenario.out;
  const auto workload = testing::run_moesim("routing --ep 8 --routing zipf --s 11");
  EXPECT_EQ(workload.exit_code, 2);
  EXPECT_EQ(workload.out, "moesim: zipf routing needs 0 <= s <= 10\n");
}

TEST(ErrorExitCli, AnOutputFolderThatCannotBeCreatedExitsOne) {
  const auto r =
      testing::run_moesim("run -q " + kDefaultScenario +
                          " --set workload.requests=4 --set cluster.nodes=2 --set deployment.colocated.ranks=16 "
                          "--set deployment.colocated.attention.dp=16 --set deployment.colocated.moe.ep=16 "
                          "-o /dev/null/moesim-out");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out.rfind("moesim: cannot create output folder '/dev/null/moesim-out': ", 0), 0u) << r.out;
}

}  // namespace
}  // namespace moesim::tools
