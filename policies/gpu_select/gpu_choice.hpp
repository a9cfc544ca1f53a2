#pragma once
// GPU-level placement rules shared by filters, selectors and scores. All break ties by the
// lowest GPU index, as the FGD artifact's Open-Gpu-Share plugin does.
#include <cstdint>
#include <span>

#include "sim/cluster/node.hpp"
#include "sim/cluster/pod.hpp"

namespace gpusim::policy {

// GPUs with at least `milli` free.
inline int count_fitting(std::span<const std::int32_t> free, std::int32_t milli) {
  int count = 0;
  for (const std::int32_t f : free) count += f >= milli ? 1 : 0;
  return count;
}

// Whether the GPU part of `pod` fits on a node with these free milli (model not checked).
inline bool gpus_fit(const cluster::PodSpec& pod, std::span<const std::int32_t> free) {
  return pod.gpu_count == 0 || count_fitting(free, pod.gpu_milli) >= pod.gpu_count;
}

// The `pod.gpu_count` lowest-indexed GPUs with room: for whole-GPU pods, the lowest-indexed
// fully free GPUs (kubelet-style first fit). Empty set if they are not there.
inline cluster::GpuSet first_fit(const cluster::PodSpec& pod, std::span<const std::int32_t> free) {
  cluster::GpuSet set;
  int needed = pod.gpu_count;
  for (int g = 0; g < static_cast<int>(free.size()) && needed > 0; ++g) {
    if (free[g] >= pod.gpu_milli) {
      set.add(g);
      --needed;
    }
  }
  return needed == 0 ? set : cluster::GpuSet{};
}

// The fitting GPU with the least (best fit) or most (worst fit) milli free; -1 if none.
inline int tightest_gpu(std::span<const std::int32_t> free, std::int32_t milli, bool least) {
  int chosen = -1;
  for (int g = 0; g < static_cast<int>(free.size()); ++g) {
    if (free[g] < milli) continue;
    if (chosen < 0 || (least ? free[g] < free[chosen] : free[g] > free[chosen])) chosen = g;
  }
  return chosen;
}

// The artifact's hypothetical placement for scores: walk GPUs by free milli ascending (stable,
// so equal free keeps index order) and take the first `gpu_count` that fit. For whole-GPU pods
// this is the lowest-indexed fully free GPUs.
inline cluster::GpuSet ascending_fit(const cluster::PodSpec& pod, std::span<const std::int32_t> free) {
  cluster::GpuSet set;
  int needed = pod.gpu_count;
  // Repeated minimum search: G <= 64 and usually 8, cheaper than sorting a copy.
  std::int32_t floor_value = pod.gpu_milli;
  while (needed > 0) {
    int best = -1;
    for (int g = 0; g < static_cast<int>(free.size()); ++g) {
      if (set.contains(g) || free[g] < floor_value) continue;
      if (best < 0 || free[g] < free[best]) best = g;
    }
    if (best < 0) return {};
    set.add(best);
    --needed;
  }
  return set;
}

}  // namespace gpusim::policy
