#include "sim/k8s/workload_driver.hpp"

namespace gpusim::k8s {
namespace {
enum Tag : std::uint32_t { kArrive, kDeadline };
}  // namespace

WorkloadDriver::WorkloadDriver(Bus& bus, const ApiServer& api, const traces::Workload& workload,
                               const WorkloadTimes& times)
    : bus_(bus), api_(api), withdrawn_(workload.pods.size(), 0) {
  for (std::uint32_t i = 0; i < workload.pods.size(); ++i) {
    bus_.set_timer(*this, kArrive, i, times.arrival[i], core::Phase::kArrival);
    if (workload.pods[i].phase == cluster::TracePhase::kPending) {
      bus_.set_timer(*this, kDeadline, i, times.deadline[i], core::Phase::kStateChange);
    }
  }
}

void WorkloadDriver::on_timer(std::uint32_t tag, std::uint64_t payload, core::Time now) {
  const auto source = static_cast<std::uint32_t>(payload);
  Message message;
  message.source = source;
  if (tag == kArrive) {
    if (withdrawn_[source]) return;
    message.topic = Topic::kPodCreated;
    bus_.publish(message, now, core::Phase::kArrival);
    return;
  }
  // The deadline: the owner deletes the pod if it never started; a running one ends on its own
  // (the kubelet runs it until this deadline).
  message.topic = Topic::kPodDeleted;
  message.pod = api_.latest(source);
  if (message.pod == kNoPod) {
    withdrawn_[source] = 1;  // deleted the instant it was created
  } else {
    const PodPhase phase = api_.pod(message.pod).phase;
    // Pending, or failed at admission and waiting for its replacement.
    const bool waiting = phase == PodPhase::kPending ||
                         (phase == PodPhase::kFailed && api_.pod(message.pod).reason != Reason::kTraceFailed &&
                          api_.pod(message.pod).reason != Reason::kDeletedByOwner);
    if (!waiting) return;
  }
  bus_.publish(message, now, core::Phase::kStateChange);
}

}  // namespace gpusim::k8s
