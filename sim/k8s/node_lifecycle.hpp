#pragma once
// The node lifecycle controller and its taint manager: a node that stops answering is marked
// unreachable (node.kubernetes.io/unreachable, NoSchedule and NoExecute) after the node-monitor
// grace period, and each pod bound to it is evicted when its toleration of that taint runs out:
// the pod's own tolerationSeconds, or the 300 s that the DefaultTolerationSeconds admission plugin
// gives every pod that names none. A node that comes back gets its taints removed.
#include <optional>
#include <vector>

#include "sim/cluster/pod.hpp"

#include "sim/k8s/api_server.hpp"
#include "sim/k8s/bus.hpp"
#include "sim/k8s/settings.hpp"

namespace gpusim::k8s {

class NodeLifecycleController final : public Component {
 public:
  NodeLifecycleController(Bus& bus, const ApiServer& api, const std::vector<cluster::PodSpec>& pods,
                          const KubeSettings& settings, std::size_t nodes);
  void on_message(const Message& message, core::Time now) override;
  void on_timer(std::uint32_t tag, std::uint64_t payload, core::Time now) override;

 private:
  // How long pod object `pod` tolerates an unreachable node; none: for ever.
  std::optional<core::Time> toleration(PodId pod) const;
  bool active_on(PodId pod, std::uint32_t node) const;

  Bus& bus_;
  const ApiServer& api_;
  const std::vector<cluster::PodSpec>& pods_;
  const KubeSettings& settings_;
  std::vector<std::uint8_t> lost_;
  std::vector<std::uint16_t> epoch_;  // per node: increases on every loss, so stale timers are ignored
};

}  // namespace gpusim::k8s
