#pragma once
// `gpusim policies --describe NAME`: a policy's plugins per extension point, each plugin's args
// with its default and where the value comes from, and the file the policy comes from.
#include <string>

#include "sim/sched/profile.hpp"
#include "sim/sched/registry.hpp"

namespace gpusim::config {

// `source`: the file the profile was read from ("policies/profiles/fgd.yaml (built in)").
std::string describe_profile(const sched::Profile& profile, const sched::Registry& registry, const std::string& source);

}  // namespace gpusim::config
