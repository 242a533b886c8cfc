// calibration/profiles/*.yaml compiled into the library (models/embed_files.cmake), in the order
// calibration/CMakeLists.txt lists them.
#pragma once

#include <span>

#include "models/embedded_file.h"

namespace moesim::calibration {

std::span<const models::EmbeddedFile> embedded_hardware_profiles();

}  // namespace moesim::calibration
