#pragma once
// The pluginConfig args of gpusim's policy plugins (Tiresias, Gavel, Themis) and of the
// coscheduling plugin, read into the profile fields the scheduler runs them with. Each arg's name,
// default and source: policies/README.md, "KubeSchedulerConfiguration".
#include <yaml-cpp/yaml.h>

#include <string>
#include <string_view>

#include "sim/io/yaml_fields.hpp"
#include "sim/sched/profile.hpp"

namespace gpusim::config {

// Whether `name` is one of these plugins (names match as sched/names.hpp says).
bool is_policy_plugin_with_args(std::string_view name);

// Reads `args` (pluginConfig[i].args at `field`) of plugin `name` into `profile`, after the
// plugin was enabled (which set its defaults). Unknown args are errors.
void read_policy_args(const io::YamlFields& fields, std::string_view name, const YAML::Node& args, const std::string& field,
                      sched::Profile& profile);

}  // namespace gpusim::config
