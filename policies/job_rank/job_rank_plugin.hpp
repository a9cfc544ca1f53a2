#pragma once
// The jobRank point: the queue ordered by a job priority that changes as jobs run
// (policies/job_rank/job_priority.hpp), and PostFilter preemption of jobs that rank lower
// (policies/preemption/preemptor.hpp). One plugin serves three rankings, which the profile's `preemption`
// names: DefaultPreemption's PriorityClass values (default-preemption), shortest remaining time
// first (srtf) and Tiresias' discretised 2D-LAS (tiresias, with its args).
#include <memory>
#include <optional>
#include <string>

#include "policies/preemption/preemptor.hpp"
#include "sim/sched/plugin.hpp"

namespace gpusim::policy {

// `sampling`: DefaultPreemption's bounds on its dry run (kube-scheduler's ranking only).
std::unique_ptr<sched::Plugin> make_job_rank_plugin(std::string name, std::optional<k8s::CandidateSampling> sampling = {});

}  // namespace gpusim::policy
