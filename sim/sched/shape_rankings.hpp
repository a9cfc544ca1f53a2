#pragma once
// The best node for each pod shape, kept up to date as nodes change.
//
// When every filter and every score plugin of a profile is node-local (FilterPlugin::node_local,
// ScorePlugin::node_local), a node's verdict and total score for a pod shape hold until the node
// changes. So per shape the framework keeps a max-heap of (total score, tie rank) over the nodes
// that passed, and on each cycle of that shape it re-filters and re-scores only the nodes that
// changed since the shape's last cycle (ClusterState::changes_since): the top of the heap, once
// entries made stale by a later change are dropped, is the node a walk over every node would pick
// (highest total, then smallest tie rank). Heap entries of changed nodes stay until they reach the
// top; a heap that grows past twice the node count is compacted.
//
// Memory is bounded: shapes are ranked while shapes x nodes stays within kMaxShapeNodes; later
// shapes take the walk over every node, as before.
#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "sim/cluster/cluster_state.hpp"
#include "sim/sched/filter_shape.hpp"

namespace gpusim::sched {

class ShapeRankings {
 public:
  static constexpr std::uint32_t kNoSlot = UINT32_MAX;
  static constexpr std::size_t kMaxShapeNodes = std::size_t{1} << 20;

  struct Entry {
    std::int64_t total = 0;
    std::uint32_t tie_rank = 0;
    cluster::NodeIndex node = 0;
    std::uint64_t version = 0;
  };
  // One shape's ranking.
  struct Ranking {
    bool built = false;
    std::uint64_t mark = 0;       // the cluster's change mark when the shape last ran
    std::size_t feasible = 0;     // nodes that passed, at that point
    std::vector<Entry> heap;      // max-heap by (total, then smallest tie rank); may hold stale entries
    // Per node: (version + 1) << 1 | passed, as of the node's last evaluation for this shape; 0: never.
    std::vector<std::uint64_t> stamps;
  };

  explicit ShapeRankings(std::size_t nodes) : nodes_(nodes) {}

  // The pod's shape's ranking, made on its first cycle; nullptr when the budget is spent.
  Ranking* ranking(const cluster::PodSpec& pod);

  // Orders the heap: `a` ranks below `b`.
  static bool below(const Entry& a, const Entry& b) {
    return a.total < b.total || (a.total == b.total && a.tie_rank > b.tie_rank);
  }

 private:
  std::size_t nodes_;
  std::map<FilterShape, std::uint32_t> slots_;
  std::vector<std::unique_ptr<Ranking>> rankings_;
  std::vector<std::shared_ptr<const cluster::PodConstraints>> kept_rules_;  // as FilterVerdicts
};

}  // namespace gpusim::sched
