#pragma once
// A synthetic job log fitted to a trace of jobs (Philly-style: submit time, run time, whole GPUs,
// queue), for scale runs and what-ifs at other loads. What is fitted (traces/README.md, "Synthetic
// job logs"):
//   arrivals   a Poisson process whose rate is piecewise constant over the 168 hours of a week
//              (counted from the trace's first arrival): each hour's rate is the trace's arrivals
//              in that hour of the week over the hours of the trace (first to last arrival's, whole)
//              that fall on it; `load` scales them. A trace shorter than a week leaves the hours it
//              never reaches at rate 0
//   GPUs       the trace's distribution of GPUs per job (a gang counts once, with all its GPUs)
//   run time   per GPU class (1, 2-4, 5-8, more than 8 GPUs; a class with fewer than 20 jobs uses
//              all jobs), the trace's empirical distribution, interpolated log-linearly between
//              order statistics, in whole seconds (at least 1)
//   queue      the trace's distribution of jobs over queues, drawn independently of the rest
// Seeded: the same trace, options and seed give the same log.
#include <array>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "traces/workload.hpp"

namespace gpusim::traces {

struct TraceJob {
  std::int64_t submit_s = 0;  // since the first arrival
  std::int64_t run_s = 0;     // whole seconds
  std::int32_t gpus = 0;
  std::uint16_t queue = 0;
};

// The trace's jobs (a gang's workers as one job), in workload order. Throws core::InputError for
// a workload that is not a job log of whole GPUs with times (fractions, CPU-only pods, no times).
std::vector<TraceJob> trace_jobs(const Workload& workload);

struct TraceModel {
  std::array<double, 168> arrivals_per_s{};  // per hour of the week, from the first arrival
  std::vector<std::int32_t> gpu_values;      // GPUs per job, increasing
  std::vector<double> gpu_cdf;               // cumulative share of jobs, per value
  std::array<std::vector<double>, 4> run_s;  // per GPU class, sorted run times (s)
  std::vector<double> queue_cdf;             // cumulative share of jobs, per queue
  std::vector<std::string> queues;
  std::int64_t source_jobs = 0;
  double source_span_s = 0;  // first to last arrival
};

// Throws core::InputError when the trace has fewer than two distinct arrival times.
TraceModel fit_trace(const Workload& workload);

// `jobs` jobs from the model, arrivals at `load` times the fitted rates. Throws core::InputError
// when they would run past the year 9999 (time stamps are dates).
std::vector<TraceJob> synthesize(const TraceModel& model, std::int64_t jobs, double load, std::uint64_t seed);

// The Philly job log's CSV (timestamp,duration,num_gpus,gpu_time,cluster); time stamps count from
// 2017-10-01 00:00:00, the month the Philly log starts (only their differences matter).
void write_philly_log(std::ostream& out, const std::vector<TraceJob>& jobs, const std::vector<std::string>& queues);

// The GPU class (index into TraceModel::run_s) of a job with `gpus` GPUs.
int gpu_class(std::int32_t gpus);

}  // namespace gpusim::traces
