#include "sim/app/simulate_command.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <map>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>

#include "policies/register_builtin.hpp"
#include "sim/app/config_files.hpp"
#include "sim/core/check.hpp"
#include "sim/k8s/kueue_admission.hpp"
#include "sim/app/input_kinds.hpp"
#include "sim/app/retired_options.hpp"
#include "sim/config/config_files.hpp"
#include "sim/config/profiles.hpp"
#include "sim/core/status.hpp"
#include "sim/experiment/compare.hpp"
#include "sim/experiment/never_ran.hpp"
#include "sim/experiment/output_writer.hpp"
#include "sim/io/input_file.hpp"
#include "sim/io/progress_reporter.hpp"
#include "sim/io/yaml_fields.hpp"
#include "sim/k8s/plugin_config_files.hpp"
#include "sim/k8s/pool_labels.hpp"
#include "sim/k8s/settings_reader.hpp"
#include "sim/perf/job_type_speeds.hpp"
#include "sim/perf/performance_model.hpp"
#include "sim/report/shown_number.hpp"
#include "sim/sched/names.hpp"
#include "traces/bundled.hpp"
#include "traces/gavel_table.hpp"
#include "traces/k8s_manifests.hpp"
#include "traces/openb_reader.hpp"
#include "traces/job_placement.hpp"
#include "traces/read_workload.hpp"

