#pragma once
// Job-level metrics for traces of jobs (Philly): a job is a pod, or the pods of one gang, and it
// completes when its last pod does. Deep-learning scheduler papers report these (results/README.md
// defines each): completion time (JCT) mean and percentiles, queueing delay, slowdown (JCT over run
// time), finish-time fairness rho, Jain's fairness index over queues, and a table per queue.
#include <cstdint>
#include <string>
#include <vector>

#include "sim/experiment/run_result.hpp"
#include "traces/workload.hpp"

namespace gpusim::experiment {

// Adds the job metrics to `result` and fills its job records and queue table. Call after the
// run's pod records are complete. Runs whose workload has neither gangs nor queues are left as they
// are, so their outputs do not change.
// `cluster_gpus`: the cluster's GPUs, the isolated share finish-time fairness measures against;
// `equal_share_speeds`: per workload row, its speed on that share relative to its trace run time
// (null: 1 for every row).
void add_job_metrics(RunResult& result, const traces::Workload& workload, std::int64_t cluster_gpus,
                     const std::vector<double>* equal_share_speeds = nullptr);

}  // namespace gpusim::experiment
