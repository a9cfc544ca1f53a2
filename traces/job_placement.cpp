#include "traces/job_placement.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "sim/core/status.hpp"

namespace gpusim::traces {

void scatter_jobs(Workload& workload) {
  std::uint32_t next_gang = 0;
  for (const cluster::PodSpec& pod : workload.pods) next_gang = std::max(next_gang, pod.gang);
  std::vector<cluster::PodSpec> split;
  split.reserve(workload.pods.size());
  for (cluster::PodSpec& pod : workload.pods) {
    if (pod.gpu_count <= 1 || pod.gpu_milli != cluster::kMilliPerGpu) {
      split.push_back(std::move(pod));
      continue;
    }
    if (pod.constraints != nullptr &&
        (!pod.constraints->containers.empty() || !pod.constraints->required_terms.empty() || pod.constraints->job >= 0)) {
      throw core::InputError(fmt::format("{}: pod {}: --job-placement scattered splits trace jobs, not Kubernetes pods "
                                         "(their containers decide how their GPUs split)", workload.source, pod.name));
    }
    // A gang's workers are consecutive rows: they stay one gang, now of one-GPU workers.
    const std::uint32_t gang = pod.gang != 0 ? pod.gang : ++next_gang;
    const auto workers = static_cast<std::int64_t>(pod.gpu_count);
    for (std::int64_t k = 0; k < workers; ++k) {
      cluster::PodSpec worker = pod;
      worker.name = fmt::format("{}-g{}", pod.name, k);
      worker.gpu_count = 1;
      worker.gang = gang;
      worker.scattered = pod.gang == 0;
      worker.cpu_milli = pod.cpu_milli / workers + (k < pod.cpu_milli % workers ? 1 : 0);
      worker.memory_mib = pod.memory_mib / workers + (k < pod.memory_mib % workers ? 1 : 0);
      split.push_back(std::move(worker));
    }
  }
  workload.pods = std::move(split);
  workload.has_gangs = std::any_of(workload.pods.begin(), workload.pods.end(),
                                   [](const cluster::PodSpec& pod) { return pod.gang != 0; });
}

}  // namespace gpusim::traces
