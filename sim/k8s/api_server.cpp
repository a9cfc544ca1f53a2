#include "sim/k8s/api_server.hpp"

#include "sim/core/check.hpp"

namespace gpusim::k8s {

ApiServer::ApiServer(const std::vector<cluster::NodeSpec>& nodes, std::size_t expected_pods)
    : latest_(expected_pods, kNoPod), taints_(nodes.size(), 0) {
  pods_.reserve(expected_pods);
  nodes_.reserve(nodes.size());
  for (const auto& node : nodes) nodes_.push_back({node.gpu_count, {}, core::Time::zero()});
}

void ApiServer::record(Message& message, core::Time now) {
  switch (message.topic) {
    case Topic::kPodCreated: {
      GPUSIM_CHECK(message.source < latest_.size(), "pod created for an unknown trace row");
      message.pod = static_cast<PodId>(pods_.size());
      PodObject pod;
      pod.source = message.source;
      pod.attempt = static_cast<std::uint32_t>(message.value);
      pod.created = now;
      pods_.push_back(pod);
      latest_[message.source] = message.pod;
      return;
    }
    case Topic::kNodeStatus:
      nodes_[message.node] = {static_cast<std::int32_t>(message.value), message.gpus, now, message.layout};
      return;
    case Topic::kNodeTaints:
      taints_[message.node] = static_cast<std::uint32_t>(message.value);
      return;
    default:
      break;
  }
  if (message.pod == kNoPod) return;
  PodObject& pod = pods_[message.pod];
  switch (message.topic) {
    case Topic::kPodDeleted:
      pod.phase = PodPhase::kDeleted;
      pod.ended = now;
      break;
    case Topic::kPodUnschedulable:
      pod.reason = Reason::kUnschedulable;  // PodScheduled=False, for ever
      break;
    case Topic::kPodBound:
      // A binding that arrives after its pod was deleted (its owner deleted it while the scheduler
      // bound it) is refused: the pod stays deleted, and every subscriber ignores the binding.
      if (pod.phase == PodPhase::kDeleted) break;
      pod.phase = PodPhase::kBound;
      pod.node = static_cast<std::int32_t>(message.node);
      pod.gpus = message.gpus;
      pod.bound = now;
      break;
    case Topic::kPodAdmitted:
      pod.phase = PodPhase::kAdmitted;
      pod.gpus = message.gpus;
      pod.admitted = now;
      pod.was_admitted = true;
      break;
    case Topic::kPodRunning:
      pod.phase = PodPhase::kRunning;
      pod.running = now;
      pod.container_started = now;
      break;
    case Topic::kContainerRestarted:
      pod.container_started = now;
      break;
    case Topic::kPodTerminated:
      pod.phase = message.reason == Reason::kSucceeded ? PodPhase::kSucceeded : PodPhase::kFailed;
      pod.reason = message.reason;
      pod.ended = now;
      break;
    default:
      break;
  }
}

}  // namespace gpusim::k8s
