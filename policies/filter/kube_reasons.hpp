#pragma once
// The words of kube-scheduler's Filter plugins, for the FitError of pods that never ran
// (sim/sched/fit_error.hpp). Sources, kubernetes/kubernetes pkg/scheduler/framework/plugins/:
//   noderesources/fit.go            fitsRequest: "Too many pods", "Insufficient cpu",
//                                   "Insufficient memory", "Insufficient <extended resource>"
//   nodeaffinity/node_affinity.go   ErrReasonPod
//   tainttoleration/taint_toleration.go  Filter: "node(s) had untolerated taint {<key>: <value>}"
//                                   (from kubernetes/kubernetes#109119, 2022, until #134740, late
//                                   2025, which drops the key and value: "...taint(s)")
//   nodeunschedulable/node_unschedulable.go  ErrReasonUnschedulable
// gpusim's own checks that kube-scheduler has no plugin for keep gpusim's words, in the same
// "node(s) ..." form (results/README.md lists them).
#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "sim/cluster/cluster_state.hpp"
#include "sim/cluster/mig.hpp"

namespace gpusim::policy::kube {

inline constexpr std::string_view kTooManyPods = "Too many pods";
inline constexpr std::string_view kInsufficient = "Insufficient ";
inline constexpr std::string_view kAffinity = "node(s) didn't match Pod's node affinity/selector";
inline constexpr std::string_view kUnschedulable = "node(s) were unschedulable";
inline constexpr std::string_view kTaintHead = "node(s) had untolerated taint {";
// The taint the node lifecycle controller puts on a node with spec.unschedulable (gpusim's
// manifest reader does too): kube-scheduler's NodeUnschedulable rejects the node before
// TaintToleration looks at the taint.
inline constexpr std::string_view kUnschedulableTaint = "node.kubernetes.io/unschedulable";

// The GPU resource the pod asks of node n, as NodeResourcesFit names it in "Insufficient <name>":
// up to two parts ("nvidia.com/mig-" + a profile name). A trace pod, which names no resource,
// asks the one the node's device plugin advertises (nvidia.com/gpu when it says none); a pod that
// names one the node does not advertise asks that one (nvidia.com/gpu of a vGPU node).
inline std::array<std::string_view, 2> gpu_resource(const cluster::PodSpec& pod, cluster::NodeIndex n,
                                                    const cluster::ClusterState& cluster) {
  using cluster::GpuResource;
  const GpuResource asked = pod.constraints != nullptr ? pod.constraints->gpu_resource : GpuResource::kAny;
  if (asked == GpuResource::kMigProfile && !pod.constraints->mig_profile.empty()) {
    return {"nvidia.com/mig-", pod.constraints->mig_profile};
  }
  if (asked == GpuResource::kVgpuType) return {"nvidia.com/", pod.constraints->vgpu_resource};
  if (pod.device_class != 0) {
    // The device class's resource, named as on node n or else on the first node in node order
    // that has classes. Where nodes advertise vGPU types a trace pod asks its class's type
    // (sim/experiment/vgpu_requests.hpp), and a pod that names another resource asks that one,
    // which KubeVirt's device plugin does not advertise; elsewhere the class is a MIG instance
    // shape (1 + its index), named after the GPU model's profile.
    const auto vgpu_types = [&](cluster::NodeIndex m) { return cluster.node(m).device_class_resources.get(); };
    const auto geometry_of = [&](cluster::NodeIndex m) -> const cluster::MigGeometry* {
      const cluster::NodeSpec& node = cluster.node(m);
      return node.gpu_count > 0 ? cluster::mig_geometry(cluster.catalog().at(node.gpu_model).id) : nullptr;
    };
    const std::vector<std::string>* types = vgpu_types(n);
    for (cluster::NodeIndex m = 0; types == nullptr && m < cluster.node_count(); ++m) types = vgpu_types(m);
    if (types != nullptr) {
      if (asked == GpuResource::kAny && pod.device_class < types->size()) return {(*types)[pod.device_class], ""};
    } else {
      const cluster::MigGeometry* geometry = geometry_of(n);
      for (cluster::NodeIndex m = 0; geometry == nullptr && m < cluster.node_count(); ++m) geometry = geometry_of(m);
      if (geometry == nullptr) return {"nvidia.com/mig-", "<profile>"};
      return {"nvidia.com/mig-", geometry->profiles[pod.device_class - 1U].name};
    }
  }
  const GpuResource named = asked != GpuResource::kAny ? asked : cluster.node(n).gpu_resource;
  switch (named) {
    case GpuResource::kAlphaNvidiaGpu: return {"alpha.kubernetes.io/nvidia-gpu", ""};
    case GpuResource::kNvidiaGpuShared: return {"nvidia.com/gpu.shared", ""};
    case GpuResource::kAliyunGpuMem: return {"aliyun.com/gpu-mem", ""};
    default: return {"nvidia.com/gpu", ""};  // nvidia.com/gpu, HAMi's vGPUs (counted as it), any
  }
}

}  // namespace gpusim::policy::kube
