#include "calibration/embedded_profiles.h"
#include "calibration/hardware_profile.h"
#include "calibration/hardware_yaml.h"

namespace moesim::calibration {
namespace {

// The profiles in calibration/profiles/*.yaml (each figure cites its source there), parsed once;
// the preset tests load every one, so a malformed file cannot ship.
const std::vector<HardwareFile>& presets() {
  static const std::vector<HardwareFile> files = [] {
    std::vector<HardwareFile> out;
    for (const models::EmbeddedFile& f : embedded_hardware_profiles())
      out.push_back(read_hardware_yaml(f.text, f.path));
    return out;
  }();
  return files;
}

}  // namespace

const GemmFitParams* HardwareProfile::gemm_fit(models::DType t) const {
  auto find = [&](models::DType d) -> const GemmFitParams* {
    for (const GemmFit& f : gemm_fits)
      if (f.dtype == d) return &f.params;
    return nullptr;
  };
  switch (t) {
    case models::DType::kMxfp4:
    case models::DType::kNvfp4:
    case models::DType::kInt8:
    case models::DType::kFp8: return find(models::DType::kFp8);
    case models::DType::kFp16: {
      const GemmFitParams* f = find(models::DType::kFp16);
      return f ? f : find(models::DType::kBf16);
    }
    case models::DType::kBf16: {
      const GemmFitParams* f = find(models::DType::kBf16);
      return f ? f : find(models::DType::kFp16);
    }
    case models::DType::kFp32: return find(models::DType::kFp32);
  }
  return nullptr;
}

std::vector<HardwarePresetInfo> hardware_presets() {
  std::vector<HardwarePresetInfo> out;
  for (const HardwareFile& f : presets()) out.push_back({f.profile.name, f.description});
  return out;
}

std::optional<HardwareProfile> find_hardware_preset(std::string_view name) {
  for (const HardwareFile& f : presets())
    if (f.profile.name == name) return f.profile;
  return std::nullopt;
}

}  // namespace moesim::calibration
