#include "sim/experiment/job_metrics.hpp"

#include <algorithm>
#include <cmath>

#include "sim/k8s/workload_times.hpp"
#include "sim/metrics/sample_stats.hpp"

namespace gpusim::experiment {
namespace {

// The run time below which slowdown is measured against this floor (bounded slowdown, 10 s).
constexpr std::int64_t kSlowdownFloorUs = 10'000'000;

using metrics::percentile_in_place;

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

// Finish-time fairness (Gavel, OSDI'20; Themis, NSDI'20): rho = JCT / T_isolated, where
// T_isolated = run time / speed x max(1, GPUs x n / G) is the job's time on its 1/n share of the G
// GPUs, n being the time-average number of jobs in the system (arrived, not ended; a job that
// never completes stays in it) over its life, and speed its mean speed over the cluster's GPU types
// (1 without a throughput table). rho above 1: it fared worse than on an equal share. One value per
// completed job of nonzero JCT.
std::vector<double> finish_time_fairness(const std::vector<JobRecord>& jobs, std::int64_t cluster_gpus,
                                         const std::vector<double>* speeds) {
  std::vector<double> rho;
  if (cluster_gpus <= 0) return rho;
  // Jobs in the system over time: +1 at each arrival, -1 at each completed job's end. Each step is
  // one integer, 2 * time + (1 for an arrival), so that one sort of integers orders them by time,
  // an end before an arrival at the same instant (sorting pairs cost twice as much). Times are at
  // most the simulated range, so 2 * time + 1 cannot overflow.
  static_assert(k8s::kMaxSimulatedMicros < 4.6e18, "2 * time + 1 must fit in 64 bits");
  std::vector<std::int64_t> steps;
  steps.reserve(jobs.size() * 2);
  for (const JobRecord& job : jobs) {
    steps.push_back(2 * job.arrival_us + 1);
    if (job.completed) steps.push_back(2 * job.end_us);
  }
  std::sort(steps.begin(), steps.end());
  // area[i]: the integral of the count up to times[i]; count[i]: the count from times[i] on.
  std::vector<std::int64_t> times;
  std::vector<double> area;
  std::vector<std::int64_t> count;
  std::int64_t in_system = 0;
  for (const std::int64_t step : steps) {
    const std::int64_t time = step >> 1;  // floor: exact for negative times too
    if (times.empty() || times.back() != time) {
      const double before = times.empty() ? 0.0 : area.back() + static_cast<double>(count.back()) * static_cast<double>(time - times.back());
      times.push_back(time);
      area.push_back(before);
      count.push_back(in_system);
    }
    in_system += (step & 1) != 0 ? 1 : -1;
    count.back() = in_system;
  }
  const auto integral = [&](std::int64_t t) {
    const auto it = std::upper_bound(times.begin(), times.end(), t);
    const auto i = static_cast<std::size_t>(it - times.begin()) - 1;  // t is never before the first arrival
    return area[i] + static_cast<double>(count[i]) * static_cast<double>(t - times[i]);
  };
  for (const JobRecord& job : jobs) {
    if (!job.completed || job.end_us <= job.arrival_us || job.run_us <= 0) continue;
    const double span = static_cast<double>(job.end_us - job.arrival_us);
    const double jobs_in_system = (integral(job.end_us) - integral(job.arrival_us)) / span;
    const double speed = speeds != nullptr ? (*speeds)[job.first_pod] : 1.0;
    const double isolated = static_cast<double>(job.run_us) / speed *
                            std::max(1.0, static_cast<double>(job.gpus) * jobs_in_system / static_cast<double>(cluster_gpus));
    rho.push_back(span / isolated);
  }
  return rho;
}

}  // namespace

void add_job_metrics(RunResult& result, const traces::Workload& workload, std::int64_t cluster_gpus,
                     const std::vector<double>* equal_share_speeds) {
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
    row.p95_jct_s = percentile_in_place(queue_jct[q], 0.95);
    row.mean_queueing_s = mean(queue_wait[q]);
    row.mean_slowdown = mean(queue_slowdown[q]);
    if (row.completed > 0) queue_means.push_back(row.mean_slowdown);
  }

  std::vector<double> rho = finish_time_fairness(jobs, cluster_gpus, equal_share_speeds);
  if (rho.empty()) {
    for (const char* name : {"job_mean_ftf_rho", "job_p95_ftf_rho", "job_max_ftf_rho", "jobs_ftf_rho_above_1_pct"}) {
      result.set_undefined(name, "no job completed with a nonzero run time");
    }
  } else {
    const double above = static_cast<double>(std::count_if(rho.begin(), rho.end(), [](double r) { return r > 1; }));
    result.set("job_mean_ftf_rho", mean(rho));
    result.set("job_p95_ftf_rho", percentile_in_place(rho, 0.95));
    result.set("job_max_ftf_rho", *std::max_element(rho.begin(), rho.end()));
    result.set("jobs_ftf_rho_above_1_pct", 100.0 * above / static_cast<double>(rho.size()));
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
    result.set("job_p50_jct_s", percentile_in_place(jct, 0.50));
    result.set("job_p95_jct_s", percentile_in_place(jct, 0.95));
    result.set("job_p99_jct_s", percentile_in_place(jct, 0.99));
    result.set("job_mean_queueing_s", mean(wait));
    result.set("job_p95_queueing_s", percentile_in_place(wait, 0.95));
    result.set("job_mean_slowdown", mean(slowdown));
    result.set("job_p95_slowdown", percentile_in_place(slowdown, 0.95));
    result.set("queue_slowdown_jain", jain(queue_means));
  }
  result.jobs = std::move(jobs);
  result.queues = std::move(table);
}

}  // namespace gpusim::experiment
