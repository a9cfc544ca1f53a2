#pragma once
// Reads a kube-scheduler `resources` list ([]ResourceSpec: name and weight), as NodeResourcesFitArgs'
// scoringStrategy.resources and NodeResourcesBalancedAllocationArgs' resources write it. A weight
// left out (or 0) is 1, as kube-scheduler's v1 defaulting sets it (pkg/scheduler/apis/config/v1/
// defaults.go); an empty or absent list is the default cpu and memory, weight 1 each. Each name
// must be one gpusim models (policies/score/scoring_resources.hpp).
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "policies/score/scoring_resources.hpp"
#include "sim/io/yaml_fields.hpp"

namespace gpusim::policy {

// Why a weight is not allowed (after the default), or nothing: each args type checks its own.
using WeightRule = std::function<std::optional<std::string>(const std::string& name, std::int64_t weight)>;

std::vector<ScoredResource> read_resource_list(const YAML::Node& list, const io::YamlFields& fields, const std::string& field,
                                               const WeightRule& rule);
std::vector<ScoredResource> default_resources();
// "[{name: cpu, weight: 1}, {name: memory, weight: 1}]", for `gpusim policies --describe`.
std::string describe_resources(const std::vector<ScoredResource>& resources);

}  // namespace gpusim::policy
