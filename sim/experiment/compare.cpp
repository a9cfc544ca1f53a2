#include "sim/experiment/compare.hpp"

#include <atomic>
#include <chrono>
#include <cmath>
#include <limits>
#include <exception>
#include <thread>

#include "sim/core/check.hpp"
#include "sim/experiment/fill_experiment.hpp"
#include "sim/experiment/replay_experiment.hpp"

namespace gpusim::experiment {

const char* to_string(Mode mode) { return mode == Mode::kFill ? "fill" : "replay"; }

const char* to_string(FillOrder order) {
  switch (order) {
    case FillOrder::kShuffled: return "shuffled";
    case FillOrder::kAsListed: return "as-listed";
    case FillOrder::kCreationTime: return "creation-time";
  }
  return "";
}

const char* to_string(PodOutcome outcome) {
  switch (outcome) {
    case PodOutcome::kScheduled: return "scheduled";
    case PodOutcome::kFailed: return "failed";
    case PodOutcome::kPending: return "pending";
    case PodOutcome::kCompleted: return "completed";
    case PodOutcome::kHeldAtEnd: return "held-at-end";
    case PodOutcome::kUnschedulable: return "unschedulable";
    case PodOutcome::kWithdrawn: return "withdrawn";
    case PodOutcome::kDeleted: return "deleted";
  }
  return "";
}

std::vector<std::uint64_t> seed_list(std::uint64_t first, int count) {
  std::vector<std::uint64_t> seeds;
  for (int i = 0; i < count; ++i) seeds.push_back(first + static_cast<std::uint64_t>(i));
  return seeds;
}

namespace {

std::int64_t steady_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

RunResult run_one(const RunInputs& inputs, const sched::Profile& profile, const RunConfig& config) {
  return config.mode == Mode::kFill ? run_fill(inputs, profile, config)
                                    : run_replay(inputs, profile, config);
}

CompareResult run_compare(const RunInputs& inputs, const std::vector<sched::Profile>& profiles,
                          const RunConfig& base, const std::vector<std::uint64_t>& seeds,
                          unsigned threads, std::span<core::RunProgress> progress) {
  const std::size_t jobs = profiles.size() * seeds.size();
  GPUSIM_CHECK(progress.empty() || progress.size() == jobs, "one progress slot per run");
  std::vector<RunResult> results(jobs);
  std::vector<std::exception_ptr> errors(jobs);
  std::atomic<std::size_t> next{0};
  const auto worker = [&] {
    for (std::size_t job = next++; job < jobs; job = next++) {
      RunConfig config = base;
      config.seed = seeds[job % seeds.size()];
      config.progress = progress.empty() ? nullptr : &progress[job];
      if (config.progress != nullptr) {
        config.progress->started_ns.store(steady_ns(), std::memory_order_relaxed);
        config.progress->state.store(core::RunProgress::kRunning, std::memory_order_relaxed);
      }
      try {
        results[job] = run_one(inputs, profiles[job / seeds.size()], config);
        results[job].config.progress = nullptr;  // the slot is the caller's, not part of the result
      } catch (...) {
        errors[job] = std::current_exception();
      }
      if (config.progress != nullptr) {
        config.progress->finished_ns.store(steady_ns(), std::memory_order_relaxed);
        config.progress->state.store(core::RunProgress::kDone, std::memory_order_relaxed);
      }
    }
  };
  if (threads == 0) threads = std::max(1U, std::thread::hardware_concurrency());
  {
    std::vector<std::jthread> pool;
    for (unsigned t = 1; t < std::min<std::size_t>(threads, jobs); ++t) pool.emplace_back(worker);
    worker();
  }
  for (const auto& error : errors) {
    if (error) std::rethrow_exception(error);
  }

  CompareResult compare{base, seeds, {}};
  for (std::size_t p = 0; p < profiles.size(); ++p) {
    PolicySummary summary;
    summary.policy = profiles[p].name;
    for (std::size_t s = 0; s < seeds.size(); ++s) summary.runs.push_back(std::move(results[p * seeds.size() + s]));
    for (std::size_t m = 0; m < summary.runs.front().metrics.size(); ++m) {
      // Over the runs that define the metric (NaN: undefined, reason in RunResult::undefined).
      MetricSummary metric{summary.runs.front().metrics[m].first, 0, 0, 0};
      for (const auto& run : summary.runs) {
        if (std::isnan(run.metrics[m].second)) continue;
        metric.mean += run.metrics[m].second;
        ++metric.defined_runs;
      }
      const auto n = static_cast<double>(metric.defined_runs);
      if (metric.defined_runs == 0) metric.mean = metric.std = std::numeric_limits<double>::quiet_NaN();
      else metric.mean /= n;
      if (metric.defined_runs > 1) {
        double squares = 0;
        for (const auto& run : summary.runs) {
          if (!std::isnan(run.metrics[m].second)) squares += std::pow(run.metrics[m].second - metric.mean, 2);
        }
        metric.std = std::sqrt(squares / (n - 1));
      } else if (metric.defined_runs == 1 && summary.runs.size() > 1) {
        metric.std = std::numeric_limits<double>::quiet_NaN();  // one defined run has no spread
      }
      summary.metrics.push_back(std::move(metric));
    }
    compare.policies.push_back(std::move(summary));
  }
  return compare;
}

}  // namespace gpusim::experiment
