#pragma once
// Internal to the Volcano scheduler-configuration reader (sim/k8s/volcano_scheduler_conf.hpp): the
// configuration as read (volcano_scheduler_conf.cpp) before it is mapped to a gpusim profile
// (volcano_plugins.cpp).
#include <yaml-cpp/yaml.h>

#include <map>
#include <string>
#include <vector>

#include "sim/io/yaml_fields.hpp"
#include "sim/k8s/volcano_scheduler_conf.hpp"

namespace gpusim::k8s::volcano {

// One entry of tiers[].plugins[] (conf.PluginOption).
struct PluginOption {
  std::string name;
  std::string field;  // "tiers[1].plugins[0]", for messages
  std::size_t tier = 0;
  YAML::Node node;                    // the entry's mapping
  std::map<std::string, bool> flags;  // the enable* fields given (unset ones default to true)
  std::map<std::string, YAML::Node> flag_nodes;
  YAML::Node arguments;  // the arguments mapping, or an undefined node

  bool enabled(const std::string& flag) const {
    const auto it = flags.find(flag);
    return it == flags.end() || it->second;
  }
};

struct ParsedConf {
  std::vector<std::string> actions;
  YAML::Node actions_node;
  std::vector<PluginOption> plugins;  // tier by tier, in order
  YAML::Node root;                    // the configuration's mapping
};

// Maps the configuration to a gpusim profile named `name`, with notes (volcano_plugins.cpp).
VolcanoSchedulerConf map_to_profile(const io::YamlFields& r, const ParsedConf& conf, const std::string& name,
                                    const sched::Registry* registry);

}  // namespace gpusim::k8s::volcano
