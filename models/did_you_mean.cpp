#include "models/did_you_mean.h"

#include <algorithm>

namespace moesim::models {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  // Optimal string alignment distance, three rolling rows.
  std::vector<std::size_t> prev2(b.size() + 1), prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) cur[j] = std::min(cur[j], prev2[j - 2] + 1);
    }
    prev2.swap(prev);
    prev.swap(cur);
  }
  return prev[b.size()];
}

std::optional<std::string_view> closest_match(std::string_view word, const std::vector<std::string_view>& candidates) {
  std::optional<std::string_view> best;
  std::size_t best_distance = 3;
  for (std::string_view c : candidates) {
    const std::size_t d = edit_distance(word, c);
    if (d < best_distance && d < std::max(word.size(), c.size())) {
      best = c;
      best_distance = d;
    }
  }
  if (best || word.empty()) return best;
  for (std::string_view c : candidates)
    if (c.starts_with(word)) return c;
  for (std::string_view c : candidates)
    if (!c.empty() && word.starts_with(c)) return c;
  return std::nullopt;
}

std::string join_names(const std::vector<std::string_view>& names) {
  std::string out;
  for (std::string_view n : names) {
    if (!out.empty()) out += ", ";
    out += n;
  }
  return out;
}

std::string unknown_name_message(std::string_view what, std::string_view name,
                                 const std::vector<std::string_view>& valid) {
  std::string msg = "unknown " + std::string(what) + " '" + std::string(name) + "'";
  if (const auto match = closest_match(name, valid)) msg += "; did you mean '" + std::string(*match) + "'?";
  msg += " (valid: " + join_names(valid) + ")";
  return msg;
}

}  // namespace moesim::models
