#include "policies/job_rank/job_priority.hpp"

#include <algorithm>
#include <cmath>

namespace gpusim::k8s {

JobPriority::JobPriority(const sched::Profile& profile, const std::vector<cluster::PodSpec>& pods, const JobLedger& ledger)
    : kind_(profile.preemption), tiresias_(profile.tiresias), pods_(pods), ledger_(ledger) {
  std::uint32_t gangs = 0;
  for (const cluster::PodSpec& pod : pods) gangs = std::max(gangs, pod.gang);
  gang_rows_.resize(std::size_t{gangs} + 1);
  for (std::uint32_t row = 0; row < pods.size(); ++row) {
    if (pods[row].gang != 0) gang_rows_[pods[row].gang].push_back(row);
  }
  if (kind_ == sched::Preemption::kTiresias) {
    attained_offset_.assign(pods.size() + gang_rows_.size(), 0);
    executed_offset_.assign(pods.size() + gang_rows_.size(), core::Time::zero());
    first_run_.assign(pods.size() + gang_rows_.size(), kNever);
    simulator_order_ = tiresias_.queue_order == sched::TiresiasQueueOrder::kSimulator;
  }
  if (simulator_order_) {
    lists_.resize(tiresias_.thresholds_gpu_s.size() + 1);
    demoted_running_.assign(lists_.size(), 0);
    list_of_.assign(pods.size() + gang_rows_.size(), -1);
    place_.assign(pods.size() + gang_rows_.size(), 0);
    rows_ended_.assign(pods.size() + gang_rows_.size(), 0);
  }
}

void JobPriority::move_to_tail(std::size_t job, int queue) {
  if (list_of_[job] >= 0) std::erase(lists_[static_cast<std::size_t>(list_of_[job])], static_cast<std::uint32_t>(job));
  list_of_[job] = queue;
  lists_[static_cast<std::size_t>(queue)].push_back(static_cast<std::uint32_t>(job));
  place_[job] = next_place_++;
}

void JobPriority::enter(std::uint32_t row, core::Time now) {
  const std::size_t job = job_of(row);
  if (!simulator_order_ || list_of_[job] >= 0) return;
  move_to_tail(job, queue_of(attained_gpu_us(row, now) - attained_offset_[job]));
}

void JobPriority::demoted(std::uint32_t row, core::Time now) {
  const std::size_t job = job_of(row);
  if (!simulator_order_ || list_of_[job] < 0) return;
  const int queue = queue_of(attained_gpu_us(row, now) - attained_offset_[job]);
  if (queue == list_of_[job]) return;
  move_to_tail(job, queue);
  ++demoted_running_[static_cast<std::size_t>(queue)];
}

void JobPriority::ended(std::uint32_t row) {
  const std::size_t job = job_of(row);
  if (!simulator_order_ || list_of_[job] < 0) return;
  if (++rows_ended_[job] < rows_of(row).size()) return;
  std::erase(lists_[static_cast<std::size_t>(list_of_[job])], static_cast<std::uint32_t>(job));
  list_of_[job] = -1;
}

std::int64_t JobPriority::attained_gpu_us(std::uint32_t row, core::Time now) const {
  std::int64_t total = 0;
  for (const std::uint32_t r : rows_of(row)) {
    total += pods_[r].total_gpu_milli() * ledger_.executed(r, now).micros() / cluster::kMilliPerGpu;
  }
  return total;
}

core::Time JobPriority::executed(std::uint32_t row, core::Time now) const {
  core::Time longest = core::Time::zero();
  for (const std::uint32_t r : rows_of(row)) longest = std::max(longest, ledger_.executed(r, now));
  return longest;
}

int JobPriority::queue_of(std::int64_t attained_gpu_us) const {
  int queue = 0;
  for (const std::int64_t threshold : tiresias_.thresholds_gpu_s) queue += attained_gpu_us >= threshold * 1'000'000 ? 1 : 0;
  return queue;
}

PriorityKey JobPriority::key(std::uint32_t row, core::Time now) const {
  const cluster::PodSpec& pod = pods_[row];
  const std::int64_t created = pod.creation_time.value_or(core::Time::zero()).micros();
  switch (kind_) {
    case sched::Preemption::kPriority:
      return {-std::int64_t{pod.priority}, created};
    case sched::Preemption::kSrtf: {
      if (!pod.duration) return {INT64_MAX, created};
      std::int64_t left = ledger_.remaining_work(row, *pod.duration).micros();
      if (ledger_.running(row)) left -= (now - ledger_.running_since(row)).micros();
      return {std::max<std::int64_t>(0, left), created};
    }
    case sched::Preemption::kTiresias: {
      const std::size_t job = job_of(row);
      if (simulator_order_ && list_of_[job] >= 0) return {list_of_[job], place_[job]};
      return {queue_of(attained_gpu_us(row, now) - attained_offset_[job]), created};
    }
    case sched::Preemption::kNone:
      break;
  }
  return {0, created};
}

core::Time JobPriority::next_demotion(std::uint32_t row, core::Time now) const {
  if (kind_ != sched::Preemption::kTiresias) return kNever;
  std::int64_t rate_milli = 0;  // GPU-milli running now: attained service grows by rate/1000 per us
  for (const std::uint32_t r : rows_of(row)) rate_milli += ledger_.running(r) ? pods_[r].total_gpu_milli() : 0;
  if (rate_milli == 0) return kNever;
  const std::int64_t attained = attained_gpu_us(row, now) - attained_offset_[job_of(row)];
  for (const std::int64_t threshold : tiresias_.thresholds_gpu_s) {
    const std::int64_t gap = threshold * 1'000'000 - attained;
    if (gap > 0) {
      // ceil(gap * 1000 / rate), in doubles: gap * 1000 may not fit in 64 bits.
      const double wait = std::ceil(static_cast<double>(gap) * cluster::kMilliPerGpu / static_cast<double>(rate_milli));
      return now + core::Time::from_micros(static_cast<std::int64_t>(std::min(wait, 4e18)));
    }
  }
  return kNever;
}

core::Time JobPriority::promotion_due(std::uint32_t row) const {
  if (kind_ != sched::Preemption::kTiresias || tiresias_.starvation_knob <= 0) return kNever;
  core::Time last_stop = core::Time::zero();
  for (const std::uint32_t r : rows_of(row)) {
    if (ledger_.running(r)) return kNever;
    last_stop = std::max(last_stop, ledger_.last_stop(r));
  }
  const std::size_t job = job_of(row);
  if (first_run_[job] == kNever) return kNever;
  if (queue_of(attained_gpu_us(row, last_stop) - attained_offset_[job]) == 0) return kNever;  // already in queue 0
  const core::Time ran = executed(row, last_stop) - executed_offset_[job];
  if (ran <= core::Time::zero()) return kNever;
  // Waited (since the first run) = now - first run - ran; due when that reaches K x ran.
  const double due = static_cast<double>(first_run_[job].micros()) +
                     static_cast<double>(ran.micros()) * (1.0 + static_cast<double>(tiresias_.starvation_knob));
  return std::max(last_stop, core::Time::from_micros(static_cast<std::int64_t>(std::min(due, 4e18))));
}

void JobPriority::promote(std::uint32_t row, core::Time now) {
  const std::size_t job = job_of(row);
  attained_offset_[job] = attained_gpu_us(row, now);
  executed_offset_[job] = executed(row, now);
  first_run_[job] = kNever;
  if (simulator_order_ && list_of_[job] >= 0) move_to_tail(job, 0);
}

void JobPriority::started(std::uint32_t row, core::Time now) {
  if (kind_ != sched::Preemption::kTiresias) return;
  core::Time& first = first_run_[job_of(row)];
  if (first == kNever) first = now;
}

}  // namespace gpusim::k8s
