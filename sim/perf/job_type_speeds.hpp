#pragma once
// Gavel's throughput table as a runtime model (traces/gavel_table.hpp): a job of a known type
// (PodSpec::job_type) runs its steps at the table's speed on the GPU type it lands on, so a
// heterogeneous cluster changes how long it runs. A trace duration is the job's time on a V100,
// as in Gavel's own traces; on a K80 the same job takes thr(V100) / thr(K80) times as long.
// A GPU model's worker type comes from its catalog id: k80, p100-*, v100-*.
#include <cstdint>
#include <optional>
#include <vector>

#include "sim/cluster/gpu_catalog.hpp"
#include "sim/cluster/node.hpp"
#include "sim/cluster/pod.hpp"
#include "traces/gavel_table.hpp"

namespace gpusim::perf {

class JobTypeSpeeds {
 public:
  JobTypeSpeeds(traces::GavelThroughputs table, const cluster::GpuCatalog& catalog);

  // The Gavel worker type (index into traces::kGavelWorkerTypes) of a catalog model, if any.
  static std::optional<std::size_t> worker_type_of(const cluster::GpuModel& model);
  std::optional<std::size_t> worker_type_of(cluster::GpuModelId model) const;

  // Throws core::InputError naming the first GPU node whose model has no worker type.
  void check_cluster(const std::vector<cluster::NodeSpec>& nodes) const;

  // Gives every GPU job a job type, drawn with `seed` uniformly among the table's types that have
  // a V100 figure (the reference) and run at the job's scale factor (its GPUs; a gang's workers
  // together, spread over servers) on every worker type of `nodes` that has a node as large as
  // the job's largest pod (where a policy may place it). Gavel's traces draw job types uniformly from the
  // table too. The workers of a gang share their job's type.
  void assign(std::vector<cluster::PodSpec>& pods, const std::vector<cluster::NodeSpec>& nodes, std::uint64_t seed) const;

  // Keeps each pod with a job type off GPU models where its type has no figure at its scale. A job
  // split by --job-placement scattered may otherwise land on GPU types its draw never considered
  // (nodes too small for the whole job). Already-narrowed models are intersected.
  void restrict_to_runnable(std::vector<cluster::PodSpec>& pods) const;

  // The job's steps per second on `worker` relative to its speed on a V100 (reference), > 0. A job
  // spread over several servers runs at the table's `_unconsolidated` figures (both its own and the
  // reference's); without `spread`, a gang is taken to be spread (what planning assumes).
  double speed(const cluster::PodSpec& pod, std::size_t worker, std::optional<bool> spread = std::nullopt) const;
  // Its run time on `model` over its run time on a V100: 1 / speed.
  double time_factor(const cluster::PodSpec& pod, cluster::GpuModelId model, std::optional<bool> spread = std::nullopt) const;

  // Per pod: its speed on an equal share of the cluster, the mean of its speeds over the GPUs of the
  // worker types with a node as large as the pod, weighted by their GPUs (1 for pods without a job
  // type). Finish-time fairness measures a job's time against its run time at this speed.
  std::vector<double> equal_share_speeds(const std::vector<cluster::PodSpec>& pods,
                                         const std::vector<cluster::NodeSpec>& nodes) const;

  // A pod's class for sharing a GPU of `worker`: its job type, scale factor, GPU type and whether
  // its job is spread over servers; -1 without a job type.
  std::int32_t pair_class(const cluster::PodSpec& pod, std::size_t worker, bool spread) const;
  // The speed of a pod of class `self` while one pod of class `other` runs on the same GPUs, against
  // its speed alone there: the table's co-location figure over its figure alone (the spread ones
  // when the table has both, else the consolidated ones), at most 1. 0 where the table has no figure:
  // either is -1, they differ in scale factor or GPU type, or the pair cannot run (out of memory).
  double colocated_speed(std::int32_t self, std::int32_t other) const;
  // Whether pairs sharing a GPU run at the table's co-location figures (the default) or, off, at
  // the shared-GPU speed model like any pods (--colocation model).
  void use_colocation_figures(bool use) { colocation_figures_ = use; }
  bool uses_colocation_figures() const { return colocation_figures_; }

  const traces::GavelThroughputs& table() const { return table_; }

 private:
  traces::GavelThroughputs table_;
  std::vector<std::int8_t> worker_of_model_;  // per catalog model: its worker type, -1 none
  bool colocation_figures_ = true;
};

}  // namespace gpusim::perf
