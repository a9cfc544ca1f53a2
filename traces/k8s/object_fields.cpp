#include "traces/k8s/object_fields.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <unordered_map>

#include "sim/core/status.hpp"

namespace gpusim::traces::k8s {

using YAML::Node;

std::string truncated(std::string_view text) {
  return text.size() <= 40 ? std::string(text) : std::string(text.substr(0, 40)) + "...";
}

std::string plural(std::int64_t n, std::string_view one, std::string_view many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

// ---------------------------------------------------------------- where errors point

Where Where::in_document_from(int first_line) const {
  Where w = *this;
  w.line_offset_ = first_line;
  return w;
}

Where Where::inside_string_at(int line) const {
  Where w = *this;
  w.fixed_line_ = line;
  return w;
}

int Where::line(const Node& node) const {
  if (fixed_line_ > 0) return fixed_line_;
  if (!node.IsDefined()) return 1;
  return mark_line(node.Mark());
}

int Where::mark_line(const YAML::Mark& mark) const { return std::max(1, mark.line + 1 + line_offset_); }

void Where::fail(const Node& node, std::string_view field, std::string_view reason) const {
  fail_at(line(node), field, reason);
}

void Where::fail_at(int line, std::string_view field, std::string_view reason) const {
  throw core::InputError(fmt::format("{}:{}: {}: {}", *file_, line, field, reason));
}

std::string join(std::string_view path, std::string_view key) {
  return path.empty() ? std::string(key) : fmt::format("{}.{}", path, key);
}

std::string indexed(std::string_view path, std::size_t i) { return fmt::format("{}[{}]", path, i); }

bool present(const Node& node) { return node.IsDefined() && !node.IsNull(); }

const char* shape(const Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map: return "a mapping";
    case YAML::NodeType::Sequence: return "a list";
    case YAML::NodeType::Scalar: return "a scalar";
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined: return "nothing";
  }
  return "something else";
}

// ---------------------------------------------------------------- typed field access

Fields::Fields(const Where& where, Node node, std::string path)
    : where_(where), node_(std::move(node)), path_(std::move(path)) {
  if (!node_.IsMap()) {
    where_.fail(node_, path_.empty() ? "object" : path_, fmt::format("expected a mapping, found {}", shape(node_)));
  }
  // yaml-cpp keeps the first of repeated keys silently; Kubernetes' strict decoding refuses them.
  std::unordered_map<std::string, int> seen;
  for (const auto& entry : node_) {
    if (!entry.first.IsScalar()) where_.fail(entry.first, path_.empty() ? "object" : path_, "expected a string key");
    const auto [it, inserted] = seen.emplace(entry.first.Scalar(), where_.line(entry.first));
    if (!inserted) {
      where_.fail(entry.first, join(path_, entry.first.Scalar()),
                  fmt::format("repeated key (first at line {})", it->second));
    }
  }
}

void Fields::fail(const std::string& key, std::string_view reason) const {
  const Node value = get(key);
  where_.fail(present(value) ? value : node_, path(key), reason);
}

void Fields::missing(const std::string& key) const { where_.fail(node_, path(key), "missing"); }

std::optional<std::string> Fields::string(const std::string& key) const {
  const Node value = get(key);
  if (!present(value)) return std::nullopt;
  if (!value.IsScalar()) fail(key, fmt::format("expected a string, found {}", shape(value)));
  return value.Scalar();
}

std::string Fields::required_string(const std::string& key) const {
  auto value = string(key);
  if (!value) missing(key);
  if (value->empty()) fail(key, "empty");
  return *value;
}

std::optional<Fields> Fields::map(const std::string& key) const {
  const Node value = get(key);
  if (!present(value)) return std::nullopt;
  return Fields(where_, value, path(key));
}

Fields Fields::required_map(const std::string& key) const {
  auto value = map(key);
  if (!value) missing(key);
  return *value;
}

std::vector<std::pair<Node, std::string>> Fields::list(const std::string& key) const {
  std::vector<std::pair<Node, std::string>> items;
  const Node value = get(key);
  if (!present(value)) return items;
  if (!value.IsSequence()) fail(key, fmt::format("expected a list, found {}", shape(value)));
  std::size_t i = 0;
  for (const auto& item : value) items.emplace_back(item, indexed(path(key), i++));
  return items;
}

std::optional<std::int64_t> Fields::integer(const std::string& key, std::int64_t min, std::int64_t max) const {
  const auto text = string(key);
  if (!text) return std::nullopt;
  std::int64_t value = 0;
  const char* begin = text->data();
  const char* end = begin + text->size();
  if (begin != end && *begin == '+') ++begin;
  const auto [stop, error] = std::from_chars(begin, end, value);
  const auto out_of_range = [&] { fail(key, fmt::format("'{}' is out of range ({} to {})", *text, min, max)); };
  if (error == std::errc::result_out_of_range) out_of_range();
  if (begin == end || error != std::errc{} || stop != end) fail(key, fmt::format("'{}' is not an integer", *text));
  if (value < min || value > max) out_of_range();
  return value;
}

std::optional<bool> Fields::boolean(const std::string& key) const {
  const auto text = string(key);
  if (!text) return std::nullopt;
  if (*text == "true" || *text == "True" || *text == "TRUE") return true;
  if (*text == "false" || *text == "False" || *text == "FALSE") return false;
  fail(key, fmt::format("'{}' is not true or false", *text));
}

std::optional<double> Fields::number(const std::string& key) const {
  const auto text = string(key);
  if (!text) return std::nullopt;
  // A JSON number: an optional minus, digits, an optional fraction and exponent (no "+", no
  // leading ".", no hexadecimal, no "inf" or "nan").
  double value = 0;
  const char* first = text->data();
  const char* last = first + text->size();
  const bool shaped = !text->empty() && (std::isdigit(static_cast<unsigned char>(text->front())) != 0 ||
                                         (text->front() == '-' && text->size() > 1 && std::isdigit(static_cast<unsigned char>((*text)[1])) != 0));
  const auto [end, ec] = std::from_chars(first, last, value, std::chars_format::general);
  if (!shaped || ec != std::errc() || end != last || !std::isfinite(value)) fail(key, fmt::format("'{}' is not a number", truncated(*text)));
  return value;
}

void Fields::only(std::initializer_list<std::string_view> known) const {
  for (const auto& entry : node_) {
    const std::string& key = entry.first.Scalar();
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      where_.fail(entry.first, path(key), fmt::format("unknown field (known: {})", fmt::join(known, ", ")));
    }
  }
}

// ---------------------------------------------------------------- string mappings

Entries string_map(const Fields& parent, const std::string& key) {
  Entries out;
  const auto map = parent.map(key);
  if (!map) return out;
  for (const auto& kv : map->node()) {
    Entry e{kv.first.Scalar(), "", kv.second, map->path(kv.first.Scalar())};
    if (e.key.empty()) map->where().fail(kv.first, map->path(), "empty key");
    if (kv.second.IsScalar()) {
      e.value = kv.second.Scalar();
    } else if (present(kv.second)) {
      map->where().fail(kv.second, e.path, fmt::format("expected a string, found {}", shape(kv.second)));
    }
    out.push_back(std::move(e));
  }
  return out;
}

const Entry* find(const Entries& entries, std::string_view key) {
  for (const Entry& e : entries) {
    if (e.key == key) return &e;
  }
  return nullptr;
}

// ---------------------------------------------------------------- quantities and times in fields

core::Time duration_entry(const Where& where, const Entry& e) {
  return must(where, e.node, e.path, parse_go_duration(e.value));
}

std::string quantity_text(const Fields& map, const std::string& key) {
  const auto text = map.string(key);
  if (!text) map.fail(key, "expected a quantity");
  return *text;
}

}  // namespace gpusim::traces::k8s
