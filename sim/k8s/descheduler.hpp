#pragma once
// A defragmenting descheduler (what-if; HAMi users ask for it in HAMi#2072, koordinator's 2026
// proposal plans one): every `interval` while pods asking whole GPUs wait, it evicts the pods that
// share a fragmented GPU (one holding only fractions of scheduler-assigned gpu-milli pods) so that a
// waiting pod can have it, at most `evictionsPerCycle` pods a cycle. The GPU it empties is the one
// with the fewest milli in use among those on nodes that can take the waiting pod (its GPU model,
// CPU and memory once the evicted pods are gone); ties go to the lowest node, then GPU. Evicted pods
// are recreated by their owners and resume from their last checkpoint (the kubelet keeps it).
#include <vector>

#include "sim/cluster/cluster_state.hpp"
#include "sim/k8s/api_server.hpp"
#include "sim/k8s/bus.hpp"
#include "sim/k8s/settings.hpp"

namespace gpusim::k8s {

class Descheduler final : public Component {
 public:
  Descheduler(Bus& bus, const ApiServer& api, const cluster::ClusterState& truth, const std::vector<NodeSetup>& setup,
              const std::vector<cluster::PodSpec>& pods, const KubeSettings& settings);
  void on_message(const Message& message, core::Time now) override;
  void on_timer(std::uint32_t tag, std::uint64_t payload, core::Time now) override;

  std::int64_t eviction_requests() const { return evictions_; }

 private:
  bool wants_whole_gpus(PodId pod) const;
  void arm(core::Time now);
  // Evicts the pods of one GPU for `pod`, within `budget`; returns how many it evicted.
  int make_room(PodId pod, int budget, core::Time now);

  Bus& bus_;
  const ApiServer& api_;
  const cluster::ClusterState& truth_;
  const std::vector<NodeSetup>& setup_;
  const std::vector<cluster::PodSpec>& pods_;
  const KubeSettings& settings_;
  std::vector<PodId> waiting_;                 // pending pods asking whole GPUs, in creation order
  std::vector<std::vector<PodId>> on_gpu_;     // per node x GPU: running gpu-milli pods (fractions)
  std::vector<std::size_t> gpu_offset_;
  bool armed_ = false;
  std::int64_t evictions_ = 0;
  std::vector<PodId> victims_;  // scratch
};

}  // namespace gpusim::k8s
