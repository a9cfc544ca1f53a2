#include "sim/config/profiles.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "policies/register_builtin.hpp"
#include "sim/config/kube_scheduler_config.hpp"
#include "sim/config/retired_profile_yaml.hpp"
#include "sim/core/status.hpp"
#include "sim/io/input_file.hpp"
#include "sim/io/yaml_fields.hpp"

namespace gpusim::config {

const policy::BuiltinProfileFile* builtin_profile_file(const std::string& asked) {
  const auto name = sched::builtin_policy_name(asked);
  if (!name) return nullptr;
  for (const policy::BuiltinProfileFile& file : policy::builtin_profile_files()) {
    if (file.name == *name) return &file;
  }
  return nullptr;
}

sched::Profile builtin_profile(const std::string& asked) {
  const policy::BuiltinProfileFile* file = builtin_profile_file(asked);
  if (file == nullptr) {
    throw core::InputError(fmt::format("unknown policy '{}' (built-in: {}; or a configuration file's path)", asked,
                                       fmt::join(sched::builtin_profile_names(), ", ")));
  }
  const sched::Registry registry = policy::builtin_registry();
  SchedulerConfiguration config = parse_kube_scheduler_config(std::string(file->text), std::string(file->path), registry);
  if (config.profiles.size() != 1 || config.profiles.front().name != file->name) {
    throw std::logic_error(fmt::format("{}: a built-in policy's file must hold one profile named {}", file->path, file->name));
  }
  return std::move(config.profiles.front());
}

std::vector<sched::Profile> resolve_profiles(const std::string& name_or_path, const sched::Registry& registry,
                                             std::vector<std::string>* notes) {
  const bool is_path = name_or_path.find('/') != std::string::npos || name_or_path.ends_with(".yaml") ||
                       name_or_path.ends_with(".yml");
  if (!is_path) return {builtin_profile(name_or_path)};
  const std::string text = io::read_file(name_or_path, "KubeSchedulerConfiguration");
  YAML::Node doc;
  try {
    doc = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw core::InputError(io::yaml_syntax_error(name_or_path, text, e));
  }
  if (is_kube_scheduler_config(doc)) {
    SchedulerConfiguration config = parse_kube_scheduler_config(text, name_or_path, registry);
    if (notes != nullptr) notes->insert(notes->end(), config.notes.begin(), config.notes.end());
    return std::move(config.profiles);
  }
  if (is_retired_profile_yaml(doc)) throw core::InputError(retired_profile_yaml_message(text, name_or_path, registry));
  throw core::InputError(fmt::format("{}:1: not a KubeSchedulerConfiguration (apiVersion: kubescheduler.config.k8s.io/v1, kind: "
                                     "KubeSchedulerConfiguration); Volcano's scheduler configuration goes to --config",
                                     name_or_path));
}

}  // namespace gpusim::config
