#pragma once
// kube-scheduler's DefaultPreemptionArgs (kubescheduler.config.k8s.io/v1), the args of
// default-preemption, the PostFilter that evicts pods of a lower priority (gpusim's profiles with
// Profile::preemption == kPriority; the preemptor itself is policies/preemption/preemptor.hpp):
//
//   minCandidateNodesPercentage: 10   # 0..100
//   minCandidateNodesAbsolute: 100    # 0 or more; not both 0
//
// Defaults and validation as upstream (pkg/scheduler/apis/config/v1/defaults.go,
// SetDefaults_DefaultPreemptionArgs; validation_pluginargs.go, ValidateDefaultPreemptionArgs).
// kube-scheduler dry-runs preemption on at most candidate_nodes(...) of the nodes where preemption
// might help, starting at a random offset, and picks the best of those candidates
// (pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go, calculateNumCandidates
// and GetOffsetAndNumCandidates). gpusim's preemptor examines every such node and picks the best of
// all: the same choice whenever those nodes are no more than candidate_nodes(...) (by default, up to
// 100 nodes), possibly a better one on larger clusters.
//
// default-preemption is the jobRank plugin (policies/job_rank/job_rank_plugin.hpp) with kube-
// scheduler's ranking, PriorityClass values: the configuration reader maps DefaultPreemption at
// postFilter to Profile::preemption kPriority and Profile::job_rank_plugin, and keeps these args in
// Profile::plugin_args.
#include <cstdint>
#include <memory>
#include <string>

#include "sim/sched/plugin_args.hpp"
#include "sim/sched/registry.hpp"

namespace gpusim::policy {

class DefaultPreemptionArgs final : public sched::PluginArgs {
 public:
  std::int32_t min_candidate_nodes_percentage = 10;
  std::int32_t min_candidate_nodes_absolute = 100;
  bool percentage_given = false;
  bool absolute_given = false;
  std::vector<sched::ArgLine> describe() const override;
};

// How many candidate nodes kube-scheduler's dry run looks for among `nodes` potential nodes:
// nodes x percentage / 100, at least the absolute number, at most `nodes`.
std::int32_t candidate_nodes(const DefaultPreemptionArgs& args, std::int32_t nodes);

// The ArgsReader of default-preemption (sim/sched/plugin_args.hpp).
std::shared_ptr<const sched::PluginArgs> read_default_preemption_args(const YAML::Node& args, const io::YamlFields& fields,
                                                                      const std::string& field);

void register_default_preemption(sched::Registry& registry);

}  // namespace gpusim::policy
