#pragma once
// Scattered placement of multi-GPU jobs (--job-placement scattered): every job's GPUs become
// workers of one GPU each, which start together (a gang) wherever single GPUs are free, on one node
// or several. A job consolidated (the default) asks all its GPUs of one node, or, when larger than
// a node, node-sized workers. Scattered jobs start sooner on a fragmented cluster and run slower
// when their workers land on several nodes (KubeSettings::scatter_slowdown, or Gavel's
// unconsolidated throughputs).
#include "traces/workload.hpp"

namespace gpusim::traces {

// Splits every pod of whole GPUs (more than one) into one-GPU workers of the same gang; a pod not
// in a gang gets a new gang of its own. CPU and memory are split evenly (the first workers take the
// remainder). Workers are named `<pod>-g<k>` and keep the pod's times, queue and phase. Pods with
// Kubernetes detail beyond a nodeSelector are refused (core::InputError): their containers decide
// how their GPUs split.
void scatter_jobs(Workload& workload);

}  // namespace gpusim::traces
