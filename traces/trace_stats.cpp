#include "traces/trace_stats.hpp"

#include <algorithm>
#include <map>

namespace gpusim::traces {

namespace {

// Sweeps the pods' [arrival, arrival + run) intervals in time order (ends before starts at the
// same time, so back-to-back pods do not overlap).
TraceStats::Peak peak_demand(const std::vector<cluster::PodSpec>& pods) {
  struct Change {
    std::int64_t at_us;
    int sign;
    const cluster::PodSpec* pod;
  };
  std::vector<Change> changes;
  changes.reserve(2 * pods.size());
  for (const cluster::PodSpec& pod : pods) {
    changes.push_back({pod.creation_time->micros(), 1, &pod});
    changes.push_back({(*pod.creation_time + *pod.duration).micros(), -1, &pod});
  }
  std::sort(changes.begin(), changes.end(), [](const Change& a, const Change& b) {
    return a.at_us != b.at_us ? a.at_us < b.at_us : a.sign < b.sign;
  });
  TraceStats::Peak now, peak;
  std::int64_t gpu_milli = 0, cpu_milli = 0, memory_mib = 0, rdma = 0;
  for (const Change& c : changes) {
    now.pods += c.sign;
    gpu_milli += c.sign * c.pod->total_gpu_milli();
    cpu_milli += c.sign * c.pod->cpu_milli;
    memory_mib += c.sign * c.pod->memory_mib;
    rdma += c.sign * c.pod->rdma_percent;
    peak.pods = std::max(peak.pods, now.pods);
    peak.gpus = std::max(peak.gpus, static_cast<double>(gpu_milli) / cluster::kMilliPerGpu);
    peak.cpus = std::max(peak.cpus, static_cast<double>(cpu_milli) / 1000);
    peak.memory_gib = std::max(peak.memory_gib, static_cast<double>(memory_mib) / 1024);
    peak.rdma_nics = std::max(peak.rdma_nics, static_cast<double>(rdma) / 100);
  }
  return peak;
}

}  // namespace

TraceStats trace_stats(const Workload& workload, int bins) {
  TraceStats stats;
  stats.pods = static_cast<std::int64_t>(workload.pods.size());
  stats.queues = static_cast<std::int64_t>(workload.queues.size());
  struct Job {
    double gpus = 0;
    std::int64_t arrival_us = -1, run_us = -1;
    std::uint32_t queue = 0;
  };
  std::vector<Job> jobs;
  const auto& pods = workload.pods;
  for (std::size_t p = 0; p < pods.size(); ++p) {
    const cluster::PodSpec& pod = pods[p];
    const double gpus = static_cast<double>(pod.total_gpu_milli()) / cluster::kMilliPerGpu;
    // A gang's workers are consecutive rows: one job with all their GPUs.
    if (pod.gang != 0 && p > 0 && pods[p - 1].gang == pod.gang) {
      jobs.back().gpus += gpus;
      continue;
    }
    stats.gangs += pod.gang != 0 ? 1 : 0;
    jobs.push_back(
        {gpus, pod.creation_time ? pod.creation_time->micros() : -1, pod.duration ? pod.duration->micros() : -1, pod.queue});
  }
  stats.per_queue.resize(workload.queues.size());
  stats.jobs = static_cast<std::int64_t>(jobs.size());
  std::map<double, std::int64_t> counts;  // walked for its ordered keys
  stats.timed = !jobs.empty();
  std::int64_t first = INT64_MAX, last = INT64_MIN;
  for (const Job& job : jobs) {
    stats.gpus_asked += job.gpus;
    ++counts[job.gpus];
    if (job.queue < stats.per_queue.size()) ++stats.per_queue[job.queue].jobs;
    if (job.run_us >= 0) {
      stats.gpu_hours += job.gpus * static_cast<double>(job.run_us) / 3.6e9;
      if (job.queue < stats.per_queue.size()) stats.per_queue[job.queue].gpu_hours += job.gpus * static_cast<double>(job.run_us) / 3.6e9;
      stats.run_s.push_back(static_cast<double>(job.run_us) / 1e6);
    }
    stats.timed = stats.timed && job.arrival_us >= 0 && job.run_us >= 0;
    if (job.arrival_us >= 0) {
      first = std::min(first, job.arrival_us);
      last = std::max(last, job.arrival_us);
    }
  }
  for (const auto& [gpus, n] : counts) stats.gpu_counts.emplace_back(gpus, n);
  if (stats.timed) stats.peak = peak_demand(pods);
  std::sort(stats.run_s.begin(), stats.run_s.end());
  // No arrival window (every job arrives at once): no rate over time to show.
  if (!stats.timed || bins < 1 || last == first) return stats;
  stats.span_s = static_cast<double>(last - first) / 1e6;
  const double bin_us = std::max(1.0, static_cast<double>(last - first) / bins);
  stats.bin_s = bin_us / 1e6;
  stats.arrivals.assign(static_cast<std::size_t>(bins), 0);
  stats.demand_gpus.assign(static_cast<std::size_t>(bins), 0);
  for (const Job& job : jobs) {
    const double start = static_cast<double>(job.arrival_us - first);
    const auto b = std::min<std::size_t>(static_cast<std::size_t>(start / bin_us), static_cast<std::size_t>(bins - 1));
    ++stats.arrivals[b];
    // Its GPUs over [arrival, arrival + run), spread over the bins it overlaps.
    const double end = start + static_cast<double>(job.run_us);
    for (std::size_t k = b; k < static_cast<std::size_t>(bins); ++k) {
      const double lo = static_cast<double>(k) * bin_us, hi = lo + bin_us;
      if (lo >= end) break;
      stats.demand_gpus[k] += job.gpus * (std::min(end, hi) - std::max(start, lo)) / bin_us;
    }
  }
  return stats;
}

}  // namespace gpusim::traces
