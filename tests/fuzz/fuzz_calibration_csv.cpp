// libFuzzer target: calibration data files (calibration/calibration_csv.h). Bad input must throw
// CalibrationError; a table that parses must write back to text that parses to the same table,
// and is then read as measurements (calibration/measurements.h).
#include "calibration/calibration_csv.h"
#include "calibration/calibration_error.h"
#include "calibration/measurements.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace moesim::calibration;
  moesim::fuzz::expect_only<CalibrationError>([&] {
    const CalibrationTable t = parse_calibration_csv(moesim::fuzz::as_text(data, size), "fuzz.csv");
    const CalibrationTable back = parse_calibration_csv(calibration_csv_text(t), "fuzz.csv");
    if (back.columns != t.columns || back.rows.size() != t.rows.size() || back.metadata.size() != t.metadata.size())
      moesim::fuzz::unexpected("the written table reads back differently", "round trip");
    (void)read_measurements(t);
  });
  return 0;
}
