// Writes a HardwareProfile as a hardware profile YAML file (the format calibration/hardware_yaml.h
// reads, including the measured keys), so that `moesim calibrate fit` output loads back with
// the same figures: quantities carry enough digits to round-trip to within 1e-9 relative.
#pragma once

#include <string>
#include <vector>

#include "calibration/hardware_yaml.h"

namespace moesim::calibration {

// `comments` become "# ..." lines at the top (one per entry); `notes` holds one optional
// trailing comment per figure, by dotted key ("compute.fp8", "network.nic", ...).
struct ProfileComments {
  std::vector<std::string> header;
  std::vector<std::pair<std::string, std::string>> notes;
};

std::string hardware_yaml_text(const HardwareFile& file, const ProfileComments& comments = {});

}  // namespace moesim::calibration
