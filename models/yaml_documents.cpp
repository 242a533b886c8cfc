#include "models/yaml_documents.h"

#include <algorithm>
#include <sstream>
#include <string>

#include <yaml-cpp/eventhandler.h>

namespace moesim::models {
namespace {

// Records where each document starts and where its root node is; ignores everything else.
class DocumentStarts : public YAML::EventHandler {
 public:
  YAML::Mark start, root;
  void OnDocumentStart(const YAML::Mark& mark) override {
    start = mark;
    root_seen_ = false;
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& m, YAML::anchor_t) override { node(m); }
  void OnAlias(const YAML::Mark& m, YAML::anchor_t) override { node(m); }
  void OnScalar(const YAML::Mark& m, const std::string&, YAML::anchor_t, const std::string&) override { node(m); }
  void OnSequenceStart(const YAML::Mark& m, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
    node(m);
  }
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark& m, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
    node(m);
  }
  void OnMapEnd() override {}

 private:
  void node(const YAML::Mark& m) {
    if (!root_seen_) root = m;
    root_seen_ = true;
  }
  bool root_seen_ = false;
};

}  // namespace

YamlDocuments load_yaml_documents(const std::string& text) {
  YamlDocuments out;
  {
    std::istringstream in(text);
    YAML::Parser parser(in);
    DocumentStarts starts;
    int previous_pos = -1;
    while (parser.HandleNextDocument(starts)) {
      if (starts.start.pos == previous_pos)
        throw YAML::ParserException(starts.start, "unexpected character (the parser cannot go on from here)");
      previous_pos = starts.start.pos;
      if (++out.count == 2) out.second = starts.root;
    }
  }
  if (out.count > 0) out.first = YAML::Load(text);
  return out;
}

std::string quoted_excerpt(const std::string& value) {
  const std::size_t cut = std::min(value.find_first_of("\r\n"), kValueEcho);
  std::string out(1, '\'');
  if (cut >= value.size()) {
    out.append(value).push_back('\'');
    return out;
  }
  out.append(value, 0, cut).append("...' (").append(std::to_string(value.size())).append(" characters)");
  return out;
}

}  // namespace moesim::models
