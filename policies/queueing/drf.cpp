// Dominant resource fairness across the workload's queues (queueAdmission Drf; Volcano's drf
// plugin's job order, Ghodsi et al., NSDI'11): progressive filling by each queue's dominant share,
// the largest over GPUs, CPU and memory of what it holds over the cluster's total.
#include <algorithm>
#include <memory>

#include "policies/builtin_parts.hpp"
#include "policies/queueing/progressive_filling.hpp"

namespace gpusim::policy {
namespace {

class Drf final : public ProgressiveFilling {
 public:
  std::string_view name() const override { return "drf"; }

  void attach(k8s::SchedulerHandle& handle) override {
    ProgressiveFilling::attach(handle);
    held_.resize(queues());
  }
  void pod_bound(k8s::PodId id, const cluster::Placement&, core::Time) override { hold(id, +1); }
  void pod_released(k8s::PodId id, const k8s::Message&) override { hold(id, -1); }

 private:
  struct Held {
    std::int64_t gpu_milli = 0, cpu_milli = 0, memory_mib = 0;
  };
  void hold(k8s::PodId id, std::int64_t sign) {
    const cluster::PodSpec& spec = h_->spec_of(id);
    Held& held = held_[spec.queue];
    held.gpu_milli += sign * spec.total_gpu_milli();
    held.cpu_milli += sign * spec.cpu_milli;
    held.memory_mib += sign * spec.memory_mib;
  }
  double share(std::size_t queue) const override {
    const Held& held = held_[queue];
    const cluster::ClusterState& cache = h_->cache();
    double dominant = 0;
    const auto add = [&](std::int64_t used, std::int64_t total) {
      if (total > 0) dominant = std::max(dominant, static_cast<double>(used) / static_cast<double>(total));
    };
    add(held.gpu_milli, cache.total_gpu_milli());
    add(held.cpu_milli, cache.total_cpu_milli());
    add(held.memory_mib, cache.total_memory_mib());
    return dominant;
  }

  std::vector<Held> held_;
};

}  // namespace

void register_drf(sched::Registry& registry) {
  registry.add_queueing("drf", [](const sched::PluginContext&) { return std::make_unique<Drf>(); });
}

}  // namespace gpusim::policy
