#include "traces/synth.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>

#include "sim/core/rng.hpp"
#include "sim/core/status.hpp"

namespace gpusim::traces {
namespace {

constexpr std::int64_t kHour = 3'600;
constexpr std::int64_t kWeekHours = 168;
constexpr std::size_t kMinClassJobs = 20;

// Index of the first cumulative share above u (u in [0, 1)).
std::size_t draw(const std::vector<double>& cdf, double u) {
  const auto it = std::upper_bound(cdf.begin(), cdf.end(), u);
  return std::min<std::size_t>(static_cast<std::size_t>(it - cdf.begin()), cdf.size() - 1);
}

std::vector<double> cumulative(const std::vector<double>& counts) {
  std::vector<double> cdf(counts.size());
  double total = 0;
  for (const double c : counts) total += c;
  double running = 0;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    running += counts[i];
    cdf[i] = running / total;
  }
  return cdf;
}

}  // namespace

int gpu_class(std::int32_t gpus) { return gpus <= 1 ? 0 : gpus <= 4 ? 1 : gpus <= 8 ? 2 : 3; }

std::vector<TraceJob> trace_jobs(const Workload& workload) {
  std::vector<TraceJob> jobs;
  const auto& pods = workload.pods;
  for (std::size_t p = 0; p < pods.size(); ++p) {
    const cluster::PodSpec& pod = pods[p];
    if (!pod.creation_time || !pod.duration) {
      throw core::InputError(fmt::format("{}: pod {} has no creation time or run time; a synthetic log is fitted to a "
                                         "trace of jobs with times (e.g. the Philly job log)", workload.source, pod.name));
    }
    if (pod.gpu_count < 1 || pod.gpu_milli != cluster::kMilliPerGpu) {
      throw core::InputError(fmt::format("{}: pod {} does not ask whole GPUs; a synthetic log is fitted to a trace of "
                                         "whole-GPU jobs (e.g. the Philly job log)", workload.source, pod.name));
    }
    // A gang's workers are consecutive rows: one job with all their GPUs.
    if (pod.gang != 0 && p > 0 && pods[p - 1].gang == pod.gang) {
      jobs.back().gpus += pod.gpu_count;
      continue;
    }
    jobs.push_back({pod.creation_time->micros() / 1'000'000, std::max<std::int64_t>(1, std::llround(pod.duration->seconds())),
                    pod.gpu_count, pod.queue});
  }
  return jobs;
}

TraceModel fit_trace(const Workload& workload) {
  const std::vector<TraceJob> jobs = trace_jobs(workload);
  TraceModel model;
  model.source_jobs = static_cast<std::int64_t>(jobs.size());
  model.queues = workload.queues.empty() ? std::vector<std::string>{"default"} : workload.queues;
  std::int64_t first = INT64_MAX, last = INT64_MIN;
  for (const TraceJob& job : jobs) {
    first = std::min(first, job.submit_s);
    last = std::max(last, job.submit_s);
  }
  if (jobs.empty() || last <= first) {
    throw core::InputError(fmt::format("{}: a synthetic log needs a trace with arrivals at two different times at least",
                                       workload.source));
  }
  model.source_span_s = static_cast<double>(last - first);
  // Arrivals per hour of the week, over the time the trace spends in that hour: every hour from the
  // first arrival's to the last arrival's, whole (the last arrival's hour counts as seen).
  std::array<double, kWeekHours> count{}, exposure{};
  for (const TraceJob& job : jobs) count[static_cast<std::size_t>(((job.submit_s - first) / kHour) % kWeekHours)] += 1;
  const std::int64_t hours = (last - first) / kHour + 1;
  for (std::int64_t h = 0; h < hours; ++h) exposure[static_cast<std::size_t>(h % kWeekHours)] += kHour;
  for (std::size_t h = 0; h < kWeekHours; ++h) {
    model.arrivals_per_s[h] = exposure[h] > 0 ? count[h] / exposure[h] : 0;
  }
  // GPUs per job; the map is only walked for its (ordered) keys.
  std::map<std::int32_t, double> gpus;
  std::vector<double> queues(model.queues.size(), 0);
  std::array<std::vector<double>, 4> by_class;
  std::vector<double> all;
  for (const TraceJob& job : jobs) {
    gpus[job.gpus] += 1;
    queues[job.queue] += 1;
    by_class[static_cast<std::size_t>(gpu_class(job.gpus))].push_back(static_cast<double>(job.run_s));
    all.push_back(static_cast<double>(job.run_s));
  }
  std::vector<double> gpu_counts;
  for (const auto& [value, n] : gpus) {
    model.gpu_values.push_back(value);
    gpu_counts.push_back(n);
  }
  model.gpu_cdf = cumulative(gpu_counts);
  model.queue_cdf = cumulative(queues);
  std::sort(all.begin(), all.end());
  for (std::size_t c = 0; c < by_class.size(); ++c) {
    std::sort(by_class[c].begin(), by_class[c].end());
    model.run_s[c] = by_class[c].size() >= kMinClassJobs ? by_class[c] : all;
  }
  return model;
}

