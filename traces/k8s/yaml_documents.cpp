#include "traces/k8s/yaml_documents.hpp"

#include <fmt/format.h>
#include <yaml-cpp/eventhandler.h>

#include <algorithm>
#include <sstream>

#include "sim/core/status.hpp"
#include "sim/io/yaml_fields.hpp"

namespace gpusim::traces {
namespace {

// Records where the last document started; the parse builds nothing.
class DocumentStart : public YAML::EventHandler {
 public:
  YAML::Mark start;
  void OnDocumentStart(const YAML::Mark& mark) override { start = mark; }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
};

[[noreturn]] void syntax_error(const std::string& file, const std::string& text, const YAML::Exception& e) {
  throw core::InputError(fmt::format("{}:{}: yaml: {}", file, std::max(0, e.mark.line) + 1, io::yaml_error_message(text, e)));
}

}  // namespace

std::vector<YAML::Node> load_yaml_documents(const std::string& text, const std::string& file) {
  // Lines (0-based) where documents start; the first document keeps the lines before it.
  std::vector<int> first_lines;
  try {
    std::istringstream in(text);
    YAML::Parser parser(in);
    DocumentStart probe;
    int last_pos = -1;
    int last_line = -1;
    while (parser.HandleNextDocument(probe)) {
      if (probe.start.pos <= last_pos || probe.start.line == last_line) {
        throw core::InputError(fmt::format("{}:{}: yaml: unexpected text after the end of a document", file,
                                           probe.start.line + 1));
      }
      last_pos = probe.start.pos;
      last_line = probe.start.line;
      first_lines.push_back(first_lines.empty() ? 0 : last_line);
    }
  } catch (const YAML::Exception& e) {
    syntax_error(file, text, e);
  }
  std::vector<std::size_t> line_starts{0};
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n') line_starts.push_back(i + 1);
  }
  const auto offset = [&](int line) { return line_starts[std::min(static_cast<std::size_t>(line), line_starts.size() - 1)]; };
  std::vector<YAML::Node> docs;
  docs.reserve(first_lines.size());
  for (std::size_t d = 0; d < first_lines.size(); ++d) {
    const std::size_t begin = offset(first_lines[d]);
    const std::size_t end = d + 1 < first_lines.size() ? offset(first_lines[d + 1]) : text.size();
    // Blank lines in place of the earlier documents: marks then count the file's lines.
    std::string document(static_cast<std::size_t>(first_lines[d]), '\n');
    document.append(text, begin, end - begin);
    try {
      docs.push_back(YAML::Load(document));
    } catch (const YAML::Exception& e) {
      syntax_error(file, document, e);
    }
  }
  return docs;
}

YAML::Node load_yaml_at_line(const std::string& text, const std::string& file, int first_line) {
  const std::string padded = std::string(static_cast<std::size_t>(std::max(0, first_line - 1)), '\n') + text;
  std::vector<YAML::Node> docs = load_yaml_documents(padded, file);
  // A trailing "---" leaves an empty document; a second document with content is a mistake.
  while (docs.size() > 1 && (!docs.back() || docs.back().IsNull())) docs.pop_back();
  if (docs.size() > 1) {
    throw core::InputError(fmt::format("{}:{}: yaml: a second document; this text holds one", file,
                                       std::max(1, docs[1].Mark().line + 1)));
  }
  return docs.empty() ? YAML::Node() : docs.front();
}

}  // namespace gpusim::traces
