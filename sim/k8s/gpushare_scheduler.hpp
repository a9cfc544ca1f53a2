#pragma once
// gpushare's scheduler extender for pods that ask aliyun.com/gpu-mem (GiB of one GPU): its filter
// keeps the gpushare nodes with a GPU that has that many GiB free, and its bind puts the pod on
// the GPU with the least free memory that fits (binpack; lowest index among equals). It counts
// each GPU's GiB from its pods, as the extender does from their annotations. A GPU registers
// its catalog memory in whole GiB (sim/k8s/device_memory.hpp).
//
// Trace pods carry a share of a GPU instead: replay runs this extender only for manifests that
// ask aliyun.com/gpu-mem, and a pod without that ask counts its share of the GPU's GiB, rounded up.
#include <cstdint>
#include <span>
#include <vector>

#include "sim/cluster/gpu_catalog.hpp"
#include "sim/sched/plugin.hpp"

namespace gpusim::k8s {

struct NodeSetup;

class GpushareScheduler final : public sched::Extender {
 public:
  GpushareScheduler(std::span<const NodeSetup> setup, std::span<const cluster::NodeSpec> nodes,
                    const cluster::GpuCatalog& catalog);

  void filter(const sched::PodSpec& pod, std::vector<sched::NodeIndex>& feasible,
              const sched::ClusterState& cluster) override;
  // gpusim's words for the extender's refusal: no one GPU of the node has the GiB the pod asks.
  std::string_view rejection() const override { return "node(s) had no GPU with enough free aliyun.com/gpu-mem"; }
  bool picks_gpus(sched::NodeIndex n) const override { return gib_per_gpu_[n] > 0; }
  cluster::GpuSet select(const sched::PodSpec& pod, sched::NodeIndex n, const sched::ClusterState& cluster) override;
  void placed(const sched::PodSpec& pod, const cluster::Placement& placement) override { account(pod, placement, +1); }
  void released(const sched::PodSpec& pod, const cluster::Placement& placement) override { account(pod, placement, -1); }

 private:
  std::int64_t ask_of(const sched::PodSpec& pod, sched::NodeIndex n) const;
  // The fitting GPU with the least free GiB, or -1.
  int tightest(const sched::PodSpec& pod, sched::NodeIndex n, const sched::ClusterState& cluster) const;
  void account(const sched::PodSpec& pod, const cluster::Placement& placement, int sign);

  std::vector<std::int64_t> gib_per_gpu_;  // per node; 0: not a gpushare node
  std::vector<std::size_t> offset_;        // per node, its first GPU in used_
  std::vector<std::int64_t> used_;         // per GPU, GiB taken
};

}  // namespace gpusim::k8s
