#include "traces/k8s/workload_builder.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <utility>
#include <vector>

#include "sim/core/status.hpp"

#include "traces/k8s/object_meta.hpp"

namespace gpusim::traces::k8s {

void WorkloadBuilder::add(cluster::PodSpec pod, const Fields& owner, const Meta& meta, const Entries& template_labels) {
  check_unique(pod_names, pod.name, owner, "pod");
  workload.pods.push_back(std::move(pod));
  const Entry* label = nullptr;
  for (const Entry& e : meta.labels) {
    if (e.key == kKueueQueueLabel) label = &e;
  }
  if (label == nullptr) {
    for (const Entry& e : meta.annotations) {
      if (e.key != kKueueQueueLabel) continue;
      owner.where().fail(e.node, e.path,
                         "Kueue reads the LocalQueue from the label kueue.x-k8s.io/queue-name, not from an annotation (its "
                         "older, deprecated form): move it to metadata.labels");
    }
  }
  if (label != nullptr && !dns_subdomain(label->value)) {
    owner.where().fail(label->node, label->path, fmt::format("'{}' is not a valid LocalQueue name", label->value));
  }
  queue_of_pod.emplace_back(label != nullptr ? meta.namespace_name + "/" + label->value : meta.namespace_name, label != nullptr);
  // KAI's queue: the owner's label first, then the pod template's (its podgrouper's order).
  const Entry* kai = nullptr;
  for (const Entries* labels : {&meta.labels, &template_labels}) {
    for (const Entry& e : *labels) {
      if (kai == nullptr && e.key == kKaiQueueLabel) kai = &e;
    }
  }
  if (kai != nullptr && !dns_subdomain(kai->value)) {
    owner.where().fail(kai->node, kai->path, fmt::format("'{}' is not a valid KAI Queue name", kai->value));
  }
  kai_queue_of_pod.push_back(kai != nullptr ? Workload::KaiQueueLabel{kai->value, owner.where().line(kai->node)} : Workload::KaiQueueLabel{});
}

void read_workload_priority_class(const Where& where, const Meta& meta, cluster::PodConstraints& constraints) {
  for (const Entry& e : meta.labels) {
    if (e.key != kKueuePriorityClassLabel) continue;
    if (!dns_subdomain(e.value)) where.fail(e.node, e.path, fmt::format("'{}' is not a valid WorkloadPriorityClass name", e.value));
    constraints.workload_priority_class = e.value;
    constraints.workload_priority_class_line = where.line(e.node);
  }
}

void WorkloadBuilder::assign_queues() {
  if (std::any_of(kai_queue_of_pod.begin(), kai_queue_of_pod.end(), [](const Workload::KaiQueueLabel& q) { return !q.queue.empty(); })) {
    workload.kai_queue_of_pod = kai_queue_of_pod;
  }
  const bool named = std::any_of(queue_of_pod.begin(), queue_of_pod.end(), [](const auto& q) { return q.second; });
  if (!named) return;
  std::map<std::string, std::uint16_t> index;
  for (std::size_t i = 0; i < workload.pods.size(); ++i) {
    const auto& [queue, labelled] = queue_of_pod[i];
    const std::string name = labelled ? queue : queue + "/default";
    const auto [it, inserted] = index.emplace(name, static_cast<std::uint16_t>(workload.queues.size()));
    if (inserted) {
      if (workload.queues.size() == UINT16_MAX) {
        throw core::InputError(fmt::format("{}: more than {} LocalQueues named", workload.source, UINT16_MAX));
      }
      workload.queues.push_back(name);
    }
    workload.pods[i].queue = it->second;
  }
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
