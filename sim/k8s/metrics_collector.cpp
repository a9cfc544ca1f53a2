#include "sim/k8s/metrics_collector.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace gpusim::k8s {
namespace {

using experiment::PodOutcome;

double percentile(std::vector<double> values, double q) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  // Nearest rank on the sorted sample.
  const auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(values.size())));
  return values[std::min(values.size() - 1, rank == 0 ? 0 : rank - 1)];
}

double mean(const std::vector<double>& values) {
  double sum = 0;
  for (const double x : values) sum += x;
  return sum / static_cast<double>(values.size());
}

PodOutcome outcome_of(const PodObject& pod) {
  switch (pod.phase) {
    case PodPhase::kPending: return PodOutcome::kPending;
    case PodPhase::kDeleted: return PodOutcome::kWithdrawn;
    case PodPhase::kSucceeded: return PodOutcome::kCompleted;
    case PodPhase::kFailed: return pod.reason == Reason::kDeletedByOwner ? PodOutcome::kDeleted : PodOutcome::kFailed;
    default: return PodOutcome::kScheduled;
  }
}

}  // namespace

MetricsCollector::MetricsCollector(const ApiServer& api, const cluster::ClusterState& truth,
                                   const traces::Workload& workload, const WorkloadTimes& times,
                                   const experiment::RunConfig& config)
    : api_(api), truth_(truth), workload_(workload), times_(times), config_(config) {
  ran_.reserve(workload.pods.size());
}

void MetricsCollector::on_message(const Message& message, core::Time now) {
  switch (message.topic) {
    case Topic::kPodCreated:
      ++pending_;
      break;
    case Topic::kPodBound:
      --pending_;
      break;
    case Topic::kPodDeleted:
      // Only a pod still in the queue leaves it here (one refused at admission had left already).
      if (message.pod != kNoPod && api_.pod(message.pod).node < 0) --pending_;
      break;
    case Topic::kPodRunning:
      if (ran_.size() <= message.pod) ran_.resize(message.pod + 1, 0);
      ran_[message.pod] = 1;
      ++running_;
      break;
    case Topic::kPodTerminated:
      if (message.pod < ran_.size() && ran_[message.pod]) --running_;
      break;
    case Topic::kCycleDone:
    case Topic::kGpusReleased:
      sample(now);
      break;
    default:
      break;
  }
}

void MetricsCollector::sample(core::Time now) {
  const std::int64_t allocated = truth_.allocated_gpu_milli();
  // Integrate allocation over time for the mean.
  allocation_integral_ += static_cast<double>(last_allocated_) * static_cast<double>((now - last_time_).micros());
  last_allocated_ = allocated;
  last_time_ = now;
  if (config_.record_series) series_.push_back({now.micros(), 0, allocated, truth_.gpus_in_use(), running_, pending_});
}

