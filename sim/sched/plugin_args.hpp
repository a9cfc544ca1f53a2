#pragma once
// A plugin's arguments, as kube-scheduler's pluginConfig[].args carry them: each plugin that takes
// arguments registers a reader (Registry::add) that decodes its args from YAML, applies its
// defaults and validates them, so that a KubeSchedulerConfiguration names them and
// `gpusim policies --describe` prints them. The framework hands a plugin its decoded args when it
// builds it (PluginContext::args); a plugin without args gets null.
#include <yaml-cpp/yaml.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "sim/io/yaml_fields.hpp"

namespace gpusim::sched {

// One argument as `gpusim policies --describe` prints it: its name as the YAML writes it, its
// value as YAML would write it, and whether that is the plugin's default.
struct ArgLine {
  std::string name;
  std::string value;
  bool is_default = true;
};

class PluginArgs {
 public:
  virtual ~PluginArgs() = default;
  virtual std::vector<ArgLine> describe() const = 0;
};

// Decodes a plugin's args. `args` is the node under pluginConfig[i].args, or an undefined node
// when none is given (then: the defaults). Errors go through `fields.fail`, naming file, line and
// `field` (the dotted path of `args`). Never returns null.
using ArgsReader =
    std::function<std::shared_ptr<const PluginArgs>(const YAML::Node& args, const io::YamlFields& fields, const std::string& field)>;

// The args of plugin `name` in `args_by_plugin` cast to its type, or null.
template <typename Args, typename Map>
const Args* args_of(const Map& args_by_plugin, const std::string& name) {
  const auto it = args_by_plugin.find(name);
  return it == args_by_plugin.end() ? nullptr : dynamic_cast<const Args*>(it->second.get());
}

}  // namespace gpusim::sched
