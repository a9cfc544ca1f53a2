#include "traces/k8s/manifest_objects.hpp"

#include <fmt/format.h>
#include <yaml-cpp/eventhandler.h>

#include <algorithm>
#include <cctype>
#include <sstream>

#include "sim/core/status.hpp"
#include "sim/io/yaml_fields.hpp"

namespace gpusim::traces::k8s {

namespace {

using YAML::Node;

// How many skipped objects a note lists by line before it only counts them.
constexpr std::size_t kListedSkips = 10;

// Records where each document starts; the parse builds nothing.
class DocumentStarts : public YAML::EventHandler {
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

struct Document {
  Node node;
  Where where;
};

// Every YAML document of the text. Not YAML::LoadAll: yaml-cpp 0.7 neither consumes nor refuses a
// token that cannot start a node (the ',' of "{a: 1},"), so LoadAll returns null documents for ever.
// A first pass finds where documents start and refuses one that does not move on; each document is
// then loaded from its first line on (Mark::pos is no byte offset: invalid UTF-8 is replaced).
std::vector<Document> load_documents(const Where& where, const std::string& text) {
  std::vector<int> first_lines;
  try {
    std::istringstream in(text);
    YAML::Parser parser(in);
    DocumentStarts probe;
    int last_pos = -1;
    int last_line = -1;
    while (parser.HandleNextDocument(probe)) {
      if (probe.start.pos <= last_pos || probe.start.line == last_line) {
        where.fail_at(where.mark_line(probe.start), "yaml", "unexpected text after the end of a document");
      }
      last_pos = probe.start.pos;
      last_line = probe.start.line;
      first_lines.push_back(first_lines.empty() ? 0 : last_line);  // the first keeps the lines before it
    }
  } catch (const YAML::Exception& e) {
    where.fail_at(where.mark_line(e.mark), "yaml", io::yaml_error_message(text, e));
  }
  // Byte offsets of line starts, to cut the text into documents.
  std::vector<std::size_t> line_starts{0};
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n') line_starts.push_back(i + 1);
  }
  const auto offset = [&](int line) {
    return line_starts.at(std::min(static_cast<std::size_t>(line), line_starts.size() - 1));
  };
  std::vector<Document> docs;
  for (std::size_t d = 0; d < first_lines.size(); ++d) {
    const std::size_t begin = offset(first_lines[d]);
    const std::size_t end = d + 1 < first_lines.size() ? offset(first_lines[d + 1]) : text.size();
    const Where doc_where = where.in_document_from(first_lines[d]);
    const std::string document = text.substr(begin, end - begin);
    try {
      docs.push_back({YAML::Load(document), doc_where});
    } catch (const YAML::Exception& e) {
      doc_where.fail_at(doc_where.mark_line(e.mark), "yaml", io::yaml_error_message(document, e));
    }
  }
  return docs;
}

}  // namespace

std::vector<Object> read_objects(const Where& file, const std::string& text) {
  std::vector<Object> objects;
  for (const auto& [doc, where] : load_documents(file, text)) {
    if (!present(doc)) continue;  // an empty document (a trailing '---') holds nothing
    const Fields top(where, doc, "");
    const std::string kind = top.required_string("kind");
    if (kind != "List" && !(kind.ends_with("List") && top.has("items"))) {
      objects.push_back({top, kind, where.line(doc)});
      continue;
    }
    // kubectl prints `kind: List` with typed items; the API's NodeList, PodList... omit the
    // items' kind, which is then the list's.
    const std::string item_kind = kind.substr(0, kind.size() - 4);
    for (const auto& [node, path] : top.list("items")) {
      const Fields item(where, node, path);
      std::string own = item.string("kind").value_or("");
      if (own.empty()) {
        if (item_kind.empty()) item.missing("kind");
        own = item_kind;
      } else if (!item_kind.empty() && own != item_kind) {
        item.fail("kind", fmt::format("'{}' inside a {}", own, kind));
      }
      if (own == "List" || own.ends_with("List")) item.fail("kind", "a list inside a list is not read");
      objects.push_back({item, own, where.line(node)});
    }
  }
  return objects;
}

void check_kind(const Object& object, std::initializer_list<std::string_view> read) {
  for (const std::string_view k : read) {
    if (object.kind != k && object.kind.size() == k.size() &&
        std::equal(k.begin(), k.end(), object.kind.begin(), [](char a, char b) {
          return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
        })) {
      object.fields.fail("kind", fmt::format("'{}': kinds are case-sensitive; did you mean {}?", object.kind, k));
    }
  }
}

std::string skipped_note(const std::vector<const Object*>& skipped, std::string_view reads) {
  std::vector<std::string> listed;
  for (std::size_t i = 0; i < skipped.size() && i < kListedSkips; ++i) {
    listed.push_back(fmt::format("{} at line {}", skipped[i]->kind, skipped[i]->line));
  }
  if (skipped.size() > kListedSkips) listed.push_back(fmt::format("and {} more", skipped.size() - kListedSkips));
  return fmt::format("skipped {} gpusim does not read here ({} only): {}",
                     plural(static_cast<std::int64_t>(skipped.size()), "object", "objects"), reads,
                     fmt::join(listed, ", "));
}

void nothing_read(const std::string& source, std::string_view what) {
  throw core::InputError(fmt::format("{}:1: kind: no {} in the file", source, what));
}

}  // namespace gpusim::traces::k8s
