#include "policies/score/balanced_allocation_args.hpp"

#include <fmt/format.h>

#include "policies/args_yaml.hpp"

namespace gpusim::policy {

std::shared_ptr<const sched::PluginArgs> read_balanced_allocation_args(const YAML::Node& args, const io::YamlFields& fields,
                                                                       const std::string& field) {
  auto out = std::make_shared<BalancedAllocationArgs>();
  if (!given(args)) return out;
  check_args_keys(args, fields, field, "NodeResourcesBalancedAllocationArgs", {"resources"});
  const std::string at = field + ".resources";
  out->resources = read_resource_list(args["resources"], fields, at, [](const std::string&, std::int64_t weight) {
    return weight == 1 ? std::nullopt : std::optional<std::string>("must be 1");
  });
  out->resources_given = given(args["resources"]) && args["resources"].size() > 0;
  for (std::size_t i = 1; i < out->resources.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (out->resources[i].name == out->resources[j].name) {
        fields.fail(args["resources"][i]["name"], fmt::format("{}[{}].name", at, i),
                    fmt::format("duplicate value '{}' (also {}[{}])", out->resources[i].name, at, j));
      }
    }
  }
  return out;
}

}  // namespace gpusim::policy
