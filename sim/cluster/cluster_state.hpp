#pragma once
// The cluster's mutable resource state: what is free on every node and on every GPU, and
// which pod holds what. Allocation can never exceed capacity: every change is checked, and a
// violation is an engine bug (core::InvariantViolation). Policies only ever see it const.
//
// Storage is flat (structure of arrays) so that Filter and Score scan it without pointer
// chasing; each node carries a version that increases on every change, which lets policies
// cache per-node results.
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "sim/cluster/gpu_catalog.hpp"
#include "sim/cluster/node.hpp"
#include "sim/cluster/pod.hpp"

namespace gpusim::cluster {

using NodeIndex = std::uint32_t;

// Where a pod runs: a node and the GPU indices on it (empty for CPU-only pods).
struct Placement {
  NodeIndex node = 0;
  GpuSet gpus;
  friend bool operator==(const Placement&, const Placement&) = default;
};

class ClusterState {
 public:
  ClusterState(const GpuCatalog& catalog, std::vector<NodeSpec> nodes);

  const GpuCatalog& catalog() const { return *catalog_; }
  std::size_t node_count() const { return nodes_.size(); }
  const NodeSpec& node(NodeIndex n) const { return nodes_[n]; }

  std::int64_t cpu_free(NodeIndex n) const { return cpu_free_[n]; }
  std::int64_t memory_free(NodeIndex n) const { return memory_free_[n]; }
  // kube-scheduler's NodeInfo.NonZeroRequested: what the pods on node n ask, a container that asks
  // no CPU (memory) counted as 100m (200 MiB) (sim/cluster/nonzero_requests.hpp). Scores use it.
  std::int64_t nonzero_cpu_requested(NodeIndex n) const {
    return nodes_[n].cpu_milli - cpu_free_[n] + nonzero_extra_cpu_[n];
  }
  std::int64_t nonzero_memory_requested(NodeIndex n) const {
    return nodes_[n].memory_mib - memory_free_[n] + nonzero_extra_memory_[n];
  }
  // RDMA bandwidth free on node n, in percent of one NIC.
  std::int32_t rdma_free(NodeIndex n) const { return rdma_free_[n]; }
  // Instances of service `app` (PodSpec::app) on node n.
  std::int32_t app_pods(NodeIndex n, std::int32_t app) const;
  // Whether node n has room for one more instance of the pod's service (PodSpec::max_per_node).
  bool app_has_room(const PodSpec& pod, NodeIndex n) const {
    return pod.max_per_node <= 0 || app_pods(n, pod.app) < pod.max_per_node;
  }
  // Milli free for scheduling on each GPU of node n, indexed by GPU index. An unhealthy GPU
  // reads 0, so every policy skips it without knowing about health.
  std::span<const std::int32_t> gpu_milli_free(NodeIndex n) const {
    return {gpu_view_.data() + gpu_offset_[n], static_cast<std::size_t>(nodes_[n].gpu_count)};
  }
  // Milli not allocated to any pod on each GPU of node n, healthy or not.
  std::span<const std::int32_t> gpu_milli_unallocated(NodeIndex n) const {
    return {gpu_free_.data() + gpu_offset_[n], static_cast<std::size_t>(nodes_[n].gpu_count)};
  }
  // Pods holding each GPU of node n (a pod counts once per GPU it holds).
  std::span<const std::int32_t> gpu_pods(NodeIndex n) const {
    return {gpu_pods_.data() + gpu_offset_[n], static_cast<std::size_t>(nodes_[n].gpu_count)};
  }
  // Sum of gpu_milli_free(n).
  std::int64_t node_gpu_milli_free(NodeIndex n) const { return node_gpu_free_[n]; }
  // Writes into `nodes` (a bit per node index, node_words() words) every node whose free GPU
  // share, rounded up to whole GPUs, reaches `milli` rounded up: a superset of the nodes with
  // node_gpu_milli_free(n) >= milli, found without visiting each node. The scheduler filters
  // only these for a GPU pod, since the GPU filter rejects every other node.
  void nodes_with_gpu_free(std::int64_t milli, std::span<std::uint64_t> nodes) const;
  std::size_t node_words() const { return node_words_; }
  // The devices of node n whose whole share is free for scheduling (gpu_milli_free == 1000).
  const GpuSet& whole_free_devices(NodeIndex n) const { return whole_free_[n]; }
  // The devices of node n advertised under `device_class` (NodeSpec::device_class; MIG mixed).
  GpuSet devices_of_class(NodeIndex n, std::uint8_t device_class) const {
    return device_class < kDeviceClasses ? class_devices_[n * kDeviceClasses + device_class] : GpuSet{};
  }
  // Device classes a node may use: 0 and 1 + each MIG shape.
  static constexpr std::size_t kDeviceClasses = 8;
  bool gpu_healthy(NodeIndex n, int gpu) const { return !unhealthy_[n].contains(gpu); }
  // Marks a GPU healthy or not (device-plugin health). Pods already on it keep their share.
  void set_gpu_healthy(NodeIndex n, int gpu, bool healthy);
  // The node's taints now (its spec's, then as the node lifecycle changes them).
  const std::vector<Taint>& taints(NodeIndex n) const { return taints_[n]; }
  void set_taints(NodeIndex n, std::vector<Taint> taints);
  // A node's devices advertised under other resources (dynamic MIG re-partitioned a GPU).
  void set_device_class(NodeIndex n, int device, std::uint8_t device_class);
  // Nodes with at least one taint (so a pod-level check can skip untainted clusters).
  std::size_t tainted_nodes() const { return tainted_nodes_; }
  // Whether the node is part of the cluster (nodes may join late or leave); the framework
  // considers present nodes only.
  bool present(NodeIndex n) const { return present_[n] != 0; }
  void set_present(NodeIndex n, bool present);
  // How many nodes are present (kube-scheduler's snapshot size, for percentageOfNodesToScore).
  std::size_t present_count() const { return present_count_; }
  // Increases on every change to node n.
  std::uint64_t version(NodeIndex n) const { return version_[n]; }
  // The nodes in the order they changed, a node once per change: callers that keep per-node
  // results revisit only these. change_mark() names the present point; changes_since(mark) the
  // nodes changed after it, oldest first, or nullopt when they are no longer kept (the log keeps
  // the latest N + 512 to 2N + 1024 changes, N the node count; then visit every node).
  std::uint64_t change_mark() const { return changes_base_ + changes_.size(); }
  std::optional<std::span<const NodeIndex>> changes_since(std::uint64_t mark) const;

