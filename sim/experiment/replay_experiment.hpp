#pragma once
// Timed replay: pods arrive at their trace creation time (divided by the compression factor),
// wait in a pending queue ordered by the profile's QueueSort plugin, run for their trace duration
// once placed, then leave. Every arrival and departure triggers one scheduling cycle over the
// whole queue (kube-scheduler moves unschedulable pods back on cluster events). Reported: job
// completion time, queueing delay, makespan and GPU allocation over time.
#include "sim/experiment/run_inputs.hpp"
#include "sim/experiment/run_result.hpp"

namespace gpusim::experiment {

// Precondition: every pod has creation time and duration (the reader checks the columns).
RunResult run_replay(const RunInputs& inputs, const sched::Profile& profile, const RunConfig& config);

}  // namespace gpusim::experiment
