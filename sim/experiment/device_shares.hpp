#pragma once
// Manifest pods that ask a sharing device plugin's own resources (HAMi's nvidia.com/gpumem,
// gpumem-percentage and gpucores; gpushare's aliyun.com/gpu-mem; a MIG profile under strategy
// mixed) get gpusim's share of a GPU here, once the nodes are known: the share the cluster
// state, the metrics and the speed model use. The plugins' extenders still check the asks
// themselves, in their own units (sim/k8s/hami_scheduler.hpp, sim/k8s/gpushare_scheduler.hpp).
#include <array>
#include <span>
#include <string>
#include <vector>

#include "sim/cluster/gpu_catalog.hpp"
#include "sim/cluster/mig.hpp"
#include "sim/cluster/node.hpp"
#include "sim/cluster/pod.hpp"
#include "sim/k8s/settings.hpp"

namespace gpusim::experiment {

// The MIG profiles the cluster's strategy-mixed nodes offer (none: geometry null).
struct MixedMigOffer {
  const cluster::MigGeometry* geometry = nullptr;
  std::array<bool, cluster::kMigShapes> offered{};
};

// Whether some pod asks one of those resources.
bool asks_device_shares(std::span<const cluster::PodSpec> pods);

// For each such pod:
// - aliyun.com/gpu-mem N GiB: gpu_milli = 1000 N / G rounded down (at least 1, at most 1000), G
//   the GiB of one GPU of the gpushare nodes;
// - HAMi: gpu_milli = its memory's share of a GPU's registered memory, rounded down (less than 1 is
//   an input error),
//   and its GPU demand its gpucores when it asks some;
// - nvidia.com/mig-<profile>: its device class, one instance per device, and as GPU demand the
//   instance's share of the GPU's SMs (it runs at the speed it asked for).
// Rounding down keeps the cluster state from refusing what the extender accepts.
// Throws core::InputError naming the workload `source` and the pod when no node advertises its
// resource, or naming two nodes when the share needs one memory size and their GPUs differ.
void resolve_device_shares(std::vector<cluster::PodSpec>& pods, const std::string& source,
                           std::span<const k8s::NodeSetup> setup, std::span<const cluster::NodeSpec> nodes,
                           const cluster::GpuCatalog& catalog, const MixedMigOffer& mig);

}  // namespace gpusim::experiment
