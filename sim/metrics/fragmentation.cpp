#include "sim/metrics/fragmentation.hpp"

#include <algorithm>
#include <map>
#include <tuple>

namespace gpusim::metrics {

std::vector<TypicalPod> typical_pods(std::span<const cluster::PodSpec> pods, double popularity) {
  using Key = std::tuple<std::int64_t, std::int32_t, std::int32_t, std::uint64_t>;
  std::map<Key, std::int64_t> counts;
  for (const auto& pod : pods) {
    ++counts[{pod.cpu_milli, pod.gpu_milli, pod.gpu_count, pod.allowed_models.bits}];
  }
  std::vector<TypicalPod> shapes;
  for (const auto& [key, count] : counts) {
    const auto& [cpu, milli, gpus, models] = key;
    shapes.push_back(TypicalPod{cpu, milli, gpus, cluster::GpuModelSet{models}, count, 0.0});
  }
  // Most popular first; equal counts by larger CPU, GPU milli, GPU count, model bits (the FGD
  // artifact sorts its resource keys in reverse order the same way).
  std::sort(shapes.begin(), shapes.end(), [](const TypicalPod& a, const TypicalPod& b) {
    return std::tie(b.count, b.cpu_milli, b.gpu_milli, b.gpu_count, b.models.bits) <
           std::tie(a.count, a.cpu_milli, a.gpu_milli, a.gpu_count, a.models.bits);
  });
  const auto total = static_cast<double>(pods.size());
  const double wanted = popularity * total;
  double covered = 0;
  std::size_t kept = 0;
  while (kept < shapes.size() && covered < wanted) covered += static_cast<double>(shapes[kept++].count);
  shapes.resize(kept);
  for (auto& shape : shapes) {
    shape.probability = (static_cast<double>(shape.count) / total);
    if (covered < total) shape.probability /= covered / total;
  }
  return shapes;
}

FragBuckets fragmentation_buckets(std::span<const TypicalPod> workload, const NodeResources& node) {
  FragBuckets buckets{};
  double idle = 0;
  for (const std::int32_t free : node.gpu_milli_free) idle += free;
  if (idle == 0) return buckets;  // every term is a multiple of the idle milli
  for (const TypicalPod& pod : workload) {
    const double p = pod.probability;
    const bool cpu_fits = node.cpu_milli_free >= pod.cpu_milli;
    if (pod.gpu_milli == 0) {
      buckets[static_cast<int>(cpu_fits ? FragBucket::kXL : FragBucket::kXR)] += p * idle;
      continue;
    }
    if (!pod.models.allows(node.gpu_model)) {
      buckets[static_cast<int>(FragBucket::kNoAccess)] += p * idle;
      continue;
    }
    int fitting_gpus = 0;
    double unusable = 0;  // idle milli on GPUs too full for this shape
    for (const std::int32_t free : node.gpu_milli_free) {
      if (free >= pod.gpu_milli) ++fitting_gpus;
      else unusable += free;
    }
    const bool gpus_fit = fitting_gpus >= pod.gpu_count;
    if (gpus_fit && cpu_fits) {
      buckets[static_cast<int>(FragBucket::kQ2)] += p * unusable;
      buckets[static_cast<int>(FragBucket::kQ3)] += p * (idle - unusable);
    } else if (gpus_fit) {
      buckets[static_cast<int>(FragBucket::kQ4)] += p * idle;
    } else if (cpu_fits) {
      buckets[static_cast<int>(FragBucket::kQ2)] += p * idle;
    } else {
      buckets[static_cast<int>(FragBucket::kQ1)] += p * idle;
    }
  }
  return buckets;
}

double fragmentation_milli(const FragBuckets& buckets) {
  double sum = 0;
  for (std::size_t b = 0; b < buckets.size(); ++b) {
    if (b != static_cast<std::size_t>(FragBucket::kQ3)) sum += buckets[b];
  }
  return sum;
}

}  // namespace gpusim::metrics
