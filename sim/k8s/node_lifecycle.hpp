#pragma once
// The node lifecycle controller and its taint manager: a node that stops answering is marked
// unreachable (node.kubernetes.io/unreachable, NoSchedule and NoExecute) after the node-monitor
// grace period, and each pod bound to it is evicted when its tolerations of the node's NoExecute
// taints run out. As Kubernetes' taint manager does, each NoExecute taint (the node's own and the
// unreachable one) takes the first of the pod's tolerations that matches it, and the pod is evicted
// after the least tolerationSeconds among those (none given: never; a taint none tolerates: at
// once). The DefaultTolerationSeconds admission plugin adds a 300 s unreachable toleration, last,
// to every pod that names none. A pod bound to a node whose own NoExecute taints it tolerates only
// for a while is evicted when that runs out, node lost or not; an eviction so scheduled is kept as
// it is when the node is lost (Kubernetes keeps it too). A node that comes back gets its taints
// removed.
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
                          const KubeSettings& settings, const std::vector<cluster::NodeSpec>& nodes);
  void on_message(const Message& message, core::Time now) override;
  void on_timer(std::uint32_t tag, std::uint64_t payload, core::Time now) override;

 private:
  // How long pod object `pod` tolerates the NoExecute taints of `node` (with the unreachable taint
  // when `unreachable`); none: for ever.
  std::optional<core::Time> toleration(PodId pod, std::uint32_t node, bool unreachable) const;
  bool active_on(PodId pod, std::uint32_t node) const;

  Bus& bus_;
  const ApiServer& api_;
  const std::vector<cluster::PodSpec>& pods_;
  const KubeSettings& settings_;
  const std::vector<cluster::NodeSpec>& nodes_;
  std::vector<std::uint8_t> lost_;
  // Per pod object: an eviction is scheduled for its node's own NoExecute taints (it tolerates
  // them only for a while); a later unreachable taint leaves that eviction as it is.
  std::vector<std::uint8_t> scheduled_;
  std::vector<std::uint16_t> epoch_;  // per node: increases on every loss, so stale timers are ignored
};

}  // namespace gpusim::k8s
