#include "tools/error_exit.h"

namespace moesim::tools {

int exit_code(models::ErrorKind kind) {
  switch (kind) {
    case models::ErrorKind::kSystem: return kExitFailure;
    case models::ErrorKind::kInvariant: return kExitInternalError;
    default: return kExitBadInput;
  }
}

std::string error_line(const models::Error& e) {
  switch (e.kind()) {
    case models::ErrorKind::kDeployment: return std::string("deployment: ") + e.what();
    case models::ErrorKind::kTopology: return std::string("cluster: ") + e.what();
    case models::ErrorKind::kKernel: return std::string("kernels: ") + e.what();
    case models::ErrorKind::kInvariant: return std::string("internal error: ") + e.what();
    default: return e.what();
  }
}

}  // namespace moesim::tools
