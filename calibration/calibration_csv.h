// Calibration data files (docs/design.md §5): one measurement per row, under a metadata header.
//
//   # format: moesim-calibration 1
//   # suite: grouped-gemm
//   # backend: cuda
//   # device: NVIDIA H200
//   # ...                        (any further "# key: value" lines: clocks, versions, date, command)
//   suite,dtype,groups,...,median_ns,p10_ns,p90_ns
//   grouped-gemm,bf16,8,...,123456.7,120000.1,130000.9
//
// Before the header row every non-blank line is metadata, "# key: value" with a key of lower-case
// letters, digits and '_' (the value runs to the end of the line and may hold colons); after it
// every non-blank line is a row with as many cells as the header has columns. Cells are plain
// (no quoting: the writers never put commas in a cell; lists inside a cell use ';'). Blank lines
// are ignored; "\r\n" line ends are accepted. Any violation throws CalibrationError
// "<file>:<line>: <what>" (file alone for an empty file).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace moesim::calibration {

struct CalibrationTable {
  struct Row {
    int line = 0;  // 1-based line in the file
    std::vector<std::string> cells;
  };
  struct Meta {
    std::string key, value;
    int line = 0;  // 0 for entries added in memory
  };

  std::string source;  // file name, for messages
  std::vector<Meta> metadata;
  int header_line = 0;
  std::vector<std::string> columns;
  std::vector<Row> rows;

  std::optional<std::string> meta(std::string_view key) const;
  const Meta* find_meta(std::string_view key) const;
  // Index of `name` in columns, or -1.
  int column(std::string_view name) const;
  void add_meta(std::string key, std::string value, int line = 0) {
    metadata.push_back({std::move(key), std::move(value), line});
  }
};

CalibrationTable parse_calibration_csv(std::string_view text, std::string_view source);
CalibrationTable read_calibration_csv(const std::filesystem::path& path);

// The file text of `table` (metadata, header, rows); the inverse of parse_calibration_csv.
std::string calibration_csv_text(const CalibrationTable& table);

}  // namespace moesim::calibration
