#pragma once
// What `gpusim trace inspect` prints about a workload: its size, its arrivals over time, its jobs'
// GPUs and run times, and the GPUs it would keep busy against the cluster's capacity.
#include <cstdint>
#include <vector>

#include "traces/workload.hpp"

namespace gpusim::traces {

struct TraceStats {
  std::int64_t pods = 0;
  std::int64_t jobs = 0;   // a gang counts once
  std::int64_t gangs = 0;
  std::int64_t queues = 0;
  double gpus_asked = 0;   // sum over jobs of their GPUs (fractions as thousandths)
  double gpu_hours = 0;    // sum over jobs with a run time of GPUs x run time
  bool timed = false;      // every job has an arrival and a run time
  double span_s = 0;       // first to last arrival
  double bin_s = 0;        // width of the bins below (span / bins)
  std::vector<std::int64_t> arrivals;  // per bin
  // Per bin, the mean GPUs the jobs would keep busy if each ran from its arrival for its run time:
  // the demand the trace offers, whatever the scheduler does.
  std::vector<double> demand_gpus;
  // The most of each resource the pods would hold at once if each ran from its arrival for its run
  // time (each peak on its own; timed traces only): what a cluster must offer for the trace to fit.
  struct Peak {
    std::int64_t pods = 0;
    double gpus = 0, cpus = 0, memory_gib = 0, rdma_nics = 0;
  } peak;
  std::vector<std::pair<double, std::int64_t>> gpu_counts;  // (GPUs per job, jobs), increasing
  std::vector<double> run_s;                                // sorted run times of the jobs (s)
  // Per queue (Workload::queues; empty without queues): its jobs and their GPU-hours.
  struct Queue {
    std::int64_t jobs = 0;
    double gpu_hours = 0;
  };
  std::vector<Queue> per_queue;
};

TraceStats trace_stats(const Workload& workload, int bins);

}  // namespace gpusim::traces
