// What report.html pages embed, compiled into the binary so a page opens offline: plotly.js
// (Debian's python3-plotly build, found at configure time; tools/embed_plotly.cmake), and the
// page's own style and scripts (tools/report_js/, embedded with moesim_embed_files).
#pragma once

#include <span>
#include <string_view>

#include "models/embedded_file.h"

namespace moesim::tools {

std::string_view plotly_js();
std::string_view plotly_js_version();  // "2.6.3", from the file's banner

// tools/report_js/*: report.css, report_common.js, run_report.js, sweep_report.js.
std::span<const models::EmbeddedFile> report_assets();
// The text of the asset named `name`; throws std::logic_error when there is none.
std::string_view report_asset(std::string_view name);

}  // namespace moesim::tools
