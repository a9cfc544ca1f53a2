#pragma once
// `gpusim export openmetrics`: one run's time series in the OpenMetrics text format, with the
// metric names and labels of the exporters people already chart in Grafana, so that a simulated
// week loads into Prometheus with `promtool tsdb create-blocks-from openmetrics`.
//
// The state is rebuilt from the output directory alone: the run's pods.csv (who ran where, from
// when to when), and the nodes.csv and typical-pods.csv written with it, sampled every `step`
// seconds from simulated time 0. Series are per physical GPU: a pod on a time-slicing or MPS
// replica or a MIG instance counts on the GPU the device is part of, at the share it runs at.
//   DCGM_FI_DEV_GPU_UTIL{gpu,Hostname,modelName}   % of the GPU allocated to pods (gpu-milli / 10,
//                                                  at most 100): allocation stands in for utilisation
//   DCGM_FI_DEV_FB_USED{gpu,Hostname,modelName}    MiB: the allocated share of the GPU's memory
//   kube_node_status_allocatable{node,resource="nvidia_com_gpu",unit="integer"}   devices per node
//   gpusim_node_allocated_gpus{node}               GPUs allocated on the node (milli / 1000)
//   gpusim_pods{phase}                             pods by Kubernetes phase: Pending (arrived,
//                                                  waiting), Running, Succeeded, Failed
//   gpusim_pending_pods, gpusim_allocated_gpus, gpusim_fragmented_gpus (FGD's measure under the
//                                                  workload's typical pods; none on MIG)
#include <cstdint>
#include <filesystem>
#include <ostream>
#include <string>

namespace gpusim::report {

struct OpenMetricsOptions {
  std::filesystem::path dir;      // a `gpusim run` output, or a `compare` output with policy/seed
  std::string policy;             // compare outputs: which run (default: the first)
  std::int64_t seed = -1;
  std::int64_t epoch_s = 1767225600;  // simulated time 0 (default 2026-01-01T00:00:00Z)
  std::int64_t step_s = 0;        // sample period; 0: about a million samples in all, at least 15 s
};

// Writes the exposition to `out`, ending with "# EOF". Throws core::InputError.
void export_openmetrics(const OpenMetricsOptions& options, std::ostream& out);

}  // namespace gpusim::report
