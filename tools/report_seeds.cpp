#include <cstdio>
#include <ostream>

#include <nlohmann/json.hpp>

#include "tools/report.h"
#include "tools/seed_stats.h"

namespace moesim::tools {

std::string seeds_json(std::uint64_t first_seed, const std::vector<sim::Summary>& replicas) {
  nlohmann::ordered_json j;
  j["first_seed"] = first_seed;
  j["replications"] = replicas.size();
  for (const auto& m : seed_metrics()) {
    std::vector<double> v;
    for (const auto& s : replicas) v.push_back(m.get(s) * m.scale);
    const auto ci = confidence_interval(v);
    j["metrics"][m.name] = {{"unit", m.unit}, {"mean", ci.mean}, {"ci95_half_width", ci.half_width}, {"samples", v}};
  }
  return j.dump(2) + "\n";
}

void print_seed_table(std::ostream& out, std::uint64_t first_seed, const std::vector<sim::Summary>& replicas) {
  char line[256];
  std::snprintf(line, sizeof line, "\n  across %zu seeds (%llu..%llu), mean and 95 %% confidence interval:\n",
                replicas.size(), static_cast<unsigned long long>(first_seed),
                static_cast<unsigned long long>(first_seed + replicas.size() - 1));
  out << line;
  for (const auto& m : seed_metrics()) {
    std::vector<double> v;
    for (const auto& s : replicas) v.push_back(m.get(s) * m.scale);
    const auto ci = confidence_interval(v);
    std::snprintf(line, sizeof line, "    %-24s %12.3f +- %-10.3f %s\n", m.name, ci.mean, ci.half_width, m.unit);
    out << line;
  }
}

}  // namespace moesim::tools
