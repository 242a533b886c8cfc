// DeploymentError: a deployment that does not fit, the boundary exception of sim/ (docs/design.md
// §6): degrees that do not divide the model or the cluster, a placement that does not fit its
// shape, a pool out of memory, an unknown request router. what() is one line, with the memory
// table after it for an out-of-memory pool; the command line prints it after "deployment: ".
#pragma once

#include <string>
#include <utility>

#include "models/error.h"

namespace moesim::sim {

class DeploymentError : public models::Error {
 public:
  explicit DeploymentError(const std::string& what, std::string position = {})
      : Error(models::ErrorKind::kDeployment, what, std::move(position)) {}
};

}  // namespace moesim::sim
