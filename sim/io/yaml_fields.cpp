#include "sim/io/yaml_fields.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "sim/core/status.hpp"

namespace gpusim::io {

std::string yaml_error_message(std::string_view text, const YAML::Exception& e) {
  if (e.mark.is_null() || e.mark.line < 0) return e.msg;
  // The failing line (yaml-cpp counts lines from 0).
  std::size_t begin = 0;
  for (int line = 0; line < e.mark.line; ++line) {
    begin = text.find('\n', begin);
    if (begin == std::string_view::npos) return e.msg;
    ++begin;
  }
  const std::string_view line = text.substr(begin, text.find('\n', begin) - begin);
  const std::size_t indent = line.find_first_not_of(" \t");
  const std::size_t tab = line.substr(0, indent).find('\t');
  if (tab == std::string_view::npos) return e.msg;
  return fmt::format("a tab character at column {}; YAML indents with spaces", tab + 1);
}

std::string yaml_syntax_error(std::string_view file, std::string_view text, const YAML::Exception& e) {
  return fmt::format("{}:{}: {}", file, e.mark.line + 1, yaml_error_message(text, e));
}

void YamlFields::fail(const YAML::Node& node, const std::string& field, const std::string& why) const {
  throw core::InputError(fmt::format("{}:{}: {}: {}", file_, node.Mark().line + 1, field, why));
}

void YamlFields::only(const YAML::Node& map, const std::string& field, std::initializer_list<const char*> known) const {
  if (!map.IsMap()) fail(map, field, "expected a mapping");
  for (const auto& entry : map) {
    const auto key = this->key(entry.first, field);
    if (std::none_of(known.begin(), known.end(), [&](const char* k) { return key == k; })) {
      fail(entry.first, field.empty() ? key : field + "." + key, fmt::format("unknown field (known: {})", fmt::join(known, ", ")));
    }
  }
}

std::string YamlFields::key(const YAML::Node& key, const std::string& field) const {
  if (!key.IsScalar()) fail(key, field, "expected a text key");
  return key.as<std::string>();
}

std::string YamlFields::text(const YAML::Node& node, const std::string& field) const {
  if (!node.IsScalar()) fail(node, field, "expected a text value");
  return node.as<std::string>();
}

std::int64_t YamlFields::integer(const YAML::Node& node, const std::string& field, std::int64_t low, std::int64_t high) const {
  const std::string value = text(node, field);
  std::int64_t n = 0;
  const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), n);
  if (error != std::errc{} || end != value.data() + value.size() || n < low || n > high) {
    fail(node, field, fmt::format("'{}' is not an integer from {} to {}", value, low, high));
  }
  return n;
}

double YamlFields::number(const YAML::Node& node, const std::string& field, double low, double high) const {
  const std::string value = text(node, field);
  double x = 0;
  const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), x);
  if (error != std::errc{} || end != value.data() + value.size() || !(x >= low && x <= high)) {
    fail(node, field, fmt::format("'{}' is not a number from {} to {}", value, low, high));
  }
  return x;
}

bool YamlFields::boolean(const YAML::Node& node, const std::string& field) const {
  const std::string value = text(node, field);
  if (value == "true") return true;
  if (value == "false") return false;
  fail(node, field, fmt::format("'{}' is not true or false", value));
}

}  // namespace gpusim::io
