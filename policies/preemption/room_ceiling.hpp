#pragma once
// The most room each node could give a preemptor: what is free on it plus what every pod that may
// be a victim there holds. A pod that fits no node's ceiling finds victims nowhere, so the victim
// search (a scan of every node's pods, per pod) can be skipped for it. The ceiling must never
// underestimate the search's room: the caller counts every pod a search could free (a victim gang
// frees all its workers, whatever they ask, in whichever group they are), and more (whatever the rules would refuse, a pod whose
// eviction someone else asked for); the ceiling applies no node rule. Then skipping by it changes
// no outcome, only what the outcome costs. It matters where many pending jobs are tried and fail in a
// row (KAI's reclaim and preempt try every job; a non-preemptible pod's CPU may leave no room).
//
// The victims' sums are kept per node and per group (a policy's queues, and any group the caller
// always counts) as pods come and go
// (add_victim), so that measuring the ceilings for the groups a rule may take from costs one pass
// over the nodes, not over their pods.
#include <cstdint>
#include <span>
#include <vector>

#include "sim/cluster/cluster_state.hpp"
#include "sim/cluster/pod.hpp"

namespace gpusim::policy {

class RoomCeiling {
 public:
  RoomCeiling() = default;
  RoomCeiling(std::size_t nodes, std::size_t groups) : groups_(groups), victims_(nodes * groups), rooms_(nodes) {}

  // A pod of `group` that may be a victim is bound to node n, holding `gpus` devices there (sign
  // 1), or is gone or no longer a victim (sign -1, with what it was added with).
  void add_victim(cluster::NodeIndex n, std::size_t group, std::int64_t gpus, const cluster::PodSpec& pod, int sign) {
    Room& r = victims_[n * groups_ + group];
    r.gpus += sign * gpus;
    r.cpu += sign * pod.cpu_milli;
    r.memory += sign * pod.memory_mib;
    r.pods += sign;
  }
  // The ceilings now, counting the victims of the groups whose `takes` entry is nonzero: what is
  // free on each present node plus their sums there (absent nodes: none).
  void measure(const cluster::ClusterState& cache, std::span<const std::uint8_t> takes) {
    for (cluster::NodeIndex n = 0; n < cache.node_count() && n < rooms_.size(); ++n) {
      Room& r = rooms_[n];
      r.present = cache.present(n);
      if (!r.present) continue;
      const std::int32_t max_pods = cache.node(n).max_pods;
      r.gpus = static_cast<std::int64_t>(cache.whole_free_devices(n).size());
      r.cpu = cache.cpu_free(n);
      r.memory = cache.memory_free(n);
      r.pods = max_pods <= 0 ? INT64_MAX / 2 : std::int64_t{max_pods} - cache.pods_on(n);
      for (std::size_t g = 0; g < groups_ && g < takes.size(); ++g) {
        if (takes[g] == 0) continue;
        const Room& v = victims_[n * groups_ + g];
        r.gpus += v.gpus;
        r.cpu += v.cpu;
        r.memory += v.memory;
        r.pods += v.pods;
      }
    }
  }
  // Whether `pod` would fit some node with every victim counted there gone (as of the last measure).
  bool fits_somewhere(const cluster::PodSpec& pod) const {
    for (const Room& r : rooms_) {
      if (r.present && r.gpus >= pod.gpu_count && r.cpu >= pod.cpu_milli && r.memory >= pod.memory_mib && r.pods >= 1) return true;
    }
    return false;
  }

 private:
  struct Room {
    std::int64_t gpus = 0, cpu = 0, memory = 0, pods = 0;
    bool present = false;
  };
  std::size_t groups_ = 0;
  std::vector<Room> victims_;  // per node and group (node * groups_ + group): the victims' sums
  std::vector<Room> rooms_;    // per node: the ceilings, as of the last measure
};

}  // namespace gpusim::policy
