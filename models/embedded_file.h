// A text file compiled into the library (CMake's moesim_embed_files, models/embed_files.cmake), so
// binaries need no runtime data paths. `name` is the file's name (e.g. "deepseek-v3.yaml"), `path`
// its path in the repository (for error messages), `text` its contents.
#pragma once

#include <span>
#include <string_view>

namespace moesim::models {

struct EmbeddedFile {
  std::string_view name;
  std::string_view path;
  std::string_view text;
};

// models/presets/*.yaml, in the order models/CMakeLists.txt lists them.
std::span<const EmbeddedFile> embedded_model_presets();

}  // namespace moesim::models
