// Gang scheduling through Permit, as the coscheduling plugin of kubernetes-sigs/scheduler-plugins
// does it (KEP 42): the scheduler places a gang's workers one at a time like any pod, but Permit
// holds each placed worker ("wait") with its resources reserved in the scheduler's cache until the
// whole gang is placed; then every worker is bound. The wait is bounded:
//  - Permit timeout: when a gang's first worker has waited permitWaitingTimeSeconds
//    (Profile::gang_timeout), every waiting worker is rejected (reservations released, back in the
//    queue);
//  - PostFilter: a worker that fits nowhere while more than 10 % of its gang is still unplaced
//    rejects the gang's waiting workers at once (they are far from a quorum);
//  - a rejected gang stays out of scheduling for Profile::gang_denied_backoff (the plugin's denied
//    pod-group expiry), so the cycle does not place and reject it again at once.
// gpusim's gangs need every worker (minMember = workers). Workers that wait hold GPUs no other pod
// may use: the cost this mechanism pays, counted as gpu_hours_held_at_permit.
#include <algorithm>
#include <memory>

#include "policies/builtin_parts.hpp"
#include "sim/core/check.hpp"
#include "sim/k8s/queueing_plugin.hpp"

namespace gpusim::policy {
namespace {

using k8s::PodId;

constexpr std::uint32_t kGangTimeout = 0;  // timer: a gang's Permit wait is over (payload: gang, generation)
constexpr std::uint32_t kGangRetry = 1;    // timer: a rejected gang's backoff is over (payload: gang)

class Coscheduling final : public k8s::QueueingPlugin {
 public:
  std::string_view name() const override { return "coscheduling"; }

  void attach(k8s::SchedulerHandle& handle) override {
    h_ = &handle;
    GPUSIM_CHECK(handle.profile().gang_timeout > core::Time::zero(), "a Permit wait must last");
    std::uint32_t gangs = 0;
    for (const cluster::PodSpec& pod : handle.workload()) gangs = std::max(gangs, pod.gang + 1);
    permit_.resize(gangs);
  }

  bool places_gang_workers() const override { return true; }

  bool holds_back(const cluster::PodSpec& spec, core::Time now) const override {
    const std::uint32_t gang = spec.gang;
    return gang != 0 && !h_->gang_started(gang) && (permit_[gang].broken || now < permit_[gang].denied_until);
  }

  bool place_worker(PodId id, const cluster::PodSpec& spec, core::Time now) override;

  void pod_dequeued(PodId id, const k8s::Message&, core::Time now) override {
    if (const std::uint32_t gang = h_->spec_of(id).gang; gang != 0) break_gang(gang, now);
  }
  // A waiting worker deleted (its owner gave up): its reservation goes.
  void pod_deleted_elsewhere(PodId id, core::Time now) override;

  void on_timer(std::uint32_t tag, std::uint64_t payload, core::Time now) override {
    if (tag == kGangTimeout) {
      const auto gang = static_cast<std::uint32_t>(payload >> 32);
      // Only the wait that set this timer: the gang may have been bound or rejected since.
      if (permit_[gang].generation == static_cast<std::uint32_t>(payload) && !permit_[gang].waiting.empty()) {
        reject_gang(gang, true, now);
        flush_requeue();
        h_->request_cycle(now);  // what it held may let others start now
      }
      return;
    }
    // A backoff is over. Only if something was freed since the gang was sent back: else it would be
    // placed and sent back again for ever (a gang that cannot be whole), and the run would never end.
    if (h_->released() != permit_[payload].released_at_reject) h_->request_cycle(now);
  }

  void walk_done(core::Time) override { flush_requeue(); }

  std::optional<sched::NeverRanReason> never_ran(PodId id, std::span<const std::string>) const override {
    const cluster::PodSpec& spec = h_->spec_of(id);
    if (spec.gang == 0 || h_->gang_started(spec.gang) || h_->never_fits(h_->shape_of(id)) || !permit_[spec.gang].broken) {
      return std::nullopt;
    }
    return sched::NeverRanReason{"its gang can never be whole: a worker was deleted before the gang started", {"gang never whole"}};
  }

  void add_metrics(const k8s::MetricSink& set) const override {
    set("gang_permit_timeouts", static_cast<double>(timeouts_));
    set("gang_permit_rejections", static_cast<double>(rejections_));
    set("gpu_hours_held_at_permit", wait_gpu_us_ / 3.6e9);
  }

 private:
  // Per gang: the workers waiting at Permit (each with where it is reserved and since when), a
  // generation that names the current wait (a stale timeout finds another), and until when a
  // rejected gang is kept out of the queue.
  struct Waiting {
    PodId pod;
    cluster::Placement placement;
    core::Time since;
  };
  struct GangWait {
    std::vector<Waiting> waiting;
    std::uint32_t generation = 0;
    core::Time denied_until = core::Time::zero();
    std::uint64_t released_at_reject = 0;  // the handle's released() when it was last sent back
    bool broken = false;  // a worker was deleted before the gang started: it can never be whole
  };
  // GPU-time a worker held while it waited.
  void count_wait(const Waiting& worker, core::Time now) {
    wait_gpu_us_ += static_cast<double>(h_->spec_of(worker.pod).gpu_count) * static_cast<double>((now - worker.since).micros());
  }
  // A waiting worker's reservation goes and it rejoins its gang's pending workers (and the queue,
  // once the walk is over).
  void requeue(std::uint32_t gang, const Waiting& worker, core::Time now) {
    count_wait(worker, now);
    h_->unreserve(h_->spec_of(worker.pod), worker.placement);
    h_->gang_pending(gang).push_back(worker.pod);
    requeue_.push_back(worker.pod);
  }
  // Every waiting worker of the gang goes back: reservations released, queued again (at the end of
  // the cycle's walk), the gang kept out until its backoff ends.
  void reject_gang(std::uint32_t gang, bool timed_out, core::Time now);
  // Waiting workers' reservations go and they rejoin the queue (newest first, as reservations are undone).
  void release_waiting(std::uint32_t gang, core::Time now);
  // A worker of a gang that has not started was deleted: the others' reservations go, and the
  // gang is never tried again.
  void break_gang(std::uint32_t gang, core::Time now);
  void flush_requeue() {
    for (const PodId id : requeue_) {
      h_->queue_insert(id);
      h_->count_pending(id, +1);
    }
    requeue_.clear();
  }

