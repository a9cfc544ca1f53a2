// Queue order for pending pods: higher priority first, then earlier creation, then name, so
// the order never depends on insertion accidents.
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

}  // namespace

void register_queue_sort(sched::Registry& registry) {
  registry.add("priority", [](const sched::PluginContext&) { return std::make_unique<PrioritySort>(); });
  registry.add("fifo", [](const sched::PluginContext&) { return std::make_unique<FifoSort>(); });
}

}  // namespace gpusim::policy
