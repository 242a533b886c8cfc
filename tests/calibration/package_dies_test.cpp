// Multi-die packages (the Ascend 910C): a profile says how many dies a package holds and how they
// are joined; one die as a device of its own has an even share of every figure.
#include <gtest/gtest.h>

#include "tests/thrown.h"

#include <string>

#include "calibration/hardware_yaml.h"
#include "calibration/hardware_yaml_writer.h"
#include "tests/text_replace.h"

namespace moesim::calibration {
namespace {

const std::string kPackage =
    "name: pkg\n"             // 1
    "source: test\n"          // 2
    "package:\n"              // 3
    "  dies: 2\n"             // 4
    "  die_link: 300GB/s\n"   // 5
    "compute:\n"              // 6
    "  sm_count: 48\n"        // 7
    "  int8: 1504TOPS\n"      // 8
    "  bf16: 752TFLOPS\n"     // 9
    "memory:\n"               // 10
    "  capacity: 128GiB\n"    // 11
    "  bandwidth: 3.2TB/s\n"  // 12
    "network:\n"              // 13
    "  scaleup: 392GB/s\n"    // 14
    "  nic: 400Gbps\n";       // 15

std::string package_error(const std::string& text) {
  return moesim::testing::thrown_message<HardwareError>([&] { load_hardware_yaml(text, "pkg.yaml"); });
}

TEST(PackageDies, OneDieHasAnEvenShareOfEveryFigure) {
  const HardwareProfile p = load_hardware_yaml(kPackage, "pkg.yaml");
  EXPECT_EQ(p.dies, 2);
  EXPECT_DOUBLE_EQ(p.die_link_bytes_per_s, 300e9);
  const HardwareProfile d = die_of(p);
  EXPECT_EQ(d.name, "pkg/die");
  EXPECT_EQ(d.dies, 1);
  EXPECT_EQ(d.sm_count, 24);
  EXPECT_DOUBLE_EQ(d.peak_bf16_flops, 376e12);
  EXPECT_DOUBLE_EQ(d.peak_int8_flops, 752e12);
  EXPECT_DOUBLE_EQ(d.hbm_bytes, 64.0 * 1024 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(d.hbm_bytes_per_s, 1.6e12);
  EXPECT_DOUBLE_EQ(d.scaleup_bytes_per_s, 196e9);
  EXPECT_DOUBLE_EQ(d.nic_bytes_per_s, 25e9);
  // Which units run a precision is the package's: the 910C's INT8 for FP8 weights.
  EXPECT_EQ(d.units(models::DType::kFp8), p.units(models::DType::kFp8));
  // A one-die device is its own die.
  const HardwareProfile h100 = *find_hardware_preset("h100");
  EXPECT_EQ(die_of(h100).name, "h100");
  EXPECT_EQ(h100.dies, 1);
}

TEST(PackageDies, TheAscend910cIsTwoDiesOfA910bClassDie) {
  const HardwareProfile c = *find_hardware_preset("ascend-910c"), b = *find_hardware_preset("ascend-910b");
  EXPECT_EQ(c.dies, 2);
  const HardwareProfile d = die_of(c);
  EXPECT_EQ(d.sm_count, b.sm_count);
  EXPECT_DOUBLE_EQ(d.peak_bf16_flops, b.peak_bf16_flops);
  EXPECT_DOUBLE_EQ(d.hbm_bytes, b.hbm_bytes);
  EXPECT_DOUBLE_EQ(d.hbm_bytes_per_s, b.hbm_bytes_per_s);
}

TEST(PackageDies, WrittenProfilesKeepTheirPackage) {
  HardwareFile f = read_hardware_yaml(kPackage, "pkg.yaml");
  const HardwareProfile back = load_hardware_yaml(hardware_yaml_text(f), "back.yaml");
  EXPECT_EQ(back.dies, 2);
  EXPECT_DOUBLE_EQ(back.die_link_bytes_per_s, 300e9);
}

TEST(PackageDies, BadPackagesAreOneLine) {
  using moesim::testing::replace;
  EXPECT_EQ(package_error(replace(kPackage, "  dies: 2\n", "  dies: 5\n")),
            "pkg.yaml:4:9: package.dies: 5 dies do not split the 48 compute units evenly");
  EXPECT_EQ(package_error(replace(kPackage, "  die_link: 300GB/s\n", "")),
            "pkg.yaml:4:3: package: missing required key 'die_link'");
  EXPECT_EQ(package_error(replace(kPackage, "  dies: 2\n", "  dies: 1\n")),
            "pkg.yaml:5:13: package.die_link: a one-die package has no die link");
}

}  // namespace
}  // namespace moesim::calibration