experiment::RunResult MetricsCollector::finish(std::string policy) {
  experiment::RunResult result;
  result.policy = std::move(policy);
  result.config = config_;
  const std::size_t sources = workload_.pods.size();
  std::vector<experiment::PodRecord> records(sources);
  std::vector<double> jct, wait;
  std::int64_t first_arrival = INT64_MAX, last_end = INT64_MIN;
  double busy_gpu_seconds = 0, failed_gpu_seconds = 0;
  std::int64_t failed = 0, withdrawn = 0, deleted = 0, unscheduled = 0;
  for (std::uint32_t s = 0; s < sources; ++s) {
    experiment::PodRecord& record = records[s];
    record.source_index = s;
    // Replacements share the row: its arrival is the first creation, its end the last pod's.
    record.arrival_us = times_.arrival[s].micros();
    const PodId latest = api_.latest(s);
    if (latest == kNoPod) {
      // Deleted by its owner the instant it was created: it never entered the queue.
      record.outcome = PodOutcome::kWithdrawn;
      record.end_us = times_.deadline[s].micros();
      continue;
    }
    const PodObject& pod = api_.pod(latest);
    record.outcome = outcome_of(pod);
    if (record.outcome != PodOutcome::kPending && record.outcome != PodOutcome::kWithdrawn) {
      record.start_us = pod.running.micros();
      record.node = pod.node;
      record.gpus = pod.gpus.bits;
    }
    if (record.outcome != PodOutcome::kPending) record.end_us = pod.ended.micros();
  }
  for (experiment::PodRecord& record : records) {
    first_arrival = std::min(first_arrival, record.arrival_us);
    const bool ran = record.outcome == PodOutcome::kCompleted || record.outcome == PodOutcome::kFailed ||
                     record.outcome == PodOutcome::kDeleted;
    if (ran) {
      const double gpu_seconds = static_cast<double>(workload_.pods[record.source_index].total_gpu_milli()) /
                                 1000.0 * static_cast<double>(record.end_us - record.start_us) / 1e6;
      busy_gpu_seconds += gpu_seconds;
      if (record.outcome == PodOutcome::kFailed) failed_gpu_seconds += gpu_seconds;
      last_end = std::max(last_end, record.end_us);
    }
    failed += record.outcome == PodOutcome::kFailed;
    withdrawn += record.outcome == PodOutcome::kWithdrawn;
    deleted += record.outcome == PodOutcome::kDeleted;
    unscheduled += record.outcome == PodOutcome::kPending;
    if (record.outcome == PodOutcome::kCompleted) {
      jct.push_back(static_cast<double>(record.end_us - record.arrival_us) / 1e6);
      wait.push_back(static_cast<double>(record.start_us - record.arrival_us) / 1e6);
    }
  }
  result.set("completed_pods", static_cast<double>(jct.size()));
  result.set("failed_pods", static_cast<double>(failed));
  result.set("withdrawn_pods", static_cast<double>(withdrawn));
  result.set("deleted_pods", static_cast<double>(deleted));
  result.set("unscheduled_pods", static_cast<double>(unscheduled));
  // Undefined metrics are reported as such (null in summary.json), never as a made-up number.
  const auto set_over_completed = [&](const char* name, const std::vector<double>& values, double value) {
    if (values.empty()) result.set_undefined(name, "no pod completed");
    else result.set(name, value);
  };
  set_over_completed("mean_jct_s", jct, jct.empty() ? 0 : mean(jct));
  set_over_completed("p50_jct_s", jct, percentile(jct, 0.50));
  set_over_completed("p95_jct_s", jct, percentile(jct, 0.95));
  set_over_completed("mean_queueing_delay_s", wait, wait.empty() ? 0 : mean(wait));
  set_over_completed("p95_queueing_delay_s", wait, percentile(wait, 0.95));
  set_over_completed("max_queueing_delay_s", wait, wait.empty() ? 0 : *std::max_element(wait.begin(), wait.end()));
  const bool any_ran = last_end != INT64_MIN;
  const double span_us = any_ran ? static_cast<double>(last_end - first_arrival) : 0.0;
  if (any_ran) result.set("makespan_s", span_us / 1e6);
  else result.set_undefined("makespan_s", "no pod ran");
  result.set("gpu_hours", busy_gpu_seconds / 3600.0);
  result.set("failed_gpu_hours", failed_gpu_seconds / 3600.0);
  if (truth_.total_gpu_milli() == 0) result.set_undefined("mean_gpu_allocation_pct", "the cluster has no GPUs");
  else if (!(span_us > 0)) result.set_undefined("mean_gpu_allocation_pct", "no pod ran for any time");
  else result.set("mean_gpu_allocation_pct", allocation_integral_ * 100.0 / (span_us * static_cast<double>(truth_.total_gpu_milli())));
  if (config_.record_pods) result.pods = std::move(records);
  result.series = std::move(series_);
  return result;
}

}  // namespace gpusim::k8s
