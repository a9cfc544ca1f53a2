#include "sim/sweep/config_path.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <stdexcept>

#include "sim/core/status.hpp"
#include "traces/k8s/yaml_documents.hpp"

namespace gpusim::sweep {
namespace {

[[noreturn]] void bad_path(std::string_view path, std::size_t at, const std::string& why) {
  throw std::invalid_argument(fmt::format("'{}': {} (at character {})", path, why, at + 1));
}

// A double-quoted key, from the opening quote at `at`; moves `at` past the closing one.
std::string quoted_key(std::string_view path, std::size_t& at) {
  std::string key;
  for (++at; at < path.size() && path[at] != '"'; ++at) {
    if (path[at] == '\\' && at + 1 < path.size()) ++at;
    key += path[at];
  }
  if (at >= path.size()) bad_path(path, at, "a quoted key without its closing quote");
  ++at;
  return key;
}

std::string describe(const YAML::Node& node) {
  if (node.IsMap()) {
    std::vector<std::string> keys;
    for (const auto& entry : node) keys.push_back(entry.first.Scalar());
    return keys.empty() ? "an empty mapping" : fmt::format("a mapping of {}", fmt::join(keys, ", "));
  }
  if (node.IsSequence()) return fmt::format("a list of {}", node.size());
  if (node.IsScalar()) return fmt::format("the value '{}'", node.Scalar());
  return "nothing";
}

std::string step_text(const PathStep& step) {
  switch (step.kind) {
    case PathStep::kKey: return step.key;
    case PathStep::kIndex: return fmt::format("[{}]", step.index);
    case PathStep::kMatch: return fmt::format("[{}={}]", step.key, step.value);
  }
  return "";
}

bool plain_safe(const std::string& value) {
  if (value.empty()) return false;
  for (const char c : value) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
                    c == '-' || c == '/' || c == '+';
    if (!ok) return false;
  }
  // YAML reads these plain as null, not as the text.
  if (value == "null" || value == "Null" || value == "NULL") return false;
  return value.front() != '-' || value.size() > 1;
}

// A newline, a tab or another control character: written plain or in single quotes it would read
// back otherwise (a newline folds to a space) or not at all.
bool has_control(const std::string& value) {
  for (const char c : value) {
    if (static_cast<unsigned char>(c) < 0x20 || c == '\x7f') return true;
  }
  return false;
}

// Where the scalar starting at `begin` ends: its closing quote, or for a plain scalar the end of
// its line, a comment, or in a flow collection the next ',', ']' or '}'.
std::size_t scalar_end(const std::string& text, std::size_t begin, bool in_flow) {
  if (begin >= text.size()) return begin;
  const char quote = text[begin];
  if (quote == '"' || quote == '\'') {
    for (std::size_t i = begin + 1; i < text.size(); ++i) {
      if (quote == '"' && text[i] == '\\') {
        ++i;
      } else if (text[i] == quote) {
        if (quote == '\'' && i + 1 < text.size() && text[i + 1] == '\'') {
          ++i;  // '' inside single quotes
        } else {
          return i + 1;
        }
      }
    }
    return text.size();
  }
  std::size_t end = begin;
  while (end < text.size() && text[end] != '\n' && text[end] != '\r') {
    if (in_flow && (text[end] == ',' || text[end] == ']' || text[end] == '}')) break;
    if (text[end] == '#' && end > begin && (text[end - 1] == ' ' || text[end - 1] == '\t')) break;
    ++end;
  }
  while (end > begin && (text[end - 1] == ' ' || text[end - 1] == '\t')) --end;
  return end;
}

}  // namespace

std::vector<PathStep> parse_config_path(std::string_view path) {
  std::vector<PathStep> steps;
  std::size_t at = 0;
  if (path.empty()) bad_path(path, 0, "an empty path");
  while (at < path.size()) {
    if (path[at] == '[') {
      const std::size_t close = path.find(']', at);
      std::size_t inner_end = close;
      if (at + 1 < path.size() && path[at + 1] == '"') {
        std::size_t quote = at + 1;
        PathStep step;
        step.key = quoted_key(path, quote);
        if (quote >= path.size() || path[quote] != ']') bad_path(path, quote, "expected ']' after a quoted key");
        steps.push_back(std::move(step));
        at = quote + 1;
      } else {
        if (close == std::string_view::npos) bad_path(path, at, "'[' without its ']'");
        const std::string_view inner = path.substr(at + 1, inner_end - at - 1);
        PathStep step;
        if (const std::size_t equals = inner.find('='); equals != std::string_view::npos) {
          step.kind = PathStep::kMatch;
          step.key = std::string(inner.substr(0, equals));
          step.value = std::string(inner.substr(equals + 1));
          if (step.key.empty() || step.value.empty()) bad_path(path, at, "[field=value] needs both the field and the value");
        } else {
          step.kind = PathStep::kIndex;
          const auto [end, error] = std::from_chars(inner.data(), inner.data() + inner.size(), step.index);
          if (inner.empty() || error != std::errc{} || end != inner.data() + inner.size()) {
            bad_path(path, at, fmt::format("'[{}]' is neither a list index [N] nor a match [field=value]", inner));
          }
        }
        steps.push_back(std::move(step));
        at = close + 1;
      }
    } else {
      if (path[at] == '.') {
        if (steps.empty() || at + 1 >= path.size() || path[at + 1] == '.' || path[at + 1] == '[') {
          bad_path(path, at, "a '.' with no key on one side");
        }
        ++at;
      } else if (!steps.empty()) {
        bad_path(path, at, "expected '.' or '[' between steps");
      }
      PathStep step;
      if (at < path.size() && path[at] == '"') {
        step.key = quoted_key(path, at);
      } else {
        const std::size_t end = path.find_first_of(".[]\"", at);
        step.key = std::string(path.substr(at, end == std::string_view::npos ? std::string_view::npos : end - at));
        at = end == std::string_view::npos ? path.size() : end;
        if (step.key.empty()) bad_path(path, at, "an empty key");
        if (at < path.size() && (path[at] == ']' || path[at] == '"')) bad_path(path, at, fmt::format("an unexpected '{}'", path[at]));
      }
      steps.push_back(std::move(step));
    }
  }
  return steps;
}