  k8s::SchedulerHandle* h_ = nullptr;
  std::vector<GangWait> permit_;
  std::vector<PodId> requeue_;  // rejected workers, back in the queue once the cycle's walk is over
  std::uint64_t timeouts_ = 0;
  std::uint64_t rejections_ = 0;
  double wait_gpu_us_ = 0;
};

bool Coscheduling::place_worker(PodId id, const cluster::PodSpec& spec, core::Time now) {
  const std::uint32_t gang = spec.gang;
  GangWait& wait = permit_[gang];
  h_->count_attempt();
  if (h_->gang_started(gang)) {
    // A replacement for a lost worker of a gang that ran: placed on its own, as with admission.
    const auto placement = h_->schedule(spec);
    if (!placement) return false;
    std::erase(h_->gang_pending(gang), id);
    h_->bind(id, *placement, now, true);
    return true;
  }
  // PreFilter: a gang rejected a moment ago sits out its backoff (the queue walk skips it already).
  if (now < wait.denied_until || wait.broken) return false;
  const auto placement = h_->schedule(spec);
  if (!placement) {
    // PostFilter: more than 10 % of the workers unplaced is too far from the quorum to keep the
    // others' reservations.
    const std::size_t workers = h_->gang_size(gang);
    if (!wait.waiting.empty() && 10 * (workers - wait.waiting.size()) > workers) {
      reject_gang(gang, false, now);
      // What it released may let pods this cycle already passed over fit now.
      h_->request_cycle(now);
    }
    return false;
  }
  h_->refresh_node(placement->node);
  h_->count_pending(id, -1);
  std::erase(h_->gang_pending(gang), id);
  wait.waiting.push_back({id, *placement, now});
  if (wait.waiting.size() < h_->gang_size(gang)) {
    // Permit says wait; the first worker to wait starts the gang's clock.
    if (wait.waiting.size() == 1) {
      h_->set_timer(*this, kGangTimeout, (std::uint64_t{gang} << 32) | wait.generation, now + h_->profile().gang_timeout);
    }
    return true;
  }
  // The last worker: Permit lets every waiting worker through, in the order they were placed.
  h_->set_gang_started(gang, true);
  h_->note_gang_start(gang, std::any_of(wait.waiting.begin(), wait.waiting.end(), [&](const Waiting& w) {
                        return w.placement.node != wait.waiting.front().placement.node;
                      }));
  for (const Waiting& worker : wait.waiting) {
    count_wait(worker, now);
    h_->bind(worker.pod, worker.placement, now, false);
  }
  wait.waiting.clear();
  ++wait.generation;
  return true;
}

void Coscheduling::release_waiting(std::uint32_t gang, core::Time now) {
  GangWait& wait = permit_[gang];
  for (std::size_t k = wait.waiting.size(); k-- > 0;) requeue(gang, wait.waiting[k], now);
  wait.waiting.clear();
  ++wait.generation;
}

void Coscheduling::reject_gang(std::uint32_t gang, bool timed_out, core::Time now) {
  release_waiting(gang, now);
  std::sort(h_->gang_pending(gang).begin(), h_->gang_pending(gang).end());
  GangWait& wait = permit_[gang];
  wait.denied_until = now + h_->profile().gang_denied_backoff;
  wait.released_at_reject = h_->released();
  h_->set_timer(*this, kGangRetry, gang, wait.denied_until);
  ++(timed_out ? timeouts_ : rejections_);
}

void Coscheduling::pod_deleted_elsewhere(PodId id, core::Time now) {
  const std::uint32_t gang = h_->spec_of(id).gang;
  if (gang == 0) return;
  auto& waiting = permit_[gang].waiting;
  const auto it = std::find_if(waiting.begin(), waiting.end(), [&](const Waiting& w) { return w.pod == id; });
  if (it == waiting.end()) return;
  count_wait(*it, now);
  h_->unreserve(h_->spec_of(id), it->placement);
  waiting.erase(it);
  break_gang(gang, now);
}

void Coscheduling::break_gang(std::uint32_t gang, core::Time now) {
  GangWait& wait = permit_[gang];
  if (h_->gang_started(gang) || wait.broken) return;
  wait.broken = true;
  // The others' reservations go; they stay queued until their owner deletes them, never placed.
  // (In the order they were placed, as the gang was given up whole.)
  for (const Waiting& worker : wait.waiting) requeue(gang, worker, now);
  wait.waiting.clear();
  ++wait.generation;
  flush_requeue();
  h_->request_cycle(now);
}

}  // namespace

void register_coscheduling(sched::Registry& registry) {
  registry.add_queueing("coscheduling", [](const sched::PluginContext&) { return std::make_unique<Coscheduling>(); });
}

}  // namespace gpusim::policy
