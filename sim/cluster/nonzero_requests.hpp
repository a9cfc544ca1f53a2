#pragma once
// kube-scheduler's "non-zero" requests: for scoring by how full a node is (NodeResourcesFit's
// LeastAllocated, MostAllocated and RequestedToCapacityRatio), a container that asks no CPU counts
// as 100m and one that asks no memory as 200 MiB, so that many pods without requests do not all
// land on one node (kubernetes/kubernetes pkg/scheduler/util/pod_resources.go,
// DefaultMilliCPURequest and DefaultMemoryRequest = 200 * 1024 * 1024 bytes; applied per
// container by k8s.io/component-helpers/resource PodRequests' NonMissingContainerRequests, to init
// containers too). The node's NonZeroRequested sums its pods' non-zero requests
// (ClusterState::nonzero_cpu_requested).
//
// gpusim cannot tell a request left out from one written as 0 (both read 0), so a 0 counts as left
// out; kube-scheduler keeps an explicit 0. A trace pod is one container.
#include <cstdint>

#include "sim/cluster/pod.hpp"

namespace gpusim::cluster {

inline constexpr std::int64_t kDefaultMilliCpuRequest = 100;
inline constexpr std::int64_t kDefaultMemoryRequestMib = 200;

struct CpuMemory {
  std::int64_t cpu_milli = 0;
  std::int64_t memory_mib = 0;
};

// The pod's effective CPU and memory requests with the defaults above for containers that ask none:
// the containers' sum, or the largest init container if that is more (as PodSpec's own totals).
CpuMemory nonzero_requests(const PodSpec& pod);

}  // namespace gpusim::cluster
