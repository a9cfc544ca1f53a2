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
// kube-scheduler dry-runs preemption on the nodes where preemption might help, from a random
// offset, until it has found calculateNumCandidates of them, and picks the best of those
// candidates (pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go,
// calculateNumCandidates and GetOffsetAndNumCandidates; pkg/scheduler/framework/preemption,
// DryRunPreemption). gpusim's preemptor does the same, the offsets drawn from a seeded stream
// (policies/preemption/preemptor.hpp, "Candidate sampling").
//
// default-preemption is the jobRank plugin (policies/job_rank/job_rank_plugin.hpp) with kube-
// scheduler's ranking, PriorityClass values: the configuration reader maps DefaultPreemption at
// postFilter to Profile::preemption kPriority and Profile::job_rank_plugin, and keeps these args in
// Profile::plugin_args.
#include <cstdint>
#include <memory>
#include <string>

#include "policies/preemption/preemptor.hpp"
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
  // The preemptor's bounds on the dry run.
  k8s::CandidateSampling sampling() const;
};

// The ArgsReader of default-preemption (sim/sched/plugin_args.hpp).
std::shared_ptr<const sched::PluginArgs> read_default_preemption_args(const YAML::Node& args, const io::YamlFields& fields,
                                                                      const std::string& field);

void register_default_preemption(sched::Registry& registry);

}  // namespace gpusim::policy
