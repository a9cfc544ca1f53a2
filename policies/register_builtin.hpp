#pragma once
#include "sim/sched/registry.hpp"

namespace gpusim::policy {

// Adds every built-in plugin to `registry` under its documented name (policies/README.md).
void register_builtin(sched::Registry& registry);
// A registry holding the built-in plugins.
sched::Registry builtin_registry();

}  // namespace gpusim::policy
