#include "sim/experiment/device_shares.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

#include "sim/core/status.hpp"
#include "sim/k8s/device_memory.hpp"

namespace gpusim::experiment {
namespace {

using cluster::GpuResource;

// One GPU memory size over the nodes of a device-plugin model, in that plugin's units.
struct CommonSize {
  std::int64_t size = 0;
  std::size_t node = 0;  // the first node with it, for messages
};

template <typename SizeOf>
std::optional<CommonSize> common_size(std::span<const k8s::NodeSetup> setup, std::span<const cluster::NodeSpec> nodes,
                                      const cluster::GpuCatalog& catalog, k8s::DevicePluginModel model,
                                      const std::string& unit, const std::string& resource, SizeOf size_of) {
  std::optional<CommonSize> common;
  for (std::size_t n = 0; n < nodes.size(); ++n) {
    if (setup[n].model != model || nodes[n].gpu_count == 0) continue;
    const std::int64_t size = size_of(n);
    if (size <= 0) {
      throw core::InputError(fmt::format("node {}: its GPU model {} has no memory size in the GPU catalog, which gpusim "
                                         "needs to turn {} into a share of a GPU",
                                         nodes[n].name, catalog.at(nodes[n].gpu_model).id, resource));
    }
    if (!common) {
      common = CommonSize{size, n};
    } else if (common->size != size) {
      throw core::InputError(fmt::format(
          "node {}: its GPUs register {} {}, node {}'s {} {}; gpusim turns {} into one share of a GPU, so every such "
          "node needs one GPU memory size (give the others another device plugin, or split the run)",
          nodes[n].name, size, unit, nodes[common->node].name, common->size, unit, resource));
    }
  }
  return common;
}

// A share of a GPU in thousandths, rounded down so that the shares of asks that fit together fit.
std::int32_t share_of(std::int64_t part, std::int64_t whole) {
  if (part >= whole) return cluster::kMilliPerGpu;
  return static_cast<std::int32_t>(part * cluster::kMilliPerGpu / whole);
}

}  // namespace

bool asks_device_shares(std::span<const cluster::PodSpec> pods) {
  return std::any_of(pods.begin(), pods.end(), [](const cluster::PodSpec& pod) {
    return pod.constraints != nullptr && cluster::asks_device_share(pod.constraints->gpu_resource);
  });
}

void resolve_device_shares(std::vector<cluster::PodSpec>& pods, const std::string& source,
                           std::span<const k8s::NodeSetup> setup, std::span<const cluster::NodeSpec> nodes,
                           const cluster::GpuCatalog& catalog, const MixedMigOffer& mig) {
  const auto has_model = [&](k8s::DevicePluginModel model) {
    for (std::size_t n = 0; n < nodes.size(); ++n) {
      if (setup[n].model == model && nodes[n].gpu_count > 0) return true;
    }
    return false;
  };
  std::optional<std::optional<CommonSize>> gpushare_gib;  // computed when first needed
  std::optional<std::optional<CommonSize>> hami_mib;
  for (cluster::PodSpec& pod : pods) {
    if (pod.constraints == nullptr || !pod.wants_gpu()) continue;
    const cluster::PodConstraints& c = *pod.constraints;
    switch (c.gpu_resource) {
      case GpuResource::kAliyunGpuMem: {
        if (!has_model(k8s::DevicePluginModel::kGpushare)) {
          throw core::InputError(fmt::format("{}: pod {}: asks aliyun.com/gpu-mem, which only gpushare nodes advertise, "
                                             "and no GPU node uses devicePlugin gpushare", source, pod.name));
        }
        if (!gpushare_gib) {
          gpushare_gib = common_size(setup, nodes, catalog, k8s::DevicePluginModel::kGpushare, "GiB",
                                     "aliyun.com/gpu-mem", [&](std::size_t n) {
                                       return k8s::gpushare_gib(nodes[n], catalog);
                                     });
        }
        // At least 1: a GPU registers at most 1000 GiB.
        pod.gpu_milli = std::max(1, share_of(c.gpu_memory_gib, (*gpushare_gib)->size));
        pod.gpu_demand_milli = pod.gpu_milli;
        break;
      }
      case GpuResource::kHamiVgpu: {
        if (!has_model(k8s::DevicePluginModel::kHamiVgpu)) {
          throw core::InputError(fmt::format("{}: pod {}: asks nvidia.com/gpumem, gpumem-percentage or gpucores, which "
                                             "only HAMi counts, and no GPU node uses devicePlugin hami-vgpu", source, pod.name));
        }
        const cluster::HamiAsk& a = c.hami;
        if (a.memory_mib > 0) {
          if (!hami_mib) {
            hami_mib = common_size(setup, nodes, catalog, k8s::DevicePluginModel::kHamiVgpu, "MiB",
                                   "nvidia.com/gpumem", [&](std::size_t n) {
                                     return k8s::hami_registered_mib(nodes[n], catalog, setup[n].hami.device_memory_scaling);
                                   });
          }
          pod.gpu_milli = share_of(a.memory_mib, (*hami_mib)->size);
        } else {
          pod.gpu_milli = share_of(a.memory_percent, 100);
        }
        // A share rounds down to a thousandth; gpusim needs at least one (a pod without one would
        // hold nothing of its GPU), and granting it one anyway could refuse pods HAMi takes.
        if (pod.gpu_milli == 0) {
          throw core::InputError(fmt::format(
              "{}: pod {}: asks {} of each GPU's memory, less than a thousandth of it{}, which gpusim's shares cannot "
              "hold; ask at least that much", source, pod.name,
              a.memory_mib > 0 ? fmt::format("{} MiB", a.memory_mib) : fmt::format("{} %", a.memory_percent),
              a.memory_mib > 0 ? fmt::format(" ({} MiB registered)", (*hami_mib)->size) : ""));
        }
        // It keeps busy the compute it reserved (and is capped to), else as much as its memory share.
        pod.gpu_demand_milli = a.cores_percent > 0 ? a.cores_percent * cluster::kMilliPerGpu / 100 : pod.gpu_milli;
        break;
      }
      case GpuResource::kMigProfile: {
        if (mig.geometry == nullptr) {
          throw core::InputError(fmt::format("{}: pod {}: asks nvidia.com/mig-{}, which only MIG nodes with strategy mixed "
                                             "advertise, and no node uses them", source, pod.name, c.mig_profile));
        }
        const std::optional<int> shape = mig.geometry->shape(c.mig_profile);
        if (!shape || !mig.offered[static_cast<std::size_t>(*shape)]) {
          std::string offered;
          for (int s = 0; s < cluster::kMigShapes; ++s) {
            if (!mig.offered[static_cast<std::size_t>(s)]) continue;
            offered += fmt::format("{}{}", offered.empty() ? "" : ", ", mig.geometry->profiles[static_cast<std::size_t>(s)].name);
          }
          throw core::InputError(fmt::format("{}: pod {}: asks nvidia.com/mig-{}, which no node offers (the MIG mixed "
                                             "nodes' {} layouts offer {})", source, pod.name, c.mig_profile,
                                             mig.geometry->gpu, offered));
        }
        pod.device_class = static_cast<std::uint8_t>(1 + *shape);
        pod.gpu_milli = cluster::kMilliPerGpu;
        pod.gpu_demand_milli = static_cast<std::int32_t>(mig.geometry->compute_share(*shape) * cluster::kMilliPerGpu);
        break;
      }
      default:
        break;
    }
  }
}

}  // namespace gpusim::experiment
