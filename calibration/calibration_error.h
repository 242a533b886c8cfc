// CalibrationError: bad calibration input (a capture CSV, a fit or check request that the data
// cannot answer). what() is one line naming the file and line ("data.csv:7: ..."), or the file
// alone when no line applies; tools/main.cpp prints it and exits 2.
#pragma once

#include <stdexcept>

namespace moesim::calibration {

class CalibrationError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace moesim::calibration
