#include "sim/check.h"

namespace moesim::sim {

void invariant_failed(const char* expr, const char* file, int line, const std::string& message) {
  std::string what = "invariant violated: ";
  what += expr;
  what += " (";
  what += file;
  what += ':';
  what += std::to_string(line);
  what += "): ";
  what += message;
  throw InvariantError(what, std::string(file) + ':' + std::to_string(line));
}

}  // namespace moesim::sim