  // Whether `placement` can take `pod` now: resources free and the GPU set well formed.
  bool fits(const PodSpec& pod, const Placement& placement) const;
  // Takes the resources. Precondition: fits(pod, placement) (checked).
  // `counts_as_pod` false: devices held for no pod object (the 1.6 GPU manager's freeing delay),
  // which take no room of the node's pod count.
  void allocate(const PodSpec& pod, const Placement& placement, bool counts_as_pod = true);
  // Returns what `allocate` took. Checked against capacity.
  void release(const PodSpec& pod, const Placement& placement, bool counts_as_pod = true);
  // Pods on node n, and whether it has room for one more (NodeSpec::max_pods).
  std::int32_t pods_on(NodeIndex n) const { return pods_[n]; }
  bool has_pod_room(NodeIndex n) const { return nodes_[n].max_pods <= 0 || pods_[n] < nodes_[n].max_pods; }

  // Cluster totals, kept incrementally.
  std::int64_t total_gpus() const { return total_gpus_; }
  std::int64_t total_gpu_milli() const { return total_gpus_ * kMilliPerGpu; }
  std::int64_t allocated_gpu_milli() const { return allocated_gpu_milli_; }
  // GPUs with any milli allocated (the FGD artifact's "Gpu" allocation count).
  std::int64_t gpus_in_use() const { return gpus_in_use_; }
  std::int64_t total_cpu_milli() const { return total_cpu_; }
  std::int64_t allocated_cpu_milli() const { return allocated_cpu_; }
  std::int64_t total_memory_mib() const { return total_memory_; }
  std::int64_t allocated_memory_mib() const { return allocated_memory_; }

  // Recomputes every total from scratch and checks it against the incremental one.
  void check_invariants() const;

 private:
  const GpuCatalog* catalog_;
  std::vector<NodeSpec> nodes_;
  std::vector<std::int64_t> cpu_free_;
  std::vector<std::int64_t> memory_free_;
  std::vector<std::int32_t> rdma_free_;
  std::vector<std::int32_t> pods_;  // pods allocated on each node
  // Per node, what its pods' non-zero requests add to their requests (nonzero_cpu_requested).
  std::vector<std::int64_t> nonzero_extra_cpu_;
  std::vector<std::int64_t> nonzero_extra_memory_;
  // Per node, (service, instances) sorted by service: few services share a node, so a short
  // sorted list beats a node x service table.
  std::vector<std::vector<std::pair<std::int32_t, std::int32_t>>> app_pods_;
  void count_app(NodeIndex n, std::int32_t app, std::int32_t delta);
  void count_nonzero(const PodSpec& pod, NodeIndex n, std::int64_t sign);
  std::vector<std::int64_t> node_gpu_free_;
  // Nodes bucketed by node_gpu_free_ rounded up to whole GPUs: bucket b is a bit set over the
  // nodes (node_words_ words each) whose free share is in (b - 1, b] GPUs.
  std::size_t node_words_ = 0;
  std::vector<std::uint64_t> free_buckets_;
  std::vector<std::uint16_t> free_bucket_of_;  // per node, its bucket
  std::size_t free_bucket_count_ = 0;         // 1 + the most GPUs on a node
  static std::int64_t free_bucket(std::int64_t milli) { return (milli + kMilliPerGpu - 1) / kMilliPerGpu; }
  void move_to_free_bucket(NodeIndex n);
  std::vector<std::uint64_t> version_;
  void changed(NodeIndex n);  // bumps n's version and logs the change
  std::vector<NodeIndex> changes_;
  std::uint64_t changes_base_ = 0;  // the change mark of changes_[0]
  std::vector<std::size_t> gpu_offset_;
  std::vector<std::int32_t> gpu_free_;  // real milli free per GPU
  // What the scheduler sees: gpu_free_, or 0 if unhealthy or at the node's pods-per-GPU limit.
  std::vector<std::int32_t> gpu_view_;
  std::vector<std::int32_t> gpu_pods_;  // pods holding each GPU
  std::int32_t view_of(NodeIndex n, int gpu) const;
  // Sets GPU i's (of node n) view from its state and keeps the node's total in step.
  void refresh_view(NodeIndex n, int gpu);
  std::vector<GpuSet> unhealthy_;      // per node
  std::vector<GpuSet> whole_free_;     // per node: the GPUs whose view is a whole GPU
  std::vector<GpuSet> class_devices_;  // per node and device class: its GPUs
  std::vector<std::vector<Taint>> taints_;
  std::vector<std::uint8_t> present_;
  std::size_t present_count_ = 0;
  std::size_t tainted_nodes_ = 0;
  std::int64_t total_gpus_ = 0;
  std::int64_t total_cpu_ = 0;
  std::int64_t total_memory_ = 0;
  std::int64_t allocated_gpu_milli_ = 0;
  std::int64_t gpus_in_use_ = 0;
  std::int64_t allocated_cpu_ = 0;
  std::int64_t allocated_memory_ = 0;
};

}  // namespace gpusim::cluster
