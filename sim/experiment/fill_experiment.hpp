#pragma once
// The FGD paper's "fill" experiment (Weng et al., ATC'23; hkust-adsl/kubernetes-scheduler-
// simulator). Pods are shuffled with the seed, then the list is tuned to the target load: random
// pods are dropped while the requests exceed it, or random copies of the workload's pods are
// appended until the next copy would cross it. Pods then arrive one at a time, never leave, and a
// pod that fits nowhere is dropped. Reported: GPU allocation against arrived load, unallocated
// GPUs and fragmentation at the end.
#include "sim/experiment/run_inputs.hpp"
#include "sim/experiment/run_result.hpp"

namespace gpusim::experiment {

RunResult run_fill(const RunInputs& inputs, const sched::Profile& profile, const RunConfig& config);

}  // namespace gpusim::experiment
