#pragma once
// The scheduling-cycle runner. For one pod: PreFilter, Filter over every node, PostFilter when
// nothing fits, Score (normalised, weighted), host selection with a defined tie-break, GPU
// selection inside the node, Reserve, Permit, Bind; then it commits the placement to the
// cluster. It is the only code that changes ClusterState.
//
// Hot path: no allocation per cycle; buffers are sized to the cluster once.
#include <array>
#include <memory>
#include <optional>
#include <vector>

#include "sim/sched/filter_verdicts.hpp"
#include "sim/sched/shape_rankings.hpp"
#include "sim/sched/plugin.hpp"
#include "sim/sched/profile.hpp"
#include "sim/sched/registry.hpp"

namespace gpusim::sched {

// Why the last pod could not be placed, for reports.
enum class Outcome : std::uint8_t { kScheduled, kRejectedByPreFilter, kNoFeasibleNode, kDenied };

class Framework {
 public:
  Framework(const Profile& profile, const Registry& registry, const PluginContext& context,
            ClusterState& cluster);
  ~Framework();
  Framework(const Framework&) = delete;
  Framework& operator=(const Framework&) = delete;

  // One scheduling cycle. On success the pod is bound and its placement returned.
  std::optional<cluster::Placement> schedule(const PodSpec& pod);
  Outcome last_outcome() const { return last_outcome_; }
  // Number of feasible nodes in the last cycle.
  std::size_t last_feasible_count() const { return feasible_count_; }

  // Why no node can take the pod now, as kube-scheduler's FitError says it (sim/sched/
  // fit_error.hpp): PreFilter, every present node through the filters that apply, then the
  // extenders. `feasible` (optional) receives the nodes that could take it, in node order; when
  // any could, the FitError's reasons cover only the others. Changes nothing; not for the hot
  // path (sim/sched/diagnosis.cpp).
  FitError diagnose(const PodSpec& pod, std::vector<NodeIndex>* feasible = nullptr);

  // The pod ended: reserve plugins unreserve it and its resources go back to the cluster.
  void release(const PodSpec& pod, const cluster::Placement& placement);

  const QueueSortPlugin& queue_sort() const { return *queue_sort_; }
  const Profile& profile() const { return profile_; }
  const ClusterState& cluster() const { return cluster_; }

 private:
  void filter_nodes(const PodSpec& pod);  // fills feasible_
  // percentageOfNodesToScore below 100: from next_start_, until enough nodes are feasible.
  void filter_some_nodes(const PodSpec& pod);
  NodeIndex select_host(const PodSpec& pod);
  // The shape's best node from its ranking (sim/sched/shape_rankings.hpp), after re-ranking the
  // nodes changed since its last cycle; nullopt when no node passes.
  std::optional<NodeIndex> ranked_best(ShapeRankings::Ranking& ranking, const PodSpec& pod);
  void rank_node(ShapeRankings::Ranking& ranking, const PodSpec& pod, NodeIndex n);
  Extender* gpu_binder(NodeIndex n) const;  // the first extender that picks GPUs on n, or null
  void check_profile(const Profile& profile, const Registry& registry) const;

  Profile profile_;
  ClusterState& cluster_;
  CycleState cycle_;
  std::vector<std::unique_ptr<Plugin>> owned_;
  QueueSortPlugin* queue_sort_ = nullptr;
  std::vector<PreFilterPlugin*> pre_filters_;
  std::vector<FilterPlugin*> filters_;
  std::vector<const FilterPlugin*> active_filters_;  // this cycle's: those that apply to the pod
  bool active_filters_node_local_ = false;            // every one of them is node_local()
  FilterVerdicts verdicts_;
  // Every score plugin is node-local, none normalises (or the only one keeps the best), every
  // node is scored and no extender filters: cycles whose filters are node-local too take the best
  // node from rankings_.
  bool rankable_ = false;
  ShapeRankings rankings_;
  std::vector<PostFilterPlugin*> post_filters_;
  std::vector<std::pair<ScorePlugin*, std::int64_t>> scorers_;
  GpuSelector* gpu_selector_ = nullptr;
  std::vector<GpuSelector*> node_gpu_selectors_;  // per node, when the context overrides some
  std::vector<Extender*> extenders_;                // the cluster's scheduler extenders, in call order
  std::vector<ReservePlugin*> reservers_;
  std::vector<PermitPlugin*> permits_;
  BindPlugin* binder_ = nullptr;

  std::vector<std::uint64_t> candidates_;  // a bit per node: those worth filtering
  std::vector<NodeIndex> feasible_;
  std::size_t feasible_count_ = 0;  // in the last cycle
  std::vector<NodeScore> plugin_scores_;
  std::vector<std::int64_t> total_scores_;
  std::vector<std::uint32_t> tie_rank_;  // per node; smaller wins a tie
  // Where the next filter stage starts when it may stop early (kube-scheduler's nextStartNodeIndex).
  std::size_t next_start_ = 0;
  Outcome last_outcome_ = Outcome::kScheduled;
};

}  // namespace gpusim::sched
