#pragma once
// kube-scheduler-shaped extension points. A plugin implements one or more of these small
// interfaces; the framework runner calls them in a fixed order and is the only code that
// changes cluster state. Plugins see the cluster as const and never throw.
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "sim/cluster/cluster_state.hpp"
#include "sim/cluster/pod.hpp"
#include "sim/sched/cycle_state.hpp"
#include "sim/sched/fit_error.hpp"
#include "sim/sched/status.hpp"

namespace gpusim::sched {

using cluster::ClusterState;
using cluster::NodeIndex;
using cluster::PodSpec;

inline constexpr std::int64_t kMaxNodeScore = 100;
inline constexpr std::int64_t kMinNodeScore = 0;

class Plugin {
 public:
  virtual ~Plugin() = default;
  virtual std::string_view name() const = 0;
};

// Orders the pending queue: true when `a` should be tried before `b`.
class QueueSortPlugin : public virtual Plugin {
 public:
  virtual bool less(const PodSpec& a, const PodSpec& b) const = 0;
};

// Checks the pod as a whole before any node is looked at.
class PreFilterPlugin : public virtual Plugin {
 public:
  virtual Status pre_filter(const PodSpec& pod, const ClusterState& cluster, CycleState& cycle) = 0;
};

// Whether node n can run the pod at all.
class FilterPlugin : public virtual Plugin {
 public:
  // false when the filter would pass every node for this pod, so the framework skips it for the
  // cycle (kube-scheduler's PreFilter "Skip"): e.g. node affinity for a pod without rules.
  virtual bool applies(const PodSpec& pod, const ClusterState& cluster) const {
    (void)pod, (void)cluster;
    return true;
  }
  virtual Status filter(const PodSpec& pod, NodeIndex n, const ClusterState& cluster,
                        CycleState& cycle) const = 0;
  // true when filter() reads nothing but the pod's filter shape (sim/sched/filter_shape.hpp),
  // node n's state in the cluster (whose version changes with it) and the plugin's fixed
  // configuration: not the cycle state, other nodes, time or metrics. The framework then reuses
  // a verdict until node n changes (sim/sched/filter_verdicts.hpp).
  virtual bool node_local() const { return false; }
  // Diagnosis only (Framework::diagnose, once per pod that never ran): why node n cannot run the
  // pod, as the kube-scheduler plugin this filter stands for would say it (all its reasons: e.g.
  // NodeResourcesFit names every resource the node lacks). Must reject exactly when filter()
  // does. By default: filter()'s own reason, counted after kube-scheduler's plugins.
  virtual void explain(const PodSpec& pod, NodeIndex n, const ClusterState& cluster, CycleState& cycle,
                       NodeReasons& reasons) const {
    const Status status = filter(pod, n, cluster, cycle);
    if (!status.is_ok()) reasons.reject(KubeFilter::kOther, {status.reason});
  }
};

// Runs when no node passed the filters (preemption lives here in later issues). Returns ok
// when it made room, so the framework tries the pod once more.
class PostFilterPlugin : public virtual Plugin {
 public:
  virtual Status post_filter(const PodSpec& pod, const ClusterState& cluster, CycleState& cycle) = 0;
};

// Ranks the feasible nodes. `pre_score` sees them all first; `normalize` maps the raw scores
// of all feasible nodes to [0, 100] in place (default: leave them as they are).
class ScorePlugin : public virtual Plugin {
 public:
  virtual void pre_score(const PodSpec& pod, std::span<const NodeIndex> feasible,
                         const ClusterState& cluster, CycleState& cycle) {
    (void)pod, (void)feasible, (void)cluster, (void)cycle;
  }
  virtual std::int64_t score(const PodSpec& pod, NodeIndex n, const ClusterState& cluster,
                             CycleState& cycle) = 0;
  virtual void normalize(std::span<NodeScore> scores) const { (void)scores; }
  // true when score() reads nothing but the pod's filter shape (sim/sched/filter_shape.hpp), node
  // n's state (whose version changes with it) and the plugin's own per-node state that changes
  // only with node n; pre_score() reads only the pod (not the feasible nodes); neither writes the
  // cycle state (a node scored in an earlier cycle is not scored again); and normalize() is the
  // default, which leaves scores as they are, or keeps the best (below). A node's score then holds
  // until the node changes, and the framework keeps the best node per shape up to date instead of
  // scoring every feasible node each cycle (sim/sched/shape_rankings.hpp).
  virtual bool node_local() const { return false; }
  // true when the nodes with the highest normalised score are exactly those with the highest raw
  // score, as with a min-max scaling onto [0, 100] rounded down (only the top raw score maps to
  // 100). In a profile where it is the only score plugin, the best node by raw score is then the
  // best by normalised score, ties included, and a node-local plugin of this kind is ranked too;
  // beside other score plugins the normalised values count, and it is not.
  virtual bool normalize_keeps_the_best() const { return false; }
};

// Picks the GPUs on the chosen node. Precondition: the node passed the filters.
class GpuSelector : public virtual Plugin {
 public:
  virtual cluster::GpuSet select(const PodSpec& pod, NodeIndex n, const ClusterState& cluster,
                                 const CycleState& cycle) = 0;
};

// Tentative placement hooks; unreserve must undo reserve and be safe to call twice.
class ReservePlugin : public virtual Plugin {
 public:
  virtual Status reserve(const PodSpec& pod, const cluster::Placement& placement) = 0;
  virtual void unreserve(const PodSpec& pod, const cluster::Placement& placement) = 0;
};

// Last word before binding: allow, deny (unschedulable) or wait (gang scheduling, later).
class PermitPlugin : public virtual Plugin {
 public:
  virtual Status permit(const PodSpec& pod, const cluster::Placement& placement) = 0;
};

}  // namespace gpusim::sched

namespace gpusim::sched {

// A scheduler extender (kube-scheduler's extender API), supplied by the cluster rather than the
// profile: its filter sees every node that passed the plugins' filters at once and keeps those it
// accepts; on the nodes it manages it also picks the GPUs (its bind's annotation), and it hears of
// every placement and release so that it can keep its own view of device use.
class Extender {
 public:
  virtual ~Extender() = default;
  virtual void filter(const PodSpec& pod, std::vector<NodeIndex>& feasible, const ClusterState& cluster) = 0;
  // What a node its filter removed counts as in a FitError (kube-scheduler adds an extender's
  // failed nodes with the extender's own message).
  virtual std::string_view rejection() const = 0;
  virtual bool picks_gpus(NodeIndex n) const = 0;
  virtual cluster::GpuSet select(const PodSpec& pod, NodeIndex n, const ClusterState& cluster) = 0;
  virtual void placed(const PodSpec& pod, const cluster::Placement& placement) = 0;
  virtual void released(const PodSpec& pod, const cluster::Placement& placement) = 0;
};

// Binds the pod; ok means the framework commits the placement. A later device-plugin model
// may answer kWait (the kubelet has not confirmed yet) or an error (Allocate failed).
class BindPlugin : public virtual Plugin {
 public:
  virtual Status bind(const PodSpec& pod, const cluster::Placement& placement) = 0;
};

}  // namespace gpusim::sched
