// The one error base (models/error.h): kind, position and the message kept as thrown.
#include "models/error.h"

#include <gtest/gtest.h>

#include <string>

#include "models/model_error.h"
#include "models/units.h"
#include "models/yaml_tree.h"

namespace moesim::models {
namespace {

TEST(Error, CarriesKindPositionAndMessage) {
  const Error e(ErrorKind::kScenario, "scn.yaml:3:5: name: expected a string", "scn.yaml:3:5");
  EXPECT_EQ(e.kind(), ErrorKind::kScenario);
  EXPECT_EQ(e.position(), "scn.yaml:3:5");
  EXPECT_STREQ(e.what(), "scn.yaml:3:5: name: expected a string");
  EXPECT_TRUE(Error(ErrorKind::kUsage, "no position").position().empty());
}

TEST(Error, EveryKindHasAName) {
  EXPECT_EQ(error_kind_name(ErrorKind::kUsage), "usage");
  EXPECT_EQ(error_kind_name(ErrorKind::kModel), "model");
  EXPECT_EQ(error_kind_name(ErrorKind::kSystem), "system");
  EXPECT_EQ(error_kind_name(ErrorKind::kInvariant), "invariant");
}

TEST(Error, ModelsErrorsAreErrorsOfTheirKind) {
  const ModelError model("config.json: architectures: unknown architecture");
  EXPECT_EQ(model.kind(), ErrorKind::kModel);
  EXPECT_STREQ(model.what(), "config.json: architectures: unknown architecture");
  try {
    parse_duration_ns("2 parsecs");
    FAIL() << "expected UnitError";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kUnit);
    EXPECT_NE(dynamic_cast<const UnitError*>(&e), nullptr);
  }
}

TEST(Error, YamlErrorKeepsItsPosition) {
  try {
    fail_at(SourceLoc{"in.yaml", 4, 7}, "cluster.nodes", "expected an integer");
    FAIL() << "expected YamlError";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kYaml);
    EXPECT_EQ(e.position(), "in.yaml:4:7");
    EXPECT_STREQ(e.what(), "in.yaml:4:7: cluster.nodes: expected an integer");
  }
}

}  // namespace
}  // namespace moesim::models
