#pragma once
// Everything a run reads, loaded and validated once and shared read-only by parallel runs.
#include <string>

#include "sim/cluster/gpu_catalog.hpp"
#include "sim/sched/profile.hpp"
#include "sim/sched/registry.hpp"
#include "traces/workload.hpp"

namespace gpusim::experiment {

struct RunInputs {
  const cluster::GpuCatalog* catalog = nullptr;
  const traces::ClusterSpec* cluster = nullptr;
  const traces::Workload* workload = nullptr;
  const sched::Registry* registry = nullptr;
};

}  // namespace gpusim::experiment