namespace {

std::vector<YAML::Node> yaml_documents(const std::string& text) {
  // Not YAML::LoadAll, which loops for ever on some malformed text (the fuzzer found one).
  try {
    return traces::load_yaml_documents(text, "FILE");
  } catch (const core::InputError& e) {
    // "FILE:52: yaml: why" -> "line 52: yaml: why": the caller names the file.
    const std::string what = e.what();
    throw std::invalid_argument(what.starts_with("FILE:") ? "line " + what.substr(5) : what);
  }
}

}  // namespace

std::size_t yaml_document_count(const std::string& text) {
  const std::vector<YAML::Node> documents = yaml_documents(text);
  std::size_t count = documents.size();
  while (count > 1 && documents[count - 1].IsNull()) --count;
  return count;
}

TextSpan locate_config_field(const std::string& text, std::size_t document, const std::vector<PathStep>& steps) {
  const std::vector<YAML::Node> documents = yaml_documents(text);
  if (document >= documents.size()) {
    const std::size_t count = yaml_document_count(text);
    throw std::invalid_argument(fmt::format("has {} document{}, no document {}", count, count == 1 ? "" : "s", document));
  }
  YAML::Node node = documents[document];
  bool in_flow = false;
  std::string walked;
  for (const PathStep& step : steps) {
    YAML::Node next(YAML::NodeType::Undefined);
    if (step.kind == PathStep::kKey) {
      if (node.IsMap()) {
        for (const auto& entry : node) {
          if (entry.first.IsScalar() && entry.first.Scalar() == step.key) next.reset(entry.second);
        }
      }
    } else if (node.IsSequence()) {
      if (step.kind == PathStep::kIndex) {
        if (step.index < node.size()) next.reset(node[step.index]);
      } else {
        for (std::size_t i = 0; i < node.size() && !next; ++i) {
          const YAML::Node element = node[i];
          if (element.IsMap() && element[step.key] && element[step.key].IsScalar() && element[step.key].Scalar() == step.value) next.reset(element);
        }
      }
    }
    if (!next) {
      throw std::invalid_argument(fmt::format("no {} at {} (there: {})", step_text(step), walked.empty() ? "the top" : walked, describe(node)));
    }
    in_flow = node.Style() == YAML::EmitterStyle::Flow;
    walked += fmt::format("{}{}", walked.empty() || step.kind != PathStep::kKey ? "" : ".", step_text(step));
    node.reset(next);  // rebinds (yaml-cpp's `=` would write into the document)
  }
  if (!node.IsScalar()) throw std::invalid_argument(fmt::format("{} is {}, not one value", walked, describe(node)));
  // Each document is parsed with the lines before it kept (blank), so the mark's line and column
  // are the file's; yaml-cpp counts line 0's columns after a UTF-8 byte-order mark.
  const YAML::Mark mark = node.Mark();
  std::size_t begin = text.starts_with("\xEF\xBB\xBF") ? 3 : 0;
  for (int line = 0; line < mark.line && begin < text.size(); ++line) {
    const std::size_t newline = text.find('\n', begin);
    begin = newline == std::string::npos ? text.size() : newline + 1;
  }
  begin += static_cast<std::size_t>(std::max(0, mark.column));
  if (begin < text.size() && (text[begin] == '&' || text[begin] == '!' || text[begin] == '*')) {
    // An anchor's value is others' too (an alias repeats it), and a tag's reading is its own.
    throw std::invalid_argument(fmt::format("{}: its value is written with an anchor, alias or tag; a sweep edits plain values only", walked));
  }
  if (begin > text.size()) begin = text.size();
  const TextSpan span{begin, scalar_end(text, begin, in_flow)};
  // The span must spell the value the parser read, or the edit would land elsewhere.
  try {
    const YAML::Node spelled = YAML::Load(text.substr(span.begin, span.end - span.begin));
    if (spelled.IsScalar() && spelled.Scalar() == node.Scalar()) return span;
  } catch (const YAML::Exception&) {
  }
  throw std::invalid_argument(fmt::format("{}: its value '{}' is written in a form a sweep cannot edit (over several lines?)", walked, node.Scalar()));
}

std::string yaml_scalar_text(const std::string& value, char quote) {
  if (quote == '\'' && !has_control(value)) {
    std::string quoted(1, '\'');
    for (const char c : value) {
      quoted += c;
      if (c == '\'') quoted += c;
    }
    quoted += '\'';
    return quoted;
  }
  if (quote != '"' && plain_safe(value)) return value;
  std::string quoted(1, '"');
  for (const char c : value) {
    if (c == '"' || c == '\\') {
      quoted += '\\';
      quoted += c;
    } else if (c == '\n') {
      quoted += "\\n";
    } else if (c == '\t') {
      quoted += "\\t";
    } else if (static_cast<unsigned char>(c) < 0x20 || c == '\x7f') {
      quoted += fmt::format("\\x{:02x}", static_cast<unsigned char>(c));
    } else {
      quoted += c;
    }
  }
  quoted += '"';
  return quoted;
}

}  // namespace gpusim::sweep
