// Filter plugins: the gpu-milli device fit (the FGD artifact's Open-Gpu-Share filter) with the
// node's GPU resource name, and kube-scheduler's NodeAffinity and TaintToleration (NodeResourcesFit,
// also a score, is policies/filter/node_resources_fit.cpp). Each also explains a rejection in kube-scheduler's words for
// the FitError of pods that never ran (policies/filter/kube_reasons.hpp).
#include <memory>

#include "policies/builtin_parts.hpp"
#include "policies/filter/kube_reasons.hpp"
#include "policies/gpu_select/gpu_choice.hpp"
#include "sim/cluster/device_class.hpp"

namespace gpusim::policy {
namespace {

using sched::KubeFilter;
using sched::NodeReasons;
using sched::Status;

// A pod without GPUs passes on any node, GPU nodes included (as in the artifact). A GPU pod
// needs a node of an allowed model with enough GPUs that have its share free.
class GpuFit final : public sched::FilterPlugin {
 public:
  std::string_view name() const override { return "gpu-fit"; }
  bool node_local() const override { return true; }
  Status filter(const sched::PodSpec& pod, sched::NodeIndex n, const sched::ClusterState& cluster,
                sched::CycleState&) const override {
    if (!pod.wants_gpu()) return Status::ok();
    const auto& node = cluster.node(n);
    if (node.gpu_count == 0) return Status::unschedulable("node has no GPU", "gpu-fit");
    if (!pod.allowed_models.allows(node.gpu_model)) {
      return Status::unschedulable("GPU model not allowed", "gpu-fit");
    }
    if (pod.constraints != nullptr && !cluster::serves(node.gpu_resource, pod.constraints->gpu_resource)) {
      return Status::unschedulable("node advertises another GPU resource", "gpu-fit");
    }
    if (node.one_gpu_per_pod && pod.gpu_count > 1) {
      return Status::unschedulable("node's device plugin gives a pod one GPU only", "gpu-fit");
    }
    if (node.whole_gpus_only && pod.gpu_milli < cluster::kMilliPerGpu) {
      return Status::unschedulable("node's device plugin hands out whole GPUs only", "gpu-fit");
    }
    if (cluster::has_device_classes(node) || pod.device_class != 0) {
      // A resource per device kind (MIG mixed): only devices of the pod's kind count.
      if (!cluster::has_device_classes(node)) return Status::unschedulable("node advertises no MIG devices", "gpu-fit");
      // The cluster state's bit sets answer without looking at each device (a MIG node has up to 63).
      if (cluster.node_gpu_milli_free(n) < std::int64_t{pod.gpu_count} * cluster::kMilliPerGpu ||
          !cluster::at_least(cluster::free_devices_of_class(pod, cluster, n), pod.gpu_count)) {
        return Status::unschedulable("insufficient devices of the pod's resource", "gpu-fit");
      }
      return Status::ok();
    }
    // The node's free total bounds what its GPUs can give: a full node fails without a scan. A
    // whole-GPU pod counts the node's fully free devices from their bit set.
    if (cluster.node_gpu_milli_free(n) < std::int64_t{pod.gpu_count} * pod.gpu_milli ||
        (pod.gpu_milli == cluster::kMilliPerGpu ? !cluster::at_least(cluster.whole_free_devices(n), pod.gpu_count)
                                                : !gpus_fit(pod, cluster.gpu_milli_free(n)))) {
      return Status::unschedulable("insufficient GPU", "gpu-fit");
    }
    return Status::ok();
  }
  // kube-scheduler counts GPUs as an extended resource of NodeResourcesFit ("Insufficient
  // nvidia.com/gpu": too few free, none of the pod's resource, or none at all); a GPU model the pod
  // may not use is a node affinity rule in Kubernetes. The device plugins' limits are gpusim's.
  void explain(const sched::PodSpec& pod, sched::NodeIndex n, const sched::ClusterState& cluster, sched::CycleState& cycle,
               NodeReasons& reasons) const override {
    if (filter(pod, n, cluster, cycle).is_ok()) return;
    // In filter()'s order: what it rejected the node for.
    const auto& node = cluster.node(n);
    const bool served = node.gpu_count > 0 &&
                        (pod.constraints == nullptr || cluster::serves(node.gpu_resource, pod.constraints->gpu_resource));
    if (node.gpu_count > 0 && !pod.allowed_models.allows(node.gpu_model)) {
      reasons.reject(KubeFilter::kNodeAffinity, {kube::kAffinity});
    } else if (served && node.one_gpu_per_pod && pod.gpu_count > 1) {
      reasons.reject(KubeFilter::kOther, {"node(s) had a device plugin that gives a pod one GPU only"});
    } else if (served && node.whole_gpus_only && pod.gpu_milli < cluster::kMilliPerGpu) {
      reasons.reject(KubeFilter::kOther, {"node(s) had a device plugin that hands out whole GPUs only"});
    } else {
      const auto resource = kube::gpu_resource(pod, n, cluster);
      reasons.reject(KubeFilter::kNodeResourcesFit, {kube::kInsufficient, resource[0], resource[1]});
    }
  }
};

// kube-scheduler's NodeAffinity: nodeSelector and required node affinity against node labels.
class NodeAffinity final : public sched::FilterPlugin {
 public:
  std::string_view name() const override { return "node-affinity"; }
  bool node_local() const override { return true; }
  bool applies(const sched::PodSpec& pod, const sched::ClusterState&) const override {
    return pod.constraints != nullptr && (!pod.constraints->node_selector.empty() || !pod.constraints->required_terms.empty());
  }
  Status filter(const sched::PodSpec& pod, sched::NodeIndex n, const sched::ClusterState& cluster,
                sched::CycleState&) const override {
    if (pod.constraints == nullptr || cluster::node_allowed(*pod.constraints, cluster.node(n).labels)) return Status::ok();
    return Status::unschedulable("node affinity or selector does not match", "node-affinity");
  }
  void explain(const sched::PodSpec& pod, sched::NodeIndex n, const sched::ClusterState& cluster, sched::CycleState& cycle,
               NodeReasons& reasons) const override {
    if (!filter(pod, n, cluster, cycle).is_ok()) reasons.reject(KubeFilter::kNodeAffinity, {kube::kAffinity});
  }
};

// kube-scheduler's TaintToleration: every NoSchedule and NoExecute taint of the node must be
// tolerated (PreferNoSchedule only steers scoring, which gpusim's profiles do not use).
class TaintToleration final : public sched::FilterPlugin {
 public:
  std::string_view name() const override { return "taint-toleration"; }
  bool node_local() const override { return true; }
  bool applies(const sched::PodSpec&, const sched::ClusterState& cluster) const override {
    return cluster.tainted_nodes() > 0;
  }
  Status filter(const sched::PodSpec& pod, sched::NodeIndex n, const sched::ClusterState& cluster,
                sched::CycleState&) const override {
    for (const cluster::Taint& taint : cluster.taints(n)) {
      if (taint.effect == "PreferNoSchedule") continue;
      if (pod.constraints == nullptr || !cluster::tolerates(pod.constraints->tolerations, taint)) {
        return Status::unschedulable("untolerated taint", "taint-toleration");
      }
    }
    return Status::ok();
  }
  // The first untolerated taint, as kube-scheduler's FindMatchingUntoleratedTaint finds it; a
  // cordoned node's taint is NodeUnschedulable's, which runs first.
  void explain(const sched::PodSpec& pod, sched::NodeIndex n, const sched::ClusterState& cluster, sched::CycleState&,
               NodeReasons& reasons) const override {
    const cluster::Taint* first = nullptr;
    for (const cluster::Taint& taint : cluster.taints(n)) {
      if (taint.effect == "PreferNoSchedule") continue;
      if (pod.constraints != nullptr && cluster::tolerates(pod.constraints->tolerations, taint)) continue;
      if (taint.key == kube::kUnschedulableTaint && taint.effect == "NoSchedule") {
        reasons.reject(KubeFilter::kNodeUnschedulable, {kube::kUnschedulable});
      }
      if (first == nullptr) first = &taint;
    }
    if (first != nullptr) reasons.reject(KubeFilter::kTaintToleration, {kube::kTaintHead, first->key, ": ", first->value, "}"});
  }
};

}  // namespace

void register_filters(sched::Registry& registry) {
  registry.add("gpu-fit", [](const sched::PluginContext&) { return std::make_unique<GpuFit>(); });
  registry.add("node-affinity", [](const sched::PluginContext&) { return std::make_unique<NodeAffinity>(); });
  registry.add("taint-toleration", [](const sched::PluginContext&) { return std::make_unique<TaintToleration>(); });
}

}  // namespace gpusim::policy
