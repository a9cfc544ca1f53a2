#pragma once
// The priority a preempting profile gives each job (a trace row, or all the rows of a gang), from
// what the job ledger says it has run. Smaller ranks are more urgent; a pod may preempt only pods of
// a strictly larger rank, so jobs of one rank never preempt each other (no thrashing among equals).
//   priority  rank -PriorityClass value
//   srtf      rank = the job's remaining run time (trace run time x the share its checkpoints left,
//             less the time run since its current start): an oracle, as in the papers' SRTF
//   tiresias  rank = the job's queue: how many thresholds its attained service (GPUs x run time,
//             every run counted, lost work included) has passed since its last promotion
// Within a rank, jobs go in creation order (FIFO), then pod id; or, for tiresias with the simulator's
// queue order (sched::TiresiasQueueOrder::kSimulator), in the order of its queue's list, which the
// scheduler keeps up to date (enter, demoted, promote, ended, end_of_pass).
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
  // A victim of a larger rank; in the simulator's queue order, also one behind the preemptor in its
  // own queue (a job just demoted while it ran).
  bool may_preempt(PriorityKey preemptor, PriorityKey victim) const {
    return simulator_order_ ? victim > preemptor : victim.rank > preemptor.rank;
  }
  // False when no job can rank below `key` (Tiresias' last queue), so there is nothing to preempt.
  bool may_outrank_any(PriorityKey key) const {
    return kind_ != sched::Preemption::kTiresias || key.rank < static_cast<std::int64_t>(tiresias_.thresholds_gpu_s.size()) ||
           (simulator_order_ && demoted_running_[static_cast<std::size_t>(key.rank)] > 0);
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
  // The simulator's queue order (queue_lists() true): the scheduler tells the lists what happens.
  bool queue_lists() const { return simulator_order_; }
  // A pod of the job of `row` was created: a job not yet in a list joins the tail of its queue.
  void enter(std::uint32_t row, core::Time now);
  // The job of `row` may have passed a threshold while it ran: it joins the tail of its new queue.
  void demoted(std::uint32_t row, core::Time now);
  // A pod of the job of `row` ended for good (it succeeded, or its trace says it ended): the job
  // leaves its list once all its rows have.
  void ended(std::uint32_t row);
  // The end of a scheduling pass: in each queue, the jobs the pass left running (`placed(row)` for
  // a row of theirs: bound or running, and not being preempted) move ahead of the waiting ones,
  // each group in its order. The waiting jobs keep their places (so the waiting pods' keys stay
  // true) and the running ones take new places below every place given so far. Returns whether
  // a job with a pod placed has another waiting (a gang's replacement worker): its waiting pods'
  // keys changed.
  template <typename Placed>
  bool end_of_pass(const Placed& placed) {
    if (!simulator_order_) return false;
    bool moved_waiting = false;
    for (std::size_t q = 0; q < lists_.size(); ++q) {
      std::vector<std::uint32_t>& list = lists_[q];
      demoted_running_[q] = 0;
      scratch_waiting_.clear();
      std::size_t kept = 0;
      for (const std::uint32_t job : list) {
        const std::uint32_t first = job < pods_.size() ? job : gang_rows_[job - pods_.size()].front();
        int rows_placed = 0;
        for (const std::uint32_t r : rows_of(first)) rows_placed += placed(r) ? 1 : 0;
        if (rows_placed > 0) {
          list[kept++] = job;
          moved_waiting = moved_waiting || rows_placed < static_cast<int>(rows_of(first).size());
        } else {
          scratch_waiting_.push_back(job);
        }
      }
      // The running jobs, in order, just below every place given so far.
      lowest_place_ -= static_cast<std::int64_t>(kept);
      for (std::size_t i = 0; i < kept; ++i) place_[list[i]] = lowest_place_ + static_cast<std::int64_t>(i);
      std::copy(scratch_waiting_.begin(), scratch_waiting_.end(), list.begin() + static_cast<std::ptrdiff_t>(kept));
    }
    return moved_waiting;
  }
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
  // The simulator's queue order: each queue's jobs in order, each job's list (-1: none) and its
  // place (increasing along a list; renumbered at each pass's end), and rows ended per job.
  void move_to_tail(std::size_t job, int queue);
  bool simulator_order_ = false;
  std::vector<std::vector<std::uint32_t>> lists_;
  std::vector<std::int32_t> list_of_;
  std::vector<std::int64_t> place_;
  std::vector<std::uint32_t> rows_ended_;
  std::vector<std::uint32_t> scratch_waiting_;
  std::int64_t next_place_ = 0;    // the next place at a list's tail
  std::int64_t lowest_place_ = 0;  // the least place given so far
  // Per queue: jobs moved to its tail while they ran since the last pass (they may be preempted by
  // the queue's waiting jobs).
  std::vector<std::int32_t> demoted_running_;
};

}  // namespace gpusim::k8s
