#pragma once
// Runs every (policy, seed) pair, in parallel on all cores, and aggregates each metric to a mean
// and standard deviation per policy. Results are stored by pair index, so the output never
// depends on which thread finished first.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "sim/experiment/run_inputs.hpp"
#include "sim/experiment/run_result.hpp"
#include "sim/sched/profile.hpp"

namespace gpusim::experiment {

struct MetricSummary {
  std::string name;
  double mean = 0;
  double std = 0;  // sample standard deviation (n - 1); 0 for a single run
  int defined_runs = 0;  // runs that define the metric; mean and std are NaN when none does
};

struct PolicySummary {
  std::string policy;
  std::vector<MetricSummary> metrics;  // in the runs' metric order
  std::vector<RunResult> runs;         // one per seed, in seed order
};

struct CompareResult {
  RunConfig base;  // mode and parameters; seed is per run
  std::vector<std::uint64_t> seeds;
  std::vector<PolicySummary> policies;
};

// The seeds of a comparison: first, first + 1, ... (count of them).
std::vector<std::uint64_t> seed_list(std::uint64_t first, int count);

// threads = 0: all hardware threads. `progress`: empty, or one slot per (policy, seed) pair in
// pair order (policy-major), where each run posts its state and simulated time for a reporter.
CompareResult run_compare(const RunInputs& inputs, const std::vector<sched::Profile>& profiles,
                          const RunConfig& base, const std::vector<std::uint64_t>& seeds,
                          unsigned threads = 0, std::span<core::RunProgress> progress = {});

RunResult run_one(const RunInputs& inputs, const sched::Profile& profile, const RunConfig& config);

}  // namespace gpusim::experiment
