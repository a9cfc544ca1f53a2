#include "traces/k8s/workload_builder.hpp"

#include <fmt/format.h>

#include <utility>
#include <vector>

#include "traces/k8s/object_meta.hpp"

namespace gpusim::traces::k8s {

void WorkloadBuilder::add(cluster::PodSpec pod, const Fields& owner) {
  check_unique(pod_names, pod.name, owner, "pod");
  workload.pods.push_back(std::move(pod));
}

void WorkloadBuilder::scale_tally(const WorkloadTally& one, std::int64_t pods) {
  tally.default_arrival += one.default_arrival * pods;
  tally.default_duration += one.default_duration * pods;
  for (const auto& [name, n] : one.unmodelled) tally.unmodelled[name] += n * pods;
  tally.node_name += one.node_name * pods;
  tally.preferred_affinity += one.preferred_affinity * pods;
  tally.pod_affinity += one.pod_affinity * pods;
}

void workload_notes(const WorkloadTally& t, Workload& w) {
  if (t.default_arrival > 0) {
    w.notes.push_back(fmt::format("{} without gpusim.io/arrival: arrive at 0s (the simulation start)",
                                  plural(t.default_arrival, "pod", "pods")));
  }
  if (t.default_duration > 0) {
    w.notes.push_back(fmt::format("{} without gpusim.io/duration: run 1h", plural(t.default_duration, "pod", "pods")));
  }
  if (t.default_completions > 0) {
    w.notes.push_back(fmt::format("{} without spec.completions: completions = parallelism (one pod per worker)",
                                  plural(t.default_completions, "Job", "Jobs")));
  }
  if (t.default_restart_policy > 0) {
    w.notes.push_back(fmt::format("{} without spec.template.spec.restartPolicy: Never (Kubernetes asks for Never or "
                                  "OnFailure)",
                                  plural(t.default_restart_policy, "Job", "Jobs")));
  }
  if (!t.unmodelled_job_fields.empty()) {
    std::vector<std::string> parts;
    for (const auto& [name, n] : t.unmodelled_job_fields) parts.push_back(fmt::format("{} ({})", name, plural(n, "Job", "Jobs")));
    w.notes.push_back(fmt::format("Job spec fields gpusim does not model (ignored): {}", fmt::join(parts, ", ")));
  }
  if (t.other_conditions > 0) {
    w.notes.push_back(fmt::format("podFailurePolicy: {} on a condition other than DisruptionTarget=True never match "
                                  "(no simulated pod has one)",
                                  plural(t.other_conditions, "rule", "rules")));
  }
  if (!t.unmodelled.empty()) {
    std::vector<std::string> parts;
    for (const auto& [name, n] : t.unmodelled) parts.push_back(fmt::format("{} ({})", name, plural(n, "pod", "pods")));
    w.notes.push_back(fmt::format("resources gpusim does not model (ignored): {}", fmt::join(parts, ", ")));
  }
  if (t.node_name > 0) {
    w.notes.push_back(
        fmt::format("spec.nodeName ignored (gpusim schedules the pod itself): {}", plural(t.node_name, "pod", "pods")));
  }
  if (t.preferred_affinity > 0) {
    w.notes.push_back(
        fmt::format("preferred node affinity not modelled (ignored): {}", plural(t.preferred_affinity, "pod", "pods")));
  }
  if (t.pod_affinity > 0) {
    w.notes.push_back(fmt::format("pod affinity and anti-affinity not modelled (ignored): {}",
                                  plural(t.pod_affinity, "pod", "pods")));
  }
}

}  // namespace gpusim::traces::k8s
