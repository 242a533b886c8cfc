// The shell of report.html: head with the style and the error recorder, plotly.js, the data as
// JSON, then the page scripts.
#include <string>

#include "sim/check.h"
#include "tools/report_assets.h"
#include "tools/report_html.h"

namespace moesim::tools {
namespace {

std::string html_escape(std::string_view text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

// JSON inside <script>: "</" would end the element early; "<\/" is the same JSON string.
std::string script_safe(std::string_view json) {
  std::string out;
  out.reserve(json.size());
  for (std::size_t i = 0; i < json.size(); ++i) {
    out += json[i];
    if (json[i] == '<' && i + 1 < json.size() && json[i + 1] == '/') out += '\\';
  }
  return out;
}

// Recorded before anything else runs, so errors in plotly.js or the page scripts are counted,
// and console.error / console.warn calls with them.
constexpr const char* kErrorRecorder =
    "window.moesimErrors = [];\n"
    "window.addEventListener('error', function (e) { window.moesimErrors.push(String(e.message)); });\n"
    "window.addEventListener('unhandledrejection', function (e) {\n"
    "  window.moesimErrors.push('unhandled rejection: ' + String(e.reason));\n"
    "});\n"
    "['error', 'warn'].forEach(function (level) {\n"
    "  var original = console[level];\n"
    "  console[level] = function () {\n"
    "    window.moesimErrors.push('console.' + level + ': ' + Array.prototype.join.call(arguments, ' '));\n"
    "    return original.apply(console, arguments);\n"
    "  };\n"
    "});\n";

}  // namespace

std::string_view report_asset(std::string_view name) {
  for (const auto& f : report_assets())
    if (f.name == name) return f.text;
  throw sim::InvariantError("no report asset named '" + std::string(name) + "'");
}

std::string report_page(std::string_view title, std::string_view data_json, std::string_view script) {
  const std::string_view plotly = plotly_js();
  std::string page;
  page.reserve(plotly.size() + data_json.size() + 64 * 1024);
  page += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  page += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  page +=
      "<meta name=\"generator\" content=\"moesim; charts by plotly.js " + std::string(plotly_js_version()) + "\">\n";
  page += "<title>" + html_escape(title) + "</title>\n<style>\n";
  page += report_asset("report.css");
  page += "</style>\n<script>\n";
  page += kErrorRecorder;
  page += "</script>\n</head>\n<body>\n<header><h1>" + html_escape(title) + "</h1></header>\n";
  page += "<main id=\"report\"></main>\n";
  page += "<footer>Written by moesim. Charts drawn by plotly.js " + std::string(plotly_js_version()) +
          " (MIT licence), embedded in this file.</footer>\n";
  page += "<script>\n";
  page += plotly;
  page += "\n</script>\n<script type=\"application/json\" id=\"report-data\">\n";
  page += script_safe(data_json);
  page += "\n</script>\n<script>\n";
  page += report_asset("report_common.js");
  page += "\n";
  page += report_asset(script);
  page += "\n</script>\n</body>\n</html>\n";
  return page;
}

}  // namespace moesim::tools
