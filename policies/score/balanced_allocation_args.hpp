#pragma once
// kube-scheduler's NodeResourcesBalancedAllocationArgs (kubescheduler.config.k8s.io/v1), the args of
// balanced-allocation (NodeResourcesBalancedAllocation):
//
//   resources:              # default (empty or absent): cpu and memory
//   - name: cpu             # a name gpusim models (policies/score/scoring_resources.hpp)
//     weight: 1             # must be 1 (left out or 0: 1)
//   - name: nvidia.com/gpu
//
// As upstream: pkg/scheduler/apis/config/v1/defaults.go (SetDefaults_NodeResourcesBalancedAllocationArgs)
// and validation_pluginargs.go (ValidateNodeResourcesBalancedAllocationArgs: no name twice, every
// weight 1).
#include <memory>
#include <string>
#include <vector>

#include "policies/score/resource_list_reader.hpp"
#include "sim/sched/plugin_args.hpp"

namespace gpusim::policy {

class BalancedAllocationArgs final : public sched::PluginArgs {
 public:
  std::vector<ScoredResource> resources = default_resources();
  bool resources_given = false;
  std::vector<sched::ArgLine> describe() const override {
    return {{"resources", describe_resources(resources), !resources_given}};
  }
};

// The ArgsReader of balanced-allocation (sim/sched/plugin_args.hpp).
std::shared_ptr<const sched::PluginArgs> read_balanced_allocation_args(const YAML::Node& args, const io::YamlFields& fields,
                                                                       const std::string& field);

}  // namespace gpusim::policy
