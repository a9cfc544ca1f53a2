#pragma once
// What the filters read of a pod: two pods of one shape pass and fail the same nodes of one
// cluster state, so a diagnosis (Framework::diagnose) of one holds for the other. Placement rules
// count by identity (pods of one manifest share them), which is enough to tell shapes apart; the
// key is only looked up, never walked, so no output depends on the pointers' order.
#include <cstdint>
#include <tuple>

#include "sim/cluster/pod.hpp"

namespace gpusim::sched {

using FilterShape = std::tuple<std::int64_t, std::int64_t, std::int32_t, std::int32_t, std::uint64_t, std::uint8_t,
                               const cluster::PodConstraints*, std::int32_t, std::int32_t, std::int32_t>;

inline FilterShape filter_shape(const cluster::PodSpec& pod) {
  return {pod.cpu_milli,         pod.memory_mib,      pod.gpu_count,
          pod.gpu_milli,         pod.allowed_models.bits, pod.device_class,
          pod.constraints.get(), pod.rdma_percent,    pod.max_per_node > 0 ? pod.app : -1,
          pod.max_per_node};
}

}  // namespace gpusim::sched
