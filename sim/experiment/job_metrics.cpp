#include "sim/experiment/job_metrics.hpp"

#include <algorithm>
#include <cmath>

#include "sim/metrics/sample_stats.hpp"

namespace gpusim::experiment {
namespace {

// The run time below which slowdown is measured against this floor (bounded slowdown, 10 s).
constexpr std::int64_t kSlowdownFloorUs = 10'000'000;

using metrics::percentile_of_sorted;

// Mean of a queue's sample; 0 for a queue with no completed job.
double mean(const std::vector<double>& values) { return values.empty() ? 0 : metrics::sample_mean(values); }

// Jain's index (sum x)^2 / (n sum x^2): 1 when all are equal, 1/n when one takes all.
double jain(const std::vector<double>& values) {
  double sum = 0, squares = 0;
  for (const double x : values) {
    sum += x;
    squares += x * x;
  }
  return squares > 0 ? sum * sum / (static_cast<double>(values.size()) * squares) : 1.0;
}

}  // namespace

void add_job_metrics(RunResult& result, const traces::Workload& workload) {
  if (workload.queues.empty() && !workload.has_gangs) return;
  // Jobs are made of the per-row records (benchmarks may run without them).
  if (result.pods.size() != workload.pods.size()) return;
  const auto& pods = workload.pods;
  // The records are in workload row order, one per row (replay).
  std::vector<JobRecord> jobs;
  jobs.reserve(pods.size());
  for (std::size_t row = 0; row < pods.size(); ++row) {
    const cluster::PodSpec& pod = pods[row];
    const PodRecord& record = result.pods[row];
    const bool same_gang = pod.gang != 0 && !jobs.empty() && pods[jobs.back().first_pod].gang == pod.gang;
    if (!same_gang) {
      JobRecord job;
      job.first_pod = static_cast<std::uint32_t>(row);
      job.pods = 0;
      job.queue = pod.queue;
      job.arrival_us = record.arrival_us;
      job.run_us = pod.duration ? pod.duration->micros() : 0;
      job.completed = true;
      jobs.push_back(job);
    }
    JobRecord& job = jobs.back();
    ++job.pods;
    job.gpus += pod.gpu_count;
    // Queueing ends at a job's first start (a preempted job waits again, which its JCT shows).
    const std::int64_t first = record.first_start_us >= 0 ? record.first_start_us : record.start_us;
    if (first >= 0 && (job.start_us < 0 || first < job.start_us)) job.start_us = first;
    job.run_gpu_us += record.run_us * pod.gpu_count;
    job.completed = job.completed && record.outcome == PodOutcome::kCompleted;
    job.end_us = job.completed ? std::max(job.end_us, record.end_us) : -1;
  }

  std::vector<double> jct, wait, slowdown;
  const std::size_t queues = std::max<std::size_t>(1, workload.queues.size());
  std::vector<std::vector<double>> queue_jct(queues), queue_wait(queues), queue_slowdown(queues);
  std::vector<QueueSummary> table(queues);
  for (std::size_t q = 0; q < queues; ++q) table[q].name = workload.queues.empty() ? "all" : workload.queues[q];
  for (const JobRecord& job : jobs) {
    QueueSummary& row = table[job.queue];
    ++row.jobs;
    if (!job.completed) continue;
    ++row.completed;
    const double j = static_cast<double>(job.end_us - job.arrival_us) / 1e6;
    const double w = static_cast<double>(job.start_us - job.arrival_us) / 1e6;
    // Bounded slowdown: a job of a few seconds that waited a minute is not slowed down 60-fold, and a
    // job of no run time is not slowed down 1-fold however long it waited.
    const double s = std::max(1.0, static_cast<double>(job.end_us - job.arrival_us) /
                                       static_cast<double>(std::max(job.run_us, kSlowdownFloorUs)));
    row.gpu_hours += static_cast<double>(job.run_gpu_us) / 1e6 / 3600.0;
    jct.push_back(j);
    wait.push_back(w);
    slowdown.push_back(s);
    queue_jct[job.queue].push_back(j);
    queue_wait[job.queue].push_back(w);
    queue_slowdown[job.queue].push_back(s);
  }
  std::vector<double> queue_means;
  for (std::size_t q = 0; q < queues; ++q) {
    QueueSummary& row = table[q];
    row.mean_jct_s = mean(queue_jct[q]);
    std::sort(queue_jct[q].begin(), queue_jct[q].end());
    row.p95_jct_s = percentile_of_sorted(queue_jct[q], 0.95);
    row.mean_queueing_s = mean(queue_wait[q]);
    row.mean_slowdown = mean(queue_slowdown[q]);
    if (row.completed > 0) queue_means.push_back(row.mean_slowdown);
  }

  result.set("jobs", static_cast<double>(jobs.size()));
  result.set("completed_jobs", static_cast<double>(jct.size()));
  if (jct.empty()) {
    for (const char* name : {"job_mean_jct_s", "job_p50_jct_s", "job_p95_jct_s", "job_p99_jct_s", "job_mean_queueing_s",
                             "job_p95_queueing_s", "job_mean_slowdown", "job_p95_slowdown", "queue_slowdown_jain"}) {
      result.set_undefined(name, "no job completed");
    }
  } else {
    result.set("job_mean_jct_s", mean(jct));
    std::sort(jct.begin(), jct.end());
    result.set("job_p50_jct_s", percentile_of_sorted(jct, 0.50));
    result.set("job_p95_jct_s", percentile_of_sorted(jct, 0.95));
    result.set("job_p99_jct_s", percentile_of_sorted(jct, 0.99));
    result.set("job_mean_queueing_s", mean(wait));
    std::sort(wait.begin(), wait.end());
    result.set("job_p95_queueing_s", percentile_of_sorted(wait, 0.95));
    result.set("job_mean_slowdown", mean(slowdown));
    std::sort(slowdown.begin(), slowdown.end());
    result.set("job_p95_slowdown", percentile_of_sorted(slowdown, 0.95));
    result.set("queue_slowdown_jain", jain(queue_means));
  }
  result.jobs = std::move(jobs);
  result.queues = std::move(table);
}

}  // namespace gpusim::experiment
