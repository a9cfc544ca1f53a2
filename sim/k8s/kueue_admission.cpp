#include "sim/k8s/kueue_admission.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>
#include <tuple>

#include "sim/cluster/node.hpp"
#include "sim/core/check.hpp"
#include "sim/core/status.hpp"

namespace gpusim::k8s::kueue {
namespace {

using Mode = Admission::Mode;
using Usage = std::vector<std::pair<std::uint32_t, std::int64_t>>;

// A mode and a borrowing level together (flavorassigner.go, granularMode).
struct Granular {
  Mode mode = Mode::kFit;
  std::int32_t borrowing = 0;
};

constexpr Granular kWorst{Mode::kNoFit, std::numeric_limits<std::int32_t>::max()};

// Whether `a` is better than `b` under the ClusterQueue's flavorFungibility (isPreferred).
bool preferred(const Granular& a, const Granular& b, const FlavorFungibility& fungibility) {
  if (a.mode == Mode::kNoFit) return false;
  if (b.mode == Mode::kNoFit) return true;
  const bool a_none = a.mode == Mode::kNoCandidates, b_none = b.mode == Mode::kNoCandidates;
  if (a_none != b_none) return !a_none;
  if (fungibility.preference == FungibilityPreference::kPreemptionOverBorrowing) {
    if (a.borrowing != b.borrowing) return a.borrowing < b.borrowing;
    return a.mode > b.mode;
  }
  if (a.mode != b.mode) return a.mode > b.mode;
  return a.borrowing < b.borrowing;
}

// Whether the scan goes on to the next flavor after one of this mode (shouldTryNextFlavor).
bool try_next_flavor(const Granular& mode, const FlavorFungibility& fungibility) {
  if (mode.mode == Mode::kNoFit || mode.mode == Mode::kNoCandidates) return true;
  const bool preempts = mode.mode == Mode::kPreempt || mode.mode == Mode::kReclaim;
  if (preempts && fungibility.when_can_preempt == FungibilityPolicy::kTryNextFlavor) return true;
  return mode.borrowing != 0 && fungibility.when_can_borrow == FungibilityPolicy::kTryNextFlavor;
}

bool preempt_class(Mode mode) { return mode == Mode::kNoCandidates || mode == Mode::kPreempt || mode == Mode::kReclaim; }

// How a preemption candidate may be taken (classical/hierarchical_preemption.go, preemptionVariant).
enum class Variant : std::uint8_t { kNever, kWithinClusterQueue, kHierarchicalReclaim, kReclaimWithoutBorrowing, kReclaimWhileBorrowing };

PreemptionReason reason_of(Variant v) {
  switch (v) {
    case Variant::kWithinClusterQueue: return PreemptionReason::kInClusterQueue;
    case Variant::kReclaimWhileBorrowing: return PreemptionReason::kInCohortReclaimWhileBorrowing;
    default: return PreemptionReason::kInCohortReclamation;
  }
}

bool selector_matches(const LabelSelector& selector, const cluster::Labels& labels) {
  const auto value_of = [&](const std::string& key) -> const std::string* {
    for (const auto& [k, v] : labels) {
      if (k == key) return &v;
    }
    return nullptr;
  };
  for (const auto& [key, value] : selector.match_labels) {
    const std::string* got = value_of(key);
    if (got == nullptr || *got != value) return false;
  }
  for (const cluster::SelectorRequirement& req : selector.match_expressions) {
    const std::string* got = value_of(req.key);
    const bool listed = got != nullptr && std::find(req.values.begin(), req.values.end(), *got) != req.values.end();
    switch (req.op) {
      case cluster::SelectorOperator::kIn: if (!listed) return false; break;
      case cluster::SelectorOperator::kNotIn: if (listed) return false; break;
      case cluster::SelectorOperator::kExists: if (got == nullptr) return false; break;
      case cluster::SelectorOperator::kDoesNotExist: if (got != nullptr) return false; break;
      default: return false;
    }
  }
  return true;
}

void add_usage(QuotaTree& tree, NodeId cq, const Usage& usage, std::int64_t sign) {
  for (const auto& [fr, amount] : usage) tree.add_usage(cq, fr, sign * amount);
}

}  // namespace

const char* to_string(PreemptionReason reason) {
  switch (reason) {
    case PreemptionReason::kInClusterQueue: return "InClusterQueue";
    case PreemptionReason::kInCohortReclamation: return "InCohortReclamation";
    case PreemptionReason::kInCohortReclaimWhileBorrowing: return "InCohortReclaimWhileBorrowing";
    case PreemptionReason::kInCohortFairSharing: return "InCohortFairSharing";
  }
  return "?";
}

Admission::Admission(const Objects& objects) : tree_(objects), snapshot_(objects), flavors_(objects.resource_flavors) {
  if (objects.configuration) configuration_ = *objects.configuration;
  fair_sharing_ = configuration_.fair_sharing;
  std::sort(flavors_.begin(), flavors_.end(), [](const ResourceFlavor& a, const ResourceFlavor& b) { return a.name < b.name; });
  queue_index_.assign(tree_.node_count(), std::numeric_limits<std::size_t>::max());
  for (const ClusterQueue& cq : objects.cluster_queues) {
    Queue q;
    q.object = cq;
    q.node = *tree_.cluster_queue(cq.name);
    queue_index_[q.node] = queues_.size();
    queues_.push_back(std::move(q));
  }
}

const ResourceFlavor* Admission::flavor(const std::string& name) const {
  const auto it = std::lower_bound(flavors_.begin(), flavors_.end(), name, [](const ResourceFlavor& f, const std::string& n) { return f.name < n; });
  return it != flavors_.end() && it->name == name ? &*it : nullptr;
}

bool Admission::ranks_before(const Queue& q, WorkloadId a, WorkloadId b) const {
  // pkg/cache/queue/cluster_queue.go, baseCompareFunc: the sticky preemptor, then priority, age, uid.
  if ((q.sticky == a) != (q.sticky == b)) return q.sticky == a;
  return rank_key_[a] < rank_key_[b];
}

void Admission::push(Queue& q, WorkloadId id) {
  workloads_[id].state = WorkloadState::kPending;
  const auto at = std::upper_bound(q.heap.begin(), q.heap.end(), id, [&](WorkloadId a, WorkloadId b) { return ranks_before(q, a, b); });
  q.heap.insert(at, id);
  count_in_heap(q, shape_of_[id], 1);
}

WorkloadId Admission::add(WorkloadSpec spec) {
  GPUSIM_CHECK(spec.cluster_queue < queue_index_.size() && queue_index_[spec.cluster_queue] < queues_.size(),
               "a workload's ClusterQueue is not a ClusterQueue");
  const auto id = static_cast<WorkloadId>(workloads_.size());
  Workload w;
  // computeSchedulingHash: priority and the pod set's shape (count, requests, node selector, tolerations).
  std::string key = fmt::format("{}|{}", spec.priority, spec.pod_count);
  for (const auto& [r, a] : spec.requests) key += fmt::format("|{}={}", r, a);
  for (const auto& [k, v] : spec.node_selector) key += fmt::format("|s:{}={}", k, v);
  for (const cluster::Toleration& t : spec.tolerations) key += fmt::format("|t:{}:{}:{}:{}", t.key, t.exists, t.value, t.effect);
  shape_of_.push_back(shapes_.emplace(std::move(key), static_cast<std::uint32_t>(shapes_.size())).first->second);
  rank_key_.push_back({-static_cast<std::int64_t>(spec.priority), spec.queue_order, id});
  w.spec = std::move(spec);
  w.uid = id;
  workloads_.push_back(std::move(w));
  enqueue(id);
  return id;
}

std::string Admission::why_waiting(WorkloadId id) const {
  const Workload& w = workloads_[id];
  const Queue& q = queue_of(id);
  if (q.object.stop_policy != StopPolicy::kNone) return fmt::format("ClusterQueue {} is stopped (stopPolicy)", q.object.name);
  if (w.aside_with) return fmt::format("set aside with workloads of its shape: {}", workloads_[*w.aside_with].reason);
  if (w.joined_shape) return "set aside with workloads of its shape, for want of quota";
  if (!w.reason.empty()) return w.reason;
  return fmt::format("waiting in ClusterQueue {}'s queue behind its head", q.object.name);
}

void Admission::enqueue(WorkloadId id) {
  Queue& q = queue_of(id);
  // ClusterQueue.PushOrUpdate: a shape set aside since the last requeue joins it there.
  if (q.object.queueing_strategy == QueueingStrategy::kBestEffortFifo && q.set_aside.contains(shape_of_[id])) {
    set_aside(q, id);
    workloads_[id].reason.clear();
    workloads_[id].aside_with.reset();
    workloads_[id].joined_shape = true;
    return;
  }
  push(q, id);
}

void Admission::set_aside(Queue& q, WorkloadId id) {
  workloads_[id].state = WorkloadState::kInadmissible;
  q.inadmissible.push_back(id);
}

std::optional<core::Time> Admission::next_requeue() const {
  std::optional<core::Time> next;
  for (const auto& [root, due] : requeues_) {
    if (!next || due < *next) next = due;
  }
  return next;
}

void Admission::release(WorkloadId id, core::Time now) {
  Workload& w = workloads_[id];
  GPUSIM_CHECK(w.state == WorkloadState::kAdmitted || w.state == WorkloadState::kEvicted, "releasing quota a workload does not hold");
  add_usage(tree_, w.spec.cluster_queue, w.usage, -1);
  ++version_;
  w.usage.clear();
  Queue& q = queue_of(id);
  q.admitted.erase(std::find(q.admitted.begin(), q.admitted.end(), id));
  // Quota freed: the tree's workloads set aside are queued again by the requeuer, which batches
  // requests over a second (requeueBatchPeriod).
  requeues_.emplace(tree_.root(w.spec.cluster_queue), now + core::Time::from_seconds(1));
}

void Admission::requeue_cohort_tree(NodeId root) {
  for (Queue& q : queues_) {
    if (tree_.root(q.node) != root || q.inadmissible.empty()) continue;
    q.set_aside.clear();
    // All at once: sorted, then merged into the heap (one insertion each would cost a shift of the
    // heap per workload). The order is total (uid last), so the merge is the heap's order.
    for (const WorkloadId id : q.inadmissible) workloads_[id].state = WorkloadState::kPending;
    const auto rank = [&](WorkloadId a, WorkloadId b) { return ranks_before(q, a, b); };
    // Set aside in batches, each in the heap's order: merged run by run, not sorted again.
    std::vector<std::size_t> runs{0};
    for (std::size_t i = 1; i < q.inadmissible.size(); ++i) {
      if (rank(q.inadmissible[i], q.inadmissible[i - 1])) runs.push_back(i);
    }
    runs.push_back(q.inadmissible.size());
    while (runs.size() > 2) {
      std::vector<std::size_t> merged{0};
      for (std::size_t k = 2; k < runs.size(); k += 2) {
        const auto first = q.inadmissible.begin();
        std::inplace_merge(first + static_cast<std::ptrdiff_t>(runs[k - 2]), first + static_cast<std::ptrdiff_t>(runs[k - 1]),
                           first + static_cast<std::ptrdiff_t>(runs[k]), rank);
        merged.push_back(runs[k]);
      }
      if (runs.size() % 2 == 0) merged.push_back(runs.back());
      runs.swap(merged);
    }
    for (const WorkloadId id : q.inadmissible) count_in_heap(q, shape_of_[id], 1);
    const auto middle = static_cast<std::ptrdiff_t>(q.heap.size());
    q.heap.insert(q.heap.end(), q.inadmissible.begin(), q.inadmissible.end());
    std::inplace_merge(q.heap.begin(), q.heap.begin() + middle, q.heap.end(), rank);
    q.inadmissible.clear();
  }
}

void Admission::finished(WorkloadId id, core::Time now) {
  release(id, now);
  workloads_[id].state = WorkloadState::kFinished;
}

void Admission::evicted_and_gone(WorkloadId id, core::Time now) {
  release(id, now);
  enqueue(id);
}

void Admission::evicted_requeue_later(WorkloadId id, core::Time now) {
  release(id, now);
  workloads_[id].state = WorkloadState::kRequeueing;
}

void Admission::requeue_evicted(WorkloadId id) {
  if (workloads_[id].state == WorkloadState::kRequeueing) enqueue(id);
}

void Admission::job_ended(WorkloadId id, core::Time now) {
  Workload& w = workloads_[id];
  Queue& q = queue_of(id);
  switch (w.state) {
    case WorkloadState::kAdmitted:
    case WorkloadState::kEvicted:
      finished(id, now);
      return;
    case WorkloadState::kPending:
      if (const auto it = std::find(q.heap.begin(), q.heap.end(), id); it != q.heap.end()) {
        q.heap.erase(it);
        count_in_heap(q, shape_of_[id], -1);
      }
      break;
    case WorkloadState::kInadmissible:
      std::erase(q.inadmissible, id);
      break;
    case WorkloadState::kRequeueing:
      break;
    case WorkloadState::kFinished:
      return;
  }
  if (q.sticky == id) q.sticky.reset();
  w.state = WorkloadState::kFinished;
  ++version_;
}

std::pair<std::size_t, std::size_t> Admission::pending(NodeId cluster_queue) const {
  const Queue& q = queues_[queue_index_[cluster_queue]];
  return {q.heap.size(), q.inadmissible.size()};
}

bool Admission::flavor_allows(const ResourceFlavor& flavor, const WorkloadSpec& spec) const {
  // checkFlavorForPodSets: every NoSchedule or NoExecute taint of the flavor tolerated (the flavor's
  // own tolerations count as the pod's), and the pod's node selector, on the flavor's label keys
  // only, matching the flavor's labels.
  std::vector<cluster::Toleration> tolerations = spec.tolerations;
  tolerations.insert(tolerations.end(), flavor.tolerations.begin(), flavor.tolerations.end());
  for (const cluster::Taint& taint : flavor.node_taints) {
    if (taint.effect != "NoSchedule" && taint.effect != "NoExecute") continue;
    if (!cluster::tolerates(tolerations, taint)) return false;
  }
  for (const auto& [key, value] : spec.node_selector) {
    for (const auto& [flavor_key, flavor_value] : flavor.node_labels) {
      if (flavor_key == key && flavor_value != value) return false;
    }
  }
  return true;
}

Admission::Assignment Admission::assign_flavors(WorkloadId id, QuotaTree& snapshot) const {
  const Workload& w = workloads_[id];
  const Queue& q = queue_of(id);
  const ClusterQueue& cq = q.object;
  const auto group_of = [&](const std::string& resource) -> const ResourceGroup* {
    for (const ResourceGroup& g : cq.resource_groups) {
      if (std::find(g.covered_resources.begin(), g.covered_resources.end(), resource) != g.covered_resources.end()) return &g;
    }
    return nullptr;
  };
  std::vector<std::pair<std::string, std::int64_t>> requests = w.spec.requests;
  if (group_of("pods") != nullptr) requests.emplace_back("pods", w.spec.pod_count);

  Assignment out;
  out.mode = Mode::kFit;
  std::vector<std::string> assigned;  // resources whose group has a flavor
  for (const auto& [resource, amount] : requests) {
    if (std::find(assigned.begin(), assigned.end(), resource) != assigned.end()) continue;
    const ResourceGroup* group = group_of(resource);
    if (group == nullptr) {
      // Zero requests, resources the Configuration excludes (excludeResourcePrefixes), and with
      // IgnoreUndeclared any resource no group covers, are not counted.
      const std::string& name = resource;  // a lambda may not capture a structured binding (clang 14)
      const auto excluded = std::any_of(configuration_.exclude_resource_prefixes.begin(), configuration_.exclude_resource_prefixes.end(),
                                        [&](const std::string& prefix) { return name.starts_with(prefix); });
      if (amount == 0 || excluded || configuration_.ignore_undeclared_resources) continue;
      out.mode = Mode::kNoFit;
      out.reason = fmt::format("resource {} unavailable in ClusterQueue", resource);
      return out;
    }
    // The group's resources this workload asks, all given one flavor.
    std::vector<std::pair<std::string, std::int64_t>> asks;
    for (const auto& [r, a] : requests) {
      if (std::find(group->covered_resources.begin(), group->covered_resources.end(), r) != group->covered_resources.end()) {
        asks.emplace_back(r, a);
      }
    }
    struct Choice {
      Granular mode = kWorst;
      std::vector<std::pair<std::uint32_t, Granular>> per_resource;  // (flavor-resource pair, mode)
    };
    Choice best;
    std::string reasons;
    std::size_t matching = 0;  // flavors whose labels and taints the pods accept
    for (const FlavorQuotas& fq : group->flavors) {
      const ResourceFlavor* rf = flavor(fq.flavor);
      if (rf == nullptr || !flavor_allows(*rf, w.spec)) {
        reasons += fmt::format("{}flavor {} doesn't match node affinity or tolerate its taints", reasons.empty() ? "" : "; ", fq.flavor);
        continue;
      }
      ++matching;
      Choice here;
      here.mode = Granular{Mode::kFit, 0};
      for (const auto& [r, a] : asks) {
        const std::uint32_t fr = *snapshot.flavor_resource(fq.flavor, r);
        Granular mode;
        // fitsResourceQuota.
        const std::int64_t available = snapshot.available(q.node, fr);
        const std::int64_t potential = snapshot.potential_available(q.node, fr);
        const auto [level, may_reclaim] = snapshot.borrowing_level(q.node, fr, a);
        if (a > potential) {
          mode = Granular{Mode::kNoFit, 0};
          reasons += fmt::format("{}insufficient quota for {} in flavor {}, request ({}) > maximum capacity ({})", reasons.empty() ? "" : "; ", r,
                                 fq.flavor, a, potential);
        } else if (a <= available) {
          mode = Granular{Mode::kFit, level};
        } else {
          reasons += fmt::format("{}insufficient unused quota for {} in flavor {}, {} more needed", reasons.empty() ? "" : "; ", r, fq.flavor,
                                 a - available);
          // canPreemptWhileBorrowing: borrowWithinCohort, or fair sharing with reclaimWithinCohort.
          const bool borrow_preemption = cq.preemption.borrow_within_cohort != BorrowWithinCohort::kNever ||
                                         (fair_sharing_ && cq.preemption.reclaim_within_cohort != ReclaimWithinCohort::kNever);
          if (snapshot.nominal(q.node, fr) >= a || may_reclaim || borrow_preemption) {
            // The preemption oracle: would preemption make room for this resource alone?
            const std::vector<Target> targets = searched_targets(id, {fr}, {{fr, a}}, snapshot);
            if (targets.empty()) {
              mode = Granular{Mode::kNoCandidates, level};
            } else {
              for (const Target& t : targets) add_usage(snapshot, workloads_[t.victim].spec.cluster_queue, workloads_[t.victim].usage, -1);
              const bool own = std::any_of(targets.begin(), targets.end(),
                                           [&](const Target& t) { return workloads_[t.victim].spec.cluster_queue == q.node; });
              mode = Granular{own ? Mode::kPreempt : Mode::kReclaim, snapshot.borrowing_level(q.node, fr, a).first};
              for (const Target& t : targets) add_usage(snapshot, workloads_[t.victim].spec.cluster_queue, workloads_[t.victim].usage, 1);
            }
          } else {
            mode = Granular{Mode::kNoFit, level};
          }
        }
        if (preferred(here.mode, mode, cq.flavor_fungibility)) here.mode = mode;
        here.per_resource.emplace_back(fr, mode);
        if (here.mode.mode == Mode::kNoFit) break;
      }
      if (!try_next_flavor(here.mode, cq.flavor_fungibility)) {
        best = std::move(here);
        break;
      }
      if (preferred(here.mode, best.mode, cq.flavor_fungibility)) best = std::move(here);
    }
    if (best.mode.mode == Mode::kNoFit) {
      out.mode = Mode::kNoFit;
      out.no_flavor_matches = matching == 0;
      out.reason = reasons.empty() ? fmt::format("no flavor of ClusterQueue {} can hold {}", cq.name, resource) : reasons;
      return out;
    }
    for (std::size_t i = 0; i < asks.size(); ++i) {
      const auto& [fr, mode] = best.per_resource[i];
      out.usage.emplace_back(fr, asks[i].second);
      out.borrowing = std::max(out.borrowing, mode.borrowing);
      if (preempt_class(mode.mode)) out.needs_preemption.push_back(fr);
      // The workload's mode is the worst of its resources' (RepresentativeMode).
      out.mode = std::min(out.mode, mode.mode);
      assigned.push_back(asks[i].first);
    }
    if (!reasons.empty() && out.reason.empty()) out.reason = reasons;
  }
  return out;
}

bool Admission::policy_allows(const Workload& preemptor, const ClusterQueue& cq, WorkloadId candidate, bool same_queue) const {
  const Workload& cw = workloads_[candidate];
  const bool lower = preemptor.spec.priority > cw.spec.priority;
  if (same_queue) {
    switch (cq.preemption.within_cluster_queue) {
      case WithinClusterQueue::kNever: return false;
      case WithinClusterQueue::kLowerPriority: return lower;
      case WithinClusterQueue::kLowerOrNewerEqualPriority:
        return lower || (preemptor.spec.priority == cw.spec.priority && preemptor.spec.queue_order < cw.spec.queue_order);
    }
  }
  switch (cq.preemption.reclaim_within_cohort) {
    case ReclaimWithinCohort::kNever: return false;
    case ReclaimWithinCohort::kLowerPriority: return lower;
    case ReclaimWithinCohort::kAny: return true;
  }
  return false;
}

bool Admission::uses_any(WorkloadId id, const std::vector<std::uint32_t>& pairs) const {
  return std::any_of(workloads_[id].usage.begin(), workloads_[id].usage.end(),
                     [&](const auto& u) { return std::find(pairs.begin(), pairs.end(), u.first) != pairs.end(); });
}

bool Admission::candidate_before(WorkloadId a, WorkloadId b, NodeId preemptor_cq) const {
  // CandidatesOrdering: evicted first, other queues before the preemptor's, lower priority, the most
  // recently admitted, uid.
  const Workload& wa = workloads_[a];
  const Workload& wb = workloads_[b];
  const bool ea = wa.state == WorkloadState::kEvicted, eb = wb.state == WorkloadState::kEvicted;
  if (ea != eb) return ea;
  const bool oa = wa.spec.cluster_queue == preemptor_cq, ob = wb.spec.cluster_queue == preemptor_cq;
  if (oa != ob) return ob;
  if (wa.spec.priority != wb.spec.priority) return wa.spec.priority < wb.spec.priority;
  if (wa.reserved_at != wb.reserved_at) return wa.reserved_at > wb.reserved_at;
  return wa.uid < wb.uid;
}

std::vector<Admission::Target> Admission::searched_targets(WorkloadId id, const std::vector<std::uint32_t>& needs_preemption,
                                                           const Usage& requests, QuotaTree& snapshot) const {
  if (!nominating_) return preemption_targets(id, needs_preemption, requests, snapshot);
  std::vector<CachedSearch>& cached = searches_[id];
  std::erase_if(cached, [&](const CachedSearch& c) { return c.version != version_; });
  for (const CachedSearch& c : cached) {
    if (c.needs == needs_preemption && c.requests == requests) return c.targets;
  }
  std::vector<Target> targets = preemption_targets(id, needs_preemption, requests, snapshot);
  cached.push_back({version_, needs_preemption, requests, targets});
  return targets;
}

std::vector<Admission::Target> Admission::preemption_targets(WorkloadId id, const std::vector<std::uint32_t>& needs_preemption,
                                                             const Usage& requests, QuotaTree& snapshot) const {
  if (fair_sharing_) return fair_preemption_targets(id, needs_preemption, requests, snapshot);
  const Workload& preemptor = workloads_[id];
  const Queue& q = queue_of(id);
  const ClusterQueue& cq = q.object;
  const NodeId node = q.node;
  const auto within_nominal = [&](NodeId n) {
    return std::none_of(needs_preemption.begin(), needs_preemption.end(), [&](std::uint32_t fr) { return snapshot.borrowing(n, fr); });
  };
  const auto classify = [&](WorkloadId c, bool advantage) {
    const bool same = workloads_[c].spec.cluster_queue == node;
    if (!uses_any(c, needs_preemption) || !policy_allows(preemptor, cq, c, same)) return Variant::kNever;
    if (same) return Variant::kWithinClusterQueue;
    if (advantage) return Variant::kHierarchicalReclaim;
    if (cq.preemption.borrow_within_cohort == BorrowWithinCohort::kNever) return Variant::kReclaimWithoutBorrowing;
    const std::int32_t candidate = workloads_[c].spec.priority;
    const auto& threshold = cq.preemption.max_priority_threshold;
    if (candidate >= preemptor.spec.priority || (threshold && candidate > *threshold)) return Variant::kReclaimWithoutBorrowing;
    return Variant::kReclaimWhileBorrowing;
  };
  struct Candidate {
    WorkloadId id;
    NodeId lca;  // kNoParent: the preemptor's own ClusterQueue
    Variant variant;
    // CandidatesOrdering's key (candidate_before), computed once: evicted first, other queues before
    // the preemptor's, lower priority, the most recently admitted, uid.
    std::tuple<bool, bool, std::int32_t, std::int64_t, std::uint64_t> key;
  };
  const auto add_from = [&](const Queue& from, NodeId lca, bool advantage, std::vector<Candidate>& list) {
    for (const WorkloadId c : from.admitted) {
      const Variant v = classify(c, advantage);
      if (v == Variant::kNever) continue;
      const Workload& w = workloads_[c];
      list.push_back({c, lca, v, {w.state != WorkloadState::kEvicted, w.spec.cluster_queue == node, w.spec.priority, -w.reserved_at, w.uid}});
    }
  };
  std::vector<Candidate> same, hierarchy, priority;
  if (cq.preemption.within_cluster_queue != WithinClusterQueue::kNever) add_from(q, kNoParent, false, same);
  if (snapshot.parent(node) != kNoParent && cq.preemption.reclaim_within_cohort != ReclaimWithinCohort::kNever) {
    // QuantitiesFitInQuota along the path to the root.
    const auto fit_in = [&](NodeId n, Usage& remaining) {
      bool fits = true;
      for (auto& [fr, amount] : remaining) {
        if (snapshot.usage(n, fr) + amount > snapshot.subtree_quota(n, fr)) fits = false;
        amount = std::max<std::int64_t>(0, amount - snapshot.local_available(n, fr));
      }
      return fits;
    };
    Usage remaining = requests;
    bool advantage = fit_in(node, remaining);
    NodeId previous = kNoParent;
    // Candidates in the subtree of `current` that is over its quota, but the subtree just searched.
    const auto collect = [&](auto&& self, NodeId current, NodeId subtree_root, bool adv, std::vector<Candidate>& list) -> void {
      for (const NodeId child : snapshot.children(current)) {
        if (snapshot.is_cluster_queue(child) || child == previous || within_nominal(child)) continue;
        self(self, child, subtree_root, adv, list);
      }
      for (const NodeId child : snapshot.children(current)) {
        if (!snapshot.is_cluster_queue(child) || child == node || within_nominal(child)) continue;
        add_from(queues_[queue_index_[child]], subtree_root, adv, list);
      }
    };
    for (NodeId current = snapshot.parent(node); current != kNoParent; current = snapshot.parent(current)) {
      collect(collect, current, current, advantage, advantage ? hierarchy : priority);
      advantage = fit_in(current, remaining) || advantage;
      previous = current;
    }
  }
  const bool no_other = hierarchy.empty() && priority.empty();
  const bool borrow_forbidden = cq.preemption.borrow_within_cohort == BorrowWithinCohort::kNever;
  const bool under_nominal = std::all_of(needs_preemption.begin(), needs_preemption.end(),
                                         [&](std::uint32_t fr) { return snapshot.nominal(node, fr) > snapshot.usage(node, fr); });
  std::vector<bool> attempts;
  if (no_other || (borrow_forbidden && !under_nominal)) attempts = {true};
  else if (borrow_forbidden && hierarchy.empty()) attempts = {false, true};
  else attempts = {true, false};

  const auto fits = [&](bool borrowing) {
    for (const auto& [fr, amount] : requests) {
      if (!borrowing && snapshot.borrowing_with(node, fr, amount)) return false;
      if (amount > snapshot.available(node, fr)) return false;
    }
    return true;
  };
  const auto remove = [&](WorkloadId c, std::int64_t sign) {
    add_usage(snapshot, workloads_[c].spec.cluster_queue, workloads_[c].usage, -sign);
  };
  const auto valid = [&](const Candidate& c, bool borrowing) {
    const NodeId from = workloads_[c.id].spec.cluster_queue;
    if (from == node) return true;
    if (borrowing && c.variant == Variant::kReclaimWithoutBorrowing) return false;
    if (within_nominal(from)) return false;
    for (NodeId n = snapshot.parent(from); n != kNoParent && n != c.lca; n = snapshot.parent(n)) {
      if (within_nominal(n)) return false;
    }
    return true;
  };
  // No choice of victims can make room in an attempt if the most they could free cannot (room only
  // grows as workloads leave): the common case of a head that waits, decided before any search.
  // Per ClusterQueue and pair: all the candidates the attempt may take; from another ClusterQueue,
  // which gives only while it borrows on the contested pair (one pair contested), at most what it
  // borrows plus its largest.
  const std::size_t pairs = snapshot.flavor_resource_count();
  std::vector<std::int64_t> sum(snapshot.node_count() * pairs), largest(snapshot.node_count() * pairs);
  const auto may_make_room = [&](bool borrowing) {
    std::fill(sum.begin(), sum.end(), 0);
    std::fill(largest.begin(), largest.end(), 0);
    for (const auto* list : {&same, &hierarchy, &priority}) {
      for (const Candidate& c : *list) {
        if (borrowing && c.variant == Variant::kReclaimWithoutBorrowing) continue;
        const NodeId from = workloads_[c.id].spec.cluster_queue;
        for (const auto& [fr, amount] : workloads_[c.id].usage) {
          sum[from * pairs + fr] += amount;
          largest[from * pairs + fr] = std::max(largest[from * pairs + fr], amount);
        }
      }
    }
    // Computed before any is taken out (taking out changes what each borrows).
    for (NodeId from = 0; from < snapshot.node_count(); ++from) {
      for (std::uint32_t fr = 0; fr < pairs; ++fr) {
        std::int64_t& freed = sum[from * pairs + fr];
        if (freed == 0 || from == node || needs_preemption.size() != 1 || needs_preemption.front() != fr) continue;
        const std::int64_t borrowed = std::max<std::int64_t>(0, snapshot.usage(from, fr) - snapshot.subtree_quota(from, fr));
        freed = std::min(freed, borrowed + largest[from * pairs + fr]);
      }
    }
    const auto take = [&](std::int64_t sign) {
      for (NodeId n = 0; n < snapshot.node_count(); ++n) {
        for (std::uint32_t fr = 0; fr < pairs; ++fr) {
          if (sum[n * pairs + fr] != 0) snapshot.add_usage(n, fr, -sign * sum[n * pairs + fr]);
        }
      }
    };
    take(1);
    const bool room = fits(borrowing);
    take(-1);
    return room;
  };
  std::erase_if(attempts, [&](bool borrowing) { return !may_make_room(borrowing); });
  if (attempts.empty()) return {};
  // The candidates in order: evicted ones first, then each class (hierarchy, priority, same
  // ClusterQueue), each by CandidatesOrdering. A search usually takes one or two of hundreds, so
  // they come out of a heap as it needs them, not from a full sort.
  struct Ranked {
    std::tuple<bool, int, std::tuple<bool, bool, std::int32_t, std::int64_t, std::uint64_t>> rank;
    Candidate candidate;
  };
  std::vector<Ranked> heap;
  int list_rank = 0;
  for (const auto* list : {&hierarchy, &priority, &same}) {
    for (const Candidate& c : *list) heap.push_back({{workloads_[c.id].state != WorkloadState::kEvicted, list_rank, c.key}, c});
    ++list_rank;
  }
  const auto after = [](const Ranked& a, const Ranked& b) { return b.rank < a.rank; };
  std::make_heap(heap.begin(), heap.end(), after);
  std::vector<Candidate> all;  // those taken out of the heap so far, in order
  all.reserve(heap.size());
  // The k-th candidate in order, or null past the last.
  const auto nth = [&](std::size_t k) -> const Candidate* {
    while (all.size() <= k && !heap.empty()) {
      std::pop_heap(heap.begin(), heap.end(), after);
      all.push_back(heap.back().candidate);
      heap.pop_back();
    }
    return k < all.size() ? &all[k] : nullptr;
  };
  for (const bool borrowing : attempts) {
    std::vector<Candidate> chosen;
    for (std::size_t k = 0; const Candidate* next = nth(k); ++k) {
      const Candidate& c = *next;
      if (!valid(c, borrowing)) continue;
      remove(c.id, 1);
      chosen.push_back(c);
      if (!fits(borrowing)) continue;
      // fillBackWorkloads: from the second-to-last back, keep out only those still needed.
      for (std::size_t i = chosen.size() - 1; i-- > 0;) {
        remove(chosen[i].id, -1);
        if (fits(borrowing)) {
          chosen[i] = chosen.back();
          chosen.pop_back();
        } else {
          remove(chosen[i].id, 1);
        }
      }
      std::vector<Target> targets;
      for (const Candidate& t : chosen) {
        remove(t.id, -1);
        targets.push_back({t.id, reason_of(t.variant)});
      }
      return targets;
    }
    for (const Candidate& t : chosen) remove(t.id, -1);
  }
  return {};
}

void Admission::count_in_heap(Queue& q, std::uint32_t shape, int sign) {
  if (q.shape_count.size() <= shape) q.shape_count.resize(shapes_.size(), 0);
  q.shape_count[shape] = static_cast<std::uint32_t>(static_cast<std::int64_t>(q.shape_count[shape]) + sign);
}

bool Admission::cycle(Decisions& out) {
  ++cycles_;
  // The cycle's snapshot: the tree's usage copied into one kept for it (no allocation).
  QuotaTree& snapshot = snapshot_;
  snapshot.copy_usage_from(tree_);
  std::vector<Entry> entries;
  for (Queue& q : queues_) {
    if (q.object.stop_policy != StopPolicy::kNone || q.heap.empty()) continue;
    const WorkloadId head = q.heap.front();
    q.heap.erase(q.heap.begin());
    count_in_heap(q, shape_of_[head], -1);
    Entry e{head, {}, {}, Requeue::kNone, false};
    const cluster::Labels ns{{"kubernetes.io/metadata.name", workloads_[head].spec.namespace_name}};
    if (!q.object.namespace_selector || !selector_matches(*q.object.namespace_selector, ns)) {
      e.requeue = Requeue::kNamespaceMismatch;
      workloads_[head].reason = fmt::format("the workload's namespace {} does not match ClusterQueue {}'s namespaceSelector",
                                            workloads_[head].spec.namespace_name, q.object.name);
    } else {
      nominating_ = true;  // the snapshot is the tree: searches may be cached
      e.assignment = assign_flavors(head, snapshot);
      if (preempt_class(e.assignment.mode)) {
        e.targets = searched_targets(head, e.assignment.needs_preemption, e.assignment.usage, snapshot);
      }
      nominating_ = false;
    }
    entries.push_back(std::move(e));
  }
  bool changed = false;
  std::vector<WorkloadId> preempted_in_cycle;
  // processEntry.
  const auto process = [&](Entry& e) {
    if (e.requeue == Requeue::kNamespaceMismatch) return;
    Workload& w = workloads_[e.id];
    const NodeId node = w.spec.cluster_queue;
    const ClusterQueue& cq = queue_of(e.id).object;
    w.reason = std::move(e.assignment.reason);
    w.aside_with.reset();
    w.joined_shape = false;
    w.no_flavor = e.assignment.no_flavor_matches;
    if (e.assignment.mode == Mode::kNoFit) {
      e.requeue = Requeue::kNoFit;
      return;
    }
    const bool preempts = preempt_class(e.assignment.mode);
    if (preempts && e.targets.empty()) {
      e.requeue = Requeue::kNoCandidates;
      // reserveCapacityForUnreclaimablePreempt: unless it can always reclaim its nominal quota, it
      // holds what it would use (within its nominal, or its borrowing limit when borrowing) so that
      // workloads behind it cannot take it in this cycle.
      if (cq.preemption.reclaim_within_cohort != ReclaimWithinCohort::kAny) {
        for (const auto& [fr, amount] : e.assignment.usage) {
          std::int64_t hold = 0;
          if (e.assignment.borrowing > 0) {
            const auto limit = snapshot.borrowing_limit(node, fr);
            hold = limit ? std::min(amount, snapshot.nominal(node, fr) + *limit - snapshot.usage(node, fr)) : amount;
          } else {
            hold = std::max<std::int64_t>(0, std::min(amount, snapshot.nominal(node, fr) - snapshot.usage(node, fr)));
          }
          snapshot.add_usage(node, fr, hold);
        }
      }
      return;
    }
    const bool overlap = std::any_of(e.targets.begin(), e.targets.end(), [&](const Target& t) {
      return std::find(preempted_in_cycle.begin(), preempted_in_cycle.end(), t.victim) != preempted_in_cycle.end();
    });
    if (overlap) {
      e.requeue = Requeue::kFailedAfterNomination;
      return;
    }
    // fits: with every victim of this cycle and its own gone.
    std::vector<WorkloadId> gone = preempted_in_cycle;
    for (const Target& t : e.targets) gone.push_back(t.victim);
    for (const WorkloadId v : gone) add_usage(snapshot, workloads_[v].spec.cluster_queue, workloads_[v].usage, -1);
    const bool fits = std::all_of(e.assignment.usage.begin(), e.assignment.usage.end(),
                                  [&](const auto& u) { return u.second <= snapshot.available(node, u.first); });
    for (const WorkloadId v : gone) add_usage(snapshot, workloads_[v].spec.cluster_queue, workloads_[v].usage, 1);
    if (!fits) {
      e.requeue = Requeue::kFailedAfterNomination;
      return;
    }
    add_usage(snapshot, node, e.assignment.usage, 1);
    if (preempts) {
      for (const Target& t : e.targets) {
        preempted_in_cycle.push_back(t.victim);
        if (workloads_[t.victim].state != WorkloadState::kAdmitted) continue;  // asked before
        workloads_[t.victim].state = WorkloadState::kEvicted;
        ++version_;
        out.preempted.push_back({t.victim, e.id, t.reason});
        changed = true;
      }
      e.requeue = Requeue::kPendingPreemption;
      return;
    }
    // Admitted: quota reserved (and admitted at once: no admission checks).
    w.state = WorkloadState::kAdmitted;
    w.usage = e.assignment.usage;
    w.reserved_at = cycles_;
    w.reason.clear();
    add_usage(tree_, node, w.usage, 1);
    ++version_;
    Queue& q = queue_of(e.id);
    q.admitted.push_back(e.id);
    if (q.sticky == e.id) q.sticky.reset();
    out.admitted.push_back(e.id);
    e.admitted = true;
    changed = true;
  };
  if (fair_sharing_) {
    // fairSharingIterator: a tournament per cohort tree, on the snapshot as it stands.
    std::vector<std::size_t> left(entries.size());
    for (std::size_t i = 0; i < left.size(); ++i) left[i] = i;
    FairShares shares{std::vector<std::optional<std::vector<std::pair<NodeId, Drs>>>>(entries.size())};
    while (!left.empty()) {
      const std::size_t next = next_by_fair_sharing(entries, left, snapshot, shares);
      process(entries[next]);
      shares.changed(snapshot, entries, workloads_, next);
    }
  } else {
    // makeClassicalIterator: not borrowing first, then priority, then age.
    std::vector<std::size_t> order(entries.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      const Entry& ea = entries[a];
      const Entry& eb = entries[b];
      if (ea.assignment.borrowing != eb.assignment.borrowing) return ea.assignment.borrowing < eb.assignment.borrowing;
      const WorkloadSpec& sa = workloads_[ea.id].spec;
      const WorkloadSpec& sb = workloads_[eb.id].spec;
      if (sa.priority != sb.priority) return sa.priority > sb.priority;
      if (sa.queue_order != sb.queue_order) return sa.queue_order < sb.queue_order;
      return workloads_[ea.id].uid < workloads_[eb.id].uid;
    });
    for (const std::size_t i : order) process(entries[i]);
  }
  // Requeue the heads left (requeueAndUpdate, ClusterQueue.RequeueIfNotPresent).
  for (const Entry& e : entries) {
    if (e.admitted) continue;
    Queue& q = queue_of(e.id);
    const bool strict = q.object.queueing_strategy == QueueingStrategy::kStrictFifo;
    const bool immediate = strict ? e.requeue != Requeue::kNamespaceMismatch
                                  : e.requeue == Requeue::kFailedAfterNomination || e.requeue == Requeue::kPendingPreemption;
    // The preemptor stays first until it is admitted (cluster_queue.go: the sticky workload is
    // cleared only then, or when it is deleted).
    if (e.requeue == Requeue::kPendingPreemption && !strict) q.sticky = e.id;
    if (immediate) {
      push(q, e.id);
      continue;
    }
    set_aside(q, e.id);
    changed = true;
    // handleInadmissibleHash: under BestEffortFIFO, a head set aside for want of quota takes the
    // queued workloads of its shape with it.
    if (!strict && (e.requeue == Requeue::kNoFit || e.requeue == Requeue::kNoCandidates)) {
      const std::uint32_t shape = shape_of_[e.id];
      q.set_aside.insert(shape);
      // In place, and only as far as the last of the shape (the queue keeps its order).
      std::size_t kept = 0, at = 0;
      for (std::uint32_t left = q.shape_count[shape]; left > 0; ++at) {
        const WorkloadId id = q.heap[at];
        if (shape_of_[id] != shape) {
          q.heap[kept++] = id;
          continue;
        }
        --left;
        set_aside(q, id);
        if (!workloads_[id].reason.empty()) workloads_[id].reason.clear();
        workloads_[id].aside_with = e.id;
        workloads_[id].joined_shape = false;
      }
      q.heap.erase(q.heap.begin() + static_cast<std::ptrdiff_t>(kept), q.heap.begin() + static_cast<std::ptrdiff_t>(at));
      q.shape_count[shape] = 0;
    }
  }
  return changed;
}

Decisions Admission::run_cycles(core::Time now) {
  for (auto it = requeues_.begin(); it != requeues_.end();) {
    if (it->second <= now) {
      requeue_cohort_tree(it->first);
      it = requeues_.erase(it);
    } else {
      ++it;
    }
  }
  Decisions out;
  // Each cycle that changes something admits, preempts or sets aside at least one workload, so
  // the count is bounded by a few passes over the workloads.
  const std::size_t limit = 4 * workloads_.size() + 16;
  for (std::size_t i = 0; cycle(out); ++i) GPUSIM_CHECK(i < limit, "Kueue's admission cycles do not settle");
  return out;
}

}  // namespace gpusim::k8s::kueue
