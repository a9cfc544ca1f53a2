// Queue order for pending pods: higher priority first, then earlier creation, then name, so
// the order never depends on insertion accidents.
#include <cstdint>
#include <memory>
#include <tuple>

#include "policies/builtin_parts.hpp"

namespace gpusim::policy {
namespace {

class PrioritySort final : public sched::QueueSortPlugin {
 public:
  std::string_view name() const override { return "priority"; }
  bool less(const sched::PodSpec& a, const sched::PodSpec& b) const override {
    const auto created_a = a.creation_time.value_or(core::Time::zero());
    const auto created_b = b.creation_time.value_or(core::Time::zero());
    return std::tie(b.priority, created_a, a.name) < std::tie(a.priority, created_b, b.name);
  }
};

// First come, first served: creation time, then name.
class FifoSort final : public sched::QueueSortPlugin {
 public:
  std::string_view name() const override { return "fifo"; }
  bool less(const sched::PodSpec& a, const sched::PodSpec& b) const override {
    const auto created_a = a.creation_time.value_or(core::Time::zero());
    const auto created_b = b.creation_time.value_or(core::Time::zero());
    return std::tie(created_a, a.name) < std::tie(created_b, b.name);
  }
};

// Shortest job first by the trace's run time (known in advance: an oracle), then creation time,
// then name; pods without a run time go last.
class ShortestJobSort final : public sched::QueueSortPlugin {
 public:
  std::string_view name() const override { return "shortest-job"; }
  bool less(const sched::PodSpec& a, const sched::PodSpec& b) const override {
    const auto never = core::Time::from_micros(INT64_MAX);
    const auto run_a = a.duration.value_or(never);
    const auto run_b = b.duration.value_or(never);
    const auto created_a = a.creation_time.value_or(core::Time::zero());
    const auto created_b = b.creation_time.value_or(core::Time::zero());
    return std::tie(run_a, created_a, a.name) < std::tie(run_b, created_b, b.name);
  }
};

}  // namespace

void register_queue_sort(sched::Registry& registry) {
  registry.add("priority", [](const sched::PluginContext&) { return std::make_unique<PrioritySort>(); });
  registry.add("fifo", [](const sched::PluginContext&) { return std::make_unique<FifoSort>(); });
  registry.add("shortest-job", [](const sched::PluginContext&) { return std::make_unique<ShortestJobSort>(); });
}

}  // namespace gpusim::policy
