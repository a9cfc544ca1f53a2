#include "sim/k8s/workload_driver.hpp"

#include <algorithm>

namespace gpusim::k8s {
namespace {
enum Tag : std::uint32_t { kArrive, kDeadline };
}  // namespace

WorkloadDriver::WorkloadDriver(Bus& bus, const ApiServer& api, const traces::Workload& workload,
                               const WorkloadTimes& times)
    : bus_(bus), api_(api), workload_(workload), withdrawn_(workload.pods.size(), 0),
      next_of_job_(workload.jobs.size(), 0),
      first_of_job_(workload.jobs.size(), 0),
      job_failed_(workload.jobs.size(), 0) {
  std::vector<std::int32_t> seen(workload.jobs.size(), 0);
  std::vector<std::uint32_t> arriving;  // rows created at their own time, not by a Job's progress
  arriving.reserve(workload.pods.size());
  for (std::uint32_t i = 0; i < workload.pods.size(); ++i) {
    const auto& constraints = workload.pods[i].constraints;
    if (constraints != nullptr && constraints->job >= 0) {
      // A Job starts `parallelism` pods; each success lets the next one be created.
      const auto job = static_cast<std::size_t>(constraints->job);
      if (seen[job] == 0) first_of_job_[job] = i;
      if (seen[job]++ >= workload.jobs[job].parallelism) continue;
      next_of_job_[job] = seen[job];
    }
    arriving.push_back(i);
  }
  // Arrivals in time order (ties in row order, the order in which they fire), so that the event
  // queue keeps them in its run instead of its heap: traces are not sorted (Philly's log is not).
  // Then the deadlines, in row order. The two kinds fire in different phases, so the order in
  // which they are set never decides a tie.
  std::vector<std::uint32_t> by_time = arriving;
  std::stable_sort(by_time.begin(), by_time.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return times.arrival[a] < times.arrival[b]; });
  for (const std::uint32_t i : by_time) bus_.set_timer(*this, kArrive, i, times.arrival[i], core::Phase::kArrival);
  for (const std::uint32_t i : arriving) {
    if (workload.pods[i].phase == cluster::TracePhase::kPending) {
      bus_.set_timer(*this, kDeadline, i, times.deadline[i], core::Phase::kStateChange);
    }
  }
}

void WorkloadDriver::on_message(const Message& message, core::Time now) {
  if (message.topic == Topic::kJobFailed) {
    job_failed_[static_cast<std::size_t>(message.value)] = 1;
    return;
  }
  if (message.topic != Topic::kPodTerminated || message.reason != Reason::kSucceeded) return;
  const auto& constraints = workload_.pods[message.source].constraints;
  if (constraints == nullptr || constraints->job < 0) return;
  const auto job = static_cast<std::size_t>(constraints->job);
  if (job_failed_[job] || next_of_job_[job] >= workload_.jobs[job].completions) return;
  Message create;
  create.topic = Topic::kPodCreated;
  create.source = first_of_job_[job] + static_cast<std::uint32_t>(next_of_job_[job]++);
  bus_.publish(create, now, core::Phase::kArrival);
}

void WorkloadDriver::on_timer(std::uint32_t tag, std::uint64_t payload, core::Time now) {
  const auto source = static_cast<std::uint32_t>(payload);
  Message message;
  message.source = source;
  if (tag == kArrive) {
    const auto& constraints = workload_.pods[source].constraints;
    if (withdrawn_[source] || (constraints != nullptr && constraints->job >= 0 &&
                               job_failed_[static_cast<std::size_t>(constraints->job)])) {
      return;
    }
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
