#include "sim/k8s/hami_scheduler.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>

#include "sim/core/check.hpp"
#include "sim/k8s/device_memory.hpp"
#include "sim/k8s/node_setup.hpp"

namespace gpusim::k8s {

HamiScheduler::HamiScheduler(std::span<const NodeSetup> setup, std::span<const topology::Topology* const> topologies,
                             std::span<const cluster::NodeSpec> nodes, const cluster::GpuCatalog& catalog,
                             HamiNodePolicy node_policy)
    : topologies_(topologies.begin(), topologies.end()), node_policy_(node_policy) {
  GPUSIM_CHECK(setup.size() == nodes.size() && topologies.size() == nodes.size(), "HAMi scheduler: per-node inputs differ in size");
  config_of_.resize(nodes.size(), nullptr);
  offset_.resize(nodes.size() + 1, 0);
  registered_mib_.assign(nodes.size(), 0);
  for (std::size_t n = 0; n < nodes.size(); ++n) {
    if (setup[n].model == DevicePluginModel::kHamiVgpu) {
      config_of_[n] = &setup[n].hami;
      if (nodes[n].gpu_count > 0) {
        registered_mib_[n] = hami_registered_mib(nodes[n], catalog, setup[n].hami.device_memory_scaling);
      }
    }
    offset_[n + 1] = offset_[n] + static_cast<std::size_t>(nodes[n].gpu_count);
  }
  cores_used_.assign(offset_.back(), 0);
  memory_used_.assign(offset_.back(), 0);
  memory_mib_used_.assign(offset_.back(), 0);
  order_.reserve(cluster::kMaxGpusPerNode);
  order_score_.resize(cluster::kMaxGpusPerNode);
}

HamiScheduler::Ask HamiScheduler::ask_of(const sched::PodSpec& pod, const HamiConfig& config, std::int64_t registered_mib) {
  // A share of the registered memory in MiB, rounded down: it never asks more than its share.
  const auto mib_of = [&](std::int32_t thousandths) { return registered_mib * thousandths / cluster::kMilliPerGpu; };
  if (pod.constraints != nullptr && pod.constraints->gpu_resource == cluster::GpuResource::kHamiVgpu) {
    // A manifest's nvidia.com/gpumem (or -percentage) and gpucores; its gpu_milli is that memory's
    // share of the registered memory (sim/experiment/device_shares.hpp).
    const cluster::HamiAsk& a = pod.constraints->hami;
    const std::int64_t mib = a.memory_mib > 0 ? a.memory_mib : registered_mib * a.memory_percent / 100;
    return {a.cores_percent * cluster::kMilliPerGpu / 100, pod.gpu_milli, mib};
  }
  // nvidia.com/gpu alone: 100 % of the registered memory and (HAMi 2.8+) gpucores 100, a whole GPU.
  if (pod.gpu_milli >= cluster::kMilliPerGpu) return {cluster::kMilliPerGpu, cluster::kMilliPerGpu, registered_mib};
  if (!config.fraction_asks_cores) return {0, pod.gpu_milli, mib_of(pod.gpu_milli)};  // already fraction / scaling
  // The same share of cores and of the physical memory, which is fraction / scaling of the
  // registered memory (rounded up, as a request in whole MiB would be).
  const auto memory = std::max<std::int32_t>(
      1, static_cast<std::int32_t>(std::ceil(static_cast<double>(pod.gpu_milli) / config.device_memory_scaling - 1e-9)));
  return {pod.gpu_milli, memory, mib_of(memory)};
}

bool HamiScheduler::device_fits(sched::NodeIndex n, int gpu, Ask ask, const sched::ClusterState& cluster) const {
  const std::size_t i = offset_[n] + static_cast<std::size_t>(gpu);
  if (memory_mib_used_[i] + ask.memory_mib > registered_mib_[n]) return false;
  if (cores_used_[i] + ask.cores > cluster::kMilliPerGpu) return false;
  // gpucores 100 wants the device to itself; a device whose cores are all taken takes no one.
  if (ask.cores == cluster::kMilliPerGpu && cluster.gpu_pods(n)[static_cast<std::size_t>(gpu)] > 0) return false;
  return !(cores_used_[i] == cluster::kMilliPerGpu && ask.cores == 0);
}

bool HamiScheduler::node_fits(const sched::PodSpec& pod, sched::NodeIndex n, const sched::ClusterState& cluster) const {
  const Ask ask = ask_of(pod, *config_of_[n], registered_mib_[n]);
  const auto free = cluster.gpu_milli_free(n);
  int fitting = 0;
  for (int g = 0; g < static_cast<int>(free.size()) && fitting < pod.gpu_count; ++g) {
    fitting += free[static_cast<std::size_t>(g)] >= pod.gpu_milli && device_fits(n, g, ask, cluster) ? 1 : 0;
  }
  return fitting >= pod.gpu_count;
}

double HamiScheduler::node_score(sched::NodeIndex n, const sched::ClusterState& cluster) const {
  const auto pods = cluster.gpu_pods(n);
  const auto gpus = static_cast<double>(pods.size());
  if (pods.empty()) return 0;
  const std::size_t first = offset_[n];
  const double used = std::accumulate(pods.begin(), pods.end(), 0.0);
  const double cores = std::accumulate(cores_used_.begin() + static_cast<std::ptrdiff_t>(first),
                                       cores_used_.begin() + static_cast<std::ptrdiff_t>(first + pods.size()), 0.0);
  const double memory = std::accumulate(memory_used_.begin() + static_cast<std::ptrdiff_t>(first),
                                        memory_used_.begin() + static_cast<std::ptrdiff_t>(first + pods.size()), 0.0);
  const double count = gpus * config_of_[n]->device_split_count;
  const double total = gpus * cluster::kMilliPerGpu;
  return 10 * (used / count + cores / total + memory / total);
}

double HamiScheduler::gpu_score(sched::NodeIndex n, int gpu, Ask ask, const sched::ClusterState& cluster) const {
  const std::size_t i = offset_[n] + static_cast<std::size_t>(gpu);
  const double used = cluster.gpu_pods(n)[static_cast<std::size_t>(gpu)] + 1;
  return 10 * (used / config_of_[n]->device_split_count + (cores_used_[i] + ask.cores) / double{cluster::kMilliPerGpu} +
               (memory_used_[i] + ask.memory) / double{cluster::kMilliPerGpu});
}

void HamiScheduler::filter(const sched::PodSpec& pod, std::vector<sched::NodeIndex>& feasible,
                           const sched::ClusterState& cluster) {
  if (!pod.wants_gpu()) return;
  // HAMi's extender answers with one node: the HAMi node its policy ranks first (feasible is in
  // node order, so equal scores go to the earliest node; HAMi leaves ties to goroutine order).
  bool found = false;
  sched::NodeIndex best = 0;
  double best_score = 0;
  // A trace pod's share of the cluster state already bounds its memory and cores; a manifest's
  // asks of them are checked here.
  const bool exact = pod.constraints != nullptr;
  for (const sched::NodeIndex n : feasible) {
    if (config_of_[n] == nullptr || (exact && !node_fits(pod, n, cluster))) continue;
    const double score = node_score(n, cluster);
    const bool better = node_policy_ == HamiNodePolicy::kBinpack ? score > best_score : score < best_score;
    if (!found || better) {
      found = true;
      best = n;
      best_score = score;
    }
  }
  if (!found) {
    // No HAMi node can take it: the other nodes' device plugins serve it, unless it asks gpumem
    // or gpucores, which only HAMi's scheduler counts.
    if (pod.constraints != nullptr && pod.constraints->gpu_resource == cluster::GpuResource::kHamiVgpu) feasible.clear();
    return;
  }
  feasible.assign(1, best);
}

cluster::GpuSet HamiScheduler::select(const sched::PodSpec& pod, sched::NodeIndex n, const sched::ClusterState& cluster) {
  const HamiConfig& config = *config_of_[n];
  const Ask ask = ask_of(pod, config, registered_mib_[n]);
  const auto free = cluster.gpu_milli_free(n);  // 0 where unhealthy or at deviceSplitCount
  // The devices that fit, in the order Fit tries them: least loaded first (spread, topology-aware)
  // or most loaded first (binpack); equal scores in index order.
  order_.clear();
  for (int g = 0; g < static_cast<int>(free.size()); ++g) {
    if (free[static_cast<std::size_t>(g)] < pod.gpu_milli || !device_fits(n, g, ask, cluster)) continue;
    order_score_[static_cast<std::size_t>(g)] = gpu_score(n, g, ask, cluster);
    order_.push_back(g);
  }
  const bool most_loaded_first = config.gpu_policy == HamiGpuPolicy::kBinpack;
  std::sort(order_.begin(), order_.end(), [&](int a, int b) {
    const double sa = order_score_[static_cast<std::size_t>(a)];
    const double sb = order_score_[static_cast<std::size_t>(b)];
    if (sa != sb) return most_loaded_first ? sa > sb : sa < sb;
    return a < b;
  });
  cluster::GpuSet chosen;
  const auto k = static_cast<std::size_t>(pod.gpu_count);
  if (order_.size() < k) return chosen;  // cannot happen after gpu-fit; the caller's check says so
  const topology::Topology* t = topologies_[n];
  if (config.gpu_policy != HamiGpuPolicy::kTopologyAware || t == nullptr || order_.size() == k) {
    // Greedy first fit in that order (without link scores topology-aware takes the first k too).
    for (std::size_t i = 0; i < k; ++i) chosen.add(order_[i]);
    return chosen;
  }
  if (k == 1) {
    // The candidate least connected to the other candidates keeps well-linked groups whole.
    int best = -1;
    int best_links = 0;
    for (const int g : order_) {
      int links = 0;
      for (const int other : order_) links += other == g ? 0 : t->pair_score(g, other);
      if (best < 0 || links < best_links) {
        best = g;
        best_links = links;
      }
    }
    chosen.add(best);
    return chosen;
  }
  // Every combination of k candidates in order; the first with the highest sum of pair scores.
  std::array<std::size_t, cluster::kMaxGpusPerNode> pick;  // its first k are set below
  std::iota(pick.begin(), pick.begin() + static_cast<std::ptrdiff_t>(k), std::size_t{0});
  int best_sum = -1;
  const std::size_t m = order_.size();
  while (true) {
    int sum = 0;
    for (std::size_t a = 0; a < k; ++a) {
      for (std::size_t b = a + 1; b < k; ++b) sum += t->pair_score(order_[pick[a]], order_[pick[b]]);
    }
    if (sum > best_sum) {
      best_sum = sum;
      chosen = {};
      for (std::size_t a = 0; a < k; ++a) chosen.add(order_[pick[a]]);
    }
    // The next combination in lexicographic order.
    std::size_t i = k;
    while (i > 0 && pick[i - 1] == m - k + (i - 1)) --i;
    if (i == 0) break;
    ++pick[i - 1];
    for (std::size_t j = i; j < k; ++j) pick[j] = pick[j - 1] + 1;
  }
  return chosen;
}

void HamiScheduler::account(const sched::PodSpec& pod, const cluster::Placement& placement, int sign) {
  const HamiConfig* config = config_of_[placement.node];
  if (config == nullptr || !pod.wants_gpu()) return;
  const Ask ask = ask_of(pod, *config, registered_mib_[placement.node]);
  const std::size_t first = offset_[placement.node];
  for (std::size_t g = 0; g < offset_[placement.node + 1] - first; ++g) {
    if (!placement.gpus.contains(static_cast<int>(g))) continue;
    cores_used_[first + g] += sign * ask.cores;
    memory_used_[first + g] += sign * ask.memory;
    memory_mib_used_[first + g] += sign * ask.memory_mib;
    GPUSIM_CHECK(cores_used_[first + g] >= 0 && memory_used_[first + g] >= 0 && memory_mib_used_[first + g] >= 0,
                 "HAMi scheduler: device use below zero");
  }
}

}  // namespace gpusim::k8s
