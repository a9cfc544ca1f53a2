// Kueue's fair sharing in the admission engine, when the Configuration enables it (kubernetes-sigs/kueue
// v0.19.2): the order a cycle takes its heads in (pkg/scheduler/fair_sharing_iterator.go) and the
// workloads a head preempts (pkg/scheduler/preemption/preemption.go, fairPreemptions, and
// pkg/scheduler/preemption/fairsharing/). Shares are dominant resource shares (kueue_fair_sharing.hpp).
#include <algorithm>
#include <cmath>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include "sim/core/check.hpp"
#include "sim/k8s/kueue_admission.hpp"
#include "sim/k8s/kueue_fair_sharing.hpp"

namespace gpusim::k8s::kueue {
namespace {

using Usage = std::vector<std::pair<std::uint32_t, std::int64_t>>;

void add_usage(QuotaTree& tree, NodeId cq, const Usage& usage, std::int64_t sign) {
  for (const auto& [fr, amount] : usage) tree.add_usage(cq, fr, sign * amount);
}

// The shares fair-sharing preemption compares: those of the children of the lowest common ancestor
// of the preemptor's ClusterQueue and the target's, on each side (`on_path`: the preemptor's ancestors).
std::pair<NodeId, NodeId> sides_below_common_ancestor(const QuotaTree& tree, const std::vector<bool>& on_path, NodeId preemptor, NodeId target) {
  NodeId lca = tree.parent(target);
  while (!on_path[lca]) lca = tree.parent(lca);
  const auto below = [&](NodeId from) {
    while (tree.parent(from) != lca) from = tree.parent(from);
    return from;
  };
  return {below(preemptor), below(target)};
}

}  // namespace

void Admission::FairShares::changed(const QuotaTree& snapshot, const std::vector<Entry>& entries, const std::vector<Workload>& workloads,
                                    std::size_t processed) {
  // A share depends on its node's usage alone (and on quotas): only the entries whose path below the
  // root passes through a node whose usage the processed entry changed need theirs again.
  std::vector<bool> touched(snapshot.node_count(), false);
  for (NodeId n = workloads[entries[processed].id].spec.cluster_queue; snapshot.parent(n) != kNoParent; n = snapshot.parent(n)) touched[n] = true;
  for (std::size_t i = 0; i < per_entry.size(); ++i) {
    if (!per_entry[i]) continue;
    // Each share is a child's on the entry's path under `parent`: the children are the entry's
    // ClusterQueue and every parent below the root.
    for (const auto& share : *per_entry[i]) {
      const NodeId parent = share.first;
      if (touched[parent] && snapshot.parent(parent) != kNoParent) {
        per_entry[i].reset();
        break;
      }
    }
    if (per_entry[i] && touched[workloads[entries[i].id].spec.cluster_queue]) per_entry[i].reset();
  }
}

std::size_t Admission::next_by_fair_sharing(const std::vector<Entry>& entries, std::vector<std::size_t>& left, QuotaTree& snapshot,
                                            FairShares& shares) const {
  GPUSIM_CHECK(!left.empty(), "no entry left for fair sharing's iterator");
  const auto take = [&](std::size_t at) {
    const std::size_t entry = left[at];
    left.erase(left.begin() + static_cast<std::ptrdiff_t>(at));
    return entry;
  };
  // Kueue takes a ClusterQueue from a Go map (any order across cohort trees); gpusim takes the
  // entries' order, that of the ClusterQueue objects.
  const NodeId first = workloads_[entries[left.front()].id].spec.cluster_queue;
  if (snapshot.parent(first) == kNoParent) return take(0);
  const NodeId root = snapshot.root(first);

  // computeDRS: per entry of the tree, with its usage added, the share of its ClusterQueue and of
  // every Cohort below the root on its path, each keyed by the Cohort it competes under.
  // Kept from the cycle's earlier calls while still the same (FairShares::changed).
  struct Contender {
    std::size_t at;  // in `left`
    const std::vector<std::pair<NodeId, Drs>>* shares;  // (parent Cohort, share of the child on the path)
  };
  std::vector<Contender> contenders;
  for (std::size_t at = 0; at < left.size(); ++at) {
    const Entry& e = entries[left[at]];
    const NodeId cq = workloads_[e.id].spec.cluster_queue;
    if (snapshot.parent(cq) == kNoParent || snapshot.root(cq) != root) continue;
    auto& kept = shares.per_entry[left[at]];
    if (!kept) {
      add_usage(snapshot, cq, e.assignment.usage, 1);
      kept.emplace();
      for (NodeId child = cq; snapshot.parent(child) != kNoParent; child = snapshot.parent(child)) {
        kept->emplace_back(snapshot.parent(child), dominant_resource_share(snapshot, child));
      }
      add_usage(snapshot, cq, e.assignment.usage, -1);
    }
    contenders.push_back({at, &*kept});
  }
  const auto share_under = [](const Contender& c, NodeId cohort) -> const Drs& {
    for (const auto& [parent, drs] : *c.shares) {
      if (parent == cohort) return drs;
    }
    GPUSIM_CHECK(false, "a tournament entry has no share under a Cohort it competes in");
    return c.shares->front().second;
  };
  // entryComparer.less: not borrowing (on what the entry asks) first, then the lower share, the
  // higher priority, the older; gpusim breaks the last ties by arrival (Kueue keeps the first seen).
  const auto less = [&](const Contender& a, const Contender& b, NodeId cohort) {
    const Entry& ea = entries[left[a.at]];
    const Entry& eb = entries[left[b.at]];
    const Drs& da = share_under(a, cohort);
    const Drs& db = share_under(b, cohort);
    const bool a_borrows = da.borrowing_on(ea.assignment.usage), b_borrows = db.borrowing_on(eb.assignment.usage);
    if (a_borrows != b_borrows) return !a_borrows;
    if (const int c = compare(da, db); c != 0) return c < 0;
    const WorkloadSpec& sa = workloads_[ea.id].spec;
    const WorkloadSpec& sb = workloads_[eb.id].spec;
    if (sa.priority != sb.priority) return sa.priority > sb.priority;
    if (sa.queue_order != sb.queue_order) return sa.queue_order < sb.queue_order;
    return workloads_[ea.id].uid < workloads_[eb.id].uid;
  };
  // runTournament: each Cohort nominates the best of its child Cohorts' winners and its
  // ClusterQueues' entries.
  const auto tournament = [&](auto&& self, NodeId cohort) -> const Contender* {
    const Contender* best = nullptr;
    const auto consider = [&](const Contender* c) {
      if (c != nullptr && (best == nullptr || less(*c, *best, cohort))) best = c;
    };
    for (const NodeId child : snapshot.children(cohort)) {
      if (!snapshot.is_cluster_queue(child)) consider(self(self, child));
    }
    for (const NodeId child : snapshot.children(cohort)) {
      if (!snapshot.is_cluster_queue(child)) continue;
      for (const Contender& c : contenders) {
        if (workloads_[entries[left[c.at]].id].spec.cluster_queue == child) consider(&c);
      }
    }
    return best;
  };
  const Contender* winner = tournament(tournament, root);
  GPUSIM_CHECK(winner != nullptr, "fair sharing's tournament found no entry in a tree that has one");
  return take(winner->at);
}

// The search below takes a victim of another ClusterQueue only where a strategy passes: the
// preemptor's share (with the request) at most the target's share after the victim leaves
// (LessThanOrEqualToFinalShare), or below the target's share (LessThanInitialShare). A share only
// falls as its usage falls, and nothing leaves before a first victim is taken, so where no
// ClusterQueue that could give victims has a share at least the preemptor's now, no strategy
// can ever pass and the search takes nobody: the common case of a borrowing head that waits,
// decided here from a share per ClusterQueue instead of a pass over every candidate. Not so for a
// preemptor within its nominal quota, or one that may preempt in its own ClusterQueue: those take
// victims whatever the shares. Where the ClusterQueues that could give victims are the preemptor's
// siblings, it also answers whether those that pass could free enough.
bool Admission::fair_sharing_may_preempt(WorkloadId id, const std::vector<std::uint32_t>& needs_preemption, const Usage& requests,
                                         QuotaTree& snapshot) const {
  const Workload& preemptor = workloads_[id];
  const Queue& q = queue_of(id);
  const NodeId node = q.node;
  if (q.object.preemption.within_cluster_queue != WithinClusterQueue::kNever &&
      std::any_of(q.admitted.begin(), q.admitted.end(),
                  [&](WorkloadId c) { return policy_allows(preemptor, q.object, c, true) && uses_any(c, needs_preemption); })) {
    return true;
  }
  if (q.object.preemption.reclaim_within_cohort == ReclaimWithinCohort::kNever) return false;
  std::vector<bool> on_path(snapshot.node_count(), false);
  for (NodeId a = snapshot.parent(node); a != kNoParent; a = snapshot.parent(a)) on_path[a] = true;
  const NodeId root = snapshot.root(node);
  add_usage(snapshot, node, requests, 1);
  const bool within_nominal =
      std::none_of(needs_preemption.begin(), needs_preemption.end(), [&](std::uint32_t fr) { return snapshot.borrowing(node, fr); });
  // The ClusterQueues whose share passes now, and whether every one that could give victims is the
  // preemptor's sibling.
  std::vector<NodeId> passing;
  bool siblings = true;
  for (std::size_t i = 0; !within_nominal && i < queues_.size(); ++i) {
    const Queue& other = queues_[i];
    if (other.node == node || other.admitted.empty() || snapshot.parent(other.node) == kNoParent || snapshot.root(other.node) != root) continue;
    if (std::none_of(needs_preemption.begin(), needs_preemption.end(), [&](std::uint32_t fr) { return snapshot.borrowing(other.node, fr); })) {
      continue;
    }
    siblings = siblings && snapshot.parent(other.node) == snapshot.parent(node);
    const auto [preemptor_side, target_side] = sides_below_common_ancestor(snapshot, on_path, node, other.node);
    if (compare(dominant_resource_share(snapshot, preemptor_side), dominant_resource_share(snapshot, target_side)) <= 0) {
      passing.push_back(other.node);
    }
  }
  add_usage(snapshot, node, requests, -1);
  if (within_nominal) return true;
  if (passing.empty() || !siblings) return !passing.empty();
  // Siblings compare their own shares: the preemptor's does not change (none of its own is taken), so
  // a ClusterQueue that fails now fails throughout, and victims come only from those that pass. If
  // all they hold (their whole usage) leaves no room, no choice of their workloads makes any.
  std::vector<std::pair<NodeId, std::pair<std::uint32_t, std::int64_t>>> freed;
  for (const NodeId from : passing) {
    for (const auto& [fr, amount] : requests) freed.push_back({from, {fr, snapshot.usage(from, fr)}});
  }
  for (const auto& [from, use] : freed) snapshot.add_usage(from, use.first, -use.second);
  const bool room = std::all_of(requests.begin(), requests.end(), [&](const auto& r) { return r.second <= snapshot.available(node, r.first); });
  for (const auto& [from, use] : freed) snapshot.add_usage(from, use.first, use.second);
  return room;
}

std::vector<Admission::Target> Admission::fair_preemption_targets(WorkloadId id, const std::vector<std::uint32_t>& needs_preemption,
                                                                  const Usage& requests, QuotaTree& snapshot) const {
  const Workload& preemptor = workloads_[id];
  const Queue& q = queue_of(id);
  const ClusterQueue& cq = q.object;
  const NodeId node = q.node;
  const bool in_cohort = snapshot.parent(node) != kNoParent;

  if (in_cohort && !fair_sharing_may_preempt(id, needs_preemption, requests, snapshot)) return {};

  // findCandidates: the ClusterQueue's own by withinClusterQueue; in the cohort tree, those of
  // ClusterQueues borrowing on a contested pair, by reclaimWithinCohort.
  std::vector<WorkloadId> candidates;
  if (cq.preemption.within_cluster_queue != WithinClusterQueue::kNever) {
    for (const WorkloadId c : q.admitted) {
      if (policy_allows(preemptor, cq, c, true) && uses_any(c, needs_preemption)) candidates.push_back(c);
    }
  }
  if (in_cohort && cq.preemption.reclaim_within_cohort != ReclaimWithinCohort::kNever) {
    const NodeId root = snapshot.root(node);
    for (const Queue& other : queues_) {
      if (other.node == node || snapshot.parent(other.node) == kNoParent || snapshot.root(other.node) != root) continue;
      const bool borrowing = std::any_of(needs_preemption.begin(), needs_preemption.end(),
                                         [&](std::uint32_t fr) { return snapshot.borrowing(other.node, fr); });
      if (!borrowing) continue;
      for (const WorkloadId c : other.admitted) {
        if (policy_allows(preemptor, cq, c, false) && uses_any(c, needs_preemption)) candidates.push_back(c);
      }
    }
  }
  if (candidates.empty()) return {};

  const auto remove = [&](WorkloadId c, std::int64_t sign) { add_usage(snapshot, workloads_[c].spec.cluster_queue, workloads_[c].usage, -sign); };
  const auto fits = [&] {
    return std::all_of(requests.begin(), requests.end(), [&](const auto& r) { return r.second <= snapshot.available(node, r.first); });
  };
  // If removing every candidate leaves no room, no choice of them makes any (room only grows as
  // workloads leave): the common case of a head that waits, decided before any search. Their usage
  // is taken out summed per ClusterQueue and pair.
  {
    const std::size_t pairs = snapshot.flavor_resource_count();
    std::vector<std::int64_t> freed(snapshot.node_count() * pairs, 0);
    for (const WorkloadId c : candidates) {
      for (const auto& [fr, amount] : workloads_[c].usage) freed[workloads_[c].spec.cluster_queue * pairs + fr] += amount;
    }
    const auto take_freed = [&](std::int64_t sign) {
      for (std::size_t at = 0; at < freed.size(); ++at) {
        if (freed[at] != 0) snapshot.add_usage(static_cast<NodeId>(at / pairs), static_cast<std::uint32_t>(at % pairs), -sign * freed[at]);
      }
    };
    take_freed(1);
    const bool room = fits();
    take_freed(-1);
    if (!room) return {};
  }

  // workloadFitsForFairSharing: the shares count the preemptor's usage, the fit does not.
  const auto fits_without_own = [&] {
    add_usage(snapshot, node, requests, -1);
    const bool ok = fits();
    add_usage(snapshot, node, requests, 1);
    return ok;
  };

  // TargetClusterQueueOrdering: the ClusterQueue to take the next candidate from, found from the root
  // down through the child of highest share; ClusterQueues not borrowing (but the preemptor's) or
  // without candidates, and Cohorts not borrowing off the preemptor's path, are pruned.
  std::vector<bool> on_path(snapshot.node_count(), false);
  for (NodeId a = snapshot.parent(node); a != kNoParent; a = snapshot.parent(a)) on_path[a] = true;
  // CandidatesOrdering's key (candidate_before), computed once per candidate.
  using Keyed = std::pair<std::tuple<bool, bool, std::int32_t, std::int64_t, std::uint64_t>, WorkloadId>;
  const auto keyed = [&](WorkloadId c) {
    const Workload& w = workloads_[c];
    return Keyed{{w.state != WorkloadState::kEvicted, w.spec.cluster_queue == node, w.spec.priority, -w.reserved_at, w.uid}, c};
  };
  struct Ordering {
    std::vector<std::vector<Keyed>> lists;  // per node: its candidates, in order once sorted
    std::vector<std::size_t> next;               // per node: the first not taken
    std::vector<bool> pruned;                    // per node
    // Per node: how far its list (from `next` on) is in CandidatesOrdering: not at all, its first
    // only (the least moved there), or all of it.
    enum class Order : std::uint8_t { kNone, kFirst, kAll };
    std::vector<Order> order;
    std::vector<std::uint32_t> taken;  // per node: candidates taken from its list so far
  };
  const auto make_ordering = [&](const std::vector<WorkloadId>& list) {
    const std::size_t n = snapshot.node_count();
    Ordering o{std::vector<std::vector<Keyed>>(n), std::vector<std::size_t>(n, 0), std::vector<bool>(n, false),
               std::vector<Ordering::Order>(n, Ordering::Order::kNone), std::vector<std::uint32_t>(n, 0)};
    for (const WorkloadId c : list) o.lists[workloads_[c].spec.cluster_queue].push_back(keyed(c));
    return o;
  };
  const auto has_workload = [](const Ordering& o, NodeId n) { return o.next[n] < o.lists[n].size(); };
  // A ClusterQueue's next candidate in CandidatesOrdering. A search usually takes one candidate, or
  // none, from most lists: the least is found when first needed, and a list is sorted only once a
  // second is asked of it.
  const auto front = [&](Ordering& o, NodeId n) {
    std::vector<Keyed>& list = o.lists[n];
    const auto first = list.begin() + static_cast<std::ptrdiff_t>(o.next[n]);
    if (o.order[n] == Ordering::Order::kNone && o.taken[n] == 0) {
      std::iter_swap(first, std::min_element(first, list.end()));
      o.order[n] = Ordering::Order::kFirst;
    } else if (o.order[n] == Ordering::Order::kNone) {
      std::sort(first, list.end());
      o.order[n] = Ordering::Order::kAll;
    }
    return first->second;
  };
  const auto pop = [&](Ordering& o, NodeId n) {
    const WorkloadId c = front(o, n);
    ++o.next[n];
    ++o.taken[n];
    if (o.order[n] == Ordering::Order::kFirst) o.order[n] = Ordering::Order::kNone;
    return c;
  };
  const auto next_target_in = [&](auto&& self, Ordering& o, NodeId cohort) -> std::optional<NodeId> {
    std::optional<NodeId> best_cq;
    Drs best_cq_drs = Drs::negative();
    for (const NodeId child : snapshot.children(cohort)) {
      if (!snapshot.is_cluster_queue(child) || o.pruned[child]) continue;
      Drs drs = dominant_resource_share(snapshot, child);
      if ((!drs.borrowing && child != node) || !has_workload(o, child)) {
        o.pruned[child] = true;
      } else if (const int c = compare(drs, best_cq_drs); c > 0) {
        best_cq = child;
        best_cq_drs = std::move(drs);
      } else if (c == 0 && candidate_before(front(o, child), front(o, *best_cq), node)) {
        best_cq = child;
      }
    }
    std::optional<NodeId> best_cohort;
    Drs best_cohort_drs = Drs::negative();
    for (const NodeId child : snapshot.children(cohort)) {
      if (snapshot.is_cluster_queue(child) || o.pruned[child]) continue;
      Drs drs = dominant_resource_share(snapshot, child);
      if (!drs.borrowing && !on_path[child]) {
        o.pruned[child] = true;
      } else if (compare(drs, best_cohort_drs) >= 0) {
        best_cohort = child;
        best_cohort_drs = std::move(drs);
      }
    }
    if (!best_cohort && !best_cq) {
      o.pruned[cohort] = true;
      return std::nullopt;
    }
    if (compare(best_cohort_drs, best_cq_drs) >= 0) return self(self, o, *best_cohort);
    return best_cq;
  };
  // TargetClusterQueueOrdering.Iter: the next ClusterQueue to take from, or none when all are pruned.
  const auto next_target = [&](Ordering& o) -> std::optional<NodeId> {
    if (!in_cohort) {
      if (!o.pruned[node] && has_workload(o, node)) return node;
      return std::nullopt;
    }
    const NodeId root = snapshot.root(node);
    while (!o.pruned[root]) {
      if (const auto target = next_target_in(next_target_in, o, root)) return target;
    }
    return std::nullopt;
  };
  const auto almost_lca = [&](NodeId target) { return sides_below_common_ancestor(snapshot, on_path, node, target); };
  const auto strategy_passes = [](FairSharingStrategy s, const Drs& preemptor_new, const Drs& target_old, const Drs& target_new) {
    return s == FairSharingStrategy::kLessThanOrEqualToFinalShare ? compare(preemptor_new, target_new) <= 0
                                                                  : compare(preemptor_new, target_old) < 0;
  };

  // The share of `side` with, from each pair its ClusterQueue's candidates (from `from` on) use, the
  // least any of them uses taken out.
  const auto share_without_least = [&](const std::vector<Keyed>& list, std::size_t from, NodeId side) {
    const NodeId owner = workloads_[list[from].second].spec.cluster_queue;
    Usage least = workloads_[list[from].second].usage;
    for (std::size_t k = from + 1; k < list.size() && !least.empty(); ++k) {
      const Usage& used = workloads_[list[k].second].usage;
      std::erase_if(least, [&](std::pair<std::uint32_t, std::int64_t>& l) {
        const auto it = std::find_if(used.begin(), used.end(), [&](const auto& u) { return u.first == l.first; });
        if (it == used.end()) return true;
        l.second = std::min(l.second, it->second);
        return false;
      });
    }
    add_usage(snapshot, owner, least, -1);
    Drs share = dominant_resource_share(snapshot, side);
    add_usage(snapshot, owner, least, 1);
    return share;
  };

  add_usage(snapshot, node, requests, 1);  // the shares include the incoming workload
  std::vector<Target> targets;
  std::vector<WorkloadId> retry;
  bool fit = false;
  // runFirstFsStrategy. FairSharingPreemptWithinNominal (on by default): a preemptor within its
  // nominal quota on the contested pairs takes any candidate, whatever the shares.
  const bool within_nominal = std::none_of(needs_preemption.begin(), needs_preemption.end(),
                                           [&](std::uint32_t fr) { return snapshot.borrowing(node, fr); });
  const FairSharingStrategy first = configuration_.preemption_strategies.front();
  Ordering ordering = make_ordering(candidates);
  while (!fit) {
    const auto target = next_target(ordering);
    if (!target) break;
    if (*target == node || within_nominal) {
      const WorkloadId c = pop(ordering, *target);
      remove(c, 1);
      targets.push_back({c, *target == node ? PreemptionReason::kInClusterQueue : PreemptionReason::kInCohortReclamation});
      fit = fits_without_own();
      continue;
    }
    const auto [preemptor_side, target_side] = almost_lca(*target);
    const Drs preemptor_new = dominant_resource_share(snapshot, preemptor_side);
    const Drs target_old = dominant_resource_share(snapshot, target_side);
    // fsStrategyUnsatisfiable: an infinite preemptor share passes against no finite one.
    if (std::isinf(preemptor_new.weighted()) && !std::isinf(target_old.weighted())) {
      while (has_workload(ordering, *target)) retry.push_back(pop(ordering, *target));
      continue;
    }
    // The target's share after a victim leaves is at least its share after the least any of its
    // candidates uses leaves (per pair, the smallest amount): where even that fails the strategy,
    // every candidate does, and all are kept for the second strategy at once (in any order: it
    // sorts them again).
    if (!strategy_passes(first, preemptor_new, target_old, share_without_least(ordering.lists[*target], ordering.next[*target], target_side))) {
      for (std::size_t k = ordering.next[*target]; k < ordering.lists[*target].size(); ++k) retry.push_back(ordering.lists[*target][k].second);
      ordering.next[*target] = ordering.lists[*target].size();
      continue;
    }
    // The outcome depends only on what the victim uses (the snapshot is the same for each try):
    // usages that failed are not tried again.
    std::vector<const Usage*> failed;
    while (has_workload(ordering, *target)) {
      const WorkloadId c = pop(ordering, *target);
      const Usage& used = workloads_[c].usage;
      if (std::any_of(failed.begin(), failed.end(), [&](const Usage* u) { return *u == used; })) {
        retry.push_back(c);
        continue;
      }
      remove(c, 1);
      const Drs target_new = dominant_resource_share(snapshot, target_side);
      if (!strategy_passes(first, preemptor_new, target_old, target_new)) {
        remove(c, -1);
        retry.push_back(c);
        failed.push_back(&used);
        continue;
      }
      targets.push_back({c, PreemptionReason::kInCohortFairSharing});
      fit = fits_without_own();
      break;  // the shares changed: choose the target ClusterQueue again
    }
  }
  // runSecondFsStrategy (rule S2-b, LessThanInitialShare): at most one kept candidate per ClusterQueue.
  if (!fit && configuration_.preemption_strategies.size() > 1) {
    Ordering second = make_ordering(retry);
    while (!fit) {
      const auto target = next_target(second);
      if (!target) break;
      const auto [preemptor_side, target_side] = almost_lca(*target);
      const bool passes = compare(dominant_resource_share(snapshot, preemptor_side), dominant_resource_share(snapshot, target_side)) < 0;
      const WorkloadId c = pop(second, *target);
      if (passes) {
        remove(c, 1);
        targets.push_back({c, PreemptionReason::kInCohortFairSharing});
        fit = fits_without_own();
      }
      second.pruned[*target] = true;
    }
  }
  add_usage(snapshot, node, requests, -1);
  if (!fit) {
    for (const Target& t : targets) remove(t.victim, -1);
    return {};
  }
  // fillBackWorkloads (borrowing allowed): from the second-to-last back, keep out only those needed.
  for (std::size_t i = targets.size() - 1; i-- > 0;) {
    remove(targets[i].victim, -1);
    if (fits()) {
      targets[i] = targets.back();
      targets.pop_back();
    } else {
      remove(targets[i].victim, 1);
    }
  }
  for (const Target& t : targets) remove(t.victim, -1);
  return targets;
}

}  // namespace gpusim::k8s::kueue
