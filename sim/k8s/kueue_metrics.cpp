#include "sim/k8s/kueue_metrics.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace gpusim::k8s::kueue {
namespace {

constexpr const char* kRole = "replica_role=\"standalone\"";
constexpr const char* kGpu = "nvidia.com/gpu";

std::vector<std::string> cluster_queue_names(const QuotaTree& tree) {
  std::vector<std::string> names;
  for (NodeId n = 0; n < tree.node_count(); ++n) {
    if (tree.is_cluster_queue(n)) names.push_back(tree.name(n));
  }
  return names;
}

// The Cohort a node's metrics name: its parent's, "" for none.
std::string cohort_of(const QuotaTree& tree, NodeId node) {
  return tree.parent(node) == kNoParent ? std::string() : tree.name(tree.parent(node));
}

// Kueue's units in metrics: cores for cpu, else the amount (pkg/resources, ResourceValue).
double in_metric_units(const std::string& resource, std::int64_t amount) {
  return resource == "cpu" ? static_cast<double>(amount) / 1000.0 : static_cast<double>(amount);
}

}  // namespace

KueueMetrics::KueueMetrics(QueueSeries& series, const Admission& engine)
    : series_(series), engine_(engine), standings_(series, "kueue", cluster_queue_names(engine.quotas())) {
  const QuotaTree& tree = engine.quotas();
  for (std::uint32_t fr = 0; fr < tree.flavor_resource_count(); ++fr) {
    if (tree.pair(fr).second == kGpu) gpu_pairs_.push_back(fr);
  }
  queue_of_node_.assign(tree.node_count(), SIZE_MAX);
  for (NodeId n = 0; n < tree.node_count(); ++n) {
    if (!tree.is_cluster_queue(n)) {
      if (engine.fair_sharing()) {
        cohort_shares_.emplace_back(n, series_.add("kueue_cohort_weighted_share", fmt::format("cohort=\"{}\",{}", tree.name(n), kRole)));
      }
      continue;
    }
    const std::string cq = tree.name(n);
    PerQueue q{n,
               series_.add("kueue_pending_workloads", fmt::format("cluster_queue=\"{}\",status=\"active\",{}", cq, kRole)),
               series_.add("kueue_pending_workloads", fmt::format("cluster_queue=\"{}\",status=\"inadmissible\",{}", cq, kRole)),
               series_.add("kueue_reserving_active_workloads", fmt::format("cluster_queue=\"{}\",{}", cq, kRole)),
               series_.add("kueue_admitted_workloads_total", fmt::format("cluster_queue=\"{}\",priority_class=\"\",{}", cq, kRole)),
               0,
               {},
               {},
               0};
    series_.set(q.admitted_total, core::Time::zero(), 0);
    const std::string cohort = cohort_of(tree, n);
    for (std::uint32_t fr = 0; fr < tree.flavor_resource_count(); ++fr) {
      if (tree.nominal(n, fr) == 0 && !tree.borrowing_limit(n, fr)) continue;  // a pair the ClusterQueue does not list
      const std::string labels = fmt::format("cohort=\"{}\",cluster_queue=\"{}\",flavor=\"{}\",resource=\"{}\",{}", cohort, cq,
                                             tree.pair(fr).first, tree.pair(fr).second, kRole);
      q.quotas.emplace_back(fr, series_.add("kueue_cluster_queue_nominal_quota", labels));
      q.usage.push_back(series_.add("kueue_cluster_queue_resource_usage", labels));
    }
    if (engine.fair_sharing()) {
      q.weighted_share = series_.add("kueue_cluster_queue_weighted_share", fmt::format("cluster_queue=\"{}\",cohort=\"{}\",{}", cq, cohort, kRole));
    }
    queue_of_node_[n] = queues_.size();
    queues_.push_back(std::move(q));
  }
}

void KueueMetrics::admitted(core::Time now, WorkloadId id) {
  PerQueue& q = queues_[queue_of_node_[engine_.spec(id).cluster_queue]];
  series_.set(q.admitted_total, now, static_cast<double>(++q.admitted));
}

