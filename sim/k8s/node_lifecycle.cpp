#include "sim/k8s/node_lifecycle.hpp"

#include <algorithm>

#include "sim/k8s/workload_times.hpp"

namespace gpusim::k8s {
namespace {

enum Tag : std::uint32_t { kMarkUnreachable, kEvict, kEvictFromTaintedNode };
constexpr int kEpochShift = 32;

const cluster::Taint kUnreachableTaint{"node.kubernetes.io/unreachable", "", "NoExecute"};

// Whether the DefaultTolerationSeconds admission plugin saw an unreachable toleration on the pod:
// one whose key is the taint's or empty and whose effect is NoExecute or empty (it looks at
// nothing else).
bool names_unreachable(const std::vector<cluster::Toleration>& tolerations) {
  return std::any_of(tolerations.begin(), tolerations.end(), [](const cluster::Toleration& t) {
    return (t.key.empty() || t.key == kUnreachableTaint.key) && (t.effect.empty() || t.effect == "NoExecute");
  });
}

// The first toleration that tolerates `taint` (GetMatchingTolerations), or null.
const cluster::Toleration* first_match(const std::vector<cluster::Toleration>& tolerations, const cluster::Taint& taint) {
  for (const cluster::Toleration& t : tolerations) {
    if (cluster::tolerates(t, taint)) return &t;
  }
  return nullptr;
}

}  // namespace

NodeLifecycleController::NodeLifecycleController(Bus& bus, const ApiServer& api,
                                                 const std::vector<cluster::PodSpec>& pods,
                                                 const KubeSettings& settings,
                                                 const std::vector<cluster::NodeSpec>& nodes)
    : bus_(bus), api_(api), pods_(pods), settings_(settings), nodes_(nodes), lost_(nodes.size(), 0),
      epoch_(nodes.size(), 0) {}

void NodeLifecycleController::on_message(const Message& message, core::Time now) {
  const std::uint32_t n = message.node;
  switch (message.topic) {
    case Topic::kPodBound: {
      if (api_.pod(message.pod).phase == PodPhase::kDeleted) return;  // a binding the API server refused
      // The taint manager sees the pod on its node: the node's own NoExecute taints, if tolerated
      // only for a while, evict it then.
      const auto tolerated = toleration(message.pod, n, false);
      if (!tolerated) return;
      if (scheduled_.size() <= message.pod) scheduled_.resize(message.pod + 1, 0);
      scheduled_[message.pod] = 1;
      bus_.set_timer(*this, kEvictFromTaintedNode, message.pod, now + *tolerated);
      break;
    }
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
      // An eviction already scheduled (for the node's own taints) is kept as it is, as Kubernetes'
      // processPodOnNode does when the earlier start would give an earlier trigger
      // (kubernetes#108982): the new taint neither moves it nor adds another.
      if (pod < scheduled_.size() && scheduled_[pod]) continue;
      if (const auto tolerated = toleration(pod, n, true)) {
        bus_.set_timer(*this, kEvict, (std::uint64_t{epoch} << kEpochShift) | pod, now + *tolerated);
      }
    }
    return;
  }
  if (tag == kEvictFromTaintedNode) {
    const PodId pod = id;
    scheduled_[pod] = 0;
    const auto n = static_cast<std::uint32_t>(api_.pod(pod).node);
    if (!active_on(pod, n)) return;  // it ended meanwhile
    if (lost_[n] || api_.pod(pod).phase == PodPhase::kBound) {
      // No kubelet holds it (its node is lost, or it is not admitted yet): the API server's
      // deletion ends it, as for a lost node's pods.
      bus_.publish(pod_terminated(pod, api_.pod(pod).source, n, Reason::kEvicted), now);
      return;
    }
    Message kill;
    kill.topic = Topic::kPodKill;
    kill.reason = Reason::kEvicted;
    kill.pod = pod;
    kill.source = api_.pod(pod).source;
    kill.node = n;
    bus_.publish(kill, now);
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

std::optional<core::Time> NodeLifecycleController::toleration(PodId pod, std::uint32_t node, bool unreachable) const {
  const auto& constraints = pods_[api_.pod(pod).source].constraints;
  static const std::vector<cluster::Toleration> kNone;
  const std::vector<cluster::Toleration>& own = constraints != nullptr ? constraints->tolerations : kNone;
  // getMinTolerationTime over the first toleration that matches each NoExecute taint, in
  // microseconds; tolerationSeconds past the simulated time range is as good as for ever.
  constexpr auto kMaxSeconds = static_cast<std::int64_t>(kMaxSimulatedMicros / 1e6);
  std::optional<std::int64_t> least_us;
  const auto take = [&](std::int64_t us) {
    if (!least_us || us < *least_us) least_us = us;
  };
  const auto take_toleration = [&](const cluster::Toleration* t) {
    if (t == nullptr) return take(0);  // a taint it does not tolerate: evicted at once
    if (t->toleration_seconds && *t->toleration_seconds <= kMaxSeconds) {
      take(std::max<std::int64_t>(*t->toleration_seconds, 0) * 1'000'000);
    }
  };
  for (const cluster::Taint& taint : nodes_[node].taints) {
    if (taint.effect == "NoExecute") take_toleration(first_match(own, taint));
  }
  if (unreachable) {
    const cluster::Toleration* t = first_match(own, kUnreachableTaint);
    if (t == nullptr && !names_unreachable(own)) {
      take(settings_.default_unreachable_toleration.micros());  // the admission plugin's, after the pod's own
    } else {
      take_toleration(t);
    }
  }
  if (!least_us) return std::nullopt;  // tolerated for ever
  return core::Time::from_micros(*least_us);
}

}  // namespace gpusim::k8s
