// CalibrationError: bad calibration input (a capture CSV, a fit or check request that the data
// cannot answer). what() is one line naming the file and line ("data.csv:7: ..."), or the file
// alone when no line applies; tools/main.cpp prints it and exits 2.
#pragma once

#include <string>
#include <utility>

#include "models/error.h"

namespace moesim::calibration {

class CalibrationError : public models::Error {
 public:
  explicit CalibrationError(const std::string& what, std::string position = {})
      : Error(models::ErrorKind::kCalibration, what, std::move(position)) {}
};

}  // namespace moesim::calibration
