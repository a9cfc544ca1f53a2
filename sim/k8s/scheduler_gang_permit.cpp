// Gang scheduling through Permit, as the coscheduling plugin of kubernetes-sigs/scheduler-plugins
// does it (KEP 42): the scheduler places a gang's workers one at a time like any pod, but Permit
// holds each placed worker ("wait") with its resources reserved in the scheduler's cache until the
// whole gang is placed; then every worker is bound. The wait is bounded:
//  - Permit timeout: when a gang's first worker has waited `gang_timeout`, every waiting worker is
//    rejected (reservations released, back in the queue);
//  - PostFilter: a worker that fits nowhere while more than 10 % of its gang is still unplaced
//    rejects the gang's waiting workers at once (they are far from a quorum);
//  - a rejected gang stays out of scheduling for `gang_denied_backoff` (the plugin's denied
//    pod-group expiry), so the cycle does not place and reject it again at once.
// gpusim's gangs need every worker (minMember = workers). Workers that wait hold GPUs no other pod
// may use: the cost this mechanism pays, counted as permit_wait_gpu_hours.
#include <algorithm>

#include "sim/core/check.hpp"
#include "sim/k8s/scheduler.hpp"

namespace gpusim::k8s {

void Scheduler::enable_gang_permit(core::Time timeout, core::Time denied_backoff) {
  GPUSIM_CHECK(pending_.empty(), "gang Permit enabled after pods were queued");
  GPUSIM_CHECK(timeout > core::Time::zero(), "a Permit wait must last");
  permit_.resize(gang_size_.size());
  gang_timeout_ = timeout;
  gang_denied_backoff_ = denied_backoff;
}

bool Scheduler::permit_worker(PodId id, const cluster::PodSpec& spec, core::Time now) {
  const std::uint32_t gang = spec.gang;
  GangPermit& wait = permit_[gang];
  ++attempts_;
  if (gang_started_[gang]) {
    // A replacement for a lost worker of a gang that ran: placed on its own, as with admission.
    const auto placement = framework_.schedule(spec);
    if (!placement) return false;
    std::erase(gang_pending_[gang], id);
    bind(id, *placement, now);
    return true;
  }
  // PreFilter: a gang rejected a moment ago sits out its backoff (the queue walk skips it already).
  if (now < wait.denied_until || wait.broken) return false;
  const auto placement = framework_.schedule(spec);
  if (!placement) {
    // PostFilter: more than 10 % of the workers unplaced is too far from the quorum to keep the
    // others' reservations.
    const std::size_t workers = gang_size_[gang];
    if (!wait.waiting.empty() && 10 * (workers - wait.waiting.size()) > workers) {
      reject_gang(gang, false, now);
      // What it released may let pods this cycle already passed over fit now.
      request_cycle(now);
    }
    return false;
  }
  apply_status(placement->node);
  count_pending(id, -1);
  std::erase(gang_pending_[gang], id);
  wait.waiting.push_back({id, *placement, now});
  if (wait.waiting.size() < gang_size_[gang]) {
    // Permit says wait; the first worker to wait starts the gang's clock.
    if (wait.waiting.size() == 1) {
      bus_.set_timer(*this, kGangTimeout, (std::uint64_t{gang} << 32) | wait.generation, now + gang_timeout_);
    }
    return true;
  }
  // The last worker: Permit lets every waiting worker through, in the order they were placed.
  gang_started_[gang] = 1;
  note_gang_start(gang, std::any_of(wait.waiting.begin(), wait.waiting.end(), [&](const PermitWait& w) {
                    return w.placement.node != wait.waiting.front().placement.node;
                  }));
  for (const PermitWait& worker : wait.waiting) {
    permit_wait_gpu_us_ += static_cast<double>(pods_[api_.pod(worker.pod).source].gpu_count) *
                           static_cast<double>((now - worker.since).micros());
    bind(worker.pod, worker.placement, now, false);
  }
  wait.waiting.clear();
  ++wait.generation;
  return true;
}

void Scheduler::reject_gang(std::uint32_t gang, bool timed_out, core::Time now) {
  GangPermit& wait = permit_[gang];
  // Newest first, as reservations are undone.
  for (std::size_t k = wait.waiting.size(); k-- > 0;) {
    const PermitWait& worker = wait.waiting[k];
    const cluster::PodSpec& spec = pods_[api_.pod(worker.pod).source];
    permit_wait_gpu_us_ += static_cast<double>(spec.gpu_count) * static_cast<double>((now - worker.since).micros());
    framework_.release(spec, worker.placement);
    apply_status(worker.placement.node);
    gang_pending_[gang].push_back(worker.pod);
    requeue_.push_back(worker.pod);
  }
  std::sort(gang_pending_[gang].begin(), gang_pending_[gang].end());
  wait.waiting.clear();
  ++wait.generation;
  wait.denied_until = now + gang_denied_backoff_;
  wait.released_at_reject = released_;
  bus_.set_timer(*this, kGangRetry, gang, wait.denied_until);
  ++(timed_out ? gang_timeouts_ : gang_rejections_);
}

void Scheduler::flush_requeue() {
  for (const PodId id : requeue_) {
    queue_insert(id);
    count_pending(id, +1);
  }
  requeue_.clear();
}

void Scheduler::drop_waiting(PodId id, core::Time now) {
  const std::uint32_t gang = pods_[api_.pod(id).source].gang;
  if (gang == 0) return;
  auto& waiting = permit_[gang].waiting;
  const auto it = std::find_if(waiting.begin(), waiting.end(), [&](const PermitWait& w) { return w.pod == id; });
  if (it == waiting.end()) return;
  const cluster::PodSpec& spec = pods_[api_.pod(id).source];
  permit_wait_gpu_us_ += static_cast<double>(spec.gpu_count) * static_cast<double>((now - it->since).micros());
  framework_.release(spec, it->placement);
  apply_status(it->placement.node);
  waiting.erase(it);
  break_gang(gang, now);
}

void Scheduler::break_gang(std::uint32_t gang, core::Time now) {
  GangPermit& wait = permit_[gang];
  if (gang_started_[gang] || wait.broken) return;
  wait.broken = true;
  // The others' reservations go; they stay queued until their owner deletes them, never placed.
  for (const PermitWait& worker : wait.waiting) {
    const cluster::PodSpec& spec = pods_[api_.pod(worker.pod).source];
    permit_wait_gpu_us_ += static_cast<double>(spec.gpu_count) * static_cast<double>((now - worker.since).micros());
    framework_.release(spec, worker.placement);
    apply_status(worker.placement.node);
    gang_pending_[gang].push_back(worker.pod);
    requeue_.push_back(worker.pod);
  }
  wait.waiting.clear();
  ++wait.generation;
  flush_requeue();
  request_cycle(now);
}

}  // namespace gpusim::k8s
