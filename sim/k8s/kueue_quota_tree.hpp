#pragma once
// Kueue's quota arithmetic over its tree of Cohorts and ClusterQueues (kubernetes-sigs/kueue
// v0.19.2, pkg/cache/scheduler/resource_node.go; KEP-79 for hierarchical cohorts). For every
// (flavor, resource) pair each node has its own nominal quota, an optional borrowing and lending
// limit, a subtree quota and a usage:
//   - a ClusterQueue's subtree quota is its nominal quota; a Cohort's is its own nominal quota plus,
//     per child, what the child lends up: child subtree quota - child local quota;
//   - local quota = max(0, subtree quota - lending limit) with a lending limit, else 0: the part
//     never lent to the parent;
//   - a node's usage passes up to its parent only above its local quota;
//   - available = at a root, subtree quota - usage; elsewhere max(0, local quota - usage) plus what
//     the parent has available, capped by the borrowing limit's headroom; never below 0;
//   - potential available (the most one admission could take, everything else idle) = at a root,
//     subtree quota; elsewhere local quota + the parent's, capped at subtree quota + borrowing limit.
// A ClusterQueue naming a Cohort that no object defines, or a Cohort naming an undefined parent,
// has an implicit Cohort with no quota (as Kueue creates one). Amounts are Kueue's (cpu in
// millicores, other resources in units: sim/k8s/kueue_objects.hpp).
#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/k8s/kueue_objects.hpp"

namespace gpusim::k8s::kueue {

using NodeId = std::uint32_t;
inline constexpr NodeId kNoParent = UINT32_MAX;

class QuotaTree {
 public:
  // The objects' references must have been checked (check_kueue_references).
  explicit QuotaTree(const Objects& objects);

  std::optional<NodeId> cluster_queue(std::string_view name) const;
  std::optional<NodeId> cohort(std::string_view name) const;
  // The index of a (flavor, resource) pair some ClusterQueue or Cohort gives quota for.
  std::optional<std::uint32_t> flavor_resource(std::string_view flavor, std::string_view resource) const;
  std::size_t flavor_resource_count() const { return pairs_.size(); }
  const std::pair<std::string, std::string>& pair(std::uint32_t fr) const { return pairs_[fr]; }

  std::size_t node_count() const { return nodes_.size(); }
  const std::string& name(NodeId node) const { return nodes_[node].name; }
  bool is_cluster_queue(NodeId node) const { return nodes_[node].cluster_queue; }
  NodeId parent(NodeId node) const { return nodes_[node].parent; }
  const std::vector<NodeId>& children(NodeId node) const { return nodes_[node].children; }
  double fair_sharing_weight(NodeId node) const { return nodes_[node].weight; }

  std::int64_t nominal(NodeId node, std::uint32_t fr) const { return at(node, fr).nominal; }
  std::optional<std::int64_t> borrowing_limit(NodeId node, std::uint32_t fr) const { return at(node, fr).borrowing_limit; }
  std::optional<std::int64_t> lending_limit(NodeId node, std::uint32_t fr) const { return at(node, fr).lending_limit; }
  std::int64_t subtree_quota(NodeId node, std::uint32_t fr) const { return at(node, fr).subtree; }
  std::int64_t local_quota(NodeId node, std::uint32_t fr) const;
  std::int64_t usage(NodeId node, std::uint32_t fr) const { return at(node, fr).usage; }

  // A ClusterQueue's usage changes by `delta` (a workload reserves quota, or gives it back: negative),
  // and so do its ancestors', by what passes above each one's local quota.
  void add_usage(NodeId cluster_queue, std::uint32_t fr, std::int64_t delta);
  // Takes every node's usage from `other`, a copy of this tree (a cycle's snapshot, without allocating).
  void copy_usage_from(const QuotaTree& other);

  std::int64_t available(NodeId node, std::uint32_t fr) const;
  std::int64_t potential_available(NodeId node, std::uint32_t fr) const;
  // Whether the node uses more than its subtree quota (a ClusterQueue: more than its nominal).
  bool borrowing(NodeId node, std::uint32_t fr) const { return usage(node, fr) > subtree_quota(node, fr); }
  // ... or would, with `amount` more.
  bool borrowing_with(NodeId node, std::uint32_t fr, std::int64_t amount) const {
    return usage(node, fr) + amount > subtree_quota(node, fr);
  }
  // What the node keeps for itself and does not use (LocalAvailable).
  std::int64_t local_available(NodeId node, std::uint32_t fr) const {
    return std::max<std::int64_t>(0, local_quota(node, fr) - usage(node, fr));
  }
  // The distance from a Cohort to its furthest leaf (a Cohort with members is at least 1).
  std::int32_t height(NodeId cohort) const;
  // Kueue's borrowing level of `amount` more for a ClusterQueue (FindHeightOfLowestSubtreeThatFits):
  // 0 if it fits its nominal quota (or it has no Cohort), else the height of the lowest ancestor
  // whose subtree holds what the levels below cannot, else the root's; and whether that subtree is
  // smaller than the whole tree (reclaim within it is then possible).
  std::pair<std::int32_t, bool> borrowing_level(NodeId cluster_queue, std::uint32_t fr, std::int64_t amount) const;
  // The root of the node's tree.
  NodeId root(NodeId node) const;

 private:
  struct Quota {
    std::int64_t nominal = 0;
    std::optional<std::int64_t> borrowing_limit;
    std::optional<std::int64_t> lending_limit;
    std::int64_t subtree = 0;
    std::int64_t usage = 0;
  };
  struct Node {
    std::string name;
    bool cluster_queue = false;
    NodeId parent = kNoParent;
    std::vector<NodeId> children;
    double weight = 1.0;
    std::vector<Quota> quotas;  // per (flavor, resource) pair
  };

  const Quota& at(NodeId node, std::uint32_t fr) const { return nodes_[node].quotas[fr]; }
  NodeId cohort_node(const std::string& name);
  void set_quotas(NodeId node, const std::vector<ResourceGroup>& groups);
  void sum_subtree(NodeId node);

  std::vector<Node> nodes_;
  std::map<std::string, NodeId, std::less<>> cluster_queues_;
  std::map<std::string, NodeId, std::less<>> cohorts_;
  std::vector<std::pair<std::string, std::string>> pairs_;  // (flavor, resource), sorted
};

}  // namespace gpusim::k8s::kueue
