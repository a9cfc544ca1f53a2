// kube-scheduler's NodeResourcesFit scoring strategies over CPU and memory, integer arithmetic
// as upstream: LeastAllocated (spread), MostAllocated (bin packing) and BalancedAllocation.
#include <cmath>
#include <memory>

#include "policies/builtin_parts.hpp"

namespace gpusim::policy {
namespace {

struct Usage {
  std::int64_t requested;  // already allocated plus this pod
  std::int64_t capacity;
};

Usage cpu_usage(const sched::PodSpec& pod, sched::NodeIndex n, const sched::ClusterState& c) {
  const std::int64_t capacity = c.node(n).cpu_milli;
  return {capacity - c.cpu_free(n) + pod.cpu_milli, capacity};
}
Usage memory_usage(const sched::PodSpec& pod, sched::NodeIndex n, const sched::ClusterState& c) {
  const std::int64_t capacity = c.node(n).memory_mib;
  return {capacity - c.memory_free(n) + pod.memory_mib, capacity};
}

std::int64_t least(Usage u) {
  if (u.capacity == 0 || u.requested > u.capacity) return 0;
  return (u.capacity - u.requested) * sched::kMaxNodeScore / u.capacity;
}
std::int64_t most(Usage u) {
  if (u.capacity == 0 || u.requested > u.capacity) return 0;
  return u.requested * sched::kMaxNodeScore / u.capacity;
}

class ResourceScore final : public sched::ScorePlugin {
 public:
  enum class Kind { kLeast, kMost };
  explicit ResourceScore(Kind kind) : kind_(kind) {}
  std::string_view name() const override {
    return kind_ == Kind::kLeast ? "least-allocated" : "most-allocated";
  }
  std::int64_t score(const sched::PodSpec& pod, sched::NodeIndex n, const sched::ClusterState& c,
                     sched::CycleState&) override {
    // Two direct calls rather than one through a function pointer: this runs per feasible node.
    const Usage cpu = cpu_usage(pod, n, c);
    const Usage memory = memory_usage(pod, n, c);
    return kind_ == Kind::kLeast ? (least(cpu) + least(memory)) / 2 : (most(cpu) + most(memory)) / 2;
  }

 private:
  Kind kind_;
};

// 100 * (1 - standard deviation of the CPU and memory fractions), as upstream since 1.23.
class BalancedAllocation final : public sched::ScorePlugin {
 public:
  std::string_view name() const override { return "balanced-allocation"; }
  std::int64_t score(const sched::PodSpec& pod, sched::NodeIndex n, const sched::ClusterState& c,
                     sched::CycleState&) override {
    const auto fraction = [](Usage u) {
      if (u.capacity == 0) return 1.0;
      return std::min(1.0, static_cast<double>(u.requested) / static_cast<double>(u.capacity));
    };
    const double spread = std::abs(fraction(cpu_usage(pod, n, c)) - fraction(memory_usage(pod, n, c))) / 2;
    return static_cast<std::int64_t>((1.0 - spread) * static_cast<double>(sched::kMaxNodeScore));
  }
};

}  // namespace

void register_kube_scores(sched::Registry& registry) {
  registry.add("least-allocated", [](const sched::PluginContext&) {
    return std::make_unique<ResourceScore>(ResourceScore::Kind::kLeast);
  });
  registry.add("most-allocated", [](const sched::PluginContext&) {
    return std::make_unique<ResourceScore>(ResourceScore::Kind::kMost);
  });
  registry.add("balanced-allocation", [](const sched::PluginContext&) { return std::make_unique<BalancedAllocation>(); });
}

}  // namespace gpusim::policy
