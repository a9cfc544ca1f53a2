#pragma once
// Volcano's scheduler configuration (volcano-sh/volcano pkg/scheduler/conf/scheduler_conf.go):
//   actions: "enqueue, allocate, backfill"
//   tiers:
//   - plugins:
//     - name: priority
//     - name: gang
//       enablePreemptable: false
//   - plugins:
//     - name: proportion
//     - name: binpack
//       arguments: {binpack.weight: 10}
// as a bare volcano-scheduler.conf or inside a ConfigMap (data.volcano-scheduler.conf, as the
// installer's volcano-scheduler-configmap holds it), mapped to the gpusim profile that does what
// those actions and plugins do: queue quotas (proportion, capacity), reclaim on or off, whole-gang
// placement (gang), the job order (priority), the filters (predicates) and the node scores
// (nodeorder, binpack). Where gpusim's model is not Volcano's, the result says so in its notes, or
// the reader refuses the configuration with a message saying what gpusim cannot model. The
// mapping, plugin by plugin, is in policies/README.md, "Volcano's configuration". Errors name the
// file, the line and the dotted field (tiers[1].plugins[0].arguments.binpack.weight).
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <string>
#include <vector>

#include "sim/sched/profile.hpp"

namespace gpusim::sched {
class Registry;
}

namespace gpusim::k8s {

struct VolcanoSchedulerConf {
  // What gpusim runs. Its name is the ConfigMap's metadata.name, else the file's stem (else
  // "volcano"): a plain name, since it names the output folder runs/<name>/.
  sched::Profile profile;
  std::vector<std::string> actions;  // as listed, trimmed
  // Whether the gang plugin is on. gpusim places a gang's workers together either way; without the
  // plugin Volcano would not, so a workload with gangs runs differently (the caller may refuse).
  bool gang = false;
  // Where gpusim does not do what Volcano does, and what it leaves out, for the user.
  std::vector<std::string> notes;
};

// Whether a file's first YAML document is a Volcano scheduler configuration: a ConfigMap holding
// data.volcano-scheduler.conf, or a mapping without a kind that has actions or tiers (cheap; never
// throws).
bool is_volcano_scheduler_conf(const YAML::Node& first_document);

// Throws core::InputError "file:line: field: why". With a registry, the plugin names given to
// gpusim's own placement (plugin "gpusim", below) are checked against it.
VolcanoSchedulerConf parse_volcano_scheduler_conf(const std::string& text, const std::string& source,
                                                  const sched::Registry* registry = nullptr);
VolcanoSchedulerConf load_volcano_scheduler_conf(const std::filesystem::path& path,
                                                 const sched::Registry* registry = nullptr);

}  // namespace gpusim::k8s
