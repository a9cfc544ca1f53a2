#include "policies/args_yaml.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

namespace gpusim::policy {

void check_args_keys(const YAML::Node& args, const io::YamlFields& fields, const std::string& field, const char* kind,
                     std::initializer_list<const char*> known) {
  if (!args.IsMap()) fields.fail(args, field, "expected a mapping");
  std::vector<const char*> keys(known);
  for (const auto& entry : args) {
    const auto key = entry.first.as<std::string>();
    const std::string path = field + "." + key;
    if (key == "apiVersion") {
      if (fields.text(entry.second, path) != "kubescheduler.config.k8s.io/v1") {
        fields.fail(entry.second, path, "gpusim reads kubescheduler.config.k8s.io/v1");
      }
    } else if (key == "kind") {
      if (fields.text(entry.second, path) != kind) fields.fail(entry.second, path, fmt::format("expected {}", kind));
    } else if (std::none_of(keys.begin(), keys.end(), [&](const char* k) { return key == k; })) {
      fields.fail(entry.first, path, fmt::format("unknown field (known: {})", fmt::join(keys, ", ")));
    }
  }
}

YAML::Node sequence(const YAML::Node& node, const io::YamlFields& fields, const std::string& field) {
  if (!given(node)) return YAML::Node(YAML::NodeType::Sequence);
  if (!node.IsSequence()) fields.fail(node, field, "expected a list");
  return node;
}

}  // namespace gpusim::policy
