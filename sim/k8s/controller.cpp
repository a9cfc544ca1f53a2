#include "sim/k8s/controller.hpp"

#include <algorithm>

namespace gpusim::k8s {

Controller::Controller(Bus& bus, const KubeSettings& settings, const traces::Workload& workload)
    : bus_(bus),
      settings_(settings),
      workload_(workload),
      failures_(workload.pods.size() + workload.jobs.size(), 0),
      attempt_(workload.pods.size(), 0),
      deleted_(workload.pods.size(), 0) {}

std::size_t Controller::owner_of(std::uint32_t source) const {
  const auto& constraints = workload_.pods[source].constraints;
  if (constraints != nullptr && constraints->job >= 0) return workload_.pods.size() + static_cast<std::size_t>(constraints->job);
  return source;
}

void Controller::on_message(const Message& message, core::Time now) {
  if (message.topic == Topic::kPodDeleted) {
    deleted_[message.source] = 1;
    return;
  }
  if (message.topic != Topic::kPodTerminated) return;
  switch (message.reason) {
    case Reason::kUnexpectedAdmissionError:
    case Reason::kGpuLost:
    case Reason::kEvicted:
    case Reason::kNodeLost:
    case Reason::kNodeRemoved:
    case Reason::kOomKilled:  // the Job controller replaces a failed pod (restartPolicy Never)
      break;
    case Reason::kDescheduled:
    case Reason::kPreempted:
      // A disruption, not a failure (a Job's podFailurePolicy ignoring DisruptionTarget): replaced
      // after the base backoff, not counted against backoffLimit.
      bus_.set_timer(*this, 0, message.source, now + settings_.backoff_base, core::Phase::kArrival);
      return;
    default:
      return;  // it ran its course (or the trace says it failed)
  }
  const std::int32_t failures = ++failures_[owner_of(message.source)];
  if (failures > settings_.backoff_limit) {
    ++given_up_;
    return;
  }
  // base x 2^(failures - 1), capped; the shift is bounded so it never overflows.
  const std::int64_t base = settings_.backoff_base.micros();
  const std::int64_t cap = settings_.backoff_max.micros();
  std::int64_t delay = base;
  for (int i = 1; i < failures && delay < cap; ++i) delay *= 2;
  delay = std::min(delay, cap);
  bus_.set_timer(*this, 0, message.source, now + core::Time::from_micros(delay), core::Phase::kArrival);
}

void Controller::on_timer(std::uint32_t, std::uint64_t source, core::Time now) {
  if (deleted_[source]) return;
  Message create;
  create.topic = Topic::kPodCreated;
  create.source = static_cast<std::uint32_t>(source);
  create.value = ++attempt_[source];
  ++recreated_;
  bus_.publish(create, now, core::Phase::kArrival);
}

}  // namespace gpusim::k8s
