#pragma once
// The priority a preempting profile gives each job (a trace row, or all the rows of a gang), from
// what the job ledger says it has run. Smaller ranks are more urgent; a pod may preempt only pods of
// a strictly larger rank, so jobs of one rank never preempt each other (no thrashing among equals).
//   priority  rank -PriorityClass value
//   srtf      rank = the job's remaining run time (trace run time x the share its checkpoints left,
//             less the time run since its current start): an oracle, as in the papers' SRTF
//   tiresias  rank = the job's queue: how many thresholds its attained service (GPUs x run time,
//             every run counted, lost work included) has passed since its last promotion
// Within a rank, jobs go in creation order (FIFO), then pod id.
#include <compare>
#include <span>
#include <cstdint>
#include <vector>

#include "sim/cluster/pod.hpp"
#include "sim/core/time.hpp"
#include "sim/k8s/job_ledger.hpp"
#include "sim/sched/profile.hpp"

namespace gpusim::k8s {

struct PriorityKey {
  std::int64_t rank = 0;
  std::int64_t order = 0;
  friend auto operator<=>(const PriorityKey&, const PriorityKey&) = default;
};

class JobPriority {
 public:
  static constexpr core::Time kNever = core::Time::from_micros(INT64_MAX);

  JobPriority(const sched::Profile& profile, const std::vector<cluster::PodSpec>& pods, const JobLedger& ledger);

  PriorityKey key(std::uint32_t row, core::Time now) const;
  sched::Preemption kind() const { return kind_; }
  static bool may_preempt(PriorityKey preemptor, PriorityKey victim) { return victim.rank > preemptor.rank; }
  // False when no job can rank below `key` (Tiresias' last queue), so there is nothing to preempt.
  bool may_outrank_any(PriorityKey key) const {
    return kind_ != sched::Preemption::kTiresias || key.rank < static_cast<std::int64_t>(tiresias_.thresholds_gpu_s.size());
  }

  // Tiresias: when the job of `row`, running now, passes its next threshold (kNever: no other
  // queue below, or not Tiresias).
  core::Time next_demotion(std::uint32_t row, core::Time now) const;
  // Tiresias with a starvation knob K, as its simulator's solve_starvation: the job of `row`,
  // waiting in a queue below 0, is due back in queue 0 once the time it has waited since it first
  // ran after entering queue 0 reaches K times the time it ran since then (wall-clock, every wait
  // counted); kNever: never (queue 0, never ran since, or some of its pods run).
  core::Time promotion_due(std::uint32_t row) const;
  // Puts the job of `row` back in queue 0 with its service counted from now.
  void promote(std::uint32_t row, core::Time now);
  // The job of `row` started running (a pod of it): the first start since it entered queue 0
  // starts the count of its waiting.
  void started(std::uint32_t row, core::Time now);
  // The rows of gang g (PodSpec::gang), in row order.
  const std::vector<std::uint32_t>& gang_rows(std::uint32_t gang) const { return gang_rows_[gang]; }

 private:
  std::size_t job_of(std::uint32_t row) const {
    const std::uint32_t gang = pods_[row].gang;
    return gang != 0 ? pods_.size() + gang : row;
  }
  // The job's rows: the row alone, or its gang's.
  std::span<const std::uint32_t> rows_of(const std::uint32_t& row) const {
    const std::uint32_t gang = pods_[row].gang;
    return gang != 0 ? std::span<const std::uint32_t>(gang_rows_[gang]) : std::span<const std::uint32_t>(&row, 1);
  }
  // GPU-microseconds the job has run (all rows, all runs) and its run time (its longest row), as
  // of now, before subtracting what they were at its last promotion.
  std::int64_t attained_gpu_us(std::uint32_t row, core::Time now) const;
  core::Time executed(std::uint32_t row, core::Time now) const;
  int queue_of(std::int64_t attained_gpu_us) const;

  sched::Preemption kind_;
  sched::TiresiasSettings tiresias_;
  const std::vector<cluster::PodSpec>& pods_;
  const JobLedger& ledger_;
  std::vector<std::vector<std::uint32_t>> gang_rows_;
  // Per job (rows, then gangs): its attained service and run time at its last promotion.
  std::vector<std::int64_t> attained_offset_;
  std::vector<core::Time> executed_offset_;
  // Per job: its first start since it entered queue 0 (kNever: none yet).
  std::vector<core::Time> first_run_;
};

}  // namespace gpusim::k8s
