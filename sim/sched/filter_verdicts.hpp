#pragma once
// The filters' verdicts, remembered per (pod shape, node) until the node changes.
//
// Between two scheduling cycles few nodes change: one placement or one ended pod touches one
// node. When every filter of a cycle reads only the pod's filter shape (sim/sched/filter_shape.hpp)
// and node n's state (FilterPlugin::node_local), the verdict for n holds while n's version
// (ClusterState::version) stays the same, so the framework runs the filters only on nodes that
// changed since it last saw the shape. The verdicts are those the filters would give: every
// output is the same as without the table.
//
// Memory is bounded: at most kMaxEntries verdicts (8 bytes each); shapes beyond that are not
// remembered and their cycles filter every node, as before. A shape's slot keeps the pod's
// placement rules alive (the key holds their address, which must not be reused by other rules).
#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "sim/cluster/cluster_state.hpp"
#include "sim/sched/filter_shape.hpp"

namespace gpusim::sched {

class FilterVerdicts {
 public:
  static constexpr std::uint32_t kNoSlot = UINT32_MAX;
  static constexpr std::size_t kMaxEntries = std::size_t{1} << 22;
  enum class Verdict : std::uint8_t { kUnknown, kPass, kFail };

  explicit FilterVerdicts(std::size_t nodes) : nodes_(nodes) {}

  // The pod's shape's slot, made on its first cycle; kNoSlot when the table is full.
  std::uint32_t slot(const cluster::PodSpec& pod);

  Verdict find(std::uint32_t slot, cluster::NodeIndex n, std::uint64_t version) const {
    const std::uint64_t stamp = stamps_[std::size_t{slot} * nodes_ + n];
    if ((stamp >> 1) != version + 1) return Verdict::kUnknown;
    return (stamp & 1U) != 0 ? Verdict::kPass : Verdict::kFail;
  }
  void remember(std::uint32_t slot, cluster::NodeIndex n, std::uint64_t version, bool pass) {
    stamps_[std::size_t{slot} * nodes_ + n] = ((version + 1) << 1) | (pass ? 1U : 0U);
  }

 private:
  std::size_t nodes_;
  std::map<FilterShape, std::uint32_t> slots_;
  std::vector<std::shared_ptr<const cluster::PodConstraints>> kept_rules_;
  // Per slot, per node: (version + 1) << 1 | passed; 0 means never filtered.
  std::vector<std::uint64_t> stamps_;
};

}  // namespace gpusim::sched
