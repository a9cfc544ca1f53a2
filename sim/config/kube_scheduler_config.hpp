#pragma once
// Reader for kube-scheduler's own configuration file, `kubescheduler.config.k8s.io/v1`
// KubeSchedulerConfiguration: its profiles become gpusim policies (sched::Profile), each plugin
// set merged with kube-scheduler's defaults as kube-scheduler merges them, each pluginConfig's
// args decoded by the plugin's own reader (sim/sched/plugin_args.hpp). gpusim's own extension
// points and plugins (GPU selection, job ranking, rounds, queue admission) are written in the same
// shape; what each name does: policies/README.md, "KubeSchedulerConfiguration".
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <string>
#include <vector>

#include "sim/sched/profile.hpp"
#include "sim/sched/registry.hpp"

namespace gpusim::config {

struct SchedulerConfiguration {
  // One per profile, in the file's order; each is a policy of the run (runs/<schedulerName>/).
  std::vector<sched::Profile> profiles;
  // What was accepted without changing the simulation (leader election, plugins for volumes,
  // ports and images, ...), for the user.
  std::vector<std::string> notes;
};

// Whether a YAML document is a KubeSchedulerConfiguration (its apiVersion's group).
bool is_kube_scheduler_config(const YAML::Node& doc);

// Throw core::InputError "file:line: field: why" on anything not understood: unknown fields,
// plugins and args, versions other than v1, and profiles gpusim cannot run.
SchedulerConfiguration parse_kube_scheduler_config(const std::string& text, const std::string& source,
                                                   const sched::Registry& registry);
SchedulerConfiguration read_kube_scheduler_config(const std::filesystem::path& path, const sched::Registry& registry);

}  // namespace gpusim::config
