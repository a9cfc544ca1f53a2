#include "sim/report/report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <optional>

#include "sim/core/status.hpp"
#include "sim/report/never_ran_section.hpp"
#include "sim/report/output_files.hpp"
#include "sim/report/plots.hpp"
#include "sim/report/shown_number.hpp"

namespace gpusim::report {
namespace {

enum class Unit { kPercent, kCount, kGpus, kDuration, kRatio };

struct Column {
  const char* metric;
  const char* header;
  Unit unit;
};

const std::vector<Column>& fill_columns() {
  static const std::vector<Column> columns{
      {"gpu_allocation_pct", "GPUs allocated (%)", Unit::kPercent}, {"unallocated_gpus", "unallocated GPUs", Unit::kGpus},
      {"fragmentation_pct", "fragmentation (% of idle)", Unit::kPercent}, {"fragmented_gpus", "fragmented GPUs", Unit::kGpus},
      {"failed_pods", "pods that fit nowhere", Unit::kCount}, {"gpus_in_use_pct", "GPUs in use (%)", Unit::kPercent}};
  return columns;
}

const std::vector<Column>& replay_columns() {
  static const std::vector<Column> columns{
      {"mean_jct_s", "mean pod JCT", Unit::kDuration}, {"p95_jct_s", "p95 pod JCT", Unit::kDuration},
      {"mean_queueing_delay_s", "mean pod queueing delay", Unit::kDuration}, {"makespan_s", "makespan", Unit::kDuration},
      {"mean_gpu_allocation_pct", "GPUs allocated (%, time mean)", Unit::kPercent}, {"completed_pods", "completed", Unit::kCount},
      {"failed_pods", "failed", Unit::kCount}, {"withdrawn_pods", "withdrawn", Unit::kCount},
      {"deleted_pods", "deleted", Unit::kCount}, {"unscheduled_pods", "never scheduled", Unit::kCount}};
  return columns;
}

// The Kubernetes layer's figures (replay; sim/k8s/README.md), in a second table.
const std::vector<Column>& kubernetes_columns() {
  static const std::vector<Column> columns{
      {"scheduling_attempts", "scheduling attempts", Unit::kCount},
      {"admission_failures", "admission failures", Unit::kCount},
      {"pods_recreated", "pods recreated", Unit::kCount},
      {"mean_time_to_running_s", "creation to Running", Unit::kDuration},
      {"mean_ttr_admission_retries_s", "of it: admission retries", Unit::kDuration},
      {"gpu_failures", "GPU failures", Unit::kCount},
      {"gpu_hours_lost_to_failures", "GPU-hours lost (GPU failures)", Unit::kGpus},
      {"pods_evicted", "pods evicted", Unit::kCount},
      {"gpu_hours_lost_to_node_failures", "GPU-hours lost (node failures)", Unit::kGpus},
      {"terminated_pod_gpu_hours", "GPU-hours held for ended pods", Unit::kGpus},
      {"cross_cpu_placement_pct", "multi-GPU placements across sockets (%)", Unit::kPercent}};
  return columns;
}

// Job metrics (traces of jobs, e.g. Philly: a gang counted once), in a table when a run has them.
const std::vector<Column>& job_columns() {
  static const std::vector<Column> columns{
      {"completed_jobs", "jobs completed", Unit::kCount},
      {"job_mean_jct_s", "mean job JCT", Unit::kDuration},
      {"job_p50_jct_s", "median job JCT", Unit::kDuration},
      {"job_p95_jct_s", "p95 job JCT", Unit::kDuration},
      {"job_p99_jct_s", "p99 job JCT", Unit::kDuration},
      {"job_mean_queueing_s", "mean job queueing", Unit::kDuration},
      {"job_mean_slowdown", "mean slowdown", Unit::kRatio},
      {"job_mean_ftf_rho", "mean FTF rho", Unit::kRatio},
      {"job_max_ftf_rho", "max FTF rho", Unit::kRatio},
      {"queue_slowdown_jain", "Jain over queues", Unit::kRatio}};
  return columns;
}

// Shared GPUs' figures (time-slicing, MPS, gpushare), in a third table when a run has them.
const std::vector<Column>& sharing_columns() {
  static const std::vector<Column> columns{
      {"shared_gpus_in_use_pct", "shared GPUs in use (%)", Unit::kPercent},
      {"shared_busy_pct", "busy (%, speed model)", Unit::kPercent},
      {"mean_slowdown", "mean slowdown", Unit::kRatio},
      {"p95_slowdown", "p95 slowdown", Unit::kRatio},
      {"shared_pods_with_corunners", "pods with co-runners", Unit::kCount},
      {"shared_pods_with_measured_pair", "pods at Gavel's pair speeds", Unit::kCount},
      {"shared_measured_pair_gpu_hours", "GPU-hours at pair speeds", Unit::kGpus},
      {"context_switch_gpu_hours", "GPU-hours lost to context switches", Unit::kGpus},
      {"multi_replica_refused", "multi-replica pods refused", Unit::kCount},
      {"multi_replica_split_across_gpus", "multi-replica pods across GPUs", Unit::kCount},
      {"oom_kills", "OOM kills", Unit::kCount},
      {"oom_neighbours_killed", "of them killed by another pod's start", Unit::kCount}};
  return columns;
}

// MIG instances' figures, in a table of their own when a run has MIG nodes.
const std::vector<Column>& mig_columns() {
  static const std::vector<Column> columns{
      {"mig_gpus", "MIG GPUs", Unit::kCount},
      {"mig_compute_allocated_pct", "compute slices allocated (%)", Unit::kPercent},
      {"mig_pods_finished", "pods finished on instances", Unit::kCount},
      {"mig_mean_slowdown", "mean slowdown", Unit::kRatio},
      {"mig_p95_slowdown", "p95 slowdown", Unit::kRatio},
      {"mig_reconfigurations", "re-partitions", Unit::kCount},
      {"mig_reconfiguration_gpu_hours", "GPU-hours re-partitioning", Unit::kGpus},
      {"oom_kills", "OOM kills", Unit::kCount}};
  return columns;
}

// The FGD artifact's published means on the default openb trace at 130% (../shared/docs/peers.md
// §8.1: hkust-adsl/kubernetes-scheduler-simulator, 10 seeds).
std::optional<double> published_fgd_default(const std::string& policy) {
  static const std::map<std::string, double> figures{{"random", 87.47},         {"dotprod", 90.85}, {"gpu-clustering", 91.88},
                                                     {"gpu-packing", 92.00},    {"bestfit", 93.08}, {"fgd", 95.39}};
  const auto it = figures.find(policy);
  if (it == figures.end()) return std::nullopt;
  return it->second;
}

bool reproduces_fgd_default(const nlohmann::ordered_json& summary) {
  const auto& inputs = summary.at("inputs");
  return summary.value("mode", "") == "fill" && inputs.value("cluster", "") == "openb" &&
         inputs.value("workload", "") == "openb:default" && inputs.value("fill_target", 0.0) == 1.3 && !inputs.contains("order");
}

std::string cell(const nlohmann::ordered_json& metric, Unit unit, bool single, std::size_t runs) {
  if (metric.at("mean").is_null()) return "n/a";
  // Defined in only some runs: the value of those, and how many they are.
  if (metric.contains("defined_runs")) {
    const auto defined = metric.at("defined_runs").get<std::size_t>();
    const std::string value = cell(nlohmann::ordered_json{{"mean", metric.at("mean")}, {"std", metric.at("std")}}, unit, defined <= 1, defined);
    return fmt::format("{} ({}/{} runs)", value, defined, runs);
  }
  const double mean = metric.at("mean");
  const double sd = metric.at("std").is_null() ? 0.0 : metric.at("std").get<double>();
  switch (unit) {
    case Unit::kDuration: {
      if (single) return readable_duration(mean);
      // Mean and std in the mean's unit.
      const std::string m = readable_duration(mean);
      const double scale = m.ends_with(" d") ? 86400 : m.ends_with(" h") ? 3600 : m.ends_with(" min") ? 60 : 1;
      const char* name = m.ends_with(" d") ? "d" : m.ends_with(" h") ? "h" : m.ends_with(" min") ? "min" : "s";
      return fmt::format("{} ± {} {}", decimals(mean / scale, 2), decimals(sd / scale, 2), name);
    }
    case Unit::kCount:
      return single ? decimals(mean, 0) : fmt::format("{} ± {}", decimals(mean, 1), decimals(sd, 1));
    case Unit::kPercent:
    case Unit::kGpus:
    case Unit::kRatio:
      return single ? decimals(mean, 2) : fmt::format("{} ± {}", decimals(mean, 2), decimals(sd, 2));
  }
  return "";
}

std::string markdown(const OutputFiles& output, const PlotResult& plots) {
  const auto& s = output.summary;
  const auto& inputs = s.at("inputs");
  const bool fill = output.fill();
  const std::size_t seeds = s.at("seeds").size();
  const bool single = seeds == 1;
  std::string md = fmt::format("# gpusim {} report\n\n", fill ? "fill" : "replay");
  md += fmt::format("- cluster: `{}`\n- workload: `{}`\n", inputs.value("cluster", "?"), inputs.value("workload", "?"));
  if (inputs.contains("profile_files")) {
    // A profile's name is no built-in policy's: its file is what `--policies` needs to run it again.
    std::vector<std::string> files;
    for (const auto& f : inputs.at("profile_files")) files.push_back(fmt::format("`{}` is `{}`", f.value("name", "?"), f.value("file", "?")));
    md += fmt::format("- policies from profile files: {}\n", fmt::join(files, ", "));
  }
  if (fill) {
    md += fmt::format("- fill target: {:.0f}% of cluster GPU capacity\n", inputs.value("fill_target", 0.0) * 100);
    if (inputs.contains("order")) md += fmt::format("- arrival order: {} (no shuffle, no added copies)\n", inputs.value("order", ""));
  } else {
    md += fmt::format("- arrival-time compression: {}x\n", inputs.value("time_compression", 1.0));
  }
  if (inputs.contains("performance_model")) {
    const auto& pm = inputs.at("performance_model");
    md += fmt::format("- performance model: run times scaled from {} ({}, memory-bound fraction {}); figures and their "
                      "sources in performance_model.json\n",
                      pm.value("reference_gpu", "?"), pm.value("precision", "?"), pm.value("memory_fraction", 0.0));
  }
  std::vector<std::string> seed_list;
  for (const auto& seed : s.at("seeds")) seed_list.push_back(std::to_string(seed.get<std::uint64_t>()));
  md += fmt::format("- seeds: {} ({} run{} per policy)\n- gpusim {}\n\n", fmt::join(seed_list, ", "), seeds, single ? "" : "s",
                    s.value("gpusim_version", "?"));

  const auto& columns = fill ? fill_columns() : replay_columns();
  const bool published = reproduces_fgd_default(s);
  md += "| policy |";
  for (const Column& c : columns) {
    md += fmt::format(" {} |", c.header);
    if (published && std::string(c.metric) == "gpu_allocation_pct") md += " FGD artifact (%) | difference (pp) |";
  }
  md += "\n|---|";
  for (const Column& c : columns) md += published && std::string(c.metric) == "gpu_allocation_pct" ? "---:|---:|---:|" : "---:|";
  md += "\n";
  bool any_na = false;
  for (const auto& policy : s.at("policies")) {
    const std::string name = policy.at("name");
    md += fmt::format("| {} |", name);
    for (const Column& c : columns) {
      const std::string text = policy.contains(c.metric) ? cell(policy.at(c.metric), c.unit, single, seeds) : "n/a";
      any_na |= text == "n/a";
      md += fmt::format(" {} |", text);
      if (published && std::string(c.metric) == "gpu_allocation_pct") {
        const auto paper = published_fgd_default(name);
        const auto& metric = policy.at(c.metric);
        if (paper && !metric.at("mean").is_null()) {
          // The difference of the two figures as shown, so that the columns subtract as they read.
          const double shown = shown_value(metric.at("mean").get<double>(), 2);
          md += fmt::format(" {} | {} |", decimals(*paper, 2), signed_decimals(shown - *paper, 2));
        } else {
          md += " | |";
        }
      }
    }
    md += "\n";
  }
  if (!fill) {
    md += "\nPod figures count every pod, each worker of a job too: a pod's JCT is its completion − its arrival, its "
          "queueing delay its first start − its arrival, over completed pods.\n";
    md += "\nKubernetes layer";
    // --config files (device plugins' own configurations) after the --kube settings.
    std::string configs;
    if (inputs.contains("configs")) {
      for (const auto& config : inputs.at("configs")) configs += fmt::format("{}`{}`", configs.empty() ? "" : ", ", config.value("file", "?"));
    }
    if (inputs.contains("kube")) {
      md += fmt::format(" (settings: `{}`{})", inputs.at("kube").value("file", "?"), configs.empty() ? "" : "; configuration: " + configs);
    } else if (!configs.empty()) {
      md += fmt::format(" (configuration: {})", configs);
    } else {
      md += " (default settings: scheduler-assigned devices, no latencies, no failures)";
    }
    const auto add_table = [&](const std::vector<Column>& table) {
      md += ":\n\n| policy |";
      for (const Column& c : table) md += fmt::format(" {} |", c.header);
      md += "\n|---|";
      for (std::size_t i = 0; i < table.size(); ++i) md += "---:|";
      md += "\n";
      for (const auto& policy : s.at("policies")) {
        md += fmt::format("| {} |", policy.at("name").get<std::string>());
        for (const Column& c : table) {
          const std::string text = policy.contains(c.metric) ? cell(policy.at(c.metric), c.unit, single, seeds) : "n/a";
          any_na |= text == "n/a";
          md += fmt::format(" {} |", text);
        }
        md += "\n";
      }
    };
    add_table(kubernetes_columns());
    const auto& policies = s.at("policies");
    if (std::any_of(policies.begin(), policies.end(), [](const auto& p) { return p.contains("completed_jobs"); })) {
      md += "\nJobs (a gang of workers counted once; queues.csv and jobs.csv have the per-queue and per-job figures)";
      add_table(job_columns());
      md += "\nJob figures count a job of the trace once, however many worker pods it has: a job's JCT is its last "
            "pod's end − its arrival, its queueing its first start − its arrival, over completed jobs.\n";
    }
    if (std::any_of(policies.begin(), policies.end(), [](const auto& p) { return p.contains("shared_physical_gpus"); })) {
      const bool pairs = std::any_of(policies.begin(), policies.end(), [](const auto& p) { return p.contains("shared_pods_with_measured_pair"); });
      md += pairs ? "\nShared GPUs (speeds from Gavel's co-location figures for pairs the table has, else from the shared-GPU "
                    "model; its parameters are in summary.json, `sharing_time_slice_overhead` and `sharing_stream_capacity`)"
                  : "\nShared GPUs (speeds from the shared-GPU model; its parameters are in summary.json, "
                    "`sharing_time_slice_overhead` and `sharing_stream_capacity`)";
      // Only the columns some run reports (the OOM figures need the memory model).
      std::vector<Column> reported;
      for (const Column& c : sharing_columns()) {
        if (std::any_of(policies.begin(), policies.end(), [&](const auto& p) { return p.contains(c.metric); })) reported.push_back(c);
      }
      add_table(reported);
    }
    if (std::any_of(policies.begin(), policies.end(), [](const auto& p) { return p.contains("mig_gpus"); })) {
      md += "\nMIG instances (a pod runs on its instance's SMs alone: slowdown = its share of the GPU over the "
            "instance's share of the SMs, at least 1; \"GPUs allocated\" above counts instances, and with dynamic MIG "
            "7 device slots per GPU, so compare compute slices allocated)";
      std::vector<Column> reported;
      for (const Column& c : mig_columns()) {
        if (std::any_of(policies.begin(), policies.end(), [&](const auto& p) { return p.contains(c.metric); })) reported.push_back(c);
      }
      add_table(reported);
    }
  }
  md += single ? "\nOne seed. " : "\nMean ± sample standard deviation over the seeds. ";
  md += "Definitions: results/README.md.";
  if (any_na) md += " n/a: undefined in every run (summary.json says why).";
  if (md.find(" runs) |") != std::string::npos) md += " (k/n runs): defined in k of the n runs only; the value is theirs.";
  md += "\n";
  if (fill) {
    md += "\"GPUs allocated\" is the FGD artifact's headline: the mean GPU (milli) allocation over the arrivals whose\n"
          "arrived load rounds to the target.\n";
  }
  if (published) {
    md += "FGD artifact: the published means of hkust-adsl/kubernetes-scheduler-simulator on this trace (10 seeds; "
          "gpusim's random streams differ from Go's, so single seeds differ).\n";
  }
  md += never_ran_section(s);
  md += "\n## Plots\n\n";
  const bool none_drawn = std::none_of(plots.plots.begin(), plots.plots.end(), [](const Plot& plot) { return !plot.svg.empty(); });
  if (!plots.missing.empty()) md += fmt::format("{}: {}.\n\n", none_drawn ? "No plots" : "Missing plots", plots.missing);
  for (const Plot& plot : plots.plots) {
    if (plot.svg.empty()) md += fmt::format("{}.\n\n", plot.caption);  // not drawn: the caption says why
    else md += fmt::format("![{}]({})\n\n", plot.caption, plot.svg);
  }
  return md;
}

}  // namespace

std::string readable_duration(double seconds) {
  if (std::isnan(seconds)) return "n/a";
  // The unit is chosen on the value as printed (2 decimals), so 119.999 s reads "2.00 min".
  const auto printed = [](double x) { return std::abs(shown_value(x, 2)); };
  if (printed(seconds / 3600) >= 48) return decimals(seconds / 86400, 2) + " d";
  if (printed(seconds / 60) >= 120) return decimals(seconds / 3600, 2) + " h";
  if (printed(seconds) >= 120) return decimals(seconds / 60, 2) + " min";
  return decimals(seconds, 2) + " s";
}

RenderResult render(const std::filesystem::path& dir) {
  const OutputFiles output = read_output(dir);
  const PlotResult plots = draw_plots(output);
  std::ofstream out(dir / "report.md", std::ios::binary);
  out << markdown(output, plots);
  out.close();
  if (!out) throw core::InputError(fmt::format("{}: cannot write report.md", dir.string()));
  RenderResult result;
  for (const Plot& plot : plots.plots) {
    if (!plot.svg.empty()) result.plots.push_back(plot.svg);
  }
  result.missing = plots.missing;
  return result;
}

std::string missing_plots_note(const RenderResult& rendered) {
  if (rendered.missing.empty()) return "";
  return fmt::format("{}: {}", rendered.plots.empty() ? "no plots in report.md" : "report.md lacks plots", rendered.missing);
}

}  // namespace gpusim::report
