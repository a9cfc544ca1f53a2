#include "policies/preemption/preemptor.hpp"

#include <algorithm>
#include <tuple>

namespace gpusim::k8s {

bool may_take_node(const cluster::PodSpec& pod, const cluster::ClusterState& cache, cluster::NodeIndex n) {
  const cluster::NodeSpec& node = cache.node(n);
  if (!cache.present(n) || node.gpu_count < std::max(1, pod.gpu_count) || !pod.allowed_models.allows(node.gpu_model)) {
    return false;
  }
  const auto& taints = cache.taints(n);  // the node's own and the lifecycle controller's
  return std::none_of(taints.begin(), taints.end(), [&](const cluster::Taint& t) {
    return t.effect != "PreferNoSchedule" && (pod.constraints == nullptr || !cluster::tolerates(pod.constraints->tolerations, t));
  });
}

Preemptor::Preemptor(const cluster::ClusterState& cache, const ApiServer& api, const std::vector<cluster::PodSpec>& pods,
                     const std::vector<NodeSetup>& setup, const std::vector<cluster::Placement>& assumed,
                     const std::vector<std::vector<PodId>>& on_node, const std::vector<std::uint8_t>& evicting,
                     const JobPriority& priority, core::Time checkpoint_interval, bool wait_for_checkpoint)
    : cache_(cache),
      api_(api),
      pods_(pods),
      setup_(setup),
      assumed_(assumed),
      on_node_(on_node),
      evicting_(evicting),
      priority_(priority),
      checkpoint_us_(std::max<std::int64_t>(1, checkpoint_interval.micros())),
      wait_for_checkpoint_(wait_for_checkpoint),
      spare_gpus_(cache.node_count(), 0),
      spare_cpu_(cache.node_count(), 0),
      spare_memory_(cache.node_count(), 0),
      spare_pods_(cache.node_count(), 0) {}

std::int32_t candidates_to_find(const CandidateSampling& sampling, std::int32_t potential_nodes) {
  std::int32_t n = potential_nodes * sampling.percentage / 100;
  if (n < sampling.absolute) n = sampling.absolute;
  if (n > potential_nodes) n = potential_nodes;
  return n;
}

void Preemptor::sample_candidates(CandidateSampling sampling, core::Rng offsets) {
  sampling_ = sampling;
  offsets_ = offsets;
}

bool Preemptor::preemptible_node(cluster::NodeIndex n) const {
  const DevicePluginModel model = setup_[n].model;
  return model == DevicePluginModel::kSchedulerAssigned || model == DevicePluginModel::kDevicePlugin ||
         model == DevicePluginModel::kAccelerators16;
}

std::int64_t Preemptor::lost_gpu_us(PodId pod, core::Time now) const {
  const std::int64_t since_checkpoint = (now - api_.pod(pod).container_started).micros() % checkpoint_us_;
  return since_checkpoint * pods_[api_.pod(pod).source].total_gpu_milli() / cluster::kMilliPerGpu;
}

bool Preemptor::evictable(PodId pod, core::Time now) const {
  const PodObject& object = api_.pod(pod);
  return object.phase == PodPhase::kRunning && !taken(pod) &&
         (!wait_for_checkpoint_ || (now - object.container_started).micros() >= checkpoint_us_);
}

bool Preemptor::job_pods(PodId pod, core::Time now, std::vector<PodId>& out) const {
  out.clear();
  const std::uint32_t gang = pods_[api_.pod(pod).source].gang;
  if (gang == 0) {
    if (!evictable(pod, now)) return false;
    out.push_back(pod);
    return true;
  }
  for (const std::uint32_t row : priority_.gang_rows(gang)) {
    const PodId worker = api_.latest(row);
    if (worker == kNoPod || !evictable(worker, now)) return false;
    out.push_back(worker);
  }
  return true;
}

void Preemptor::take(PodId pod) {
  if (taken_.size() <= pod) taken_.resize(std::size_t{pod} + 1, 0);
  taken_[pod] = 1;
  taken_list_.push_back(pod);
}

int Preemptor::healthy_gpus(PodId pod) const {
  const cluster::Placement& placement = assumed_[pod];
  int count = 0;
  for (int g = 0; g < cache_.node(placement.node).gpu_count; ++g) {
    count += placement.gpus.contains(g) && cache_.gpu_healthy(placement.node, g) ? 1 : 0;
  }
  return count;
}

void Preemptor::reclaim_for(const ReclaimRule& rule) {
  rule_ = &rule;
  std::size_t queues = 1;
  for (const cluster::PodSpec& pod : pods_) queues = std::max<std::size_t>(queues, std::size_t{pod.queue} + 1);
  queue_taken_.assign(queues, 0);
  queue_tentative_.assign(queues, 0);
  queue_sum_.assign(queues, 0);
}

bool Preemptor::quota_allows(const cluster::PodSpec& reclaimer, const Candidate& c) {
  for (std::size_t q = 0; q < queue_sum_.size(); ++q) queue_sum_[q] = queue_taken_[q] + queue_tentative_[q];
  return rule_->may_take(reclaimer, pods_[api_.pod(c.pod).source], c.job_gpu_milli, queue_sum_);
}

bool Preemptor::reclaim_victims(Room room, const cluster::PodSpec& spec) {
  const auto fits = [&] { return room.fits(spec); };
  // The rule's order, then least work lost first, then the lowest priority, then the oldest pod object.
  std::sort(candidates_.begin(), candidates_.end(), [](const Candidate& a, const Candidate& b) {
    return std::tie(a.rank, a.lost_gpu_us, b.key, a.pod) < std::tie(b.rank, b.lost_gpu_us, a.key, b.pod);
  });
  // A candidate is skipped once its queue would no longer hold more than it deserves.
  std::size_t used = 0;
  for (std::size_t k = 0; k < candidates_.size() && !fits(); ++k) {
    const Candidate& c = candidates_[k];
    if (!quota_allows(spec, c)) continue;
    queue_tentative_[c.queue] += c.job_gpu_milli;
    room.add(c, 1);
    candidates_[used++] = c;
  }
  std::fill(queue_tentative_.begin(), queue_tentative_.end(), 0);
  if (!fits()) return false;
  candidates_.resize(used);
  // Reprieve: a victim the worker fits without stays, the one that would lose the most work first.
  for (std::size_t k = candidates_.size(); k-- > 0;) {
    const Candidate& c = candidates_[k];
    room.add(c, -1);
    if (fits()) {
      candidates_.erase(candidates_.begin() + static_cast<std::ptrdiff_t>(k));
    } else {
      room.add(c, 1);
    }
  }
  return true;
}

bool Preemptor::priority_victims(Room room, const cluster::PodSpec& spec) {
  const auto fits = [&] { return room.fits(spec); };
  // kube-scheduler's selectVictimsOnNode: every lower-priority pod removed, the node is a candidate
  // only if the pod then fits; then, most important first (higher priority, then the earlier
  // start), each is put back if the pod still fits without it. What is left are the victims: the
  // lowest-priority pods that make room.
  for (const Candidate& c : candidates_) room.add(c, 1);
  if (!fits()) return false;
  // Among equals Kubernetes keeps the pod that started first; the deep-learning ranks order their
  // jobs themselves (FIFO within a rank).
  const bool by_start = priority_.kind() == sched::Preemption::kPriority;
  std::sort(candidates_.begin(), candidates_.end(), [by_start](const Candidate& a, const Candidate& b) {
    const std::int64_t a2 = by_start ? a.started_us : a.key.order, b2 = by_start ? b.started_us : b.key.order;
    return std::tie(a.key.rank, a2, a.pod) < std::tie(b.key.rank, b2, b.pod);
  });
  std::size_t kept = 0;
  for (const Candidate& c : candidates_) {
    room.add(c, -1);
    if (fits()) continue;  // reprieved
    room.add(c, 1);
    candidates_[kept++] = c;
  }
  candidates_.resize(kept);
  return true;
}

Preemptor::NodeChoice Preemptor::node_choice(cluster::NodeIndex n, core::Time) const {
  NodeChoice choice;
  choice.node = n;
  choice.victims = candidates_.size();
  if (candidates_.empty()) return choice;  // a node that needs no eviction wins outright
  choice.needs_eviction = 1;
  for (const Candidate& c : candidates_) choice.lost_gpu_us += c.lost_gpu_us;
  if (rule_ != nullptr) return choice;  // reclaim: least work lost, fewest victims, lowest index
  // kube-scheduler's pickOneNodeForPreemption, in order: the node whose most important victim is
  // least important; the least sum of priorities (PriorityClass values; for the deep-learning
  // ranks, which do not add up, the least work lost instead); the fewest victims; the node whose
  // most important victims started last; the lowest index (Kubernetes takes the first of a map).
  std::int64_t top_rank = INT64_MAX;
  for (const Candidate& c : candidates_) top_rank = std::min(top_rank, c.key.rank);
  choice.neg_top_rank = -top_rank;
  std::int64_t earliest = INT64_MAX;
  for (const Candidate& c : candidates_) {
    if (c.key.rank == top_rank) earliest = std::min(earliest, c.started_us);
    // PriorityClass value + 2^31, as Kubernetes sums them (rank is -value).
    if (priority_.kind() == sched::Preemption::kPriority) choice.priority_sum += -c.key.rank + (std::int64_t{1} << 31);
  }
  if (priority_.kind() != sched::Preemption::kPriority) choice.priority_sum = choice.lost_gpu_us;
  choice.neg_earliest_start = -earliest;
  choice.lost_gpu_us = 0;  // counted in priority_sum where it decides
  return choice;
}

bool Preemptor::node_candidate(cluster::NodeIndex n, const cluster::PodSpec& spec, const PriorityKey& key, core::Time now) {
  // The node's pod count is a resource too, as NodeResourcesFit checks it in the victim search.
  const std::int32_t max_pods = cache_.node(n).max_pods;
  const Room room{cache_.whole_free_devices(n).size() + spare_gpus_[n], cache_.cpu_free(n) + spare_cpu_[n],
                  cache_.memory_free(n) + spare_memory_[n],
                  max_pods <= 0 ? INT64_MAX / 2 : max_pods - cache_.pods_on(n) + spare_pods_[n]};
  const auto fits = [&] { return room.fits(spec); };
  candidates_.clear();
  ++scan_;
  if (!fits()) {
    for (const PodId pod : on_node_[n]) {
      const std::uint32_t row = api_.pod(pod).source;
      const cluster::PodSpec& victim = pods_[row];
      // A pod that may not be evicted yet (before its first checkpoint) rules out its job: cheaper
      // to see than its priority, so checked first.
      if (victim.gpu_milli < cluster::kMilliPerGpu || victim.phase == cluster::TracePhase::kPending || !evictable(pod, now)) {
        continue;
      }
      const PriorityKey victim_key = priority_.key(row, now);
      if (rule_ != nullptr) {
        // Reclaim: only what the rule lets go.
        if (!rule_->may_take(spec, victim, 0, queue_taken_)) continue;
      } else if (!priority_.may_preempt(key, victim_key)) {
        continue;
      }
      if (victim.gang != 0) {
        if (gang_seen_.size() <= victim.gang) gang_seen_.resize(std::size_t{victim.gang} + 1, 0);
        if (gang_seen_[victim.gang] == scan_) continue;  // listed with its first worker here
        gang_seen_[victim.gang] = scan_;
      }
      if (!job_pods(pod, now, job_)) continue;
      Candidate c{rule_ != nullptr ? rule_->victim_rank(victim) : 0, 0, victim_key, pod, 0, 0, 0, victim.queue, 0, api_.pod(pod).running.micros(), 0};
      for (const PodId member : job_) {
        c.lost_gpu_us += lost_gpu_us(member, now);
        c.job_gpu_milli += pods_[api_.pod(member).source].total_gpu_milli();
        if (assumed_[member].node != n) continue;
        const cluster::PodSpec& m = pods_[api_.pod(member).source];
        c.gpus += healthy_gpus(member);
        c.cpu_milli += m.cpu_milli;
        c.memory_mib += m.memory_mib;
        ++c.pods;
      }
      candidates_.push_back(c);
    }
    if (rule_ != nullptr) {
      if (!reclaim_victims(room, spec)) return false;
    } else if (!priority_victims(room, spec)) {
      return false;
    }
  }
  return true;
}

bool Preemptor::choose(std::span<const PodId> workers, core::Time now, std::vector<PodId>& victims) {
  victims.clear();
  if (workers.empty()) return false;
  const PriorityKey key = priority_.key(api_.pod(workers.front()).source, now);
  if (rule_ == nullptr && !priority_.may_outrank_any(key)) return false;
  bool ok = true;
  for (const PodId worker : workers) {
    const cluster::PodSpec& spec = pods_[api_.pod(worker).source];
    const bool rules = spec.constraints != nullptr &&
                       (!spec.constraints->node_selector.empty() || !spec.constraints->required_terms.empty());
    // Victims are chosen by GPUs, CPU and memory; a pod with RDMA or a per-node instance limit
    // asks more than that search frees, so it does not preempt.
    const bool counted = spec.rdma_percent > 0 || spec.max_per_node > 0;
    if (spec.gpu_count == 0 || spec.gpu_milli < cluster::kMilliPerGpu || rules || counted) {
      ok = false;
      break;
    }
    NodeChoice best{};
    bool found = false;
    // The potential nodes, walked as DryRunPreemption does: from a random offset until enough
    // candidates (sampling), else from the first node through all of them.
    potential_.clear();
    for (cluster::NodeIndex n = 0; n < cache_.node_count(); ++n) {
      if (preemptible_node(n) && may_take_node(spec, cache_, n)) potential_.push_back(n);
    }
    const std::size_t size = potential_.size();
    std::size_t offset = 0;
    std::size_t wanted = size;
    if (sampling_ && size > 0) {
      offset = static_cast<std::size_t>(offsets_->uniform_below(size));
      wanted = static_cast<std::size_t>(candidates_to_find(*sampling_, static_cast<std::int32_t>(size)));
    }
    std::size_t candidates = 0;
    for (std::size_t i = 0; i < size && candidates < wanted; ++i) {
      const cluster::NodeIndex n = potential_[(offset + i) % size];
      if (!node_candidate(n, spec, key, now)) continue;
      ++candidates;
      const NodeChoice here = node_choice(n, now);
      if (!found || here < best) {
        best = here;
        best_ = candidates_;
        found = true;
      }
    }
    if (!found) {
      ok = false;
      break;
    }
    // This worker takes the node: its victims (with their gangs' workers elsewhere) are gone, its
    // own asks are used.
    const cluster::NodeIndex n = best.node;
    for (const Candidate& c : best_) {
      if (rule_ != nullptr) queue_taken_[c.queue] += c.job_gpu_milli;
      job_pods(c.pod, now, job_);
      for (const PodId member : job_) {
        const cluster::NodeIndex m = assumed_[member].node;
        const cluster::PodSpec& spec_m = pods_[api_.pod(member).source];
        spare_gpus_[m] += healthy_gpus(member);
        spare_cpu_[m] += spec_m.cpu_milli;
        spare_memory_[m] += spec_m.memory_mib;
        ++spare_pods_[m];
        touched_.push_back(m);
        take(member);
        victims.push_back(member);
      }
    }
    spare_gpus_[n] -= spec.gpu_count;
    spare_cpu_[n] -= spec.cpu_milli;
    spare_memory_[n] -= spec.memory_mib;
    --spare_pods_[n];
    touched_.push_back(n);
  }
  for (const cluster::NodeIndex n : touched_) spare_gpus_[n] = spare_cpu_[n] = spare_memory_[n] = spare_pods_[n] = 0;
  touched_.clear();
  for (const PodId pod : taken_list_) taken_[pod] = 0;
  taken_list_.clear();
  std::fill(queue_taken_.begin(), queue_taken_.end(), 0);
  if (!ok) victims.clear();
  return ok;
}

}  // namespace gpusim::k8s
