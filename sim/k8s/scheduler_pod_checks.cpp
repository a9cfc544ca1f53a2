// Checks made once, before the run: pods no node could ever take, and profiles that lack the filters
// the workload's placement rules or the cluster's taints need.
#include <fmt/format.h>

#include <algorithm>

#include "sim/core/check.hpp"
#include "sim/core/status.hpp"
#include "sim/k8s/scheduler.hpp"

namespace gpusim::k8s {

namespace {

// Whether `node`, with nothing on it, has room for `pod`'s resources: CPU, memory, RDMA, and GPUs
// of a model and resource it may use, as many as it asks (as the scheduler counts devices).
bool room_when_empty(const cluster::PodSpec& pod, const cluster::NodeSpec& node) {
  if (pod.cpu_milli > node.cpu_milli || pod.memory_mib > node.memory_mib || pod.rdma_percent > node.rdma_percent) {
    return false;
  }
  if (!pod.wants_gpu()) return true;
  if (node.gpu_count < pod.gpu_count || !pod.allowed_models.allows(node.gpu_model)) return false;
  return pod.constraints == nullptr || cluster::serves(node.gpu_resource, pod.constraints->gpu_resource);
}

}  // namespace

void Scheduler::mark_pods_larger_than_any_node(const std::vector<cluster::NodeSpec>& nodes,
                                               const std::vector<cluster::PodSpec>& pods, std::size_t shapes) {
  never_fits_.assign(shapes, 0);
  std::vector<std::uint8_t> checked(shapes, 0);
  for (std::size_t i = 0; i < pods.size(); ++i) {
    const cluster::PodSpec& pod = pods[i];
    const std::uint32_t shape = shape_of_source_[i];
    if (checked[shape]) continue;
    checked[shape] = 1;
    // A MIG profile's instances change with re-partitioning; those pods are left to the queue.
    if (pod.constraints != nullptr && pod.constraints->gpu_resource == cluster::GpuResource::kMigProfile) continue;
    never_fits_[shape] = std::none_of(nodes.begin(), nodes.end(),
                                      [&](const cluster::NodeSpec& node) { return room_when_empty(pod, node); });
  }
  // A gang needs all its workers placed at once: one asking more GPUs in all than the nodes that
  // could hold its workers have is larger than the cluster, though each worker fits a node.
  std::vector<std::int64_t> asked(gang_size_.size(), 0), room(gang_size_.size(), -1);
  for (std::size_t i = 0; i < pods.size(); ++i) {
    const cluster::PodSpec& pod = pods[i];
    if (pod.gang == 0 || !pod.wants_gpu()) continue;
    asked[pod.gang] += pod.gpu_count;
    if (room[pod.gang] >= 0) continue;
    room[pod.gang] = 0;
    for (const cluster::NodeSpec& node : nodes) room[pod.gang] += room_when_empty(pod, node) ? node.gpu_count : 0;
  }
  for (std::size_t i = 0; i < pods.size(); ++i) {
    const std::uint32_t gang = pods[i].gang;
    if (gang != 0 && asked[gang] > room[gang] && room[gang] >= 0) never_fits_[shape_of_source_[i]] = 1;
  }
}

// Pods with placement rules need the filters that enforce them; a profile without them would
// place pods where Kubernetes never would.
void Scheduler::check_profile(const sched::Profile& profile, const sched::Registry& registry,
                              const std::vector<cluster::NodeSpec>& nodes, const std::vector<cluster::PodSpec>& pods,
                              bool lifecycle) {
  const auto has = [&](const char* filter) {
    return std::any_of(profile.filter.begin(), profile.filter.end(),
                       [&](const std::string& name) { return registry.canonical(name) == filter; });
  };
  const bool rules = std::any_of(pods.begin(), pods.end(), [](const cluster::PodSpec& pod) {
    return pod.constraints != nullptr && (!pod.constraints->node_selector.empty() || !pod.constraints->required_terms.empty());
  });
  // Node loss taints nodes too, so any replay with node events needs the filter as well.
  const bool taints = lifecycle || std::any_of(nodes.begin(), nodes.end(), [](const cluster::NodeSpec& node) { return !node.taints.empty(); });
  if (rules && !has("node-affinity")) {
    throw core::InputError(fmt::format("profile '{}': the workload has nodeSelector or node affinity rules; add the "
                                       "node-affinity filter", profile.name));
  }
  if (taints && !has("taint-toleration")) {
    throw core::InputError(fmt::format("profile '{}': the cluster has tainted nodes (or nodes that may be lost, which "
                                       "the node lifecycle taints); add the taint-toleration filter", profile.name));
  }
}

}  // namespace gpusim::k8s
