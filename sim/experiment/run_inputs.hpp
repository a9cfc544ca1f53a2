#pragma once
// Everything a run reads, loaded and validated once and shared read-only by parallel runs.
#include <string>

#include "sim/cluster/gpu_catalog.hpp"
#include "sim/k8s/settings.hpp"
#include "sim/perf/job_type_speeds.hpp"
#include "sim/perf/performance_model.hpp"
#include "sim/sched/profile.hpp"
#include "sim/sched/registry.hpp"
#include "traces/workload.hpp"

namespace gpusim::experiment {

struct RunInputs {
  const cluster::GpuCatalog* catalog = nullptr;
  const traces::ClusterSpec* cluster = nullptr;
  const traces::Workload* workload = nullptr;
  const sched::Registry* registry = nullptr;
  // Replay only: when set, a pod's run time is its trace duration scaled by the speed of the
  // GPU it lands on relative to `job.reference_gpu`, and by the time-slicing overhead of the
  // pods that share its GPU when it starts. Null: trace durations as they are.
  const perf::PerformanceModel* performance = nullptr;
  perf::JobProfile job;
  // Replay only: Gavel's throughput table; jobs carry job types (PodSpec::job_type) and run at
  // the table's speed on their GPU type. Null: no job types.
  const perf::JobTypeSpeeds* job_types = nullptr;
  // Replay only: how the simulated Kubernetes behaves (null: KubeSettings' defaults).
  const k8s::KubeSettings* kube = nullptr;
  // Fill only: the pods FGD takes its typical pods from (null: the workload).
  const traces::Workload* typical_pods = nullptr;

  // What the run's plugins are built with: the catalog, the workload as read (or --typical-pods'
  // pods), the run's seed.
  sched::PluginContext plugin_context(std::uint64_t seed) const {
    return {catalog, (typical_pods != nullptr ? typical_pods : workload)->pods, seed, cluster->nodes.size()};
  }
};

}  // namespace gpusim::experiment
