#pragma once
// `gpusim run` (one policy, one seed) and `gpusim compare` (policies x seeds): options, their
// checks (ranges, options that do not apply to the mode, names), and the run itself. The output
// directory is checked and staged before any input is read or any simulation starts.
#include <CLI/CLI.hpp>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/app/progress_options.hpp"
#include "sim/app/retired_options.hpp"
#include "sim/io/output_dir.hpp"
#include "sim/sched/registry.hpp"

namespace gpusim::app {

// A command line that is well-formed for CLI11 but wrong for gpusim (exit code 2).
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct SimulateOptions {
  std::string cluster = "openb";
  std::string workload = "openb:default";
  std::string mode = "fill";
  double fill_target = 1.3;
  std::string order = "shuffled";
  // fill, profiles with the fgd plugin: the pod list FGD takes its typical pods from (empty: the workload).
  std::string typical_pods;
  CLI::Option* typical_pods_option = nullptr;
  double time_compression = 1.0;
  std::int64_t fragmentation_every_s = 0;
  std::string out;
  std::string catalog;
  bool perf_model = false;
  std::string calibration_dir;
  std::string reference_gpu = "V100M32";
  double memory_fraction = 0.5;
  std::string precision = "fp32";
  std::string kube;  // replay: the --kube settings YAML ("" = defaults)
  std::vector<std::string> configs;  // real projects' configuration files (--config), told by content
  CLI::Option* policies_option = nullptr;  // --policy / --policies, when given
  // replay, preempting policies: how often jobs checkpoint (seconds of run time).
  std::int64_t checkpoint_interval_s = 0;
  bool free_preemption = false;
  CLI::Option* free_preemption_option = nullptr;
  // replay: Gavel's throughput table ("gavel" or a path; empty: none).
  std::string throughputs;
  std::string colocation = "table";  // with throughputs: how pairs sharing a GPU run (table, model)
  // Policy parameters now given as plugin args: refused with the lines that replace them.
  RetiredPolicyOptions retired;
  std::string job_placement = "consolidated";
  double scatter_slowdown = 1;
  CLI::Option* job_placement_option = nullptr;
  CLI::Option* scatter_slowdown_option = nullptr;
  // run: one policy and seed; compare: a list and a seed range.
  std::string policies = "random,dotprod,gpu-clustering,gpu-packing,bestfit,fgd";
  std::int64_t first_seed = 42;
  int seed_count = 10;
  int threads = 0;
  bool single_run = false;
  ProgressOptions progress;
  // Absent --cluster: the workload's default cluster (traces::default_cluster_for).
  CLI::Option* cluster_option = nullptr;
  // Options whose presence is checked against the mode.
  CLI::Option* fill_target_option = nullptr;
  CLI::Option* order_option = nullptr;
  CLI::Option* time_compression_option = nullptr;
  CLI::Option* fragmentation_option = nullptr;
  CLI::Option* perf_model_option = nullptr;
  CLI::Option* kube_option = nullptr;
  CLI::Option* config_option = nullptr;
  CLI::Option* checkpoint_option = nullptr;
  CLI::Option* throughputs_option = nullptr;
  CLI::Option* colocation_option = nullptr;
  CLI::Option* perf_detail_options[4] = {};
};

CLI::App* add_run_command(CLI::App& app, SimulateOptions& options);
CLI::App* add_compare_command(CLI::App& app, SimulateOptions& options);

// Runs the command; returns the exit code. Throws UsageError, core::InputError.
// `registry`: the plugins policies may name (main passes the built-in ones; a test may add its own).
int run_simulate(const SimulateOptions& options, io::AbandonList& abandon, const sched::Registry& registry);

}  // namespace gpusim::app
