#include "sim/cluster/cluster_state.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "sim/cluster/nonzero_requests.hpp"
#include "sim/core/check.hpp"
#include "sim/core/status.hpp"

namespace gpusim::cluster {

ClusterState::ClusterState(const GpuCatalog& catalog, std::vector<NodeSpec> nodes)
    : catalog_(&catalog), nodes_(std::move(nodes)) {
  const std::size_t n = nodes_.size();
  cpu_free_.resize(n);
  memory_free_.resize(n);
  rdma_free_.resize(n);
  pods_.assign(n, 0);
  nonzero_extra_cpu_.assign(n, 0);
  nonzero_extra_memory_.assign(n, 0);
  app_pods_.resize(n);
  node_gpu_free_.resize(n);
  version_.assign(n, 0);
  changes_.reserve(2 * n + 1024);
  unhealthy_.assign(n, GpuSet{});
  present_.assign(n, 1);
  present_count_ = n;
  taints_.reserve(n);
  for (const NodeSpec& node : nodes_) {
    taints_.push_back(node.taints);
    tainted_nodes_ += node.taints.empty() ? 0 : 1;
  }
  gpu_offset_.resize(n + 1);
  for (std::size_t i = 0; i < n; ++i) {
    const NodeSpec& node = nodes_[i];
    if (node.gpu_count < 0 || node.gpu_count > kMaxGpusPerNode) {
      throw core::InputError(fmt::format("node {}: {} GPUs, must be 0..{}", node.name,
                                         node.gpu_count, kMaxGpusPerNode));
    }
    if (node.gpu_count > 0 && node.gpu_model >= catalog.size()) {
      throw core::InputError(fmt::format("node {}: unknown GPU model index", node.name));
    }
    cpu_free_[i] = node.cpu_milli;
    memory_free_[i] = node.memory_mib;
    rdma_free_[i] = node.rdma_percent;
    node_gpu_free_[i] = std::int64_t{node.gpu_count} * kMilliPerGpu;
    gpu_offset_[i] = gpu_free_.size();
    gpu_free_.insert(gpu_free_.end(), static_cast<std::size_t>(node.gpu_count), kMilliPerGpu);
    total_gpus_ += node.gpu_count;
    total_cpu_ += node.cpu_milli;
    total_memory_ += node.memory_mib;
  }
  gpu_offset_[n] = gpu_free_.size();
  gpu_view_ = gpu_free_;
  gpu_pods_.assign(gpu_free_.size(), 0);
  whole_free_.assign(n, GpuSet{});
  class_devices_.assign(n * kDeviceClasses, GpuSet{});
  for (std::size_t i = 0; i < n; ++i) {
    const NodeSpec& node = nodes_[i];
    whole_free_[i] = GpuSet::first(node.gpu_count);
    for (std::size_t d = 0; d < node.device_class.size() && d < static_cast<std::size_t>(node.gpu_count); ++d) {
      GPUSIM_CHECK(node.device_class[d] < kDeviceClasses, "a device class out of range");
      class_devices_[i * kDeviceClasses + node.device_class[d]].add(static_cast<int>(d));
    }
  }
  node_words_ = (n + 63) / 64;
  free_bucket_count_ = 1;
  for (const NodeSpec& node : nodes_) free_bucket_count_ = std::max(free_bucket_count_, static_cast<std::size_t>(node.gpu_count) + 1);
  free_buckets_.assign(free_bucket_count_ * node_words_, 0);
  free_bucket_of_.assign(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    const auto bucket = static_cast<std::uint16_t>(free_bucket(node_gpu_free_[i]));
    free_bucket_of_[i] = bucket;
    free_buckets_[bucket * node_words_ + i / 64] |= std::uint64_t{1} << (i % 64);
  }
}

void ClusterState::move_to_free_bucket(NodeIndex n) {
  const auto bucket = static_cast<std::uint16_t>(free_bucket(node_gpu_free_[n]));
  const std::uint16_t old = free_bucket_of_[n];
  if (bucket == old) return;
  const std::uint64_t bit = std::uint64_t{1} << (n % 64);
  free_buckets_[old * node_words_ + n / 64] &= ~bit;
  free_buckets_[bucket * node_words_ + n / 64] |= bit;
  free_bucket_of_[n] = bucket;
}

void ClusterState::nodes_with_gpu_free(std::int64_t milli, std::span<std::uint64_t> nodes) const {
  GPUSIM_CHECK(nodes.size() >= node_words_, "node bit set too small");
  std::fill(nodes.begin(), nodes.begin() + static_cast<std::ptrdiff_t>(node_words_), 0);
  const auto first = static_cast<std::size_t>(std::clamp<std::int64_t>(
      free_bucket(milli), 0, static_cast<std::int64_t>(free_bucket_count_)));
  for (std::size_t b = first; b < free_bucket_count_; ++b) {
    const std::uint64_t* words = free_buckets_.data() + b * node_words_;
    for (std::size_t w = 0; w < node_words_; ++w) nodes[w] |= words[w];
  }
}

std::int32_t ClusterState::view_of(NodeIndex n, int gpu) const {
  const std::size_t i = gpu_offset_[n] + static_cast<std::size_t>(gpu);
  const std::int32_t limit = nodes_[n].max_pods_per_gpu;
  const bool full = limit > 0 && gpu_pods_[i] >= limit;
  return gpu_healthy(n, gpu) && !full ? gpu_free_[i] : 0;
}

void ClusterState::refresh_view(NodeIndex n, int gpu) {
  const std::size_t i = gpu_offset_[n] + static_cast<std::size_t>(gpu);
  const std::int32_t view = view_of(n, gpu);
  node_gpu_free_[n] += view - gpu_view_[i];
  gpu_view_[i] = view;
  move_to_free_bucket(n);
  if (view == kMilliPerGpu) {
    whole_free_[n].add(gpu);
  } else {
    whole_free_[n].remove(gpu);
  }
}

bool ClusterState::fits(const PodSpec& pod, const Placement& placement) const {
  const NodeIndex n = placement.node;
  if (n >= nodes_.size()) return false;
  if (cpu_free_[n] < pod.cpu_milli || memory_free_[n] < pod.memory_mib) return false;
  if (rdma_free_[n] < pod.rdma_percent || !app_has_room(pod, n)) return false;
  if (placement.gpus.size() != pod.gpu_count) return false;
  const NodeSpec& node = nodes_[n];
  if (pod.gpu_count == 0) return true;
  if (!pod.allowed_models.allows(node.gpu_model)) return false;
  if (placement.gpus.any_from(node.gpu_count)) return false;  // an index beyond the node
  const auto free = gpu_milli_free(n);
  for (int g = 0; g < node.gpu_count; ++g) {
    // An unhealthy GPU reads 0 free, so it never fits.
    if (placement.gpus.contains(g) && free[g] < pod.gpu_milli) return false;
  }
  return true;
}

void ClusterState::allocate(const PodSpec& pod, const Placement& placement, bool counts_as_pod) {
  GPUSIM_CHECK(fits(pod, placement) && (!counts_as_pod || has_pod_room(placement.node)),
               fmt::format("pod {} does not fit on node {} GPUs {}", pod.name,
                           placement.node < nodes_.size() ? nodes_[placement.node].name : "?",
                           placement.gpus.lowest()));
  const NodeIndex n = placement.node;
  pods_[n] += counts_as_pod ? 1 : 0;
  if (counts_as_pod) count_nonzero(pod, n, 1);
  cpu_free_[n] -= pod.cpu_milli;
  memory_free_[n] -= pod.memory_mib;
  rdma_free_[n] -= pod.rdma_percent;
  if (pod.app >= 0) count_app(n, pod.app, 1);
  allocated_cpu_ += pod.cpu_milli;
  allocated_memory_ += pod.memory_mib;
  std::int32_t* free = gpu_free_.data() + gpu_offset_[n];
  std::int32_t* pods = gpu_pods_.data() + gpu_offset_[n];
  for (int g = 0; g < nodes_[n].gpu_count; ++g) {
    if (!placement.gpus.contains(g)) continue;
    if (free[g] == kMilliPerGpu) ++gpus_in_use_;
    free[g] -= pod.gpu_milli;
    ++pods[g];
    refresh_view(n, g);  // fits() guarantees the GPU is healthy and below the pods-per-GPU limit
    allocated_gpu_milli_ += pod.gpu_milli;
  }
  changed(n);
}

void ClusterState::release(const PodSpec& pod, const Placement& placement, bool counts_as_pod) {
  const NodeIndex n = placement.node;
  GPUSIM_CHECK(n < nodes_.size(), "release on an unknown node");
  GPUSIM_CHECK(!counts_as_pod || pods_[n] > 0, fmt::format("release of pod {}: node {} holds no pod", pod.name, nodes_[n].name));
  pods_[n] -= counts_as_pod ? 1 : 0;
  if (counts_as_pod) count_nonzero(pod, n, -1);
  GPUSIM_CHECK(cpu_free_[n] + pod.cpu_milli <= nodes_[n].cpu_milli &&
                   memory_free_[n] + pod.memory_mib <= nodes_[n].memory_mib &&
                   rdma_free_[n] + pod.rdma_percent <= nodes_[n].rdma_percent,
               fmt::format("release of pod {} would exceed node {} capacity", pod.name,
                           nodes_[n].name));
  std::int32_t* free = gpu_free_.data() + gpu_offset_[n];
  for (int g = 0; g < nodes_[n].gpu_count; ++g) {
    if (!placement.gpus.contains(g)) continue;
    GPUSIM_CHECK(free[g] + pod.gpu_milli <= kMilliPerGpu,
                 fmt::format("release of pod {} would exceed GPU {} of node {}", pod.name, g,
                             nodes_[n].name));
  }
  cpu_free_[n] += pod.cpu_milli;
  memory_free_[n] += pod.memory_mib;
  rdma_free_[n] += pod.rdma_percent;
  if (pod.app >= 0) count_app(n, pod.app, -1);
  allocated_cpu_ -= pod.cpu_milli;
  allocated_memory_ -= pod.memory_mib;
  std::int32_t* pods = gpu_pods_.data() + gpu_offset_[n];
  for (int g = 0; g < nodes_[n].gpu_count; ++g) {
    if (!placement.gpus.contains(g)) continue;
    GPUSIM_CHECK(pods[g] > 0, fmt::format("release of pod {} from GPU {} of node {}, which holds none", pod.name, g,
                                          nodes_[n].name));
    free[g] += pod.gpu_milli;
    --pods[g];
    if (free[g] == kMilliPerGpu) --gpus_in_use_;
    refresh_view(n, g);
    allocated_gpu_milli_ -= pod.gpu_milli;
  }
  changed(n);
}

std::int32_t ClusterState::app_pods(NodeIndex n, std::int32_t app) const {
  const auto& counts = app_pods_[n];
  const auto it = std::lower_bound(counts.begin(), counts.end(), app, [](const auto& entry, std::int32_t a) { return entry.first < a; });
  return it != counts.end() && it->first == app ? it->second : 0;
}

void ClusterState::count_app(NodeIndex n, std::int32_t app, std::int32_t delta) {
  auto& counts = app_pods_[n];
  auto it = std::lower_bound(counts.begin(), counts.end(), app, [](const auto& entry, std::int32_t a) { return entry.first < a; });
  if (it == counts.end() || it->first != app) {
    GPUSIM_CHECK(delta > 0, fmt::format("release of an instance of service {} from node {}, which holds none", app, nodes_[n].name));
    it = counts.insert(it, {app, 0});
  }
  it->second += delta;
  GPUSIM_CHECK(it->second >= 0, "instances of a service on a node below zero");
  if (it->second == 0) counts.erase(it);
}

void ClusterState::set_taints(NodeIndex n, std::vector<Taint> taints) {
  tainted_nodes_ -= taints_.at(n).empty() ? 0 : 1;
  taints_[n] = std::move(taints);
  tainted_nodes_ += taints_[n].empty() ? 0 : 1;
  changed(n);
}

void ClusterState::set_device_class(NodeIndex n, int device, std::uint8_t device_class) {
  GPUSIM_CHECK(device_class < kDeviceClasses, "a device class out of range");
  std::uint8_t& current = nodes_.at(n).device_class.at(static_cast<std::size_t>(device));
  class_devices_[n * kDeviceClasses + current].remove(device);
  class_devices_[n * kDeviceClasses + device_class].add(device);
  current = device_class;
  changed(n);
}

void ClusterState::count_nonzero(const PodSpec& pod, NodeIndex n, std::int64_t sign) {
  // A trace pod (one container) that asks both counts as it asks: the common case, kept cheap.
  if (pod.constraints == nullptr && pod.cpu_milli > 0 && pod.memory_mib > 0) return;
  const CpuMemory nonzero = nonzero_requests(pod);
  nonzero_extra_cpu_[n] += sign * (nonzero.cpu_milli - pod.cpu_milli);
  nonzero_extra_memory_[n] += sign * (nonzero.memory_mib - pod.memory_mib);
}

void ClusterState::set_present(NodeIndex n, bool present) {
  if ((present_.at(n) != 0) != present) present_count_ = present ? present_count_ + 1 : present_count_ - 1;
  present_.at(n) = present ? 1 : 0;
  changed(n);
}

void ClusterState::set_gpu_healthy(NodeIndex n, int gpu, bool healthy) {
  GPUSIM_CHECK(n < nodes_.size() && gpu >= 0 && gpu < nodes_[n].gpu_count,
               "health change of an unknown GPU");
  if (gpu_healthy(n, gpu) == healthy) return;
  if (healthy) {
    unhealthy_[n].remove(gpu);
  } else {
    unhealthy_[n].add(gpu);
  }
  refresh_view(n, gpu);
  changed(n);
}

void ClusterState::check_invariants() const {
  GPUSIM_CHECK(present_count_ == static_cast<std::size_t>(std::count(present_.begin(), present_.end(), std::uint8_t{1})),
               "present node count out of step");
  std::int64_t allocated_gpu = 0, in_use = 0, allocated_cpu = 0, allocated_memory = 0;
  for (std::size_t n = 0; n < nodes_.size(); ++n) {
    const NodeSpec& node = nodes_[n];
    GPUSIM_CHECK(cpu_free_[n] >= 0 && cpu_free_[n] <= node.cpu_milli, "CPU out of range");
    GPUSIM_CHECK(memory_free_[n] >= 0 && memory_free_[n] <= node.memory_mib,
                 "memory out of range");
    GPUSIM_CHECK(rdma_free_[n] >= 0 && rdma_free_[n] <= node.rdma_percent, "RDMA out of range");
    GPUSIM_CHECK(pods_[n] >= 0 && (node.max_pods <= 0 || pods_[n] <= node.max_pods), "pod count out of range");
    GPUSIM_CHECK(nonzero_extra_cpu_[n] >= 0 && nonzero_extra_memory_[n] >= 0 && (pods_[n] > 0 || (nonzero_extra_cpu_[n] == 0 && nonzero_extra_memory_[n] == 0)),
                 "non-zero requests out of step");
    allocated_cpu += node.cpu_milli - cpu_free_[n];
    allocated_memory += node.memory_mib - memory_free_[n];
    std::int64_t node_free = 0;
    for (int g = 0; g < node.gpu_count; ++g) {
      const std::size_t i = gpu_offset_[n] + static_cast<std::size_t>(g);
      const std::int32_t free = gpu_free_[i];
      GPUSIM_CHECK(free >= 0 && free <= kMilliPerGpu, "GPU milli out of range");
      GPUSIM_CHECK(gpu_pods_[i] >= 0 && (free == kMilliPerGpu || gpu_pods_[i] > 0), "pods-per-GPU count out of step");
      GPUSIM_CHECK(gpu_view_[i] == view_of(static_cast<NodeIndex>(n), g), "scheduler view of a GPU out of step");
      GPUSIM_CHECK(whole_free_[n].contains(g) == (gpu_view_[i] == kMilliPerGpu),
                   "whole-free devices out of step");
      node_free += gpu_view_[i];
      allocated_gpu += kMilliPerGpu - free;
      if (free < kMilliPerGpu) ++in_use;
    }
    GPUSIM_CHECK(node_free == node_gpu_free_[n], "node GPU total out of step");
    const std::int64_t bucket = free_bucket(node_free);
    GPUSIM_CHECK(bucket == free_bucket_of_[n], "free-GPU bucket out of step");
    for (std::size_t b = 0; b < free_bucket_count_; ++b) {
      const bool in_b = ((free_buckets_[b * node_words_ + n / 64] >> (n % 64)) & 1U) != 0;
      GPUSIM_CHECK(in_b == (static_cast<std::int64_t>(b) == bucket), "free-GPU bucket sets out of step");
    }
  }
  GPUSIM_CHECK(allocated_gpu == allocated_gpu_milli_, "allocated GPU milli out of step");
  GPUSIM_CHECK(in_use == gpus_in_use_, "GPUs-in-use count out of step");
  GPUSIM_CHECK(allocated_cpu == allocated_cpu_, "allocated CPU out of step");
  GPUSIM_CHECK(allocated_memory == allocated_memory_, "allocated memory out of step");
}

void ClusterState::changed(NodeIndex n) {
  ++version_[n];
  if (changes_.size() == changes_.capacity()) {
    // Keep the newer half: a caller further behind than that starts over from all nodes.
    const std::size_t dropped = changes_.size() / 2;
    changes_.erase(changes_.begin(), changes_.begin() + static_cast<std::ptrdiff_t>(dropped));
    changes_base_ += dropped;
  }
  changes_.push_back(n);
}

std::optional<std::span<const NodeIndex>> ClusterState::changes_since(std::uint64_t mark) const {
  if (mark < changes_base_ || mark > change_mark()) return std::nullopt;
  return std::span<const NodeIndex>(changes_).subspan(static_cast<std::size_t>(mark - changes_base_));
}

}  // namespace gpusim::cluster
