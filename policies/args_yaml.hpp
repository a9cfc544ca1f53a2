#pragma once
// Small pieces every plugin-args reader of policies/ shares (sim/sched/plugin_args.hpp).
#include <yaml-cpp/yaml.h>

#include <initializer_list>
#include <string>

#include "sim/io/yaml_fields.hpp"

namespace gpusim::policy {

// Whether `args` gives anything (an absent or null args block means the plugin's defaults).
inline bool given(const YAML::Node& node) { return node.IsDefined() && !node.IsNull(); }

// Checks that `args` is a mapping of `known` keys, plus the optional `apiVersion` and `kind` that
// kube-scheduler's typed args may carry (kubescheduler.config.k8s.io/v1 and `kind`).
void check_args_keys(const YAML::Node& args, const io::YamlFields& fields, const std::string& field, const char* kind,
                     std::initializer_list<const char*> known);

// The items of a YAML sequence (a null node: none); anything else is an error naming `field`.
YAML::Node sequence(const YAML::Node& node, const io::YamlFields& fields, const std::string& field);

}  // namespace gpusim::policy