void KueueMetrics::preempted(core::Time now, const Decisions::Preemption& p) {
  const QuotaTree& tree = engine_.quotas();
  const NodeId preempting = engine_.spec(p.preemptor).cluster_queue;
  auto it = preempted_.find({preempting, p.reason});
  if (it == preempted_.end()) {
    const std::uint32_t id = series_.add("kueue_preempted_workloads_total", fmt::format("preempting_cluster_queue=\"{}\",reason=\"{}\",{}",
                                                                                       tree.name(preempting), to_string(p.reason), kRole));
    it = preempted_.emplace(std::pair{preempting, p.reason}, std::pair{id, 0.0}).first;
  }
  series_.set(it->second.first, now, ++it->second.second);
  const NodeId victim = engine_.spec(p.victim).cluster_queue;
  auto ev = evicted_.find(victim);
  if (ev == evicted_.end()) {
    const std::uint32_t id =
        series_.add("kueue_evicted_workloads_total", fmt::format("cluster_queue=\"{}\",reason=\"Preempted\",underlying_cause=\"\","
                                                                 "priority_class=\"\",{}",
                                                                 tree.name(victim), kRole));
    ev = evicted_.emplace(victim, std::pair{id, 0.0}).first;
  }
  series_.set(ev->second.first, now, ++ev->second.second);
  standings_.preempted(now, queue_of_node_[victim], to_string(p.reason));
}

void KueueMetrics::update(core::Time now, const std::vector<std::int64_t>& waiting_fit) {
  const QuotaTree& tree = engine_.quotas();
  // gpusim's standings, on GPUs: what each ClusterQueue deserves (its nominal quota) and holds.
  std::vector<double> deserved(queues_.size(), 0.0), held(queues_.size(), 0.0);
  for (std::size_t i = 0; i < queues_.size(); ++i) {
    for (const std::uint32_t fr : gpu_pairs_) {
      deserved[i] += static_cast<double>(tree.nominal(queues_[i].node, fr));
      held[i] += static_cast<double>(tree.usage(queues_[i].node, fr));
    }
  }
  // Lent: within each cohort tree.
  std::vector<double> lent(queues_.size(), 0.0);
  std::map<NodeId, std::vector<std::size_t>> trees;
  for (std::size_t i = 0; i < queues_.size(); ++i) trees[tree.root(queues_[i].node)].push_back(i);
  for (const auto& [root, members] : trees) {
    std::vector<double> d, a;
    for (const std::size_t i : members) {
      d.push_back(deserved[i]);
      a.push_back(held[i]);
    }
    const std::vector<double> l = lent_gpus(d, a);
    for (std::size_t k = 0; k < members.size(); ++k) lent[members[k]] = l[k];
  }
  for (std::size_t i = 0; i < queues_.size(); ++i) {
    const PerQueue& q = queues_[i];
    const auto [active, aside] = engine_.pending_workloads(q.node);
    series_.set(q.active, now, static_cast<double>(active.size()));
    series_.set(q.inadmissible, now, static_cast<double>(aside.size()));
    std::int64_t flavor = 0;
    for (const auto& list : {active, aside}) {
      for (const WorkloadId w : list) flavor += engine_.waits_for_flavor(w) ? 1 : 0;
    }
    const auto pending = static_cast<std::int64_t>(active.size() + aside.size());
    series_.set(q.reserving, now, static_cast<double>(engine_.reserving(q.node)));
    for (std::size_t k = 0; k < q.quotas.size(); ++k) {
      const std::uint32_t fr = q.quotas[k].first;
      const std::string& resource = tree.pair(fr).second;
      series_.set(q.quotas[k].second, now, in_metric_units(resource, tree.nominal(q.node, fr)));
      series_.set(q.usage[k], now, in_metric_units(resource, tree.usage(q.node, fr)));
    }
    // Kueue reports NaN for a weight of 0 (an infinite share while borrowing).
    const auto share = [&](NodeId node) {
      const double w = engine_.share(node).weighted();
      return std::isinf(w) ? std::nan("") : w;
    };
    if (engine_.fair_sharing()) series_.set(q.weighted_share, now, share(q.node));
    QueueStanding s;
    s.deserved_gpus = deserved[i];
    s.allocated_gpus = held[i];
    s.borrowed_gpus = std::max(0.0, held[i] - deserved[i]);
    s.lent_gpus = lent[i];
    s.waiting_flavor = flavor;
    s.waiting_quota = pending - flavor;
    s.waiting_fit = q.node < waiting_fit.size() ? waiting_fit[q.node] : 0;
    s.starved = pending > 0 && held[i] < deserved[i];
    standings_.update(now, i, s);
  }
  // The Cohort controller reports +Inf as it is (only the ClusterQueue's turns it into NaN).
  for (const auto& [node, id] : cohort_shares_) series_.set(id, now, engine_.share(node).weighted());
}

double KueueMetrics::starved_seconds(core::Time now) const {
  double total = 0;
  for (std::size_t i = 0; i < queues_.size(); ++i) total += standings_.starved_seconds(i, now);
  return total;
}

}  // namespace gpusim::k8s::kueue
