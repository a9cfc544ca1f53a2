#pragma once
// gpusim's older profile YAML (name, queueSort, filter, score, gpuSelection, tieBreak, ... at the top
// level) is retired: a policy is a KubeSchedulerConfiguration, the file kube-scheduler reads. The
// older reader stays only to tell a user who still has such a file what replaces it: the same
// profile written as a KubeSchedulerConfiguration, checked by reading it back.
#include <yaml-cpp/yaml.h>

#include <string>

#include "sim/sched/profile.hpp"
#include "sim/sched/registry.hpp"

namespace gpusim::config {

// Whether a YAML document is in the older format: a mapping with neither `apiVersion` nor `kind`
// whose keys are at least half that format's fields (a misspelt field is named by its reader).
bool is_retired_profile_yaml(const YAML::Node& doc);

// The older format's profile (one document, each key once, no unknown field; a profile without
// `name` is named by its file, or "my-policy" when the file name cannot name an output folder);
// throws core::InputError "file:line: field: why".
sched::Profile parse_retired_profile_yaml(const std::string& text, const std::string& path);

// The profile's placement as a KubeSchedulerConfiguration: every default plugin disabled and each
// point's plugins given in the profile's order, with its weights, GPU selection, tie rule and
// percentageOfNodesToScore 100 (the older format scored every node).
std::string kube_scheduler_config_for(const sched::Profile& profile);

// What the older file's user is told: its KubeSchedulerConfiguration, and either that it reads back
// as the same profile or what differs (or why gpusim's reader refuses it). Throws the older
// reader's core::InputError for a file that format did not accept either.
std::string retired_profile_yaml_message(const std::string& text, const std::string& path, const sched::Registry& registry);

}  // namespace gpusim::config
