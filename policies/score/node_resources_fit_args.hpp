#pragma once
// kube-scheduler's NodeResourcesFitArgs (kubescheduler.config.k8s.io/v1), as gpusim reads them from
// a KubeSchedulerConfiguration's pluginConfig[].args for the plugin node-resources-fit:
//
//   ignoredResources: [example.com/foo]      # qualified names
//   ignoredResourceGroups: [example.com]     # no '/'
//   scoringStrategy:                         # default: LeastAllocated over cpu and memory, weight 1
//     type: MostAllocated                    # LeastAllocated | MostAllocated | RequestedToCapacityRatio
//     resources:                             # default (empty or absent): cpu and memory, weight 1
//     - {name: nvidia.com/gpu, weight: 3}    # weight 1..100; left out or 0: 1
//     requestedToCapacityRatio:
//       shape:                               # at least one point, utilization strictly increasing
//       - {utilization: 0, score: 0}         # utilization 0..100, score 0..10
//       - {utilization: 100, score: 10}
//
// Defaults and validation as upstream: pkg/scheduler/apis/config/v1/defaults.go
// (SetDefaults_NodeResourcesFitArgs) and pkg/scheduler/apis/config/validation/
// validation_pluginargs.go (ValidateNodeResourcesFitArgs, validateResources, validateFunctionShape).
// Where gpusim is stricter: a resource name it does not model is refused
// (policies/score/scoring_resources.hpp); `type` RequestedToCapacityRatio without a shape is refused
// (kube-scheduler's NewFit would dereference the missing shape). As upstream, a resource listed twice
// counts twice.
//
// ignoredResources and ignoredResourceGroups are accepted and change nothing in gpusim: they make
// kube-scheduler's Filter skip extended resources, and gpusim's node-resources-fit checks only pods,
// CPU and memory (and the traces' RDMA and per-service limits), none of them extended; GPUs are
// checked by gpu-fit, which stands for the device plugin's (or an extender's) own accounting. A
// cluster that ignores nvidia.com/gpu in kube-scheduler leaves that check to an extender (HAMi's,
// gpushare's): gpusim keeps it. notes() says so when they are given.
#include <memory>
#include <string>
#include <vector>

#include "policies/score/resource_allocation.hpp"
#include "policies/score/resource_list_reader.hpp"
#include "sim/sched/plugin_args.hpp"

namespace gpusim::policy {

// One shape point as written (score 0..10).
struct UtilizationShapePoint {
  std::int32_t utilization = 0;
  std::int32_t score = 0;
};

class NodeResourcesFitArgs final : public sched::PluginArgs {
 public:
  std::vector<std::string> ignored_resources;
  std::vector<std::string> ignored_resource_groups;
  ScoringStrategy type = ScoringStrategy::kLeastAllocated;
  std::vector<ScoredResource> resources = default_resources();
  std::vector<UtilizationShapePoint> shape;  // requestedToCapacityRatio.shape, as written
  bool strategy_given = false;

  // The score these args ask for (shape scores scaled to 0..100).
  FitScoring scoring() const;
  std::vector<sched::ArgLine> describe() const override;
  // What a run's notes should say about these args (ignoredResources, ignoredResourceGroups).
  std::vector<std::string> notes() const;
};

const char* to_string(ScoringStrategy type);

// The ArgsReader of node-resources-fit (sim/sched/plugin_args.hpp).
std::shared_ptr<const sched::PluginArgs> read_node_resources_fit_args(const YAML::Node& args, const io::YamlFields& fields,
                                                                      const std::string& field);

}  // namespace gpusim::policy
