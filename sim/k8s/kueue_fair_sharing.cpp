#include "sim/k8s/kueue_fair_sharing.hpp"

#include <boost/container/small_vector.hpp>

#include <algorithm>
#include <limits>

namespace gpusim::k8s::kueue {

double Drs::weighted() const {
  if (ratio == 0) return 0.0;
  if (weight == 0) return std::numeric_limits<double>::infinity();
  return ratio / weight;
}

bool Drs::borrowing_on(const std::vector<std::pair<std::uint32_t, std::int64_t>>& request) const {
  return std::any_of(borrowed.begin(), borrowed.end(), [&](std::uint32_t fr) {
    return std::any_of(request.begin(), request.end(), [&](const auto& r) { return r.first == fr && r.second > 0; });
  });
}

Drs dominant_resource_share(const QuotaTree& tree, NodeId node) {
  Drs drs;
  drs.weight = tree.fair_sharing_weight(node);
  const NodeId parent = tree.parent(node);
  if (parent == kNoParent) return drs;
  // Per resource name: what the node borrows and what its parent could lend. The tree keeps its
  // (flavor, resource) pairs sorted by flavor, so a resource's pairs are not adjacent: a short list
  // of names (a handful of resources) collects them.
  struct PerResource {
    std::string_view resource;
    std::int64_t borrowed = 0;
    std::int64_t lendable = 0;
  };
  // A handful of resources: kept on the stack (shares are computed many times a cycle).
  boost::container::small_vector<PerResource, 8> per_resource;
  const auto entry = [&](std::string_view resource) -> PerResource& {
    for (PerResource& p : per_resource) {
      if (p.resource == resource) return p;
    }
    per_resource.push_back({resource, 0, 0});
    return per_resource.back();
  };
  for (std::uint32_t fr = 0; fr < tree.flavor_resource_count(); ++fr) {
    PerResource& p = entry(tree.pair(fr).second);
    const std::int64_t over = tree.usage(node, fr) - tree.subtree_quota(node, fr);
    if (over > 0) {
      p.borrowed += over;
      drs.borrowed.push_back(fr);
    }
    // calculateLendable: every pair of the tree (the root's subtree quota holds them all).
    p.lendable += tree.potential_available(parent, fr);
  }
  if (drs.borrowed.empty()) return drs;
  drs.borrowing = true;
  for (const PerResource& p : per_resource) {
    if (p.borrowed == 0 || p.lendable <= 0) continue;
    const double ratio = static_cast<double>(p.borrowed) * 1000.0 / static_cast<double>(p.lendable);
    if (ratio > drs.ratio || (ratio == drs.ratio && p.resource < drs.dominant)) {
      drs.ratio = ratio;
      drs.dominant = p.resource;
    }
  }
  return drs;
}

int compare(const Drs& a, const Drs& b) {
  const auto three_way = [](double x, double y) { return x < y ? -1 : (x > y ? 1 : 0); };
  const bool a_inf = a.zero_weight_borrows(), b_inf = b.zero_weight_borrows();
  if (a_inf && b_inf) return three_way(a.ratio, b.ratio);
  if (a_inf) return 1;
  if (b_inf) return -1;
  return three_way(a.weighted(), b.weighted());
}

}  // namespace gpusim::k8s::kueue
