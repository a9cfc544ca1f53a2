#include "sim/io/yaml_fields.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "sim/core/status.hpp"

namespace gpusim::io {

void YamlFields::fail(const YAML::Node& node, const std::string& field, const std::string& why) const {
  throw core::InputError(fmt::format("{}:{}: {}: {}", file_, node.Mark().line + 1, field, why));
}

void YamlFields::only(const YAML::Node& map, const std::string& field, std::initializer_list<const char*> known) const {
  if (!map.IsMap()) fail(map, field, "expected a mapping");
  for (const auto& entry : map) {
    const auto key = entry.first.as<std::string>();
    if (std::none_of(known.begin(), known.end(), [&](const char* k) { return key == k; })) {
      fail(entry.first, field.empty() ? key : field + "." + key, fmt::format("unknown field (known: {})", fmt::join(known, ", ")));
    }
  }
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