std::vector<TraceJob> synthesize(const TraceModel& model, std::int64_t jobs, double load, std::uint64_t seed) {
  core::Rng arrivals = core::Rng::stream(seed, "synth-arrivals");
  core::Rng shapes = core::Rng::stream(seed, "synth-jobs");
  std::vector<TraceJob> out;
  out.reserve(static_cast<std::size_t>(jobs));
  // Piecewise-constant rates, by inversion of the cumulative rate: each gap spends a unit
  // exponential draw of it, hour by hour, whole weeks at once.
  double week = 0;  // expected arrivals per week
  for (const double rate : model.arrivals_per_s) week += rate * kHour * load;
  // Time stamps are written as dates from 2017: the log must end before the year 10000.
  const double limit = 7'900.0 * 365.25 * 86'400;
  double t = 0;
  while (static_cast<std::int64_t>(out.size()) < jobs) {
    double left = -std::log1p(-arrivals.uniform_unit());
    t += std::floor(left / week) * static_cast<double>(kWeekHours * kHour);
    left -= std::floor(left / week) * week;
    for (;;) {
      const auto hour = static_cast<std::int64_t>(t / kHour);
      const double end = static_cast<double>((hour + 1) * kHour);
      const double rate = model.arrivals_per_s[static_cast<std::size_t>(hour % kWeekHours)] * load;
      if (rate * (end - t) > left) {
        t += left / rate;
        break;
      }
      left -= rate * (end - t);
      t = end;
    }
    if (t > limit) {
      throw core::InputError(fmt::format("{} jobs at --load {} would arrive over more than 7,900 years, past the year "
                                         "9999 that a time stamp can write; ask fewer jobs or a higher load", jobs, load));
    }
    TraceJob job;
    job.submit_s = static_cast<std::int64_t>(std::floor(t));
    job.gpus = model.gpu_values[draw(model.gpu_cdf, shapes.uniform_unit())];
    const std::vector<double>& runs = model.run_s[static_cast<std::size_t>(gpu_class(job.gpus))];
    const double x = shapes.uniform_unit() * static_cast<double>(runs.size() - 1);
    const auto i = static_cast<std::size_t>(x);
    const double lo = std::log(std::max(1.0, runs[i]));
    const double hi = std::log(std::max(1.0, runs[std::min(i + 1, runs.size() - 1)]));
    job.run_s = std::max<std::int64_t>(1, std::llround(std::exp(lo + (hi - lo) * (x - static_cast<double>(i)))));
    job.queue = static_cast<std::uint16_t>(draw(model.queue_cdf, shapes.uniform_unit()));
    out.push_back(job);
  }
  return out;
}

void write_philly_log(std::ostream& out, const std::vector<TraceJob>& jobs, const std::vector<std::string>& queues) {
  using namespace std::chrono;
  const std::int64_t base = sys_days{year{2017} / October / 1}.time_since_epoch().count() * 86'400;
  out << "timestamp,duration,num_gpus,gpu_time,cluster\n";
  for (const TraceJob& job : jobs) {
    const std::int64_t at = base + job.submit_s;
    const year_month_day date{sys_days{days{at / 86'400}}};
    const std::int64_t second_of_day = at % 86'400;
    out << fmt::format("{:04}-{:02}-{:02} {:02}:{:02}:{:02},{}.0,{},{}.0,{}\n", static_cast<int>(date.year()),
                       static_cast<unsigned>(date.month()), static_cast<unsigned>(date.day()), second_of_day / 3600,
                       second_of_day / 60 % 60, second_of_day % 60, job.run_s, job.gpus, job.run_s * job.gpus,
                       queues[job.queue]);
  }
}

}  // namespace gpusim::traces
