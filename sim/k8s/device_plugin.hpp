#pragma once
// What each device-plugin model advertises and which devices its kubelet hands a container
// (sim/k8s/README.md describes the four models and their sources).
#include <optional>
#include <vector>

#include "sim/cluster/node.hpp"
#include "sim/cluster/pod.hpp"
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

// A pod's devices, in all and per container (empty `containers` for a pod without container
// detail).
struct PodDevices {
  cluster::GpuSet all;
  std::vector<cluster::GpuSet> containers;
};

// Splits the devices `all` over the pod's containers in index order (scheduler-assigned pods:
// the annotation names the pod's devices; the plugin hands them out container by container).
std::vector<cluster::GpuSet> split_by_container(const cluster::PodSpec& pod, cluster::GpuSet all);

class DeviceChooser {
 public:
  DeviceChooser(const std::vector<NodeSetup>& setup, const topology::Library& topologies)
      : setup_(setup), topologies_(topologies) {}

  // The devices node n's device manager gives a pod asking `count` whole GPUs, from `available`
  // (healthy, advertised and unallocated), or none if they are too few.
  std::optional<cluster::GpuSet> choose(std::uint32_t n, int count, cluster::GpuSet available) const;
  // The device manager's allocation for a whole pod, container by container as the kubelet
  // allocates: init containers first (one at a time, so their largest request), then each app
  // container, which reuses init containers' devices before taking new ones. None if too few.
  std::optional<PodDevices> allocate(std::uint32_t n, const cluster::PodSpec& pod, cluster::GpuSet available) const;
  const NodeSetup& setup(std::uint32_t n) const { return setup_[n]; }
  std::size_t node_count() const { return setup_.size(); }
  // Node n's topology, if its pool names one.
  const topology::Topology* topology_of(std::uint32_t n) const {
    return setup_[n].topology < 0 ? nullptr : &topologies_.at(setup_[n].topology);
  }

 private:
  static cluster::GpuSet choose_replicas(const NodeSetup& node, int count, cluster::GpuSet available);

  const std::vector<NodeSetup>& setup_;
  const topology::Library& topologies_;
};

}  // namespace gpusim::k8s
