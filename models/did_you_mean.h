// "Did you mean" hints for unknown keys and names (docs/design.md §5, §6). It lives in models/, the
// bottom layer, so that every reader of user files (scenarios, model and hardware YAML) shares it.
//
// A candidate is close to a word when their edit distance (insertions, deletions, substitutions
// and adjacent transpositions, each costing 1) is at most 2 and smaller than the longer of the
// two lengths, so "xy" is not offered "ep". Failing that, a candidate that starts with the word
// (a truncated key) or that the word starts with (a key with extra characters) is close. The
// closest candidate wins; ties go to the earlier one in the list.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace moesim::models {

std::size_t edit_distance(std::string_view a, std::string_view b);

std::optional<std::string_view> closest_match(std::string_view word, const std::vector<std::string_view>& candidates);

// "a, b, c"
std::string join_names(const std::vector<std::string_view>& names);

// "unknown <what> '<name>'; did you mean '<x>'? (valid: a, b)" or, with no close candidate,
// "unknown <what> '<name>' (valid: a, b)".
std::string unknown_name_message(std::string_view what, std::string_view name,
                                 const std::vector<std::string_view>& valid);

}  // namespace moesim::models
