#include "sim/experiment/vgpu_requests.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "sim/core/status.hpp"
#include "sim/k8s/vgpu_layout.hpp"

namespace gpusim::experiment {

void check_vgpu_cluster(std::span<const k8s::NodeSetup> setup, std::span<const cluster::NodeSpec> nodes) {
  for (std::size_t n = 0; n < setup.size(); ++n) {
    if (nodes[n].gpu_count > 0 && setup[n].model != k8s::DevicePluginModel::kKubevirtVgpu) {
      throw core::InputError(fmt::format("node {}: some nodes run NVIDIA vGPU, where a GPU pod asks a vGPU type "
                                         "(nvidia.com/NVIDIA_...), but this node advertises its {} GPUs as devicePlugin {}; "
                                         "give every GPU node devicePlugin kubevirt-vgpu, or split the run",
                                         nodes[n].name, nodes[n].gpu_count, k8s::to_string(setup[n].model)));
    }
  }
}

std::uint8_t vgpu_class(const cluster::PodSpec& pod, std::span<const k8s::NodeSetup> setup, const std::vector<std::string>& types,
                        const std::string& source) {
  const bool named = pod.constraints != nullptr && pod.constraints->gpu_resource == cluster::GpuResource::kVgpuType;
  if (named) {
    for (std::size_t c = 1; c < types.size(); ++c) {
      if (k8s::vgpu_resource(types[c]) == pod.constraints->vgpu_resource) return static_cast<std::uint8_t>(c);
    }
    std::vector<std::string> offered;
    for (std::size_t c = 1; c < types.size(); ++c) offered.push_back("nvidia.com/" + k8s::vgpu_resource(types[c]));
    throw core::InputError(fmt::format("{}: pod {}: asks nvidia.com/{}, which no node's vGPU config creates (the nodes "
                                       "advertise {})", source, pod.name, pod.constraints->vgpu_resource, fmt::join(offered, ", ")));
  }
  // The framebuffer and compute share of each type (the same type on every node: nodes of one GPU
  // model). A time-sliced vGPU may use the whole GPU's compute; a MIG-backed one its instance's.
  std::vector<double> memory(types.size(), 0);
  std::vector<double> compute(types.size(), 0);
  for (const k8s::NodeSetup& node : setup) {
    for (const k8s::NodeSetup::VgpuDevice& d : node.vgpu_devices) {
      memory[d.device_class] = std::max(memory[d.device_class], d.framebuffer_share);
      compute[d.device_class] = std::max(compute[d.device_class], d.compute_share);
    }
  }
  const double asked = pod.asked_share();
  const double demand = pod.gpu_demand();
  const auto smaller = [&](std::size_t a, std::size_t b) {
    return memory[a] != memory[b] ? memory[a] < memory[b] : compute[a] < compute[b];
  };
  std::size_t best = 0;
  std::size_t largest = 1;
  constexpr double kSlack = 1e-9;
  for (std::size_t c = 1; c < types.size(); ++c) {
    if (memory[c] + kSlack >= asked && compute[c] + kSlack >= demand && (best == 0 || smaller(c, best))) best = c;
    if (smaller(largest, c)) largest = c;
  }
  return static_cast<std::uint8_t>(best != 0 ? best : largest);
}

double vgpu_framebuffer(std::span<const k8s::NodeSetup> setup, std::uint8_t device_class) {
  double share = 0;
  for (const k8s::NodeSetup& node : setup) {
    for (const k8s::NodeSetup::VgpuDevice& d : node.vgpu_devices) {
      if (d.device_class == device_class) share = std::max(share, d.framebuffer_share);
    }
  }
  return share;
}

}  // namespace gpusim::experiment
