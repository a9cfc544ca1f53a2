#pragma once
// HAMi's scheduler as a scheduler extender (sim/k8s/README.md, "HAMi"): for a GPU pod it keeps,
// of the nodes that passed the filters, the one HAMi node its node policy ranks first, and on HAMi
// nodes it picks the GPUs by its GPU policy. It keeps its own view of every GPU's use (tasks,
// gpucores and registered gpumem), as HAMi's scheduler does from its pods' annotations.
//
// Sources (behaviour read from Project-HAMi/HAMi at 4707fb02): the node score
// 10 x (sum Used / sum Count + sum Usedcores / sum Totalcore + sum Usedmem / sum Totalmem) over the
// node's devices before the pod is placed, highest first under binpack, lowest under spread
// (policy/node_policy.go, scheduler.go); a device's score is the same sum for that device with the
// pod's request added (policy/gpu_policy.go); Fit tries devices in that order, least loaded first
// under spread and topology-aware, most loaded first under binpack, and takes the first that fit
// (nvidia/device.go); topology-aware collects every fitting device and takes, for one GPU, the one
// least connected to the other candidates, for several, the combination with the highest sum of
// pair scores. A device fits when it has the pod's memory (MiB of the registered memory) and
// cores left, is not taken whole (gpucores 100), and for a pod asking gpucores 100 has no pod.
#include <cstdint>
#include <span>
#include <vector>

#include "sim/k8s/settings.hpp"
#include "sim/sched/plugin.hpp"
#include "sim/topology/topology.hpp"

namespace gpusim::k8s {

struct NodeSetup;

class HamiScheduler final : public sched::Extender {
 public:
  // `setup` and `topologies` are per node; `gpu_counts` the GPUs of each node. Every HAMi node
  // must share `node_policy` (one scheduler) — the caller checks.
  HamiScheduler(std::span<const NodeSetup> setup, std::span<const topology::Topology* const> topologies,
                std::span<const cluster::NodeSpec> nodes, const cluster::GpuCatalog& catalog, HamiNodePolicy node_policy);

  void filter(const sched::PodSpec& pod, std::vector<sched::NodeIndex>& feasible,
              const sched::ClusterState& cluster) override;
  // gpusim's words: HAMi's extender names its own device checks, which gpusim does not model one by one.
  std::string_view rejection() const override { return "node(s) had no HAMi vGPU with the pod's gpumem and gpucores free"; }
  bool picks_gpus(sched::NodeIndex n) const override { return config_of_[n] != nullptr; }
  cluster::GpuSet select(const sched::PodSpec& pod, sched::NodeIndex n, const sched::ClusterState& cluster) override;
  void placed(const sched::PodSpec& pod, const cluster::Placement& placement) override { account(pod, placement, +1); }
  void released(const sched::PodSpec& pod, const cluster::Placement& placement) override { account(pod, placement, -1); }

  // What a pod asks of each GPU it gets, in thousandths of a GPU's cores and registered memory
  // (for the scores), and in MiB of the registered memory (for the fit).
  struct Ask {
    std::int32_t cores = 0;
    std::int32_t memory = 0;
    std::int64_t memory_mib = 0;
  };
  // `registered_mib`: one GPU's registered memory on the node.
  static Ask ask_of(const sched::PodSpec& pod, const HamiConfig& config, std::int64_t registered_mib);

 private:
  double node_score(sched::NodeIndex n, const sched::ClusterState& cluster) const;
  double gpu_score(sched::NodeIndex n, int gpu, Ask ask, const sched::ClusterState& cluster) const;
  void account(const sched::PodSpec& pod, const cluster::Placement& placement, int sign);
  // HAMi's Fit for one device, past the count (deviceSplitCount) the cluster state already checks.
  bool device_fits(sched::NodeIndex n, int gpu, Ask ask, const sched::ClusterState& cluster) const;
  // Whether node n has `count` devices that fit (with their free share in the cluster state).
  bool node_fits(const sched::PodSpec& pod, sched::NodeIndex n, const sched::ClusterState& cluster) const;

  std::vector<const HamiConfig*> config_of_;  // per node; null: not a HAMi node
  std::vector<const topology::Topology*> topologies_;
  std::vector<std::size_t> offset_;           // per node, its first GPU in the arrays below
  std::vector<std::int32_t> cores_used_;      // per GPU, thousandths of its cores
  std::vector<std::int32_t> memory_used_;     // per GPU, thousandths of its registered memory
  std::vector<std::int64_t> memory_mib_used_; // per GPU, MiB of its registered memory
  std::vector<std::int64_t> registered_mib_;  // per node, one GPU's registered memory
  HamiNodePolicy node_policy_;
  // Scratch, so that a scheduling cycle allocates nothing.
  std::vector<int> order_;
  std::vector<double> order_score_;
};

}  // namespace gpusim::k8s
