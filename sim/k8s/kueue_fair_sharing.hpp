#pragma once
// Kueue's dominant resource share (kubernetes-sigs/kueue v0.19.2,
// pkg/cache/scheduler/fair_sharing.go, dominantResourceShare and CompareDRS), on gpusim's quota
// tree. For a node with a parent (a root, or a ClusterQueue without a Cohort, has share 0):
//   borrowed(r) = sum over flavors f of max(0, usage(f, r) - subtree quota(f, r));
//   lendable(r) = sum over every flavor f of r in the tree of the parent's potential available (f, r);
//   ratio(r)    = borrowed(r) * 1000 / lendable(r), for resources with lendable > 0;
// the share is the largest ratio (ties: the resource name first in alphabetical order), divided by
// the node's fairSharing weight; a weight of 0 while borrowing is an infinite share, which ranks
// above every finite one and, among infinite ones, by the unweighted ratio.
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/k8s/kueue_quota_tree.hpp"

namespace gpusim::k8s::kueue {

struct Drs {
  double weight = 1.0;
  double ratio = 0.0;         // unweighted, in thousandths of the parent's lendable quota
  std::string_view dominant;  // the resource giving the ratio (the tree's string)
  bool borrowing = false;     // over its subtree quota on some (flavor, resource)
  std::vector<std::uint32_t> borrowed;  // the (flavor, resource) pairs it is over its quota on

  // Kueue's "negative" share, below every real one: where a search for the largest starts.
  static Drs negative() { return Drs{1.0, -1.0, {}, false, {}}; }
  bool zero_weight_borrows() const { return weight == 0 && ratio != 0; }
  // The weighted share (PreciseWeightedShare): 0 when not borrowing, +inf for weight 0.
  double weighted() const;
  // Whether it borrows on any pair the request asks a positive amount of (IsBorrowingOn).
  bool borrowing_on(const std::vector<std::pair<std::uint32_t, std::int64_t>>& request) const;
};

Drs dominant_resource_share(const QuotaTree& tree, NodeId node);

// -1, 0 or 1 as `a`'s share is below, equal to or above `b`'s (CompareDRS).
int compare(const Drs& a, const Drs& b);

}  // namespace gpusim::k8s::kueue
