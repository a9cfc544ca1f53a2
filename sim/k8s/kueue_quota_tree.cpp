#include "sim/k8s/kueue_quota_tree.hpp"

#include <algorithm>
#include <set>

namespace gpusim::k8s::kueue {
namespace {

// `available` before its clamp: a parent that lends out more than it has (quota lowered under
// running workloads) lowers what its children may take.
std::int64_t unclamped_available(const QuotaTree& tree, NodeId node, std::uint32_t fr) {
  const std::int64_t usage = tree.usage(node, fr);
  const NodeId parent = tree.parent(node);
  if (parent == kNoParent) return tree.subtree_quota(node, fr) - usage;
  const std::int64_t local = tree.local_quota(node, fr);
  std::int64_t from_parent = unclamped_available(tree, parent, fr);
  if (const auto limit = tree.borrowing_limit(node, fr)) {
    // What the node may still take beyond its local quota: what it lends up, plus its limit.
    from_parent = std::min(from_parent, (tree.subtree_quota(node, fr) - local) - std::max<std::int64_t>(0, usage - local) + *limit);
  }
  return std::max<std::int64_t>(0, local - usage) + from_parent;
}

}  // namespace

QuotaTree::QuotaTree(const Objects& objects) {
  std::set<std::pair<std::string, std::string>> pairs;
  const auto collect = [&](const std::vector<ResourceGroup>& groups) {
    for (const ResourceGroup& g : groups) {
      for (const FlavorQuotas& f : g.flavors) {
        for (const ResourceQuota& q : f.resources) pairs.emplace(f.flavor, q.resource);
      }
    }
  };
  for (const Cohort& c : objects.cohorts) collect(c.resource_groups);
  for (const ClusterQueue& cq : objects.cluster_queues) collect(cq.resource_groups);
  pairs_.assign(pairs.begin(), pairs.end());

  for (const Cohort& c : objects.cohorts) nodes_[cohort_node(c.name)].weight = c.fair_sharing_weight;
  for (const Cohort& c : objects.cohorts) {
    if (c.parent.empty()) continue;
    const NodeId child = cohort_node(c.name);
    const NodeId parent = cohort_node(c.parent);
    nodes_[child].parent = parent;
    nodes_[parent].children.push_back(child);
  }
  for (const ClusterQueue& cq : objects.cluster_queues) {
    const auto id = static_cast<NodeId>(nodes_.size());
    Node node;
    node.name = cq.name;
    node.cluster_queue = true;
    node.weight = cq.fair_sharing_weight;
    nodes_.push_back(std::move(node));
    cluster_queues_.emplace(cq.name, id);
    if (!cq.cohort.empty()) {
      const NodeId parent = cohort_node(cq.cohort);
      nodes_[id].parent = parent;
      nodes_[parent].children.push_back(id);
    }
  }
  for (Node& node : nodes_) node.quotas.assign(pairs_.size(), Quota{});
  for (const Cohort& c : objects.cohorts) set_quotas(cohort_node(c.name), c.resource_groups);
  for (const ClusterQueue& cq : objects.cluster_queues) set_quotas(cluster_queues_.at(cq.name), cq.resource_groups);
  for (NodeId n = 0; n < nodes_.size(); ++n) {
    if (nodes_[n].parent == kNoParent) sum_subtree(n);
  }
}

NodeId QuotaTree::cohort_node(const std::string& name) {
  if (const auto it = cohorts_.find(name); it != cohorts_.end()) return it->second;
  const auto id = static_cast<NodeId>(nodes_.size());
  Node node;
  node.name = name;
  nodes_.push_back(std::move(node));
  cohorts_.emplace(name, id);
  return id;
}

void QuotaTree::set_quotas(NodeId node, const std::vector<ResourceGroup>& groups) {
  for (const ResourceGroup& g : groups) {
    for (const FlavorQuotas& f : g.flavors) {
      for (const ResourceQuota& q : f.resources) {
        Quota& quota = nodes_[node].quotas[*flavor_resource(f.flavor, q.resource)];
        quota.nominal = q.nominal;
        quota.borrowing_limit = q.borrowing_limit;
        quota.lending_limit = q.lending_limit;
      }
    }
  }
}

void QuotaTree::sum_subtree(NodeId node) {
  for (std::uint32_t fr = 0; fr < pairs_.size(); ++fr) nodes_[node].quotas[fr].subtree = nodes_[node].quotas[fr].nominal;
  for (const NodeId child : nodes_[node].children) {
    sum_subtree(child);
    for (std::uint32_t fr = 0; fr < pairs_.size(); ++fr) {
      nodes_[node].quotas[fr].subtree += subtree_quota(child, fr) - local_quota(child, fr);
    }
  }
}

std::optional<NodeId> QuotaTree::cluster_queue(std::string_view name) const {
  const auto it = cluster_queues_.find(name);
  return it == cluster_queues_.end() ? std::nullopt : std::optional<NodeId>(it->second);
}

std::optional<NodeId> QuotaTree::cohort(std::string_view name) const {
  const auto it = cohorts_.find(name);
  return it == cohorts_.end() ? std::nullopt : std::optional<NodeId>(it->second);
}

std::optional<std::uint32_t> QuotaTree::flavor_resource(std::string_view flavor, std::string_view resource) const {
  const auto it = std::lower_bound(pairs_.begin(), pairs_.end(), std::pair{flavor, resource}, [](const auto& a, const auto& b) {
    return std::pair<std::string_view, std::string_view>(a.first, a.second) < std::pair<std::string_view, std::string_view>(b.first, b.second);
  });
  if (it == pairs_.end() || it->first != flavor || it->second != resource) return std::nullopt;
  return static_cast<std::uint32_t>(it - pairs_.begin());
}

std::int64_t QuotaTree::local_quota(NodeId node, std::uint32_t fr) const {
  const Quota& q = at(node, fr);
  return q.lending_limit ? std::max<std::int64_t>(0, q.subtree - *q.lending_limit) : 0;
}

void QuotaTree::add_usage(NodeId cluster_queue, std::uint32_t fr, std::int64_t delta) {
  for (NodeId node = cluster_queue; delta != 0;) {
    Quota& q = nodes_[node].quotas[fr];
    const std::int64_t before = q.usage;
    q.usage += delta;
    if (nodes_[node].parent == kNoParent) break;
    // Only what passes above the local quota uses the parent's.
    const std::int64_t local = local_quota(node, fr);
    delta = std::max<std::int64_t>(0, q.usage - local) - std::max<std::int64_t>(0, before - local);
    node = nodes_[node].parent;
  }
}

void QuotaTree::copy_usage_from(const QuotaTree& other) {
  for (std::size_t n = 0; n < nodes_.size(); ++n) {
    for (std::size_t fr = 0; fr < pairs_.size(); ++fr) nodes_[n].quotas[fr].usage = other.nodes_[n].quotas[fr].usage;
  }
}

std::int64_t QuotaTree::available(NodeId node, std::uint32_t fr) const {
  return std::max<std::int64_t>(0, unclamped_available(*this, node, fr));
}

std::int64_t QuotaTree::potential_available(NodeId node, std::uint32_t fr) const {
  const NodeId parent = nodes_[node].parent;
  if (parent == kNoParent) return subtree_quota(node, fr);
  const std::int64_t potential = local_quota(node, fr) + potential_available(parent, fr);
  const auto limit = borrowing_limit(node, fr);
  return limit ? std::min(potential, subtree_quota(node, fr) + *limit) : potential;
}

std::int32_t QuotaTree::height(NodeId cohort) const {
  std::int32_t h = nodes_[cohort].children.empty() ? 0 : 1;
  for (const NodeId child : nodes_[cohort].children) {
    if (!nodes_[child].cluster_queue) h = std::max(h, height(child) + 1);
  }
  return h;
}

NodeId QuotaTree::root(NodeId node) const {
  while (nodes_[node].parent != kNoParent) node = nodes_[node].parent;
  return node;
}

std::pair<std::int32_t, bool> QuotaTree::borrowing_level(NodeId cluster_queue, std::uint32_t fr, std::int64_t amount) const {
  const NodeId parent = nodes_[cluster_queue].parent;
  if (!borrowing_with(cluster_queue, fr, amount) || parent == kNoParent) return {0, parent != kNoParent};
  std::int64_t remaining = amount - local_available(cluster_queue, fr);
  for (NodeId node = parent; node != kNoParent; node = nodes_[node].parent) {
    if (!borrowing_with(node, fr, remaining)) return {height(node), nodes_[node].parent != kNoParent};
    remaining -= local_available(node, fr);
  }
  return {height(root(cluster_queue)), false};
}

}  // namespace gpusim::k8s::kueue
