#pragma once
// Dynamic MIG (HAMi's dynamic-mig, and the partitioners of nos and NVIDIA's mig-manager): after
// every scheduling cycle, for each pending pod that asks a MIG profile no node has free or on its
// way, it asks the kubelet of the first idle GPU (lowest node, then GPU) on a dynamic-MIG node that
// could take the pod (GPU model, CPU, memory) to re-partition it to the first of HAMi's templates
// for the model that has that profile. The kubelet does so only if the GPU is still idle; it then
// serves nothing for the reconfiguration time. What is free or advertised comes from the node
// status the device plugins published, what is allocated from the kubelets.
#include <array>
#include <vector>

#include "sim/cluster/cluster_state.hpp"
#include "sim/cluster/mig.hpp"
#include "sim/k8s/api_server.hpp"
#include "sim/k8s/bus.hpp"
#include "sim/k8s/settings.hpp"

namespace gpusim::k8s {

class MigPartitioner final : public Component {
 public:
  MigPartitioner(Bus& bus, const ApiServer& api, const cluster::ClusterState& truth, const std::vector<NodeSetup>& setup,
                 const std::vector<cluster::PodSpec>& pods, const KubeSettings& settings,
                 const std::vector<std::uint8_t>& present);
  void on_message(const Message& message, core::Time now) override;
  void on_timer(std::uint32_t tag, std::uint64_t payload, core::Time now) override;

 private:
  // The shape node n's device d is advertised as (-1: none), per the published status.
  int advertised_shape(std::uint32_t n, int d) const;
  bool fits_apart_from_gpus(std::uint32_t n, const cluster::PodSpec& pod) const;
  void forget_binding(PodId pod);
  int layout_of(std::uint32_t n, int gpu) const;
  int free_on_node(std::uint32_t n, int shape) const;
  void count_free(std::uint32_t n);
  void partition(core::Time now);
  // Asks for the re-partitions that make room for `pod`; false if no node can.
  bool request_for(const cluster::PodSpec& pod, int wanted, core::Time now);

  Bus& bus_;
  const ApiServer& api_;
  const cluster::ClusterState& truth_;
  const std::vector<NodeSetup>& setup_;
  const std::vector<cluster::PodSpec>& pods_;
  const KubeSettings& settings_;
  std::vector<std::uint32_t> dynamic_nodes_;
  std::vector<PodId> waiting_;  // pending pods asking a MIG profile, in creation order
  // A requested re-partition: the GPU, its new layout and until when its instances count as coming
  // (the reconfiguration, then the kubelet's next status).
  struct InFlight {
    std::uint32_t node;
    int gpu;
    int layout;
    core::Time until;
  };
  std::vector<InFlight> in_flight_;
  std::array<std::int64_t, cluster::kMigShapes> free_{};  // scratch: free or coming instances by shape
  struct IdleGpu {
    std::uint32_t node;
    int gpu;
    bool usable;  // not asked for yet in this cycle
  };
  std::vector<IdleGpu> idle_;                       // scratch: this cycle's idle GPUs, node then GPU order
  // Pods that ask the same are answered alike within a cycle (idle GPUs only get fewer): each
  // trace row's ask gets an id once, and a request that found no room marks its id for the cycle.
  struct Ask {
    std::int64_t cpu, memory;
    std::uint64_t models;
    int shape, count;
    auto operator<=>(const Ask&) const = default;
  };
  std::vector<std::uint32_t> ask_id_;         // per trace row asking a MIG profile
  std::vector<std::uint32_t> hopeless_in_;    // per ask id: the partition call that found no room for it
  std::uint32_t calls_ = 0;                   // partition calls so far
  // Pods bound but not yet admitted, and the instances they were given (the kubelet has not
  // allocated them yet, but no GPU of theirs may be re-partitioned).
  struct Binding {
    PodId pod;
    std::uint32_t node;
    cluster::GpuSet gpus;
  };
  std::vector<Binding> binding_;
  std::vector<std::array<int, cluster::kMigShapes>> node_free_;  // per node: this cycle's free or coming instances
  std::vector<cluster::GpuSet> bound_;  // per node: scratch, the instances of binding_
  std::vector<std::int64_t> bound_cpu_, bound_memory_;  // per node: scratch, what binding_'s pods hold
  // Per node: 1 + the time of its status when a request to it lapsed unanswered (0: none).
  std::vector<std::int64_t> silent_since_;
  std::vector<std::uint8_t> present_;  // per node: part of the cluster (joins and removals)
};

}  // namespace gpusim::k8s
