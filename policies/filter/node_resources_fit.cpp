// kube-scheduler's NodeResourcesFit, one plugin at Filter and Score as upstream
// (kubernetes/kubernetes pkg/scheduler/framework/plugins/noderesources/fit.go):
// - Filter: host resources (pods, CPU, memory; with the traces' RDMA bandwidth and a service's
//   instances per node as counted resources). GPUs are gpu-fit's (policies/filter/filters.cpp).
// - Score: its args' scoringStrategy (LeastAllocated by default over cpu and memory; MostAllocated;
//   RequestedToCapacityRatio), with per-resource weights, nvidia.com/gpu included
//   (policies/score/node_resources_fit_args.hpp, policies/score/resource_allocation.hpp).
#include <memory>

#include "policies/builtin_parts.hpp"
#include "policies/filter/kube_reasons.hpp"
#include "policies/score/node_resources_fit_args.hpp"

namespace gpusim::policy {
namespace {

using sched::KubeFilter;
using sched::NodeReasons;
using sched::Status;

class NodeResourcesFit final : public sched::FilterPlugin, public sched::ScorePlugin {
 public:
  explicit NodeResourcesFit(const NodeResourcesFitArgs& args) : scorer_(args.scoring()) {}
  std::string_view name() const override { return "node-resources-fit"; }
  // One answer for both points: the filter reads the node's free resources, and the score (FitScorer)
  // reads the node's requests and capacity and the pod's requests, in PreScore from the pod alone, and
  // does not normalise. So profiles scored by it (and fgd) alone keep their best node per shape.
  bool node_local() const override { return true; }
  Status filter(const sched::PodSpec& pod, sched::NodeIndex n, const sched::ClusterState& cluster,
                sched::CycleState&) const override {
    // Checked first and for every pod, as kube-scheduler's fitsRequest does.
    if (!cluster.has_pod_room(n)) return Status::unschedulable("too many pods", "node-resources-fit");
    if (cluster.cpu_free(n) < pod.cpu_milli) return Status::unschedulable("insufficient cpu", "node-resources-fit");
    if (cluster.memory_free(n) < pod.memory_mib) {
      return Status::unschedulable("insufficient memory", "node-resources-fit");
    }
    if (cluster.rdma_free(n) < pod.rdma_percent) return Status::unschedulable("insufficient rdma", "node-resources-fit");
    // The trace's per-service density limit (Alibaba's max_instance_per_node), a count kept like a resource.
    if (!cluster.app_has_room(pod, n)) {
      return Status::unschedulable("node holds max_per_node instances of the pod's service", "node-resources-fit");
    }
    return Status::ok();
  }
  // As kube-scheduler's fitsRequest: every resource the node lacks, not only the first.
  void explain(const sched::PodSpec& pod, sched::NodeIndex n, const sched::ClusterState& cluster, sched::CycleState&,
               NodeReasons& reasons) const override {
    if (!cluster.has_pod_room(n)) reasons.reject(KubeFilter::kNodeResourcesFit, {kube::kTooManyPods});
    if (cluster.cpu_free(n) < pod.cpu_milli) reasons.reject(KubeFilter::kNodeResourcesFit, {kube::kInsufficient, "cpu"});
    if (cluster.memory_free(n) < pod.memory_mib) reasons.reject(KubeFilter::kNodeResourcesFit, {kube::kInsufficient, "memory"});
    if (cluster.rdma_free(n) < pod.rdma_percent) reasons.reject(KubeFilter::kNodeResourcesFit, {kube::kInsufficient, "rdma"});
    // The trace's per-service limit has no kube-scheduler plugin (pod anti-affinity comes closest).
    if (!cluster.app_has_room(pod, n)) {
      reasons.reject(KubeFilter::kOther, {"node(s) already had max_instance_per_node pods of the pod's service"});
    }
  }
  // PreScore: the pod's own requests, once per cycle.
  void pre_score(const sched::PodSpec& pod, std::span<const sched::NodeIndex>, const sched::ClusterState&,
                 sched::CycleState&) override {
    scorer_.prepare(pod);
  }
  std::int64_t score(const sched::PodSpec& pod, sched::NodeIndex n, const sched::ClusterState& cluster,
                     sched::CycleState&) override {
    return scorer_.score(pod, n, cluster);
  }

 private:
  FitScorer scorer_;
};

}  // namespace

void register_node_resources_fit(sched::Registry& registry) {
  registry.add(
      "node-resources-fit",
      [](const sched::PluginContext& context) {
        const auto* args = dynamic_cast<const NodeResourcesFitArgs*>(context.args);
        return std::make_unique<NodeResourcesFit>(args != nullptr ? *args : NodeResourcesFitArgs{});
      },
      read_node_resources_fit_args);
}

}  // namespace gpusim::policy
