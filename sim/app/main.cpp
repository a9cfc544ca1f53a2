// gpusim command line: `run` one policy, `compare` several over many seeds, `policies` lists
// the built-in profiles. Input errors print "file:line: field: reason" and exit 1 without
// touching the output directory.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <sstream>

#include "policies/register_builtin.hpp"
#include "sim/app/calibrate_command.hpp"
#include "sim/perf/performance_model.hpp"
#include "sim/core/check.hpp"
#include "sim/core/status.hpp"
#include "sim/experiment/compare.hpp"
#include "sim/experiment/output_writer.hpp"
#include "traces/bundled.hpp"
#include "traces/openb_reader.hpp"

namespace {

using namespace gpusim;

struct CommonOptions {
  std::string cluster = "openb";
  std::string workload = "openb:default";
  std::string mode = "fill";
  double fill_target = 1.3;
  double time_compression = 1.0;
  std::string out;
  std::string catalog;
  bool perf_model = false;
  std::string calibration_dir;
  std::string reference_gpu = "V100M32";
  double memory_fraction = 0.5;
  std::string precision = "fp32";
};

void add_common(CLI::App& cmd, CommonOptions& o) {
  cmd.add_option("--cluster", o.cluster, "Node list: a CSV path or a bundled name (openb, openb:all)")
      ->capture_default_str();
  cmd.add_option("--workload", o.workload, "Pod list: a CSV path or a bundled name (openb:default, openb:gpushare40, ...)")
      ->capture_default_str();
  cmd.add_option("--mode", o.mode, "fill (FGD paper experiment) or replay (timed arrivals and departures)")
      ->check(CLI::IsMember({"fill", "replay"}))
      ->capture_default_str();
  cmd.add_option("--fill-target", o.fill_target, "fill: stop when arrived GPU requests reach this share of capacity")
      ->check(CLI::Range(0.01, 10.0))
      ->capture_default_str();
  cmd.add_option("--time-compression", o.time_compression, "replay: divide arrival times by this factor")
      ->check(CLI::Range(0.001, 1e6))
      ->capture_default_str();
  cmd.add_option("--out", o.out, "Output directory (replaced atomically)")->required();
  cmd.add_option("--catalog", o.catalog, "GPU catalog JSON (default: the bundled one)");
  cmd.add_flag("--perf-model", o.perf_model,
               "replay: scale run times by the GPU performance model (calibration files, else catalog x efficiency)");
  cmd.add_option("--calibration-dir", o.calibration_dir, "Calibration files (default: results/calibration in the checkout)");
  cmd.add_option("--reference-gpu", o.reference_gpu, "The GPU model the trace's run times were measured on")
      ->capture_default_str();
  cmd.add_option("--memory-fraction", o.memory_fraction, "Memory-bound share of a job's step (0..1)")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  cmd.add_option("--precision", o.precision, "Job arithmetic: fp32, tf32 or bf16")
      ->check(CLI::IsMember({"fp32", "tf32", "bf16"}))
      ->capture_default_str();
}

struct Loaded {
  cluster::GpuCatalog catalog;
  traces::ClusterSpec cluster;
  traces::Workload workload;
  sched::Registry registry;
  std::filesystem::path cluster_path;
  std::filesystem::path workload_path;
  std::optional<perf::PerformanceModel> performance;
  perf::JobProfile job;
};

Loaded load(const CommonOptions& o) {
  const char* env_root = std::getenv("GPUSIM_DATA_DIR");
  const std::filesystem::path root = env_root != nullptr ? env_root : traces::default_data_root();
  Loaded loaded{cluster::GpuCatalog::load(o.catalog.empty() ? traces::default_catalog(root) : std::filesystem::path(o.catalog)),
                {}, {}, policy::builtin_registry(), {}, {}, std::nullopt, {}};
  loaded.cluster_path = traces::resolve_cluster(o.cluster, root);
  loaded.workload_path = traces::resolve_workload(o.workload, root);
  loaded.cluster = traces::read_openb_nodes(loaded.cluster_path, loaded.catalog);
  loaded.cluster.source = o.cluster;
  loaded.workload = traces::read_openb_pods(loaded.workload_path, loaded.catalog);
  loaded.workload.source = o.workload;
  if (o.mode == "replay" && !loaded.workload.has_times) {
    throw core::InputError(fmt::format("{}:1: header: replay mode needs creation_time and deletion_time columns",
                                       loaded.workload_path.string()));
  }
  if (o.perf_model) {
    if (o.mode != "replay") throw core::InputError("--perf-model applies to replay mode only");
    const auto reference = loaded.catalog.find(o.reference_gpu);
    if (!reference) throw core::InputError(fmt::format("--reference-gpu: unknown GPU model '{}'", o.reference_gpu));
    loaded.job = {*reference, o.memory_fraction, *perf::precision_from_string(o.precision)};
    loaded.performance = perf::PerformanceModel::load(
        loaded.catalog, o.calibration_dir.empty() ? root / "results" / "calibration" : std::filesystem::path(o.calibration_dir));
  }
  return loaded;
}

experiment::RunConfig run_config(const CommonOptions& o) {
  experiment::RunConfig config;
  config.mode = o.mode == "fill" ? experiment::Mode::kFill : experiment::Mode::kReplay;
  config.fill_target = o.fill_target;
  config.time_compression = o.time_compression;
  return config;
}

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> items;
  std::stringstream stream(text);
  for (std::string item; std::getline(stream, item, ',');) {
    if (!item.empty()) items.push_back(item);
  }
  return items;
}

