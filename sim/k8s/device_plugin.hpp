#pragma once
// What each device-plugin model advertises and which devices its kubelet hands a container
// (sim/k8s/README.md describes the four models and their sources).
#include <optional>
#include <vector>

#include "sim/cluster/node.hpp"
#include "sim/k8s/settings.hpp"
#include "sim/topology/topology.hpp"

namespace gpusim::k8s {

// A node status's GPU part.
struct Advertisement {
  int allocatable = 0;
  cluster::GpuSet unadvertised;  // devices not listed as healthy
};

// `gpu_count` devices, `unhealthy` of them failed; `registered`: the plugin is registered.
Advertisement advertise(DevicePluginModel model, int gpu_count, cluster::GpuSet unhealthy, bool registered);

class DeviceChooser {
 public:
  DeviceChooser(const std::vector<NodeSetup>& setup, const topology::Library& topologies)
      : setup_(setup), topologies_(topologies) {}

  // The devices node n's device manager gives a pod asking `count` whole GPUs, from `available`
  // (healthy, advertised and unallocated), or none if they are too few.
  std::optional<cluster::GpuSet> choose(std::uint32_t n, int count, cluster::GpuSet available) const;
  // Node n's topology, if its pool names one.
  const topology::Topology* topology_of(std::uint32_t n) const {
    return setup_[n].topology < 0 ? nullptr : &topologies_.at(setup_[n].topology);
  }

 private:
  const std::vector<NodeSetup>& setup_;
  const topology::Library& topologies_;
};

}  // namespace gpusim::k8s
