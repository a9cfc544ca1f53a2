#pragma once
// The policies a run may name: the built-in ones, each a KubeSchedulerConfiguration file under
// policies/profiles/ (built into the binary), and configuration files given by path.
#include <string>
#include <vector>

#include "policies/builtin_profile_files.hpp"
#include "sim/sched/profile.hpp"
#include "sim/sched/registry.hpp"

namespace gpusim::config {

// The file of the built-in policy `asked` names (any spelling sched::builtin_policy_name
// accepts, the FGD paper's names included), or null.
const policy::BuiltinProfileFile* builtin_profile_file(const std::string& asked);
// Its profile; throws core::InputError naming the built-in policies if there is none.
sched::Profile builtin_profile(const std::string& asked);
// What one --policy / --policies item names: a built-in policy, or a file: each profile of a
// KubeSchedulerConfiguration. gpusim's older profile YAML is refused with the configuration that
// replaces it (sim/config/retired_profile_yaml.hpp).
// `notes` (optional) receives what a configuration file holds that changes nothing in gpusim.
// A file's plugins are looked up in `registry` (the built-in one, or one with other plugins added).
std::vector<sched::Profile> resolve_profiles(const std::string& name_or_path, const sched::Registry& registry,
                                             std::vector<std::string>* notes = nullptr);

}  // namespace gpusim::config