int execute(const CommonOptions& o, const std::vector<std::string>& policies, std::uint64_t first_seed,
            int seed_count, unsigned threads, bool single_run) {
  const auto started = std::chrono::steady_clock::now();
  Loaded loaded = load(o);
  std::vector<sched::Profile> profiles;
  for (const auto& name : policies) profiles.push_back(sched::resolve_profile(name));
  const experiment::RunInputs inputs{&loaded.catalog, &loaded.cluster, &loaded.workload, &loaded.registry,
                                     loaded.performance ? &*loaded.performance : nullptr, loaded.job};
  const auto result = experiment::run_compare(inputs, profiles, run_config(o),
                                              experiment::seed_list(first_seed, seed_count), threads);
  experiment::OutputContext context{GPUSIM_VERSION, o.cluster, o.workload,
                                          experiment::file_digest(loaded.cluster_path),
                                          experiment::file_digest(loaded.workload_path), &loaded.workload,
                                          &loaded.cluster, single_run, nullptr};
  if (loaded.performance) {
    context.performance = {{"reference_gpu", o.reference_gpu}, {"memory_fraction", o.memory_fraction},
                           {"precision", o.precision}, {"gpus", loaded.performance->describe(loaded.catalog)}};
  }
  experiment::write_outputs(o.out, result, context);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  const std::string headline = o.mode == "fill" ? "gpu_allocation_pct" : "mean_jct_s";
  for (const auto& policy : result.policies) {
    for (const auto& metric : policy.metrics) {
      if (metric.name == headline) {
        fmt::print("{:<16} {} {:8.2f} ± {:.2f}\n", policy.policy, headline, metric.mean, metric.std);
      }
    }
  }
  fmt::print("wrote {} ({} runs, {:.2f} s wall)\n", o.out, result.policies.size() * result.seeds.size(), wall);
  return 0;
}

// This executable's path (gpusim-calib is built beside it).
std::string self_path(const char* argv0) {
  std::error_code error;
  const auto path = std::filesystem::read_symlink("/proc/self/exe", error);
  return error ? std::string(argv0) : path.string();
}

}  // namespace

int main(int argc, char** argv) {
  gpusim::app::CalibrateOptions calibrate_options;
  CLI::App app{"gpusim: a discrete-event simulator of Kubernetes GPU clusters and a benchmark for GPU scheduling policies"};
  app.set_version_flag("--version", GPUSIM_VERSION);
  app.require_subcommand(1);

  CommonOptions run_options;
  std::string policy = "fgd";
  std::uint64_t seed = 42;
  auto* run = app.add_subcommand("run", "Run one policy once and write its outputs");
  add_common(*run, run_options);
  run->add_option("--policy", policy, "Built-in policy name or profile YAML path")->capture_default_str();
  run->add_option("--seed", seed, "Root seed")->capture_default_str();

  CommonOptions compare_options;
  std::string policies = "random,dotprod,gpu-clustering,gpu-packing,bestfit,fgd";
  int seeds = 10;
  std::uint64_t first_seed = 42;
  unsigned threads = 0;
  auto* compare = app.add_subcommand("compare", "Run every (policy, seed) pair in parallel and report mean and std");
  add_common(*compare, compare_options);
  compare->add_option("--policies", policies, "Comma-separated policies (names or YAML paths)")->capture_default_str();
  compare->add_option("--seeds", seeds, "Number of seeds")->check(CLI::Range(1, 100000))->capture_default_str();
  compare->add_option("--first-seed", first_seed, "Seeds are first-seed, first-seed+1, ...")->capture_default_str();
  compare->add_option("--threads", threads, "Worker threads (0: all cores)")->capture_default_str();

  app.add_subcommand("policies", "List the built-in policies");
  gpusim::app::add_calibrate_commands(app, calibrate_options);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  try {
    if (*run) return execute(run_options, {policy}, seed, 1, 1, true);
    if (*compare) return execute(compare_options, split_list(policies), first_seed, seeds, threads, false);
    if (app.got_subcommand("policies")) {
      for (const auto& name : sched::builtin_profile_names()) fmt::print("{}\n", name);
      return 0;
    }
    return gpusim::app::run_calibrate_commands(app, calibrate_options, self_path(argv[0]));
  } catch (const core::InputError& e) {
    fmt::print(stderr, "gpusim: error: {}\n", e.what());
    return 1;
  } catch (const core::InvariantViolation& e) {
    fmt::print(stderr, "gpusim: internal error: {}\n", e.what());
    return 70;
  }
}
