#include "sim/k8s/node_lifecycle.hpp"

#include <algorithm>

namespace gpusim::k8s {
namespace {

enum Tag : std::uint32_t { kMarkUnreachable, kEvict };
constexpr int kEpochShift = 32;

const cluster::Taint kUnreachableTaint{"node.kubernetes.io/unreachable", "", "NoExecute"};

}  // namespace

NodeLifecycleController::NodeLifecycleController(Bus& bus, const ApiServer& api,
                                                 const std::vector<cluster::PodSpec>& pods,
                                                 const KubeSettings& settings, std::size_t nodes)
    : bus_(bus), api_(api), pods_(pods), settings_(settings), lost_(nodes, 0), epoch_(nodes, 0) {}

void NodeLifecycleController::on_message(const Message& message, core::Time now) {
  const std::uint32_t n = message.node;
  switch (message.topic) {
    case Topic::kNodeLost:
      if (lost_[n]) return;
      lost_[n] = 1;
      ++epoch_[n];
      bus_.set_timer(*this, kMarkUnreachable, (std::uint64_t{epoch_[n]} << kEpochShift) | n,
                     now + settings_.node_monitor_grace_period);
      break;
    case Topic::kNodeRecovered:
    case Topic::kNodeRemoved: {
      const bool tainted = api_.node_taints(n) != 0;
      lost_[n] = 0;
      ++epoch_[n];
      if (tainted) {
        Message clear;
        clear.topic = Topic::kNodeTaints;
        clear.node = n;
        bus_.publish(clear, now);
      }
      break;
    }
    default:
      break;
  }
}

void NodeLifecycleController::on_timer(std::uint32_t tag, std::uint64_t payload, core::Time now) {
  const auto epoch = static_cast<std::uint16_t>(payload >> kEpochShift);
  const auto id = static_cast<std::uint32_t>(payload & 0xFFFFFFFFU);
  if (tag == kMarkUnreachable) {
    const std::uint32_t n = id;
    if (!lost_[n] || epoch_[n] != epoch) return;
    Message taints;
    taints.topic = Topic::kNodeTaints;
    taints.node = n;
    taints.value = kUnreachableNoSchedule | kUnreachableNoExecute;
    bus_.publish(taints, now);
    // The taint manager: every pod bound there is evicted when its toleration runs out.
    for (PodId pod = 0; pod < api_.pod_count(); ++pod) {
      if (!active_on(pod, n)) continue;
      if (const auto tolerated = toleration(pod)) {
        bus_.set_timer(*this, kEvict, (std::uint64_t{epoch} << kEpochShift) | pod, now + *tolerated);
      }
    }
    return;
  }
  const PodId pod = id;
  const auto n = static_cast<std::uint32_t>(api_.pod(pod).node);
  if (!active_on(pod, n) || !lost_[n] || epoch_[n] != epoch) return;
  bus_.publish(pod_terminated(pod, api_.pod(pod).source, n, Reason::kEvicted), now);
}

bool NodeLifecycleController::active_on(PodId pod, std::uint32_t node) const {
  const PodObject& object = api_.pod(pod);
  return object.node == static_cast<std::int32_t>(node) &&
         (object.phase == PodPhase::kBound || object.phase == PodPhase::kAdmitted || object.phase == PodPhase::kRunning);
}

std::optional<core::Time> NodeLifecycleController::toleration(PodId pod) const {
  const auto& constraints = pods_[api_.pod(pod).source].constraints;
  if (constraints != nullptr) {
    for (const cluster::Toleration& t : constraints->tolerations) {
      if (!cluster::tolerates({t}, kUnreachableTaint)) continue;
      if (!t.toleration_seconds) return std::nullopt;  // tolerated for ever
      return core::Time::from_seconds(std::max<std::int64_t>(0, *t.toleration_seconds));
    }
  }
  return settings_.default_unreachable_toleration;
}

}  // namespace gpusim::k8s
