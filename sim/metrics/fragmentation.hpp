#pragma once
// GPU fragmentation as defined by the FGD paper (Weng et al., USENIX ATC'23, §3): a node's
// fragmentation is the expected amount of its idle GPU milli that a pod drawn from the target
// workload ("typical pods") could not use. Used both by the FGD score plugin and by the
// cluster-level fragmentation metric in reports.
#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "sim/cluster/gpu_catalog.hpp"
#include "sim/cluster/pod.hpp"

namespace gpusim::metrics {

// One resource shape of the target workload and its probability.
struct TypicalPod {
  std::int64_t cpu_milli = 0;
  std::int32_t gpu_milli = 0;
  std::int32_t gpu_count = 0;
  cluster::GpuModelSet models;
  std::int64_t count = 0;      // pods of this shape in the workload
  double probability = 0;      // renormalised over the kept shapes
};

// Groups pods by (CPU, GPU milli, GPU count, allowed models), sorts by count (ties: larger CPU,
// then GPU milli, GPU count, model set first) and keeps the most popular shapes until they
// cover `popularity` of all pods (inclusive). CPU-only pods take part.
std::vector<TypicalPod> typical_pods(std::span<const cluster::PodSpec> pods, double popularity = 0.95);

// The FGD paper's buckets. Q3 ("the pod fits") holds usable idle milli; the rest is fragment.
enum class FragBucket : std::uint8_t { kQ1, kQ2, kQ3, kQ4, kXL, kXR, kNoAccess };
using FragBuckets = std::array<double, 7>;

// A node as fragmentation sees it.
struct NodeResources {
  std::int64_t cpu_milli_free = 0;
  std::span<const std::int32_t> gpu_milli_free;  // per GPU
  cluster::GpuModelId gpu_model = 0;
};

// Expected fragmented GPU milli of `node` under `workload`, bucket by bucket.
FragBuckets fragmentation_buckets(std::span<const TypicalPod> workload, const NodeResources& node);
// Sum of all buckets except Q3, added in bucket order.
double fragmentation_milli(const FragBuckets& buckets);
inline double fragmentation_milli(std::span<const TypicalPod> workload, const NodeResources& node) {
  return fragmentation_milli(fragmentation_buckets(workload, node));
}

}  // namespace gpusim::metrics
