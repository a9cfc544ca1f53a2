#include "sim/app/trace_command.hpp"

#include <fmt/format.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "sim/app/exit_codes.hpp"
#include "sim/app/input_kinds.hpp"
#include "sim/core/status.hpp"
#include "sim/experiment/output_writer.hpp"
#include "sim/io/input_file.hpp"
#include "sim/metrics/sample_stats.hpp"
#include "traces/bundled.hpp"
#include "traces/k8s_manifests.hpp"
#include "traces/native_format.hpp"
#include "traces/openb_reader.hpp"
#include "traces/synth.hpp"
#include "traces/trace_stats.hpp"

namespace gpusim::app {
namespace {

namespace fs = std::filesystem;

void add_inputs(CLI::App& cmd, TraceOptions& o) {
  cmd.add_option("--workload", o.workload,
                 "A Philly job log (timestamp,duration,num_gpus,... CSV), an openb pod CSV, Alibaba's DLRM instances, "
                 "gpusim's native trace (.jsonl), Kubernetes Pod/Job manifests or a bundled name (philly, dlrm, "
                 "openb:default, ...)")
      ->capture_default_str();
  cmd.add_option("--cluster", o.cluster,
                 "Nodes (as for gpusim run); default: the workload's (philly for a Philly job log, dlrm for the DLRM "
                 "trace, the one a native trace's header names, else openb)");
  cmd.add_option("--catalog", o.catalog, "GPU catalog JSON (default: the bundled one)");
}

struct Inputs {
  cluster::GpuCatalog catalog;
  fs::path workload_path;
  std::string cluster_name;
  traces::ClusterSpec cluster;
  traces::Workload workload;
};

Inputs load(const TraceOptions& o) {
  const fs::path root = traces::data_root();
  const fs::path catalog_path = o.catalog.empty() ? traces::default_catalog(root) : fs::path(o.catalog);
  io::require_file(catalog_path, "GPU catalog");
  Inputs in{cluster::GpuCatalog::load(catalog_path), {}, {}, {}, {}};
  const cluster::GpuCatalog& catalog = in.catalog;
  in.workload_path = traces::resolve_workload(o.workload, root);
  io::require_file(in.workload_path, "--workload");
  in.cluster_name = !o.cluster.empty()                          ? o.cluster
                    : traces::is_bundled_workload(o.workload) ? traces::default_cluster_for(o.workload)
                                                              : traces::default_cluster_for_file(in.workload_path);
  const fs::path cluster_path = traces::resolve_cluster(in.cluster_name, root);
  io::require_file(cluster_path, "--cluster");
  in.cluster = is_manifest(cluster_path) ? traces::read_k8s_nodes(cluster_path, catalog) : traces::read_openb_nodes(cluster_path, catalog);
  in.workload = traces::read_workload(in.workload_path, catalog, in.cluster.nodes);
  in.workload.source = o.workload;
  return in;
}

std::string days(double seconds) { return fmt::format("{:.2f}", seconds / 86'400); }

}  // namespace

TraceCommands add_trace_commands(CLI::App& app, TraceOptions& o) {
  auto* trace = app.add_subcommand("trace", "Look into a workload, or make a synthetic job log fitted to one");
  trace->require_subcommand(1);
  TraceCommands commands;
  commands.inspect = trace->add_subcommand(
      "inspect", "Print a workload's jobs, arrivals over time, GPUs and run times per job, and the GPUs it would keep busy "
                 "against the cluster's (nothing is written)");
  add_inputs(*commands.inspect, o);
  commands.inspect->add_option("--bins", o.bins, "time bins over the arrival window")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  commands.synth = trace->add_subcommand(
      "synth", "Write a synthetic job log (Philly CSV) fitted to a trace of whole-GPU jobs: arrivals per hour of the week, "
               "GPUs per job, run times per GPU class, queues (traces/README.md)");
  add_inputs(*commands.synth, o);
  commands.synth->add_option("--jobs", o.jobs, "jobs to generate")->required()->check(CLI::Range(std::int64_t{1}, std::int64_t{100'000'000}));
  commands.synth->add_option("--load", o.load, "arrival rate as a multiple of the trace's")
      ->check(finite_range(0.001, 1e6))
      ->capture_default_str();
  commands.synth->add_option("--seed", o.seed, "seed")
      ->check(CLI::Range(std::int64_t{0}, std::numeric_limits<std::int64_t>::max()))
      ->capture_default_str();
  commands.synth->add_option("--out", o.out,
                             "Output directory (jobs.csv, synth.json): created if absent or empty, replaced if it holds an "
                             "earlier gpusim output, refused otherwise")
      ->required();
  commands.convert = trace->add_subcommand(
      "convert", "Write a workload in gpusim's native format, versioned JSON Lines (traces/FORMAT.md), which run, compare "
                 "and trace read directly");
  add_inputs(*commands.convert, o);
  commands.convert->add_option("--out", o.out,
                               "Output directory (workload.jsonl): created if absent or empty, replaced if it holds an "
                               "earlier gpusim output, refused otherwise")
      ->required();
  return commands;
}

int run_trace_inspect(const TraceOptions& o) {
  const Inputs in = load(o);
  const traces::TraceStats s = traces::trace_stats(in.workload, o.bins);
  std::int64_t capacity = 0;
  for (const auto& node : in.cluster.nodes) capacity += node.gpu_count;
  fmt::print("workload {}: {} jobs ({} pods, {} gangs), {} queues\n", o.workload, s.jobs, s.pods, s.gangs,
             s.queues == 0 ? 1 : s.queues);
  fmt::print("GPUs asked {:.1f}, GPU-hours {:.1f}; cluster {}: {} GPUs on {} nodes\n", s.gpus_asked, s.gpu_hours,
             in.cluster_name, capacity, in.cluster.nodes.size());
  fmt::print("\nGPUs per job:\n");
  for (const auto& [gpus, jobs] : s.gpu_counts) {
    fmt::print("  {:>8g} {:>9} ({:.2f} %)\n", gpus, jobs, 100.0 * static_cast<double>(jobs) / static_cast<double>(s.jobs));
  }
  if (!s.per_queue.empty()) {
    // The GPUs a queue would deserve if the cluster were shared as the trace's GPU-hours are: one
    // way to set quotas (results/quota-philly).
    fmt::print("\nqueues: jobs, GPU-hours, share of the GPU-hours, that share of the cluster's {} GPUs\n", capacity);
    for (std::size_t q = 0; q < s.per_queue.size(); ++q) {
      const double share = s.gpu_hours > 0 ? s.per_queue[q].gpu_hours / s.gpu_hours : 0;
      fmt::print("  {:<16} {:>7} {:>12.1f} {:>7.2f} % {:>8.1f}\n", in.workload.queues[q], s.per_queue[q].jobs,
                 s.per_queue[q].gpu_hours, 100 * share, share * static_cast<double>(capacity));
    }
  }
  if (!s.run_s.empty()) {
    fmt::print("\nrun time (s) of {} jobs: mean {:.0f}", s.run_s.size(), metrics::sample_mean(s.run_s));
    for (const double q : {0.1, 0.25, 0.5, 0.75, 0.9, 0.99}) {
      fmt::print(", p{:g} {:.0f}", q * 100, metrics::percentile_of_sorted(s.run_s, q));
    }
    fmt::print(", max {:.0f}\n", s.run_s.back());
  }
  if (s.timed) {
    std::int64_t cpu = 0, memory = 0, rdma = 0;
    for (const auto& node : in.cluster.nodes) {
      cpu += node.cpu_milli;
      memory += node.memory_mib;
      rdma += node.rdma_percent;
    }
    fmt::print("\npeak held at once if every pod ran from its arrival (cluster {} has):\n", in.cluster_name);
    fmt::print("  pods {}\n  GPUs {:.1f} ({})\n  vCPUs {:.1f} ({:.1f})\n  memory GiB {:.1f} ({:.1f})\n  RDMA NICs {:.2f} ({:.2f})\n",
               s.peak.pods, s.peak.gpus, capacity, s.peak.cpus, static_cast<double>(cpu) / 1000, s.peak.memory_gib,
               static_cast<double>(memory) / 1024, s.peak.rdma_nics, static_cast<double>(rdma) / 100);
  }
  if (!s.timed) {
    fmt::print("\nno arrival times or run times for every job: no arrivals over time\n");
    return kExitOk;
  }
  if (s.arrivals.empty()) {
    fmt::print("\nevery job arrives at the same time: no arrivals over time\n");
    return kExitOk;
  }
  fmt::print("\narrivals over {} days ({:.1f} jobs per hour); demand: GPUs the jobs would keep busy if each ran from its "
             "arrival (mean over the bin)\n", days(s.span_s), s.span_s > 0 ? 3600.0 * static_cast<double>(s.jobs) / s.span_s : 0.0);
  fmt::print("  {:>9} {:>9} {:>9} {:>10} {:>14} {:>11}\n", "from (d)", "to (d)", "arrivals", "jobs/h", "demand (GPUs)", "of capacity");
  for (std::size_t b = 0; b < s.arrivals.size(); ++b) {
    const double from = s.bin_s * static_cast<double>(b);
    fmt::print("  {:>9} {:>9} {:>9} {:>10.1f} {:>14.1f} {:>10.1f}%\n", days(from), days(from + s.bin_s), s.arrivals[b],
               3600.0 * static_cast<double>(s.arrivals[b]) / s.bin_s, s.demand_gpus[b],
               capacity > 0 ? 100.0 * s.demand_gpus[b] / static_cast<double>(capacity) : 0.0);
  }
  return kExitOk;
}

int run_trace_synth(const TraceOptions& o, io::AbandonList& abandon) {
  const fs::path root = traces::data_root();
  const fs::path workload_path = traces::resolve_workload(o.workload, root);
  // Before anything is read or generated: an unusable --out fails here, at once.
  io::OutputDirectory out(o.out, {workload_path}, &abandon, GPUSIM_VERSION);
  const Inputs in = load(o);
  const traces::TraceModel model = traces::fit_trace(in.workload);
  const std::vector<traces::TraceJob> jobs = traces::synthesize(model, o.jobs, o.load, static_cast<std::uint64_t>(o.seed));
  {
    std::ofstream csv(out.staging() / "jobs.csv", std::ios::binary);
    traces::write_philly_log(csv, jobs, model.queues);
    if (!csv.flush()) throw core::InputError(fmt::format("{}: could not write jobs.csv", o.out));
  }
  nlohmann::ordered_json doc;
  doc["gpusim_version"] = GPUSIM_VERSION;
  doc["source"] = {{"workload", o.workload}, {"workload_fnv1a64", experiment::file_digest(in.workload_path)},
                   {"jobs", model.source_jobs}, {"span_s", model.source_span_s}};
  doc["jobs"] = o.jobs;
  doc["load"] = o.load;
  doc["seed"] = o.seed;
  doc["span_s"] = jobs.back().submit_s;
  doc["model"] = {{"arrivals_per_hour_of_week", nlohmann::json::array()},
                  {"gpus_per_job", model.gpu_values},
                  {"gpus_per_job_cdf", model.gpu_cdf},
                  {"queues", model.queues},
                  {"queue_cdf", model.queue_cdf}};
  for (const double rate : model.arrivals_per_s) doc["model"]["arrivals_per_hour_of_week"].push_back(rate * 3600);
  {
    std::ofstream json(out.staging() / "synth.json", std::ios::binary);
    json << doc.dump(2) << "\n";
    if (!json.flush()) throw core::InputError(fmt::format("{}: could not write synth.json", o.out));
  }
  out.commit();
  fmt::print("wrote {}: {} jobs over {} days ({:.1f} jobs per hour; the trace had {:.1f}), fitted to {}\n", o.out, jobs.size(),
             days(static_cast<double>(jobs.back().submit_s)),
             jobs.back().submit_s > 0 ? 3600.0 * static_cast<double>(jobs.size()) / static_cast<double>(jobs.back().submit_s) : 0.0,
             3600.0 * static_cast<double>(model.source_jobs) / model.source_span_s, o.workload);
  return kExitOk;
}

int run_trace_convert(const TraceOptions& o, io::AbandonList& abandon) {
  const fs::path root = traces::data_root();
  const fs::path workload_path = traces::resolve_workload(o.workload, root);
  io::OutputDirectory out(o.out, {workload_path}, &abandon, GPUSIM_VERSION);
  const Inputs in = load(o);
  for (const std::string& note : in.workload.notes) fmt::print(stderr, "gpusim: note: {}: {}\n", workload_path.string(), note);
  {
    std::ofstream jsonl(out.staging() / "workload.jsonl", std::ios::binary);
    // A cluster given by path is recorded absolute, so the trace runs on it from any directory.
    const bool bundled_cluster = in.cluster_name.find('/') == std::string::npos && !fs::exists(in.cluster_name);
    const std::string cluster = bundled_cluster ? in.cluster_name : fs::weakly_canonical(in.cluster_name).string();
    traces::write_native_workload(jsonl, in.workload, in.catalog, cluster);
    if (!jsonl.flush()) throw core::InputError(fmt::format("{}: could not write workload.jsonl", o.out));
  }
  out.commit();
  fmt::print("wrote {}: {} pods of {} ({}), for cluster {}\n", (fs::path(o.out) / "workload.jsonl").string(),
             in.workload.pods.size(), o.workload, traces::to_string(traces::workload_format(in.workload_path)), in.cluster_name);
  return kExitOk;
}

}  // namespace gpusim::app
