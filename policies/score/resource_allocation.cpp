#include "policies/score/resource_allocation.hpp"

#include <cmath>

#include "sim/sched/plugin.hpp"

namespace gpusim::policy {
namespace {

constexpr std::int64_t kMaxUtilization = 100;

// The score before issue 30: 0 where the node has none or too little, and the node's weight sum
// counts every resource.
std::int64_t legacy_score(ScoringStrategy strategy, Amount a) {
  if (a.allocatable == 0 || a.requested > a.allocatable) return 0;
  return strategy == ScoringStrategy::kLeastAllocated ? least_requested_score(a.requested, a.allocatable)
                                                      : most_requested_score(a.requested, a.allocatable);
}

}  // namespace

std::int64_t least_requested_score(std::int64_t requested, std::int64_t capacity) {
  if (capacity == 0 || requested > capacity) return 0;
  return (capacity - requested) * sched::kMaxNodeScore / capacity;
}

std::int64_t most_requested_score(std::int64_t requested, std::int64_t capacity) {
  if (capacity == 0) return 0;
  // Requested may pass capacity because pods without requests count the non-zero defaults.
  if (requested > capacity) requested = capacity;
  return requested * sched::kMaxNodeScore / capacity;
}

std::int64_t broken_linear(std::span<const ShapePoint> shape, std::int64_t utilization) {
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (utilization <= shape[i].utilization) {
      if (i == 0) return shape[0].score;
      const ShapePoint& a = shape[i - 1];
      const ShapePoint& b = shape[i];
      return a.score + (b.score - a.score) * (utilization - a.utilization) / (b.utilization - a.utilization);
    }
  }
  return shape.back().score;
}

void FitScorer::prepare(const cluster::PodSpec& pod) {
  prepared_ = &pod;
  asked_ = scored_requests(pod, scoring_.gpusim_legacy ? Requests::kActual : Requests::kNonZero);
}

std::int64_t FitScorer::score(const cluster::PodSpec& pod, cluster::NodeIndex n, const cluster::ClusterState& cluster) {
  if (prepared_ != &pod) prepare(pod);
  if (scoring_.gpusim_legacy && cpu_memory_only_) {
    // The built-in least-allocated and most-allocated: their two terms directly (hot in fill runs).
    const cluster::NodeSpec& node = cluster.node(n);
    const Amount cpu{node.cpu_milli, node.cpu_milli - cluster.cpu_free(n) + pod.cpu_milli};
    const Amount memory{node.memory_mib, node.memory_mib - cluster.memory_free(n) + pod.memory_mib};
    return (legacy_score(scoring_.strategy, cpu) + legacy_score(scoring_.strategy, memory)) / 2;
  }
  const Requests requests = scoring_.gpusim_legacy ? Requests::kActual : Requests::kNonZero;
  std::int64_t node_score = 0;
  std::int64_t weight_sum = 0;
  for (const ScoredResource& r : scoring_.resources) {
    const Amount a = amount_on_node(r, pod, asked_, n, cluster, requests);
    if (scoring_.gpusim_legacy) {
      node_score += legacy_score(scoring_.strategy, a) * r.weight;
      weight_sum += r.weight;
      continue;
    }
    if (a.allocatable == 0) continue;  // the node has none of it (or the pod asks none of an extended resource)
    std::int64_t s = 0;
    switch (scoring_.strategy) {
      case ScoringStrategy::kLeastAllocated:
        s = least_requested_score(a.requested, a.allocatable);
        break;
      case ScoringStrategy::kMostAllocated:
        s = most_requested_score(a.requested, a.allocatable);
        break;
      case ScoringStrategy::kRequestedToCapacityRatio:
        s = broken_linear(scoring_.shape, a.requested > a.allocatable ? kMaxUtilization
                                                                      : a.requested * kMaxUtilization / a.allocatable);
        // Upstream leaves resources that score 0 out of the mean.
        if (s <= 0) continue;
        break;
    }
    node_score += s * r.weight;
    weight_sum += r.weight;
  }
  if (weight_sum == 0) return 0;
  if (scoring_.strategy == ScoringStrategy::kRequestedToCapacityRatio && !scoring_.gpusim_legacy) {
    return static_cast<std::int64_t>(std::round(static_cast<double>(node_score) / static_cast<double>(weight_sum)));
  }
  return node_score / weight_sum;
}

namespace {

bool is_cpu_and_memory(const std::vector<ScoredResource>& resources) {
  return resources.size() == 2 && resources[0].kind == ResourceKind::kCpu && resources[1].kind == ResourceKind::kMemory &&
         resources[0].weight == 1 && resources[1].weight == 1;
}

}  // namespace

FitScorer::FitScorer(FitScoring scoring) : scoring_(std::move(scoring)), cpu_memory_only_(is_cpu_and_memory(scoring_.resources)) {}

BalancedScorer::BalancedScorer(std::vector<ScoredResource> resources)
    : resources_(std::move(resources)), cpu_memory_only_(is_cpu_and_memory(resources_)) {
  fractions_.reserve(resources_.size());
}

void BalancedScorer::prepare(const cluster::PodSpec& pod) {
  prepared_ = &pod;
  best_effort_ = true;
  for (const ScoredResource& r : resources_) best_effort_ = best_effort_ && !pod_asks(r, pod, Requests::kActual);
}

std::int64_t BalancedScorer::score(const cluster::PodSpec& pod, cluster::NodeIndex n, const cluster::ClusterState& cluster) {
  if (prepared_ != &pod) prepare(pod);
  if (best_effort_) return 0;
  const cluster::CpuMemory asked{pod.cpu_milli, pod.memory_mib};
  if (cpu_memory_only_) {
    // The default resources: two fractions, std = |f1 - f2| / 2, without the general loop.
    const Amount cpu = amount_on_node(resources_[0], pod, asked, n, cluster, Requests::kActual);
    const Amount memory = amount_on_node(resources_[1], pod, asked, n, cluster, Requests::kActual);
    if (cpu.allocatable != 0 && memory.allocatable != 0) {
      const auto fraction = [](Amount a) {
        const double f = static_cast<double>(a.requested) / static_cast<double>(a.allocatable);
        return f > 1 ? 1.0 : f;
      };
      const double std_dev = std::abs((fraction(cpu) - fraction(memory)) / 2);
      return static_cast<std::int64_t>((1 - std_dev) * static_cast<double>(sched::kMaxNodeScore));
    }
  }
  fractions_.clear();
  double total = 0;
  for (const ScoredResource& r : resources_) {
    const Amount a = amount_on_node(r, pod, asked, n, cluster, Requests::kActual);
    if (a.allocatable == 0) continue;
    double fraction = static_cast<double>(a.requested) / static_cast<double>(a.allocatable);
    if (fraction > 1) fraction = 1;
    total += fraction;
    fractions_.push_back(fraction);
  }
  double std_dev = 0;
  if (fractions_.size() == 2) {
    std_dev = std::abs((fractions_[0] - fractions_[1]) / 2);
  } else if (fractions_.size() > 2) {
    const double count = static_cast<double>(fractions_.size());
    const double mean = total / count;
    double sum = 0;
    for (const double f : fractions_) sum = sum + (f - mean) * (f - mean);
    std_dev = std::sqrt(sum / count);
  }
  return static_cast<std::int64_t>((1 - std_dev) * static_cast<double>(sched::kMaxNodeScore));
}

}  // namespace gpusim::policy
