#include "sim/k8s/descheduler.hpp"

#include <algorithm>

namespace gpusim::k8s {

Descheduler::Descheduler(Bus& bus, const ApiServer& api, const cluster::ClusterState& truth,
                         const std::vector<NodeSetup>& setup, const std::vector<cluster::PodSpec>& pods,
                         const KubeSettings& settings)
    : bus_(bus), api_(api), truth_(truth), setup_(setup), pods_(pods), settings_(settings) {
  gpu_offset_.push_back(0);
  for (cluster::NodeIndex n = 0; n < truth.node_count(); ++n) {
    gpu_offset_.push_back(gpu_offset_.back() + static_cast<std::size_t>(truth.node(n).gpu_count));
  }
  on_gpu_.resize(gpu_offset_.back());
}

bool Descheduler::wants_whole_gpus(PodId pod) const {
  const cluster::PodSpec& spec = pods_[api_.pod(pod).source];
  return spec.wants_gpu() && spec.gpu_milli == cluster::kMilliPerGpu;
}

void Descheduler::on_message(const Message& message, core::Time now) {
  const auto forget = [&](PodId pod) {
    if (const auto it = std::find(waiting_.begin(), waiting_.end(), pod); it != waiting_.end()) waiting_.erase(it);
  };
  switch (message.topic) {
    case Topic::kPodCreated:
      if (wants_whole_gpus(message.pod)) waiting_.push_back(message.pod);
      break;
    case Topic::kPodBound:
    case Topic::kPodDeleted:
      forget(message.pod);
      break;
    case Topic::kPodRunning: {
      // Fractions on GPUs the scheduler assigned are what a defragmentation can move.
      const cluster::PodSpec& spec = pods_[message.source];
      if (!spec.shares_gpu() || setup_[message.node].model != DevicePluginModel::kSchedulerAssigned) break;
      for (int g = 0; g < truth_.node(message.node).gpu_count; ++g) {
        if (message.gpus.contains(g)) on_gpu_[gpu_offset_[message.node] + static_cast<std::size_t>(g)].push_back(message.pod);
      }
      break;
    }
    case Topic::kPodTerminated: {
      forget(message.pod);
      const std::size_t first = gpu_offset_[message.node];
      for (std::size_t i = first; i < gpu_offset_[message.node + 1]; ++i) {
        auto& list = on_gpu_[i];
        if (const auto it = std::find(list.begin(), list.end(), message.pod); it != list.end()) list.erase(it);
      }
      break;
    }
    default:
      return;
  }
  // Something changed: if pods wait, look again at the next tick.
  arm(now);
}

void Descheduler::arm(core::Time now) {
  if (armed_ || waiting_.empty()) return;
  armed_ = true;
  bus_.set_timer(*this, 0, 0, now + settings_.descheduler_interval, core::Phase::kMetrics);
}

void Descheduler::on_timer(std::uint32_t, std::uint64_t, core::Time now) {
  armed_ = false;
  int budget = settings_.descheduler_evictions_per_cycle;
  for (std::size_t i = 0; i < waiting_.size() && budget > 0; ++i) budget -= make_room(waiting_[i], budget, now);
  // Evictions change the cluster (the messages re-arm the timer); without any, it sleeps until
  // something else does, so a pod that can never run does not keep it ticking for ever.
}

int Descheduler::make_room(PodId pod, int budget, core::Time now) {
  const cluster::PodSpec& spec = pods_[api_.pod(pod).source];
  // It moves fractional GPU pods to free a GPU; RDMA and per-node instance limits are not what it frees.
  if (spec.rdma_percent > 0 || spec.max_per_node > 0) return 0;
  std::size_t best = SIZE_MAX;
  std::int32_t best_used = cluster::kMilliPerGpu;
  for (cluster::NodeIndex n = 0; n < truth_.node_count(); ++n) {
    const cluster::NodeSpec& node = truth_.node(n);
    if (node.gpu_count == 0 || setup_[n].model != DevicePluginModel::kSchedulerAssigned ||
        !spec.allowed_models.allows(node.gpu_model) || !truth_.present(n)) {
      continue;
    }
    const auto unallocated = truth_.gpu_milli_unallocated(n);
    int free_gpus = 0;
    for (int g = 0; g < node.gpu_count; ++g) {
      free_gpus += truth_.gpu_healthy(n, g) && unallocated[static_cast<std::size_t>(g)] == cluster::kMilliPerGpu;
    }
    if (free_gpus + 1 < spec.gpu_count) continue;  // one more free GPU would not be enough
    for (int g = 0; g < node.gpu_count; ++g) {
      const std::size_t i = gpu_offset_[n] + static_cast<std::size_t>(g);
      const auto& residents = on_gpu_[i];
      const std::int32_t used = cluster::kMilliPerGpu - unallocated[static_cast<std::size_t>(g)];
      if (residents.empty() || !truth_.gpu_healthy(n, g) || static_cast<int>(residents.size()) > budget || used >= best_used) {
        continue;
      }
      // Every pod on it must be one the descheduler may move (a fraction that has run long enough),
      // and the node must hold the waiting pod once they are gone.
      std::int64_t cpu = truth_.cpu_free(n), memory = truth_.memory_free(n), milli = 0;
      bool movable = true;
      for (const PodId r : residents) {
        const cluster::PodSpec& resident = pods_[api_.pod(r).source];
        movable &= now - api_.pod(r).running >= settings_.descheduler_min_run_time;
        cpu += resident.cpu_milli;
        memory += resident.memory_mib;
        milli += resident.gpu_milli;
      }
      if (!movable || milli != used || cpu < spec.cpu_milli || memory < spec.memory_mib) continue;
      best = i;
      best_used = used;
    }
  }
  if (best == SIZE_MAX) return 0;
  // Through the eviction API: the kubelet stops the pod unless it has ended meanwhile. The GPU is
  // not offered again this cycle.
  victims_ = std::move(on_gpu_[best]);
  on_gpu_[best].clear();
  for (const PodId victim : victims_) {
    Message evict;
    evict.topic = Topic::kEvictRequest;
    evict.pod = victim;
    evict.source = api_.pod(victim).source;
    evict.node = static_cast<std::uint32_t>(api_.pod(victim).node);
    bus_.publish(evict, now);
    ++evictions_;
  }
  return static_cast<int>(victims_.size());
}

}  // namespace gpusim::k8s
