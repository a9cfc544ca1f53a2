#include "sim/k8s/controller.hpp"

#include <algorithm>

namespace gpusim::k8s {

bool replaceable(Reason reason) {
  switch (reason) {
    case Reason::kUnexpectedAdmissionError:
    case Reason::kGpuLost:
    case Reason::kEvicted:
    case Reason::kNodeLost:
    case Reason::kNodeRemoved:
    case Reason::kOomKilled:
    case Reason::kDescheduled:
    case Reason::kPreempted:
    case Reason::kSuspended:
      return true;
    default:
      return false;
  }
}

namespace {

enum Tag : std::uint32_t { kRecreate, kDeadline };
constexpr core::EventId kNoDeadline = UINT64_MAX;


// Whether Kubernetes gives the failed pod the DisruptionTarget condition: preemption by the
// scheduler, eviction through the eviction API (descheduler, a node drained for removal) and the
// taint manager's eviction.
bool disruption(Reason reason) {
  return reason == Reason::kPreempted || reason == Reason::kDescheduled || reason == Reason::kEvicted ||
         reason == Reason::kNodeRemoved;
}

// The exit code of a failed pod's containers, where they ran to an exit: 137 for a GPU memory
// overrun (reported OOMKilled), 1 for a CUDA program whose GPU fell off the bus (gpusim's choice,
// sim/k8s/README.md). 0: none (refused at admission, evicted, its node lost).
std::int32_t exit_code(Reason reason) {
  if (reason == Reason::kOomKilled) return 137;
  if (reason == Reason::kGpuLost) return 1;
  return 0;
}

bool has_container(const cluster::PodSpec& pod, const std::string& name) {
  if (pod.constraints == nullptr) return false;
  const auto named = [&](const cluster::Container& c) { return c.name == name; };
  return std::any_of(pod.constraints->containers.begin(), pod.constraints->containers.end(), named) ||
         std::any_of(pod.constraints->init_containers.begin(), pod.constraints->init_containers.end(), named);
}

// The action of the first podFailurePolicy rule that matches (Count when none does).
traces::FailureAction failure_action(const traces::JobSpec& job, const cluster::PodSpec& pod, Reason reason) {
  for (const traces::PodFailureRule& rule : job.pod_failure_rules) {
    if (rule.exit_codes.empty()) {
      if (rule.on_disruption && disruption(reason)) return rule.action;
      continue;
    }
    const std::int32_t code = exit_code(reason);
    if (code == 0) continue;  // no container exited: exit-code rules never match
    if (!rule.container.empty() && !has_container(pod, rule.container)) continue;
    const bool listed = std::find(rule.exit_codes.begin(), rule.exit_codes.end(), code) != rule.exit_codes.end();
    if (listed == rule.exit_codes_in) return rule.action;
  }
  return traces::FailureAction::kCount;
}

std::size_t reason_slot(Reason reason) {
  return reason == Reason::kBackoffLimitExceeded ? 0 : reason == Reason::kDeadlineExceeded ? 1 : 2;
}

}  // namespace

Controller::Controller(Bus& bus, const ApiServer& api, const KubeSettings& settings, const traces::Workload& workload)
    : bus_(bus),
      api_(api),
      settings_(settings),
      workload_(workload),
      failures_(workload.pods.size() + workload.jobs.size(), 0),
      since_success_(workload.pods.size() + workload.jobs.size(), 0),
      attempt_(workload.pods.size(), 0),
      deleted_(workload.pods.size(), 0),
      first_of_job_(workload.jobs.size(), 0),
      succeeded_(workload.jobs.size(), 0),
      job_started_(workload.jobs.size(), 0),
      job_ended_(workload.jobs.size(), 0),
      deadline_timer_(workload.jobs.size(), kNoDeadline),
      job_suspended_(workload.jobs.size(), 0),
      job_restarts_(workload.jobs.size(), 0) {
  std::vector<std::uint8_t> seen(workload.jobs.size(), 0);
  for (std::uint32_t i = 0; i < workload.pods.size(); ++i) {
    const std::int32_t job = job_of(i);
    if (job < 0 || seen[static_cast<std::size_t>(job)]) continue;
    seen[static_cast<std::size_t>(job)] = 1;
    first_of_job_[static_cast<std::size_t>(job)] = i;
  }
}

std::int32_t Controller::job_of(std::uint32_t source) const {
  const auto& constraints = workload_.pods[source].constraints;
  return constraints != nullptr ? constraints->job : -1;
}

std::size_t Controller::owner_of(std::uint32_t source) const {
  const std::int32_t job = job_of(source);
  if (job >= 0) return workload_.pods.size() + static_cast<std::size_t>(job);
  return source;
}

void Controller::on_message(const Message& message, core::Time now) {
  if (message.topic == Topic::kPodDeleted) {
    deleted_[message.source] = 1;
    return;
  }
  if (message.topic == Topic::kJobSuspended || message.topic == Topic::kJobResumed) {
    job_suspension(static_cast<std::size_t>(message.value), message.topic == Topic::kJobResumed, now);
    return;
  }
  const std::int32_t job = job_of(message.source);
  if (message.topic == Topic::kPodCreated) {
    // status.startTime: the Job's deadline counts from when it started its first pod, unless it
    // was created suspended (then from when it is resumed).
    if (job < 0 || job_started_[static_cast<std::size_t>(job)]) return;
    job_started_[static_cast<std::size_t>(job)] = 1;
    const auto& constraints = workload_.pods[message.source].constraints;
    if (!job_suspended_[static_cast<std::size_t>(job)] && !constraints->suspended) start_deadline(static_cast<std::size_t>(job), now);
    return;
  }
  if (message.topic == Topic::kContainerRestarted) {
    container_restarted(message, now);
    return;
  }
  if (message.topic != Topic::kPodTerminated) return;
  if (job >= 0 && message.pod < pod_restarts_.size()) {
    // An ended pod's restarts no longer count (pastBackoffLimitOnFailure sums Running and
    // Pending pods only).
    job_restarts_[static_cast<std::size_t>(job)] -= pod_restarts_[message.pod];
    pod_restarts_[message.pod] = 0;
  }
  if (message.reason == Reason::kSucceeded) {
    since_success_[owner_of(message.source)] = 0;  // failuresAfterLastSuccess
    if (job >= 0) {
      const auto j = static_cast<std::size_t>(job);
      if (++succeeded_[j] == workload_.jobs[j].completions && !job_ended_[j]) {
        job_ended_[j] = 1;
        ++jobs_succeeded_;
        stop_deadline(j);
      }
    }
    return;
  }
  if (replaceable(message.reason)) pod_failed(message, now);
}

void Controller::stop_deadline(std::size_t job) {
  if (deadline_timer_[job] != kNoDeadline) bus_.cancel_timer(deadline_timer_[job]);
  deadline_timer_[job] = kNoDeadline;
}

void Controller::start_deadline(std::size_t job, core::Time now) {
  stop_deadline(job);
  if (const auto& deadline = workload_.jobs[job].active_deadline) {
    deadline_timer_[job] = bus_.set_timer(*this, kDeadline, static_cast<std::uint64_t>(job), now + *deadline);
  }
}

void Controller::job_suspension(std::size_t job, bool resumed, core::Time now) {
  if (job_ended_[job]) return;
  // "If a Job is suspended (at creation or through an update), this timer will effectively be
  // stopped and reset when the Job is resumed again" (JobSpec.activeDeadlineSeconds).
  job_suspended_[job] = resumed ? 0 : 1;
  if (resumed) {
    start_deadline(job, now);
  } else {
    stop_deadline(job);
  }
}

void Controller::pod_failed(const Message& message, core::Time now) {
  const cluster::PodSpec& pod = workload_.pods[message.source];
  if (message.reason == Reason::kSuspended) {
    // A time-sharing round's suspension is the scheduler's own lease ending, as Gavel's job
    // launcher suspends and relaunches jobs (a suspended Job, not a failure): every owner's pod,
    // even a bare Pod's, comes back after the base backoff, counted against nothing.
    bus_.set_timer(*this, kRecreate, message.source, now + settings_.backoff_base, core::Phase::kArrival);
    return;
  }
  if (pod.constraints != nullptr && pod.constraints->ownerless) return;  // a bare Pod stays Failed
  const std::int32_t job = job_of(message.source);
  const std::size_t owner = owner_of(message.source);
  std::int32_t limit = settings_.backoff_limit;
  bool counts = true;  // against the backoff limit
  if (job < 0) {
    if (message.reason == Reason::kDescheduled || message.reason == Reason::kPreempted) {
      // The implicit owner of a trace row is a deep-learning job's operator: a disruption is no
      // failure (a podFailurePolicy ignoring DisruptionTarget), replaced after the base backoff.
      bus_.set_timer(*this, kRecreate, message.source, now + settings_.backoff_base, core::Phase::kArrival);
      return;
    }
  } else {
    const auto j = static_cast<std::size_t>(job);
    if (job_ended_[j]) return;
    if (job_suspended_[j] != 0 && message.reason == Reason::kPreempted) {
      // Kueue suspended the Job (its Workload was preempted). The Job controller deletes a
      // suspended Job's pods after taking their tracking finalizer off (deleteJobPods), so they are
      // never counted as failed: no backoffLimit, no podFailurePolicy rule, no failure backoff. It
      // creates them again when the Job is resumed; until then the new ones wait suspended.
      bus_.set_timer(*this, kRecreate, message.source, now, core::Phase::kArrival);
      return;
    }
    const traces::JobSpec& spec = workload_.jobs[j];
    if (spec.backoff_limit) limit = *spec.backoff_limit;
    switch (failure_action(spec, pod, message.reason)) {
      case traces::FailureAction::kFailJob:
        ++given_up_;
        fail_job(j, Reason::kPodFailurePolicy, now);
        return;
      case traces::FailureAction::kIgnore:
        // Not counted against backoffLimit; the backoff still counts it as a failure since the
        // last success.
        counts = false;
        break;
      case traces::FailureAction::kCount:
        break;
    }
  }
  ++since_success_[owner];
  if (counts && ++failures_[owner] > limit) {
    ++given_up_;
    if (job >= 0) {
      fail_job(static_cast<std::size_t>(job), Reason::kBackoffLimitExceeded, now);
    } else {
      Message gave_up;
      gave_up.topic = Topic::kOwnerGaveUp;
      gave_up.reason = Reason::kBackoffLimitExceeded;
      gave_up.pod = message.pod;
      gave_up.source = message.source;
      bus_.publish(gave_up, now);
    }
    return;
  }
  // base x 2^(failures since the last success - 1), capped; the doubling stops at the cap, so it
  // never overflows.
  const std::int64_t base = settings_.backoff_base.micros();
  const std::int64_t cap = settings_.backoff_max.micros();
  std::int64_t delay = base;
  for (int i = 1; i < since_success_[owner] && delay < cap; ++i) delay *= 2;
  delay = std::min(delay, cap);
  bus_.set_timer(*this, kRecreate, message.source, now + core::Time::from_micros(delay), core::Phase::kArrival);
}

void Controller::container_restarted(const Message& message, core::Time now) {
  ++container_restarts_;
  const std::int32_t job = job_of(message.source);
  if (job < 0) return;
  const auto j = static_cast<std::size_t>(job);
  if (pod_restarts_.size() <= message.pod) pod_restarts_.resize(std::size_t{message.pod} + 1, 0);
  ++pod_restarts_[message.pod];
  ++job_restarts_[j];
  if (job_ended_[j]) return;
  // pastBackoffLimitOnFailure: the restarts of the Job's running and pending pods reach the limit
  // (any restart when the limit is 0).
  const std::int32_t limit = workload_.jobs[j].backoff_limit.value_or(settings_.backoff_limit);
  if (limit == 0 ? job_restarts_[j] > 0 : job_restarts_[j] >= limit) {
    ++given_up_;
    fail_job(j, Reason::kBackoffLimitExceeded, now);
  }
}

void Controller::fail_job(std::size_t job, Reason reason, core::Time now) {
  job_ended_[job] = 1;
  ++jobs_failed_[reason_slot(reason)];
  Message failed;
  failed.topic = Topic::kJobFailed;
  failed.reason = reason;
  failed.value = static_cast<std::int64_t>(job);
  bus_.publish(failed, now);
  // Its active pods are deleted: pending ones leave the queue, bound ones are stopped.
  const std::uint32_t first = first_of_job_[job];
  const auto rows = static_cast<std::uint32_t>(workload_.jobs[job].completions);
  for (std::uint32_t row = first; row < first + rows; ++row) {
    const PodId pod = api_.latest(row);
    if (pod == kNoPod) continue;  // never created: the workload driver creates no more
    const PodObject& object = api_.pod(pod);
    Message m;
    m.pod = pod;
    m.source = row;
    m.node = object.node >= 0 ? static_cast<std::uint32_t>(object.node) : 0;
    switch (object.phase) {
      case PodPhase::kPending:
        m.topic = Topic::kPodDeleted;
        break;
      case PodPhase::kBound:  // its kubelet may be admitting it: the kubelet ends it
      case PodPhase::kAdmitted:
      case PodPhase::kRunning:
        m.topic = Topic::kPodKill;
        m.reason = reason;
        break;
      default:
        continue;  // ended
    }
    bus_.publish(m, now);
  }
}

void Controller::on_timer(std::uint32_t tag, std::uint64_t payload, core::Time now) {
  if (tag == kDeadline) {
    const auto job = static_cast<std::size_t>(payload);
    deadline_timer_[job] = kNoDeadline;
    if (!job_ended_[job]) fail_job(job, Reason::kDeadlineExceeded, now);
    return;
  }
  const auto source = static_cast<std::uint32_t>(payload);
  if (deleted_[source]) return;
  const std::int32_t job = job_of(source);
  if (job >= 0 && job_ended_[static_cast<std::size_t>(job)]) return;
  Message create;
  create.topic = Topic::kPodCreated;
  create.source = source;
  create.value = ++attempt_[source];
  ++recreated_;
  bus_.publish(create, now, core::Phase::kArrival);
}

}  // namespace gpusim::k8s
