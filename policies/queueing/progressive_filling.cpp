#include "policies/queueing/progressive_filling.hpp"

#include <algorithm>
#include <climits>

namespace gpusim::policy {

void ProgressiveFilling::attach(k8s::SchedulerHandle& handle) {
  h_ = &handle;
  std::size_t queues = 1;
  for (const cluster::PodSpec& pod : handle.workload()) queues = std::max<std::size_t>(queues, std::size_t{pod.queue} + 1);
  lists_.resize(queues);
  next_.resize(queues);
  smallest_ask_.resize(queues);
}

std::int64_t ProgressiveFilling::ask_of(const cluster::PodSpec& spec) const {
  if (spec.gang == 0) return spec.total_gpu_milli();
  std::int64_t milli = 0;
  for (const k8s::PodId member : h_->gang_pending(spec.gang)) milli += h_->spec_of(member).total_gpu_milli();
  return milli;
}

bool ProgressiveFilling::run_cycle(core::Time now) {
  std::vector<k8s::PodId>& pending = h_->pending();
  begin_cycle();
  for (auto& list : lists_) list.clear();
  std::fill(smallest_ask_.begin(), smallest_ask_.end(), INT64_MAX);
  // Locals, not the handle's accessors: push_back may alias anything, so every access through the
  // handle would be reloaded per pod.
  const k8s::ApiServer& api = h_->api();
  const std::vector<cluster::PodSpec>& workload = h_->workload();
  const std::size_t count = pending.size();
  for (std::uint32_t i = 0; i < count; ++i) {
    const cluster::PodSpec& spec = workload[api.pod(pending[i]).source];
    lists_[spec.queue].push_back(i);
    if (limits_queues_) smallest_ask_[spec.queue] = std::min(smallest_ask_[spec.queue], spec.total_gpu_milli());
  }
  std::fill(next_.begin(), next_.end(), 0);
  placed_.assign(pending.size(), 0);
  before_walk(now);
  const k8s::SchedulerHandle::View view = h_->view();
  const std::size_t& pending_shapes = *view.pending_shapes;
  const std::vector<std::uint32_t>& shape_of_source = *view.shape_of_source;
  const std::vector<std::uint64_t>& failed_in_cycle = *view.failed_in_cycle;
  const std::uint64_t cycle = *view.cycle;  // fixed during the walk
  std::size_t failed_shapes = 0;
  while (failed_shapes < pending_shapes) {
    std::size_t best = lists_.size();
    double best_share = 0;
    for (std::size_t q = 0; q < lists_.size(); ++q) {
      if (next_[q] >= lists_[q].size()) continue;
      if (compares_queues_) {
        if (best == lists_.size() || serves_before(q, best)) best = q;
        continue;
      }
      const double s = share(q);
      if (best == lists_.size() || s < best_share) {
        best = q;
        best_share = s;
      }
    }
    if (best == lists_.size()) break;
    // Shares change only when a pod is placed: until then the same queue would be chosen again, so
    // its pods are tried in a row (a long queue of failed shapes costs one pass, not one choice of
    // queue per pod).
    bool placed_one = false;
    const std::vector<std::uint32_t>& list = lists_[best];
    std::size_t& next = next_[best];
    while (!placed_one && next < list.size() && failed_shapes < pending_shapes) {
      const std::uint32_t index = list[next++];
      const k8s::PodId id = pending[index];
      if (placed_[index] || h_->bound_by_gang(id)) continue;  // placed already
      const std::uint32_t source = api.pod(id).source;
      const cluster::PodSpec& spec = workload[source];
      const std::uint32_t shape = shape_of_source[source];
      if (failed_in_cycle[shape] == cycle && spec.gang == 0) continue;  // the common case, decided early
      if (spec.gang != 0 && !h_->gang_ready(spec.gang)) continue;
      const bool partial_gang = spec.gang != 0 && h_->gang_started(spec.gang);
      if (failed_in_cycle[shape] == cycle && !partial_gang) continue;
      // A pod its queue may not take waits (not a failure of its shape); once the queue may not
      // take even its smallest ask, the rest of it waits too (it only takes more in a cycle).
      if (limits_queues_ && !admits(spec)) {
        if (!admits_smallest(spec.queue)) next = list.size();
        continue;
      }
      if (h_->place(id, spec, now)) {
        placed_[index] = 1;
        placed_one = true;
      } else if (!partial_gang) {
        failed_shapes += h_->mark_failed(spec, shape);
      }
    }
  }
  if (after_walk(now)) h_->request_cycle(now);
  std::size_t kept = 0;
  for (std::size_t i = 0; i < pending.size(); ++i) {
    if (!placed_[i]) pending[kept++] = pending[i];
  }
  pending.resize(kept);
  h_->drop_gang_bound();
  return true;
}

bool ProgressiveFilling::has_nomination(std::uint32_t queue) const {
  return std::any_of(nominated_.begin(), nominated_.end(), [&](const Nomination& n) { return n.queue == queue; });
}

void ProgressiveFilling::place_nominated(core::Time now) {
  const std::vector<k8s::PodId>& pending = h_->pending();
  std::size_t kept = 0;
  for (std::size_t k = 0; k < nominated_.size(); ++k) {
    Nomination& nomination = nominated_[k];
    const auto it = std::find(pending.begin(), pending.end(), nomination.pod);
    if (it == pending.end()) continue;  // placed with its gang, or deleted
    const auto index = static_cast<std::size_t>(it - pending.begin());
    const cluster::PodSpec& spec = h_->spec_of(nomination.pod);
    const bool victims_gone = std::none_of(nomination.victims.begin(), nomination.victims.end(),
                                           [&](k8s::PodId v) { return h_->is_evicting(v); });
    const bool ready = spec.gang == 0 || h_->gang_ready(spec.gang);
    if (ready && (!limits_queues_ || admits(spec)) && h_->place(nomination.pod, spec, now)) {
      placed_[index] = 1;
      continue;
    }
    if (victims_gone) continue;
    if (kept != k) nominated_[kept] = std::move(nomination);
    ++kept;
  }
  nominated_.resize(kept);
}

}  // namespace gpusim::policy
