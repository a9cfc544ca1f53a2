// Filter plugins: host resources (kube-scheduler's NodeResourcesFit) and the gpu-milli device
// fit (the FGD artifact's Open-Gpu-Share filter).
#include <memory>

#include "policies/builtin_parts.hpp"
#include "policies/gpu_select/gpu_choice.hpp"

namespace gpusim::policy {
namespace {

using sched::Status;

class NodeResourcesFit final : public sched::FilterPlugin {
 public:
  std::string_view name() const override { return "node-resources-fit"; }
  Status filter(const sched::PodSpec& pod, sched::NodeIndex n, const sched::ClusterState& cluster,
                sched::CycleState&) const override {
    if (cluster.cpu_free(n) < pod.cpu_milli) return Status::unschedulable("insufficient cpu", "node-resources-fit");
    if (cluster.memory_free(n) < pod.memory_mib) {
      return Status::unschedulable("insufficient memory", "node-resources-fit");
    }
    return Status::ok();
  }
};

// A pod without GPUs passes on any node, GPU nodes included (as in the artifact). A GPU pod
// needs a node of an allowed model with enough GPUs that have its share free.
class GpuFit final : public sched::FilterPlugin {
 public:
  std::string_view name() const override { return "gpu-fit"; }
  Status filter(const sched::PodSpec& pod, sched::NodeIndex n, const sched::ClusterState& cluster,
                sched::CycleState&) const override {
    if (!pod.wants_gpu()) return Status::ok();
    const auto& node = cluster.node(n);
    if (node.gpu_count == 0) return Status::unschedulable("node has no GPU", "gpu-fit");
    if (!pod.allowed_models.allows(node.gpu_model)) {
      return Status::unschedulable("GPU model not allowed", "gpu-fit");
    }
    if (node.whole_gpus_only && pod.gpu_milli < cluster::kMilliPerGpu) {
      return Status::unschedulable("node's device plugin hands out whole GPUs only", "gpu-fit");
    }
    if (!gpus_fit(pod, cluster.gpu_milli_free(n))) return Status::unschedulable("insufficient GPU", "gpu-fit");
    return Status::ok();
  }
};

}  // namespace

void register_filters(sched::Registry& registry) {
  registry.add("node-resources-fit", [](const sched::PluginContext&) { return std::make_unique<NodeResourcesFit>(); });
  registry.add("gpu-fit", [](const sched::PluginContext&) { return std::make_unique<GpuFit>(); });
}

}  // namespace gpusim::policy
