#include "calibration/calibration_csv.h"

#include <fstream>
#include <sstream>

#include "calibration/calibration_error.h"

namespace moesim::calibration {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

[[noreturn]] void fail(std::string_view source, int line, const std::string& what) {
  throw CalibrationError(std::string(source) + ":" + std::to_string(line) + ": " + what);
}

bool valid_key(std::string_view k) {
  if (k.empty()) return false;
  for (char c : k)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  return true;
}

std::vector<std::string> split_cells(std::string_view line) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = line.find(',', start);
    out.emplace_back(
        trim(line.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start)));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

}  // namespace

const CalibrationTable::Meta* CalibrationTable::find_meta(std::string_view key) const {
  for (const Meta& m : metadata)
    if (m.key == key) return &m;
  return nullptr;
}

std::optional<std::string> CalibrationTable::meta(std::string_view key) const {
  if (const Meta* m = find_meta(key)) return m->value;
  return std::nullopt;
}

int CalibrationTable::column(std::string_view name) const {
  for (std::size_t i = 0; i < columns.size(); ++i)
    if (columns[i] == name) return static_cast<int>(i);
  return -1;
}

CalibrationTable parse_calibration_csv(std::string_view text, std::string_view source) {
  CalibrationTable t;
  t.source = std::string(source);
  int line_no = 0;
  bool any = false;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t nl = text.find('\n', pos);
    const std::string_view raw = text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    pos = nl == std::string_view::npos ? text.size() : nl + 1;
    ++line_no;
    const std::string_view line = trim(raw);
    if (line.empty()) continue;
    any = true;
    if (line.front() == '#') {
      if (t.header_line > 0)
        fail(source, line_no, "metadata line after the header row (line " + std::to_string(t.header_line) + ")");
      const std::string_view body = trim(line.substr(1));
      const std::size_t colon = body.find(':');
      const std::string_view key = colon == std::string_view::npos ? body : trim(body.substr(0, colon));
      if (colon == std::string_view::npos || !valid_key(key))
        fail(source, line_no,
             "bad metadata line '" + std::string(line) + "' (expected '# key: value', key in a-z, 0-9, _)");
      if (const auto* first = t.find_meta(key))
        fail(source, line_no,
             "duplicate metadata key '" + std::string(key) + "' (first on line " + std::to_string(first->line) + ")");
      t.add_meta(std::string(key), std::string(trim(body.substr(colon + 1))), line_no);
      continue;
    }
    std::vector<std::string> cells = split_cells(line);
    if (t.header_line == 0) {
      for (std::size_t i = 0; i < cells.size(); ++i) {
        if (cells[i].empty())
          fail(source, line_no, "empty column name in the header row (column " + std::to_string(i + 1) + ")");
        for (std::size_t j = 0; j < i; ++j)
          if (cells[j] == cells[i]) fail(source, line_no, "duplicate column '" + cells[i] + "'");
      }
      t.header_line = line_no;
      t.columns = std::move(cells);
      continue;
    }
    if (cells.size() != t.columns.size())
      fail(source, line_no,
           std::to_string(cells.size()) + " cells, the header (line " + std::to_string(t.header_line) + ") has " +
               std::to_string(t.columns.size()) + " columns");
    t.rows.push_back({line_no, std::move(cells)});
  }
  if (!any)
    throw CalibrationError(std::string(source) + ": empty file (expected '# key: value' metadata and a header row)");
  if (t.header_line == 0) throw CalibrationError(std::string(source) + ": no header row (only metadata lines)");
  if (t.rows.empty()) fail(source, t.header_line, "no measurement rows after the header");
  return t;
}

CalibrationTable read_calibration_csv(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw CalibrationError(path.string() + ": cannot open calibration data");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_calibration_csv(text.str(), path.string());
}

std::string calibration_csv_text(const CalibrationTable& t) {
  std::string out;
  for (const auto& m : t.metadata) out += "# " + m.key + ": " + m.value + "\n";
  for (std::size_t i = 0; i < t.columns.size(); ++i) out += (i ? "," : "") + t.columns[i];
  out += "\n";
  for (const auto& r : t.rows) {
    for (std::size_t i = 0; i < r.cells.size(); ++i) out += (i ? "," : "") + r.cells[i];
    out += "\n";
  }
  return out;
}

}  // namespace moesim::calibration
