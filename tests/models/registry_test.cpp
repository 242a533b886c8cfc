// The shared registry (models/registry.h): a name resolves to the enum value at its position, the
// value prints as its name, and an unknown name gets the did-you-mean message.
#include "models/registry.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace moesim::models {
namespace {

enum class Colour { kRed, kGreen, kBlue };

std::vector<RegistryEntry> colours() {
  return {{"red", "long waves"}, {"green", "middle waves"}, {"blue", "short waves"}};
}

TEST(Registry, LooksUpNamesByPosition) {
  EXPECT_EQ(registry_lookup<Colour>(colours(), "red"), Colour::kRed);
  EXPECT_EQ(registry_lookup<Colour>(colours(), "blue"), Colour::kBlue);
  EXPECT_EQ(registry_lookup<Colour>(colours(), "Blue"), std::nullopt);  // names are exact
  EXPECT_EQ(registry_lookup<Colour>(colours(), ""), std::nullopt);
  EXPECT_EQ(registry_lookup<Colour>({}, "red"), std::nullopt);
}

TEST(Registry, NamesValuesAndJoins) {
  for (const auto& e : colours())
    EXPECT_EQ(registry_name(colours(), *registry_lookup<Colour>(colours(), e.name)), e.name);
  EXPECT_EQ(registry_names(colours()), (std::vector<std::string_view>{"red", "green", "blue"}));
  EXPECT_EQ(join_names(colours()), "red, green, blue");
  EXPECT_EQ(join_names(std::vector<RegistryEntry>{}), "");
}

TEST(Registry, UnknownNameMessageOffersTheClosest) {
  EXPECT_EQ(unknown_registry_name("colour", "gren", colours()),
            "unknown colour 'gren'; did you mean 'green'? (valid: red, green, blue)");
  EXPECT_EQ(unknown_registry_name("colour", "purple", colours()), "unknown colour 'purple' (valid: red, green, blue)");
}

}  // namespace
}  // namespace moesim::models
