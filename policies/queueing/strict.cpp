// Strict queue order (queueAdmission Strict, the fifo and sjf policies): a cycle stops at the first
// pod (or gang) that does not fit, so nothing queued behind it starts before it (head-of-line
// blocking, as a batch scheduler's FIFO).
#include <memory>

#include <fmt/format.h>

#include "policies/builtin_parts.hpp"
#include "sim/k8s/queueing_plugin.hpp"

namespace gpusim::policy {
namespace {

class Strict final : public k8s::QueueingPlugin {
 public:
  std::string_view name() const override { return "strict"; }
  void attach(k8s::SchedulerHandle& handle) override { h_ = &handle; }
  bool stops_walk(const cluster::PodSpec&, core::Time) override { return true; }

  std::optional<sched::NeverRanReason> waited_while_feasible(k8s::PodId id) const override {
    const std::vector<k8s::PodId>& pending = h_->pending();
    if (pending.empty() || pending.front() == id) return std::nullopt;
    return sched::NeverRanReason{fmt::format("a node could take it when the run ended, but it waited behind {} (strict queue "
                                             "order: nothing queued behind a pod that does not fit starts before it)",
                                             h_->spec_of(pending.front()).name),
                                 {"waited behind the head of a strict queue"}};
  }

 private:
  k8s::SchedulerHandle* h_ = nullptr;
};

}  // namespace

void register_strict(sched::Registry& registry) {
  registry.add_queueing("strict", [](const sched::PluginContext&) { return std::make_unique<Strict>(); });
}

}  // namespace gpusim::policy
