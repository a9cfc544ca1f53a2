#include "policies/score/resource_list_reader.hpp"

#include <fmt/format.h>

#include "policies/args_yaml.hpp"

namespace gpusim::policy {

std::vector<ScoredResource> default_resources() {
  return {{"cpu", ResourceKind::kCpu, "", 1}, {"memory", ResourceKind::kMemory, "", 1}};
}

std::vector<ScoredResource> read_resource_list(const YAML::Node& list, const io::YamlFields& fields, const std::string& field,
                                               const WeightRule& rule) {
  const YAML::Node items = sequence(list, fields, field);
  if (items.size() == 0) return default_resources();
  std::vector<ScoredResource> out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    const YAML::Node item = items[i];
    const std::string at = fmt::format("{}[{}]", field, i);
    fields.only(item, at, {"name", "weight"});
    if (!given(item["name"])) fields.fail(item, at + ".name", "required");
    const std::string name = fields.text(item["name"], at + ".name");
    std::int64_t weight = 0;
    if (given(item["weight"])) weight = fields.integer(item["weight"], at + ".weight", INT64_MIN / 2, INT64_MAX / 2);
    if (weight == 0) weight = 1;  // v1 defaulting: unset or 0 is 1
    if (const auto why = rule(name, weight)) fields.fail(given(item["weight"]) ? item["weight"] : item, at + ".weight", *why);
    std::string why;
    auto resource = resolve_resource(name, weight, why);
    if (!resource) fields.fail(item["name"], at + ".name", why);
    out.push_back(std::move(*resource));
  }
  return out;
}

std::string describe_resources(const std::vector<ScoredResource>& resources) {
  std::vector<std::string> items;
  items.reserve(resources.size());
  for (const ScoredResource& r : resources) items.push_back(fmt::format("{{name: {}, weight: {}}}", r.name, r.weight));
  return fmt::format("[{}]", fmt::join(items, ", "));
}

}  // namespace gpusim::policy
