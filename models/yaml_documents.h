// Reading YAML text as a stream of documents with yaml-cpp, safely (the YAML reader,
// models/yaml_tree.h, uses it instead of YAML::LoadAll).
//
// yaml-cpp 0.7 (Debian 12's) loops forever in YAML::LoadAll, allocating a null document per turn,
// on input where its parser stops consuming tokens, e.g. a lone "," at the top level (found by
// fuzzing; jbeder/yaml-cpp#1040, fixed upstream by #1319). Here the documents are counted with
// an event handler, and a document that starts where the previous one started (no progress) is
// a ParserException at that position; only then is the first document built with YAML::Load.
#pragma once

#include <string>

#include <yaml-cpp/yaml.h>

namespace moesim::models {

struct YamlDocuments {
  int count = 0;      // documents in the stream (0 for empty text)
  YAML::Node first;   // the first document (undefined when count is 0)
  YAML::Mark second;  // where the second document's root node is (when count > 1)
};

// Throws YAML::Exception (YAML::ParserException for the stalled parser) with the position.
YamlDocuments load_yaml_documents(const std::string& text);

// A value quoted for an error message, cut to its first kValueEcho characters (and first line)
// with "..." after: a file that is not YAML at all parses as one long scalar, which an error
// should not echo whole.
inline constexpr std::size_t kValueEcho = 40;
std::string quoted_excerpt(const std::string& value);

}  // namespace moesim::models