namespace gpusim::app {
namespace {

namespace fs = std::filesystem;
using core::InputError;


// Seeds are 0 .. 2^63-1; "-1" is an error, never a wrap-around.
const CLI::Validator kSeedRange(
    [](std::string& text) -> std::string {
      // from_chars, not CLI11's conversion, which clamps 10^20 to 2^63-1 instead of refusing it.
      std::int64_t value = 0;
      const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
      if (error == std::errc::result_out_of_range) return fmt::format("{} is out of range; seeds are 0 .. 2^63-1", text);
      if (error != std::errc{} || end != text.data() + text.size()) {
        return fmt::format("'{}' is not a seed (an integer 0 .. 2^63-1)", text);
      }
      if (value < 0) return fmt::format("{} is negative; seeds are 0 .. 2^63-1", text);
      return {};
    },
    "SEED in [0 - 2^63-1]");

void add_common(CLI::App& cmd, SimulateOptions& o) {
  o.cluster_option = cmd.add_option("--cluster", o.cluster,
                                    "Nodes: an openb CSV, Kubernetes Node manifests (.yaml, .yml, .json) or a bundled "
                                    "name (openb, openb:all, philly, philly-gavel, dlrm); default: philly for a Philly job "
                                    "log, dlrm for the DLRM trace, the cluster a native trace's header names, else openb");
  cmd.add_option("--workload", o.workload,
                 "Pods: an openb CSV, a Philly job log (timestamp,duration,num_gpus,... CSV), Alibaba's DLRM "
                 "instances (instance_sn,role,app_name,... CSV), gpusim's native trace (.jsonl, traces/FORMAT.md), "
                 "Kubernetes Pod/Job manifests (.yaml, .yml, .json) or a bundled name (openb:default, ..., philly, dlrm)")
      ->capture_default_str();
  cmd.add_option("--mode", o.mode, "fill (FGD paper experiment) or replay (timed arrivals and departures)")
      ->check(CLI::IsMember({"fill", "replay"}))
      ->capture_default_str();
  o.fill_target_option =
      cmd.add_option("--fill-target", o.fill_target, "fill: stop when arrived GPU requests reach this share of capacity")
          ->check(finite_range(0.01, 10.0))
          ->capture_default_str();
  o.order_option =
      cmd.add_option("--order", o.order,
                     "fill: shuffled (the FGD paper's: shuffled with the seed, tuned to the target with random copies), "
                     "as-listed (the file's order, no copies, until the list ends or the target is reached) or "
                     "creation-time (sorted by creation time, then name; otherwise as-listed)")
          ->check(CLI::IsMember({"shuffled", "as-listed", "creation-time"}))
          ->capture_default_str();
  o.typical_pods_option =
      cmd.add_option("--typical-pods", o.typical_pods,
                     "fill, policies with the fgd plugin: the pod list (any --workload form) whose shapes FGD takes as "
                     "its typical pods (default: the workload itself; e.g. the original trace when the workload lists "
                     "another simulator's arrivals, copies included)");
  o.time_compression_option =
      cmd.add_option("--time-compression", o.time_compression, "replay: divide arrival times by this factor")
          ->check(finite_range(0.001, 1e6))
          ->capture_default_str();
  o.fragmentation_option =
      cmd.add_option("--fragmentation-every", o.fragmentation_every_s,
                     "replay: sample the cluster's FGD fragmentation every this many simulated seconds (default: not sampled)")
          ->check(CLI::Range(std::int64_t{1}, std::int64_t{10'000'000}));
  cmd.add_option("--out", o.out,
                 "Output directory: created if absent or empty, replaced if it holds an earlier gpusim output "
                 "(gpusim-manifest.json), refused otherwise")
      ->required();
  cmd.add_option("--catalog", o.catalog, "GPU catalog JSON (default: the bundled one)");
  o.kube_option = cmd.add_option("--kube", o.kube,
                                 "replay: Kubernetes-layer settings YAML (kubelet timings, owners' backoff, device-plugin "
                                 "model per node pool, topology, GPU failures; sim/k8s/README.md)");
  o.config_option = cmd.add_option("--config", o.configs,
                                   "A configuration file as its project writes it, told by its content (repeatable): a "
                                   "KubeSchedulerConfiguration (each profile a policy of the run), Volcano's scheduler "
                                   "configuration or its ConfigMap (a policy) and Queues (queue quotas), NVIDIA's "
                                   "device-plugin config or ConfigMap, its mig-parted config, HAMi's Helm values or "
                                   "ConfigMaps (these four: replay); `gpusim config check FILE` validates one");
  o.checkpoint_option =
      cmd.add_option("--checkpoint-interval", o.checkpoint_interval_s,
                     "replay: jobs checkpoint every this many seconds of run time; a preempted or evicted job restarts "
                     "from its last checkpoint (default 600; overrides --kube's descheduler.checkpointInterval)")
          ->check(CLI::Range(std::int64_t{1}, std::int64_t{10'000'000}));
  o.free_preemption_option = cmd.add_flag(
      "--free-preemption", o.free_preemption,
      "replay, preempting policies: a preempted job keeps all its work and may be preempted again at once, as in "
      "Tiresias' own simulator (default: it loses the work since its last checkpoint, and srtf and tiresias preempt "
      "a job only once it ran a checkpoint interval)");
  add_retired_policy_options(cmd, o.retired);
  o.job_placement_option =
      cmd.add_option("--job-placement", o.job_placement,
                     "replay: consolidated (a job asks all its GPUs of one node, or node-sized workers when larger) or "
                     "scattered (every GPU a worker of the job's gang, wherever a GPU is free; traces/job_placement.hpp)")
          ->check(CLI::IsMember({"consolidated", "scattered"}))
          ->capture_default_str();
  o.scatter_slowdown_option =
      cmd.add_option("--scatter-slowdown", o.scatter_slowdown,
                     "replay, with --job-placement scattered: run-time factor of a job the trace ran on one server whose "
                     "workers landed on more than one node (default 1: none)")
          ->check(finite_range(1.0, 100.0));
  o.throughputs_option =
      cmd.add_option("--throughputs", o.throughputs,
                     "replay: Gavel's throughput table ('gavel': the bundled one, or a path): every GPU job gets a job "
                     "type drawn with the seed, its trace duration is its time on a V100 and it runs at the table's "
                     "speed on its GPU type (k80, p100-*, v100-* catalog models only)");
  o.colocation_option =
      cmd.add_option("--colocation", o.colocation,
                     "with --throughputs: how two jobs of known types on one shared GPU (time-slicing, MPS, gpushare, "
                     "HAMi nodes) run: 'table' (at the table's measured co-location speeds, where it has the pair) or "
                     "'model' (at the shared-GPU speed model, like any pods)")
          ->check(CLI::IsMember({"table", "model"}))
          ->capture_default_str();
  o.perf_model_option = cmd.add_flag(
      "--perf-model", o.perf_model,
      "replay: scale run times by the GPU performance model (calibration files, else catalog x efficiency)");
  o.perf_detail_options[0] = cmd.add_option("--calibration-dir", o.calibration_dir,
                                            "with --perf-model: calibration files (default: results/calibration in the checkout)");
  o.perf_detail_options[1] = cmd.add_option("--reference-gpu", o.reference_gpu,
                                            "with --perf-model: the GPU model the trace's run times were measured on")
                                 ->capture_default_str();
  o.perf_detail_options[2] = cmd.add_option("--memory-fraction", o.memory_fraction,
                                            "with --perf-model: memory-bound share of a job's step (0..1)")
                                 ->check(finite_range(0.0, 1.0))
                                 ->capture_default_str();
  o.perf_detail_options[3] = cmd.add_option("--precision", o.precision, "with --perf-model: job arithmetic: fp32, tf32 or bf16")
                                 ->check(CLI::IsMember({"fp32", "tf32", "bf16"}))
                                 ->capture_default_str();
  add_progress_options(cmd, o.progress);
}

// Options that were given but do not apply to the chosen mode are errors, not silently ignored.
void check_mode_options(const SimulateOptions& o) {
  refuse_retired_policy_options(o.retired, o.policies);
  const bool replay = o.mode == "replay";
  for (const CLI::Option* option : {o.fill_target_option, o.order_option, o.typical_pods_option}) {
    if (replay && option->count() > 0) throw UsageError(fmt::format("{} applies to --mode fill only", option->get_name()));
  }
  if (!replay) {
    for (const CLI::Option* option : {o.time_compression_option, o.perf_model_option, o.kube_option, o.fragmentation_option,
                                      o.checkpoint_option, o.free_preemption_option, o.throughputs_option,
                                      o.colocation_option, o.job_placement_option, o.scatter_slowdown_option}) {
      if (option->count() > 0) throw UsageError(fmt::format("{} applies to --mode replay only", option->get_name()));
    }
  }
  if (o.scatter_slowdown_option->count() > 0 && o.job_placement != "scattered") {
    throw UsageError("--scatter-slowdown applies to jobs split by --job-placement scattered (a trace's own gangs ran "
                     "spread, and their durations say so)");
  }
  if (o.scatter_slowdown_option->count() > 0 && o.throughputs_option->count() > 0) {
    throw UsageError("--scatter-slowdown and --throughputs both set how much slower a spread job runs; give one (the "
                     "throughput table has measured figures per job type)");
  }
  if (o.colocation_option->count() > 0 && o.throughputs_option->count() == 0) {
    throw UsageError("--colocation applies only with --throughputs (it chooses how jobs of the table's types share a GPU)");
  }
  if (o.perf_model && o.throughputs_option->count() > 0) {
    throw UsageError("--perf-model and --throughputs are two run-time models; give one");
  }
  if (!o.perf_model) {
    for (const CLI::Option* option : o.perf_detail_options) {
      if (option->count() > 0) throw UsageError(fmt::format("{} applies only with --perf-model", option->get_name()));
    }
  }
  if (o.first_seed > std::numeric_limits<std::int64_t>::max() - (o.seed_count - 1)) {
    throw UsageError(fmt::format("--first-seed {} with --seeds {} runs past the largest seed ({})", o.first_seed,
                                 o.seed_count, std::numeric_limits<std::int64_t>::max()));
  }
}

std::vector<std::string> split_policies(const std::string& list) {
  std::vector<std::string> items;
  std::stringstream stream(list);
  for (std::string item; std::getline(stream, item, ',');) items.push_back(item);
  if (!list.empty() && list.back() == ',') items.emplace_back();
  return items;
}

// The configuration files a policy list names (its inputs), without reading them yet.
std::vector<fs::path> policy_files(const std::string& list) {
  std::vector<fs::path> files;
  for (const auto& item : split_policies(list)) {
    if (!item.empty() && !sched::builtin_policy_name(item)) files.emplace_back(item);
  }
  return files;
}

// The policies of the list read from configuration files (name, file, digest), for summary.json and the
// report, which name the file beside the policy: `--policy fifo-skip` alone would not find it. Null when none.
// `sources`: per profile, the list item it came from.
nlohmann::json profile_files(const std::vector<std::string>& sources, const std::vector<sched::Profile>& profiles) {
  nlohmann::json files = nullptr;
  for (std::size_t i = 0; i < sources.size() && i < profiles.size(); ++i) {
    if (sched::builtin_policy_name(sources[i])) continue;
    files.push_back({{"name", profiles[i].name}, {"file", sources[i]}, {"fnv1a64", experiment::file_digest(sources[i])}});
  }
  return files;
}

// The policies, each resolved once (a configuration file gives one per profile); a name given twice (in
// any spelling) is an error. `sources` receives, per profile, the list item it came from.
std::vector<sched::Profile> resolve_policies(const std::string& list, std::vector<std::string>& sources,
                                             const sched::Registry& registry) {
  std::vector<sched::Profile> profiles;
  std::vector<std::string> keys;
  for (const std::string& item : split_policies(list)) {
    if (item.empty()) throw InputError(fmt::format("--policies '{}': empty name in the list", list));
    std::vector<std::string> notes;
    std::vector<sched::Profile> resolved = config::resolve_profiles(item, registry, &notes);
    // One line for what the file holds that changes nothing here; `gpusim config check` lists it.
    if (notes.size() == 1) fmt::print(stderr, "gpusim: note: {}\n", notes.front());
    if (notes.size() > 1) {
      fmt::print(stderr, "gpusim: note: {}: {} settings or plugins change nothing in gpusim (each with its reason: "
                         "gpusim config check {})\n", item, notes.size(), item);
    }
    for (sched::Profile& profile : resolved) {
      // A profile may not pass for a built-in policy: reports compare those with published figures.
      if (!sched::builtin_policy_name(item) && sched::builtin_policy_name(profile.name)) {
        throw InputError(fmt::format("{}: name '{}' is a built-in policy's; give the profile a name of its own", item, profile.name));
      }
      const std::string key = sched::name_key(profile.name);
      if (std::find(keys.begin(), keys.end(), key) != keys.end()) {
        throw InputError(fmt::format("--policies: '{}' names the policy '{}' a second time", item, profile.name));
      }
      keys.push_back(key);
      sources.push_back(item);
      profiles.push_back(std::move(profile));
    }
  }
  if (profiles.empty()) throw InputError("--policies: no policy given");
  return profiles;
}

struct InputPaths {
  fs::path root;
  fs::path catalog;
  fs::path cluster;
  fs::path workload;
  fs::path typical_pods;     // empty: FGD's typical pods come from the workload
  fs::path calibration_dir;  // empty: none (performance model off)
  fs::path kube;             // empty: default Kubernetes-layer settings
  std::vector<fs::path> configs;  // --config files
  fs::path throughputs;      // empty: no Gavel throughput table
};

// Kubernetes manifests are told from openb CSVs by their extension.
// --cluster as given, else the workload's default: the Philly-like cluster for a Philly job log (the
// bundled one by name, or any file with its header), openb otherwise.
std::string cluster_name(const SimulateOptions& o) {
  if (o.cluster_option == nullptr || o.cluster_option->count() > 0) return o.cluster;
  if (!traces::is_bundled_workload(o.workload)) return traces::default_cluster_for_file(o.workload);
  return traces::default_cluster_for(o.workload);
}

InputPaths resolve_inputs(const SimulateOptions& o) {
  InputPaths paths;
  paths.root = traces::data_root();
  paths.catalog = o.catalog.empty() ? traces::default_catalog(paths.root) : fs::path(o.catalog);
  io::require_file(paths.catalog, "GPU catalog");
  paths.cluster = traces::resolve_cluster(cluster_name(o), paths.root);
  paths.workload = traces::resolve_workload(o.workload, paths.root);
  if (!o.typical_pods.empty()) paths.typical_pods = traces::resolve_workload(o.typical_pods, paths.root);
  if (!o.kube.empty()) {
    paths.kube = o.kube;
    io::require_file(paths.kube, "--kube settings");
  }
  for (const std::string& config : o.configs) {
    paths.configs.emplace_back(config);
    io::require_file(paths.configs.back(), "--config file");
  }
  if (!o.throughputs.empty()) {
    paths.throughputs = o.throughputs == "gavel" ? paths.root / "traces" / "data" / "gavel" / "simulation_throughputs.json"
                                                 : fs::path(o.throughputs);
    io::require_file(paths.throughputs, "--throughputs table");
  }
  if (o.perf_model) {
    if (!o.calibration_dir.empty()) {
      paths.calibration_dir = o.calibration_dir;
      io::require_directory(paths.calibration_dir, "calibration");
    } else {
      paths.calibration_dir = paths.root / "results" / "calibration";
    }
  }
  return paths;
}

struct Loaded {
  cluster::GpuCatalog catalog;
  traces::ClusterSpec cluster;
  traces::Workload workload;
  std::optional<traces::Workload> typical_pods;  // --typical-pods
  sched::Registry registry;
  std::optional<perf::PerformanceModel> performance;
  perf::JobProfile job;
  k8s::KubeSettings kube;
  std::optional<perf::JobTypeSpeeds> job_types;
  std::vector<std::vector<std::string>> config_notes{};  // per --config file, what it accepted unmodelled
};

void print_notes(const std::string& file, const std::vector<std::string>& notes) {
  for (const std::string& note : notes) fmt::print(stderr, "gpusim: note: {}: {}\n", file, note);
}

void note_skipped(const std::string& file, int lines) {
  if (lines > 0) {
    fmt::print(stderr, "gpusim: note: {}: skipped {} blank or comment line{} (counted in summary.json)\n", file,
               lines, lines == 1 ? "" : "s");
  }
}

// Jobs asking more GPUs than the whole cluster has never start (and under a strict queue hold back
// every job behind them): said at once, not discovered at the end.
void note_jobs_larger_than_cluster(const std::string& file, const Loaded& loaded) {
  std::int64_t cluster_gpus = 0;
  for (const auto& node : loaded.cluster.nodes) cluster_gpus += node.gpu_count;
  std::int64_t too_large = 0, largest = 0;
  const auto& pods = loaded.workload.pods;
  for (std::size_t p = 0; p < pods.size();) {
    std::int64_t gpus = 0;
    std::size_t q = p;
    do {
      gpus += pods[q].gpu_count;
      ++q;
    } while (q < pods.size() && pods[p].gang != 0 && pods[q].gang == pods[p].gang);
    if (gpus > cluster_gpus) ++too_large;
    largest = std::max(largest, gpus);
    p = q;
  }
  if (too_large > 0) {
    fmt::print(stderr, "gpusim: note: {}: jobs asking more GPUs than the cluster's {}: {} (the largest asks {}); they "
               "never start, and under a strict queue (fifo) no job queued behind them does either\n",
               file, cluster_gpus, too_large, largest);
  }
}

Loaded load(const SimulateOptions& o, const InputPaths& paths, const sched::Registry& registry) {
  Loaded loaded{cluster::GpuCatalog::load(paths.catalog), {}, {}, std::nullopt, registry, std::nullopt, {}, {},
                std::nullopt, {}};
  loaded.cluster = is_manifest(paths.cluster) ? traces::read_k8s_nodes(paths.cluster, loaded.catalog)
                                              : traces::read_openb_nodes(paths.cluster, loaded.catalog);
  loaded.cluster.source = cluster_name(o);
  loaded.workload = traces::read_workload(paths.workload, loaded.catalog, loaded.cluster.nodes);
  loaded.workload.source = o.workload;
  print_notes(paths.cluster.string(), loaded.cluster.notes);
  print_notes(paths.workload.string(), loaded.workload.notes);
  if (!paths.typical_pods.empty()) {
    loaded.typical_pods = traces::read_workload(paths.typical_pods, loaded.catalog, loaded.cluster.nodes);
    loaded.typical_pods->source = o.typical_pods;
  }
  if (!paths.kube.empty()) loaded.kube = k8s::load_kube_settings(paths.kube, loaded.cluster.nodes);
  // Pools' labels first: a device-plugin ConfigMap's configs are chosen by node label.
  k8s::label_pool_nodes(loaded.kube, loaded.catalog, loaded.cluster.nodes);
  for (const fs::path& file : paths.configs) {
    if (config::is_kube_scheduler_config_file(file.string()) || is_queueing_config_file(file.string())) {
      loaded.config_notes.emplace_back();  // read as the run's policies and quotas (policy_list, read_config_files)
      continue;
    }
    if (o.mode != "replay") {
      throw UsageError(fmt::format("--config {}: a device plugin's configuration applies to --mode replay only", file.string()));
    }
    const std::string text = io::read_file(file, "--config file");
    YAML::Node doc;
    try {
      doc = YAML::Load(text);
    } catch (const YAML::Exception& e) {
      throw InputError(io::yaml_syntax_error(file.string(), text, e));
    }
    const k8s::PluginConfigKind kind = k8s::plugin_config_kind(doc);
    if (kind == k8s::PluginConfigKind::kNone) {
      if (const auto typo = config::unknown_field_of_nearest_kind(doc, file.string())) throw InputError(*typo);
      throw InputError(fmt::format("{}: not a configuration gpusim reads (NVIDIA's device-plugin config or a ConfigMap of "
                                   "them, NVIDIA's mig-parted config; HAMi's Helm values, device config or ConfigMaps)",
                                   file.string()));
    }
    loaded.config_notes.push_back(k8s::read_plugin_config(kind, text, file.string(), loaded.cluster.nodes, loaded.kube));
    print_notes(file.string(), loaded.config_notes.back());
  }
  note_skipped(paths.cluster.string(), loaded.cluster.skipped_lines);
  note_skipped(paths.workload.string(), loaded.workload.skipped_lines);
  if (o.mode == "fill" && loaded.workload.has_gangs) {
    throw InputError(fmt::format("{}: jobs larger than a node run as gangs of workers that start together, which only "
                                 "--mode replay models; fill mode places pods one by one", paths.workload.string()));
  }
  if (loaded.workload.has_gangs || !loaded.workload.queues.empty()) note_jobs_larger_than_cluster(paths.workload.string(), loaded);
  if (o.mode == "replay" && !loaded.workload.has_times) {
    if (traces::workload_format(paths.workload) == traces::WorkloadFormat::kNative) {
      throw InputError(fmt::format("{}: header: timed: false, but replay mode needs each pod's created_us and duration_us",
                                   paths.workload.string()));
    }
    throw InputError(fmt::format("{}:1: header: replay mode needs creation_time and deletion_time columns",
                                 paths.workload.string()));
  }
  if (o.perf_model) {
    const auto reference = loaded.catalog.find(o.reference_gpu);
    if (!reference) {
      throw InputError(fmt::format("--reference-gpu: unknown GPU model '{}' (catalog ids: {})", o.reference_gpu,
                                   loaded.catalog.ids()));
    }
    loaded.job = {*reference, o.memory_fraction, *perf::precision_from_string(o.precision)};
    loaded.performance = perf::PerformanceModel::load(loaded.catalog, paths.calibration_dir);
  }
  if (!paths.throughputs.empty()) {
    loaded.job_types.emplace(traces::load_gavel_throughputs(paths.throughputs), loaded.catalog);
    loaded.job_types->check_cluster(loaded.cluster.nodes);
    loaded.job_types->use_colocation_figures(o.colocation == "table");
    // One draw per invocation (every policy and seed of a comparison runs the same jobs).
    loaded.job_types->assign(loaded.workload.pods, loaded.cluster.nodes, static_cast<std::uint64_t>(o.first_seed));
  }
  // After the job types are drawn, so that consolidated and scattered runs replay the same jobs.
  if (o.job_placement == "scattered") traces::scatter_jobs(loaded.workload);
  // Pods may fit GPU types the whole job was not drawn for: a scattered job's workers, and pods on
  // nodes whose device plugin advertises replicas (time-slicing, MPS) that make a node look larger.
  // They go only where their type has a figure.
  if (loaded.job_types) loaded.job_types->restrict_to_runnable(loaded.workload.pods);
  return loaded;
}

experiment::RunConfig run_config(const SimulateOptions& o) {
  experiment::RunConfig config;
  config.mode = o.mode == "fill" ? experiment::Mode::kFill : experiment::Mode::kReplay;
  config.fill_target = o.fill_target;
  config.order = o.order == "as-listed"       ? experiment::FillOrder::kAsListed
                 : o.order == "creation-time" ? experiment::FillOrder::kCreationTime
                                              : experiment::FillOrder::kShuffled;
  config.time_compression = o.time_compression;
  config.fragmentation_every_s = o.fragmentation_every_s;
  return config;
}

// Every (policy, seed) run, with progress on stderr unless --quiet. The runs post to their slots;
// the reporter's thread reads them, so the results are the same either way.
experiment::CompareResult run_with_progress(const SimulateOptions& o, const experiment::RunInputs& inputs,
                                            const std::vector<sched::Profile>& profiles) {
  const std::vector<std::uint64_t> seeds = experiment::seed_list(static_cast<std::uint64_t>(o.first_seed), o.seed_count);
  std::vector<core::RunProgress> slots(o.progress.quiet ? 0 : profiles.size() * seeds.size());
  std::optional<io::ProgressReporter> reporter;
  if (!o.progress.quiet) reporter.emplace(slots, progress_style(o.progress, "runs"));
  experiment::CompareResult result =
      experiment::run_compare(inputs, profiles, run_config(o), seeds, static_cast<unsigned>(o.threads), slots);
  if (reporter) reporter->finish();
  return result;
}

// The policies of --config's scheduler configurations, after those of --policy/--policies; names
// checked as resolve_policies checks them.
void add_config_policies(const SimulateOptions& o, const ConfigFiles& configs, std::vector<sched::Profile>& profiles) {
  for (const ConfigFiles::Scheduler& scheduler : configs.schedulers) {
    const sched::Profile& profile = scheduler.conf.profile;
    if (sched::builtin_policy_name(profile.name)) {
      throw InputError(fmt::format("{}: name '{}' is a built-in policy's; give the configuration a name of its own",
                                   scheduler.file, profile.name));
    }
    for (const sched::Profile& other : profiles) {
      if (sched::name_key(other.name) == sched::name_key(profile.name)) {
        throw InputError(fmt::format("{}: the policy '{}' is named a second time", scheduler.file, profile.name));
      }
    }
    profiles.push_back(profile);
  }
  if (o.single_run && !configs.schedulers.empty() && profiles.size() != 1) {
    throw UsageError("run takes one policy: give --policy or a scheduler configuration in --config, not both");
  }
}

// What --config's files need from the workload: the Queues become the queue quotas (their
// guarantees checked against the cluster before any run starts), and a configuration without the
// gang plugin cannot run a workload with gangs (gpusim always places a gang's workers together).
// Manifests whose objects name a KAI Queue with the kai.scheduler/queue label: under policy kai each
// pod's queue is its label's, an unlabelled one KAI's default-queue (its podgrouper's default), in
// place of the Kueue LocalQueues the reader gave.
void use_kai_queue_labels(traces::Workload& workload, const k8s::kai::Queues& queues) {
  if (workload.kai_queue_of_pod.empty()) return;
  GPUSIM_CHECK(workload.kai_queue_of_pod.size() == workload.pods.size(), "a KAI queue label per manifest pod");
  std::map<std::string, std::uint16_t> index;
  workload.queues.clear();
  for (std::size_t i = 0; i < workload.pods.size(); ++i) {
    // Named, not a structured binding: clang 14 (the sanitizer build) captures no binding in a lambda.
    const std::string& label = workload.kai_queue_of_pod[i].queue;
    const int line = workload.kai_queue_of_pod[i].line;
    if (!label.empty()) {
      const auto named = [&](const k8s::kai::Queue& q) { return q.name == label; };
      const auto child = [&](const k8s::kai::Queue& q) { return q.parent == label; };
      const char* missing = std::none_of(queues.queues.begin(), queues.queues.end(), named) ? "not among KAI's Queues in --config"
                            : std::any_of(queues.queues.begin(), queues.queues.end(), child) ? "a parent queue: only leaf queues take jobs"
                                                                                                : nullptr;
      if (missing != nullptr) {
        throw InputError(fmt::format("{}:{}: metadata.labels.kai.scheduler/queue: Queue '{}' is {} (KAI would leave the pod pending)",
                                     workload.source, line, label, missing));
      }
    }
    const std::string name = label.empty() ? "default-queue" : label;
    const auto [it, inserted] = index.emplace(name, static_cast<std::uint16_t>(workload.queues.size()));
    if (inserted) workload.queues.push_back(name);
    workload.pods[i].queue = it->second;
  }
}

void apply_config_files(const ConfigFiles& configs, Loaded& loaded) {
  for (const ConfigFiles::Scheduler& scheduler : configs.schedulers) {
    if (!scheduler.conf.gang && loaded.workload.has_gangs) {
      throw InputError(fmt::format("{}: no gang plugin, but the workload has gangs: Volcano would bind their workers one "
                                   "by one, which gpusim does not model (it places a gang's workers together); add "
                                   "{{name: gang}} to the tiers", scheduler.file));
    }
  }
  // A Job created suspended waits for a controller to resume it: Kueue does, at admission; without
  // Kueue nothing would, and its pods would wait for ever.
  if (!configs.kueue) {
    for (const traces::JobSpec& job : loaded.workload.jobs) {
      if (!job.suspend_line) continue;
      throw InputError(fmt::format("{}:{}: spec.suspend: Job {} is created suspended, and only Kueue resumes it (--mode replay "
                                   "--policy kueue with Kueue's objects in --config); under this run nothing would, and it would "
                                   "never start",
                                   loaded.workload.source, *job.suspend_line, job.name));
    }
  }
  if (configs.kueue) {
    auto setup = std::make_shared<k8s::kueue::Setup>();
    setup->objects = *configs.kueue;
    setup->routes = k8s::kueue::routes_of_trace_queues(setup->objects, loaded.workload.queues);
    for (const traces::JobSpec& job : loaded.workload.jobs) setup->job_pod_counts.push_back(std::min(job.parallelism, job.completions));
    // A Job naming a WorkloadPriorityClass that does not exist gets no Workload in Kueue (its
    // reconciler fails, and retries for ever): in a simulation, a mistake to report.
    for (const cluster::PodSpec& pod : loaded.workload.pods) {
      if (!pod.constraints || pod.constraints->workload_priority_class.empty()) continue;
      const auto& classes = setup->objects.priority_classes;
      const std::string& name = pod.constraints->workload_priority_class;
      if (std::none_of(classes.begin(), classes.end(), [&](const k8s::kueue::WorkloadPriorityClass& c) { return c.name == name; })) {
        throw InputError(fmt::format("{}:{}: metadata.labels.kueue.x-k8s.io/priority-class: WorkloadPriorityClass '{}' is not among "
                                     "Kueue's objects in --config",
                                     loaded.workload.source, pod.constraints->workload_priority_class_line, name));
      }
    }
    loaded.kube.kueue = std::move(setup);
  }
  if (configs.kai) {
    use_kai_queue_labels(loaded.workload, *configs.kai);
  } else {
    for (const cluster::PodSpec& pod : loaded.workload.pods) {
      if (!pod.constraints || pod.constraints->kai_gpu_fraction_milli == 0) continue;
      throw InputError(fmt::format("{}:{}: metadata.annotations.gpu-fraction: only the KAI Scheduler reads this annotation "
                                   "(--mode replay --policy kai with KAI's Queues in --config); under this run the pod "
                                   "would get no GPU", loaded.workload.source, pod.constraints->kai_gpu_fraction_line));
    }
  }
  if (configs.kai) {
    auto setup = std::make_shared<k8s::kai::Setup>();
    setup->queues = *configs.kai;
    setup->leaf_of_trace_queue = k8s::kai::leaves_of_trace_queues(setup->queues, loaded.workload.queues);
    loaded.kube.kai = std::move(setup);
  }
  if (!configs.queues) return;
  loaded.kube.queue_quotas = k8s::volcano_queue_quotas(*configs.queues, loaded.workload.queues);
  std::int64_t gpus = 0;
  for (const cluster::NodeSpec& node : loaded.cluster.nodes) gpus += std::int64_t{node.gpu_count} * cluster::kMilliPerGpu;
  k8s::QuotaBook(loaded.kube.queue_quotas, false, gpus);
}

// summary.json names each configuration file beside what it gave, as it names --policy files.
void record_config_files(const ConfigFiles& configs, experiment::OutputContext& context) {
  for (const ConfigFiles::Scheduler& scheduler : configs.schedulers) {
    context.profile_files.push_back({{"name", scheduler.conf.profile.name},
                                     {"file", scheduler.file},
                                     {"fnv1a64", experiment::file_digest(scheduler.file)},
                                     {"notes", scheduler.conf.notes}});
  }
  if (configs.queues) {
    context.queue_quotas = {{"file", configs.queues->file}, {"fnv1a64", experiment::file_digest(configs.queues->file)}};
    if (!configs.queues->notes.empty()) context.queue_quotas["notes"] = configs.queues->notes;
  }
  if (configs.kueue) {
    nlohmann::json files = nlohmann::json::array();
    for (const std::string& file : configs.kueue_files) files.push_back({{"file", file}, {"fnv1a64", experiment::file_digest(file)}});
    context.queue_quotas["kueue_files"] = files;
    if (!configs.kueue->notes.empty()) context.queue_quotas["kueue_notes"] = configs.kueue->notes;
  }
  if (configs.kai) {
    nlohmann::json files = nlohmann::json::array();
    for (const std::string& file : configs.kai_files) files.push_back({{"file", file}, {"fnv1a64", experiment::file_digest(file)}});
    context.queue_quotas["kai_files"] = files;
    if (!configs.kai->notes.empty()) context.queue_quotas["kai_notes"] = configs.kai->notes;
  }
}

}  // namespace

CLI::App* add_run_command(CLI::App& app, SimulateOptions& o) {
  auto* run = app.add_subcommand("run", "Run one policy once and write its outputs");
  add_common(*run, o);
  o.policies = "fgd";
  o.seed_count = 1;
  o.single_run = true;
  o.policies_option =
      run->add_option("--policy", o.policies,
                      "Built-in policy (any spelling: fgd, FGD, BestFit, gpu_packing, ...) or a KubeSchedulerConfiguration file")
      ->capture_default_str();
  run->add_option("--seed", o.first_seed, "Root seed (0 .. 2^63-1)")->check(kSeedRange)->capture_default_str();
  return run;
}

CLI::App* add_compare_command(CLI::App& app, SimulateOptions& o) {
  auto* compare = app.add_subcommand("compare", "Run every (policy, seed) pair in parallel and report mean and std");
  add_common(*compare, o);
  o.policies_option =
      compare->add_option("--policies", o.policies,
                          "Comma-separated policies (names in any spelling, or KubeSchedulerConfiguration paths), each once")
      ->capture_default_str();
  compare->add_option("--seeds", o.seed_count, "Number of seeds")->check(CLI::Range(1, 100000))->capture_default_str();
  compare->add_option("--first-seed", o.first_seed, "Seeds are first-seed, first-seed+1, ... (0 .. 2^63-1)")
      ->check(kSeedRange)
      ->capture_default_str();
  compare->add_option("--threads", o.threads, "Worker threads (0: all cores)")->check(CLI::Range(0, 4096))->capture_default_str();
  return compare;
}

// The run's policies: --policy / --policies and the KubeSchedulerConfigurations among --config files
// (their profiles); the default policy only when nothing names one (`other_schedulers`: --config
// holds another kind of scheduler configuration, Volcano's, whose policy is added later).
std::string policy_list(const SimulateOptions& o, bool other_schedulers) {
  std::string list = o.policies_option != nullptr && o.policies_option->count() > 0 ? o.policies : "";
  for (const std::string& file : o.configs) {
    if (!config::is_kube_scheduler_config_file(file)) continue;
    list += (list.empty() ? "" : ",") + file;
  }
  return list.empty() && !other_schedulers ? o.policies : list;
}

int run_simulate(const SimulateOptions& o, io::AbandonList& abandon, const sched::Registry& registry) {
  const auto started = std::chrono::steady_clock::now();
  check_mode_options(o);
  if (o.single_run && split_policies(policy_list(o, false)).size() != 1) {
    throw UsageError("--policy takes one policy; use `gpusim compare --policies` for several");
  }
  // Volcano's files among --config: a scheduler configuration adds a policy, Queues give the quotas.
  const ConfigFiles configs = read_config_files(o.configs, registry);
  const std::string policies = policy_list(o, !configs.schedulers.empty());
  std::vector<fs::path> inputs = policy_files(policies);
  const InputPaths paths = resolve_inputs(o);
  inputs.insert(inputs.end(), {paths.catalog, paths.cluster, paths.workload});
  if (!paths.calibration_dir.empty()) inputs.push_back(paths.calibration_dir);
  if (!paths.kube.empty()) inputs.push_back(paths.kube);
  inputs.insert(inputs.end(), paths.configs.begin(), paths.configs.end());
  if (!paths.throughputs.empty()) inputs.push_back(paths.throughputs);
  if (!paths.typical_pods.empty()) inputs.push_back(paths.typical_pods);
  // Before anything is read or simulated: an unusable --out fails here, at once.
  io::OutputDirectory out(o.out, inputs, &abandon, GPUSIM_VERSION);
  std::vector<std::string> policy_sources;
  std::vector<sched::Profile> profiles =
      policies.empty() ? std::vector<sched::Profile>{} : resolve_policies(policies, policy_sources, registry);
  add_config_policies(o, configs, profiles);
  if (o.single_run && profiles.size() != 1) {
    throw UsageError(fmt::format("`gpusim run` runs one policy, and {} hold {} profiles (compare them with `gpusim compare`)",
                                 policies.empty() ? "the --config files" : policies, profiles.size()));
  }
  const auto quota_policy = [](const sched::Profile& p) { return p.queue_quotas != sched::QueueQuotaMode::kNone; };
  if (configs.queues) {
    if (o.mode != "replay") throw UsageError(fmt::format("{}: Volcano Queues apply to --mode replay only", configs.queues->file));
    if (std::none_of(profiles.begin(), profiles.end(), quota_policy)) {
      throw UsageError(fmt::format("{}: Volcano Queues apply to policies with queue quotas (proportion, capacity), which "
                                   "this run does not use", configs.queues->file));
    }
  }
  const auto kueue_policy = [](const sched::Profile& p) { return p.queue_admission_plugin == "kueue"; };
  if (configs.kueue) {
    if (o.mode != "replay") throw UsageError(fmt::format("{}: Kueue's objects apply to --mode replay only", configs.kueue_files.front()));
    if (std::none_of(profiles.begin(), profiles.end(), kueue_policy)) {
      throw UsageError(fmt::format("{}: Kueue's objects apply to the policy kueue, which this run does not use",
                                   configs.kueue_files.front()));
    }
  }
  const auto kai_policy = [](const sched::Profile& p) { return p.queue_admission_plugin == "kai"; };
  if (configs.kai) {
    if (o.mode != "replay") throw UsageError(fmt::format("{}: KAI's Queues apply to --mode replay only", configs.kai_files.front()));
    if (std::none_of(profiles.begin(), profiles.end(), kai_policy)) {
      throw UsageError(fmt::format("{}: KAI's Queues apply to the policy kai, which this run does not use", configs.kai_files.front()));
    }
  }
  for (const sched::Profile& profile : profiles) {
    if (o.mode == "replay" && kai_policy(profile) && !configs.kai) {
      throw UsageError(fmt::format("policy '{}' needs KAI's Queues in --config (scheduling.run.ai/v2), with a leaf queue for each of "
                                   "the workload's queues (the bundled Philly ones: --config traces/queues/philly-kai.yaml)",
                                   profile.name));
    }
    if (o.mode == "replay" && kueue_policy(profile) && !configs.kueue) {
      throw UsageError(fmt::format("policy '{}' needs Kueue's objects in --config: ResourceFlavors, ClusterQueues and the "
                                   "LocalQueues the workload's queues submit to (the bundled Philly ones: --config "
                                   "traces/queues/philly-kueue.yaml)", profile.name));
    }
    if (o.mode == "replay" && profile.queue_quotas == sched::QueueQuotaMode::kCapacity && !configs.queues) {
      throw UsageError(fmt::format("policy '{}' needs Volcano Queue objects in --config, with each queue's deserved GPUs "
                                   "(the bundled Philly ones: --config traces/queues/philly-capacity-queues.yaml)",
                                   profile.name));
    }
  }
  for (sched::Profile& profile : profiles) {
    // Fill mode places pods one by one without time: no queue to share, nothing running to preempt.
    if (o.mode == "fill" && profile.preemption == sched::Preemption::kPriority && !sched::builtin_policy_name(profile.name)) {
      // kube-scheduler's default configuration enables DefaultPreemption; a fill places every pod
      // once and none ends, so there is nothing to preempt for (pods of the FGD traces have one priority).
      fmt::print(stderr, "gpusim: note: policy '{}': DefaultPreemption is not run in fill mode\n", profile.name);
      profile.preemption = sched::Preemption::kNone;
      profile.job_rank_plugin.clear();
    }
    const auto load_aware = [&](const std::string& name) { return registry.canonical(name) == "load-aware"; };
    if (o.mode == "fill" && (std::any_of(profile.filter.begin(), profile.filter.end(), load_aware) ||
                             std::any_of(profile.score.begin(), profile.score.end(),
                                         [&](const sched::WeightedPlugin& p) { return load_aware(p.name); }))) {
      // No time, so no node agent reports: Koordinator's plugin without NodeMetrics.
      fmt::print(stderr,
                 "gpusim: note: policy '{}': fill mode has no node usage reports; LoadAwareScheduling passes every "
                 "node and scores each 0 (replay runs koordlet)\n",
                 profile.name);
    }
    // Fill mode has no queue over time: of the queueing plugins, only a queue order it ignores
    // (strict, backfill) may be named.
    const bool queueing = !profile.job_rank_plugin.empty() || !profile.round_plugin.empty() ||
                          !profile.gang_permit_plugin.empty() ||
                          (!profile.queue_admission_plugin.empty() && profile.queue_admission_plugin != "strict" &&
                           profile.queue_admission_plugin != "backfill");
    if (o.mode == "fill" && (queueing || profile.preemption != sched::Preemption::kNone || profile.drf || quota_policy(profile) ||
                             profile.time_share != sched::TimeSharePolicy::kNone || profile.gang_permit)) {
      throw UsageError(fmt::format("policy '{}' works in --mode replay only (fill mode places pods one by one, "
                                   "without time, queues or preemption)", profile.name));
    }
  }

  Loaded loaded = load(o, paths, registry);
  apply_config_files(configs, loaded);
  if (loaded.typical_pods && std::none_of(profiles.begin(), profiles.end(), [&](const sched::Profile& profile) {
        const auto is_fgd = [&](const std::string& name) { return loaded.registry.canonical(name) == "fgd"; };
        return is_fgd(profile.gpu_selection) ||
               std::any_of(profile.score.begin(), profile.score.end(), [&](const auto& s) { return is_fgd(s.name); });
      })) {
    throw UsageError("--typical-pods applies to policies with the fgd plugin, which this run does not use");
  }
  if (o.checkpoint_option->count() > 0) loaded.kube.checkpoint_interval = core::Time::from_seconds(o.checkpoint_interval_s);
  loaded.kube.free_preemption = o.free_preemption;
  loaded.kube.scatter_slowdown = o.scatter_slowdown;
  const experiment::RunInputs run_inputs{&loaded.catalog, &loaded.cluster, &loaded.workload, &loaded.registry,
                                         loaded.performance ? &*loaded.performance : nullptr, loaded.job,
                                         loaded.job_types ? &*loaded.job_types : nullptr,
                                         o.mode == "replay" ? &loaded.kube : nullptr,
                                         loaded.typical_pods ? &*loaded.typical_pods : nullptr};
  const experiment::CompareResult result = run_with_progress(o, run_inputs, profiles);
  experiment::OutputContext context{GPUSIM_VERSION, cluster_name(o), o.workload,
                                    experiment::file_digest(paths.cluster), experiment::file_digest(paths.workload),
                                    &loaded.workload, &loaded.cluster, o.single_run, nullptr};
  context.catalog = &loaded.catalog;
  if (!paths.kube.empty()) context.kube = {{"file", o.kube}, {"fnv1a64", experiment::file_digest(paths.kube)}};
  for (std::size_t i = 0; i < paths.configs.size(); ++i) {
    nlohmann::json config = {{"file", o.configs[i]}, {"fnv1a64", experiment::file_digest(paths.configs[i])}};
    if (!loaded.config_notes[i].empty()) config["notes"] = loaded.config_notes[i];
    context.configs.push_back(std::move(config));
  }
  context.profile_files = profile_files(policy_sources, profiles);
  record_config_files(configs, context);
  if (loaded.typical_pods) {
    context.typical_pods = {{"file", o.typical_pods}, {"fnv1a64", experiment::file_digest(paths.typical_pods)}};
  }
  for (const sched::Profile& profile : profiles) {
    if (profile.preemption == sched::Preemption::kNone || o.mode != "replay") continue;
    if (context.preemption.is_null()) {
      context.preemption["checkpoint_interval_s"] = loaded.kube.checkpoint_interval.seconds();
      context.preemption["free_preemption"] = loaded.kube.free_preemption;
    }
    if (profile.preemption == sched::Preemption::kTiresias) {
      context.preemption["tiresias_thresholds_gpu_s"] = profile.tiresias.thresholds_gpu_s;
      context.preemption["tiresias_starvation"] = profile.tiresias.starvation_knob;
      context.preemption["tiresias_queue_order"] =
          profile.tiresias.queue_order == sched::TiresiasQueueOrder::kSimulator ? "simulator" : "creation";
    }
  }
  for (const sched::Profile& profile : profiles) {
    // One round length for the run's summary: the first time-sharing profile's (they agree unless
    // a configuration gives profiles different ones).
    if (profile.time_share != sched::TimeSharePolicy::kNone && o.mode == "replay" && !context.time_sharing.contains("round_length_s")) {
      context.time_sharing["round_length_s"] = profile.round_length.seconds_floor();
    }
  }
  for (const sched::Profile& profile : profiles) {
    if (profile.time_share == sched::TimeSharePolicy::kThemis && o.mode == "replay") {
      context.time_sharing["themis_fairness"] = profile.themis_fairness;
    }
  }
  if (o.mode == "replay" && (o.job_placement_option->count() > 0 || o.scatter_slowdown_option->count() > 0)) {
    context.placement = {{"job_placement", o.job_placement}, {"scatter_slowdown", o.scatter_slowdown}};
  }
  for (const sched::Profile& profile : profiles) {
    // The first gang profile's (they agree unless a configuration gives profiles different ones).
    if (o.mode == "replay" && profile.gang_permit && context.gang.is_null()) {
      context.gang = {{"permit_timeout_s", profile.gang_timeout.seconds_floor()},
                      {"denied_backoff_s", profile.gang_denied_backoff.seconds_floor()}};
    }
  }
  if (loaded.job_types) {
    context.time_sharing["throughputs"] = {{"file", o.throughputs},
                                           {"fnv1a64", experiment::file_digest(paths.throughputs)},
                                           {"job_types_seed", o.first_seed},
                                           {"colocation", o.colocation}};
  }
  if (loaded.performance) {
    context.performance = {{"reference_gpu", o.reference_gpu}, {"memory_fraction", o.memory_fraction},
                           {"precision", o.precision}, {"gpus", loaded.performance->describe(loaded.catalog)}};
  }
  experiment::write_outputs(out, result, context);
  for (const std::string& line : experiment::never_ran_note(result)) fmt::print(stderr, "gpusim: note: {}\n", line);
  for (const auto& policy : result.policies) {
    for (const auto& metric : policy.metrics) {
      if (metric.name != "vgpu_pods_over_framebuffer" || metric.mean == 0 || &policy != &result.policies.front()) continue;
      // The same pods under every policy: said once.
      fmt::print(stderr,
                 "gpusim: note: {:.0f} pods asking a fraction of a GPU ask more of its memory than the largest vGPU type "
                 "the nodes offer; each got that type, and with the GPU memory model (gpuMemory) it fails for memory "
                 "at every start\n",
                 metric.mean);
    }
  }
  for (const auto& policy : result.policies) {
    for (const auto& metric : policy.metrics) {
      if (metric.name != "node_metric_reports" || metric.mean != 0) continue;
      // Koordinator's plugin without NodeMetrics passes every node and scores it 0.
      fmt::print(stderr,
                 "gpusim: note: policy '{}': koordlet reported no usage (no node runs the shared-GPU speed model: "
                 "time-slicing, MPS, gpushare or HAMi), so LoadAwareScheduling passed every node and scored each 0\n",
                 policy.policy);
    }
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  // Traces of jobs: the job-level JCT (a gang counted once).
  const bool jobs = loaded.workload.has_gangs || !loaded.workload.queues.empty();
  const std::string headline = o.mode == "fill" ? "gpu_allocation_pct" : jobs ? "job_mean_jct_s" : "mean_jct_s";
  for (const auto& policy : result.policies) {
    for (const auto& metric : policy.metrics) {
      if (metric.name != headline) continue;
      if (std::isnan(metric.mean)) fmt::print("{:<16} {} n/a (undefined: summary.json says why)\n", policy.policy, headline);
      // Rounded as report.md rounds (shown_number.hpp), so that the two show the same figures.
      else if (result.seeds.size() > 1) {
        fmt::print("{:<16} {} {:>8} ± {}\n", policy.policy, headline, report::decimals(metric.mean, 2), report::decimals(metric.std, 2));
      } else {
        fmt::print("{:<16} {} {:>8}\n", policy.policy, headline, report::decimals(metric.mean, 2));
      }
    }
  }
  fmt::print("wrote {} ({} runs, {:.2f} s wall)\n", out.target().string(), result.policies.size() * result.seeds.size(), wall);
  return 0;
}

}  // namespace gpusim::app
