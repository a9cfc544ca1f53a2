#include "sim/report/openmetrics.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <map>
#include <optional>
#include <vector>

#include "sim/cluster/pod.hpp"
#include "sim/core/status.hpp"
#include "sim/metrics/fragmentation.hpp"
#include "sim/report/openmetrics_queues.hpp"
#include "sim/report/output_files.hpp"
#include "sim/report/run_cluster.hpp"
#include "sim/sched/names.hpp"

namespace gpusim::report {
namespace {

namespace fs = std::filesystem;
using core::InputError;

constexpr std::int64_t kMinStep = 15;              // a Prometheus scrape interval
constexpr double kDefaultSamples = 1'000'000;      // the default step aims at about this many
constexpr double kMaxSamples = 50'000'000;         // an explicit --step may not ask for more
constexpr double kMaxSeconds = 1e11;               // about 3,000 years: later is a damaged file

// A number field in [0, high] ("" reads -1 where allowed); anything else is an input error naming
// the file, line and column, never a made-up value.
double number(const Table& table, const fs::path& file, std::size_t row, std::size_t column, double high, bool allow_empty) {
  const std::string_view text = table.row(row)[column];
  if (text.empty() && allow_empty) return -1;
  const double value = table.number(row, column);
  if (!(value >= 0 && value <= high)) {
    throw InputError(fmt::format("{}:{}: {}: '{}' is not a number in [0, {:g}]", file.string(), row + 2, table.header[column], text, high));
  }
  return value;
}

// One run of a pod's containers: where, what, from when to when (end -1: still running).
struct Placed {
  std::size_t row = 0;  // of pods.csv
  std::size_t node = 0;
  std::vector<int> gpus;  // physical GPUs, one per device held
  std::int64_t cpu_milli = 0;
  std::int32_t gpu_milli = 0;  // of each GPU
  double start = 0, end = -1;
};

// A row of pods.csv: when it arrived, when its last pod ended (-1: never) and how.
struct PodRow {
  double arrival = 0, end = -1;
  std::string outcome;
  std::int64_t cpu_milli = 0;
  std::int32_t gpu_milli = 0;    // pods.csv's: of each device
  std::int32_t share_milli = 0;  // gpu_share_milli: of each physical GPU
  // What it holds of each GPU of `node`: gpu_milli where each GPU is one device, else its share.
  std::int32_t held_on(const RunNode& node) const { return node.devices_per_gpu() == 1 ? gpu_milli : share_milli; }
};

// The physical GPUs of a list of device indices ("0-3"), each one on the GPU it is part of.
std::vector<int> physical_gpus(std::string_view devices, const RunNode& node, const fs::path& file, std::size_t row) {
  std::vector<int> gpus;
  for (std::size_t pos = 0; pos <= devices.size();) {
    const std::size_t dash = std::min(devices.find('-', pos), devices.size());
    int device = -1;
    const auto [end, error] = std::from_chars(devices.data() + pos, devices.data() + dash, device);
    if (error != std::errc{} || end != devices.data() + dash || device < 0 || device >= node.devices) {
      throw InputError(fmt::format("{}:{}: gpus: '{}' is not a list of device indices of node {} ({} devices)", file.string(),
                                   row + 2, devices, node.name, node.devices));
    }
    gpus.push_back(device / node.devices_per_gpu());
    pos = dash + 1;
  }
  return gpus;
}

std::string escape(const std::string& value) {
  std::string out;
  for (const char c : value) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') out += "\\n";
    else out += c;
  }
  return out;
}

const RunFiles& pick_run(const OutputFiles& output, const OpenMetricsOptions& o) {
  for (const RunFiles& run : output.runs) {
    const bool policy = o.policy.empty() || sched::name_key(run.policy) == sched::name_key(o.policy);
    if (policy && (o.seed < 0 || run.seed == static_cast<std::uint64_t>(o.seed))) return run;
  }
  throw InputError(fmt::format("{}: no run of policy '{}' seed {} in this output", o.dir.string(),
                               o.policy.empty() ? "(any)" : o.policy, o.seed < 0 ? std::string("(any)") : std::to_string(o.seed)));
}

// Seconds since the Unix epoch: whole seconds as integers, others with milliseconds.
std::string timestamp(std::int64_t epoch, double seconds) {
  if (seconds == std::floor(seconds)) return fmt::format("{}", epoch + static_cast<std::int64_t>(seconds));
  return fmt::format("{:.3f}", static_cast<double>(epoch) + seconds);
}

// One gauge family: HELP, TYPE, then each series' samples in time order.
class Family {
 public:
  Family(std::ostream& out, const char* name, const char* help, const char* unit = nullptr) : out_(out), name_(name) {
    out_ << "# TYPE " << name << " gauge\n";
    if (unit != nullptr) out_ << "# UNIT " << name << " " << unit << "\n";
    out_ << "# HELP " << name << " " << help << "\n";
  }
  // `times`: seconds after `epoch`, one per value.
  void series(const std::string& labels, const std::vector<double>& values, std::int64_t epoch, const std::vector<double>& times) {
    for (std::size_t k = 0; k < values.size(); ++k) {
      out_ << name_ << (labels.empty() ? "" : "{" + labels + "}") << ' ' << fmt::format("{:.6g}", values[k]) << ' '
           << timestamp(epoch, times[k]) << '\n';
    }
  }

 private:
  std::ostream& out_;
  std::string name_;
};

}  // namespace

void export_openmetrics(const OpenMetricsOptions& o, std::ostream& out) {
  const OutputFiles output = read_output(o.dir);
  const RunFiles& run = pick_run(output, o);
  const RunCluster cluster = read_run_cluster(o.dir);
  std::map<std::string, std::size_t> node_index;
  for (std::size_t n = 0; n < cluster.nodes.size(); ++n) node_index[cluster.nodes[n].name] = n;

  // The run's pods: every run of their containers (pods.csv has a row's last run; earlier-runs.csv,
  // written when there are any, the runs of its earlier pod objects: preempted, evicted, replaced).
  const fs::path pods_file = run.dir / "pods.csv";
  const Table pods = read_table(pods_file);
  const auto c_arrival = pods.column("arrival_s"), c_start = pods.column("start_s"),
             c_end = pods.column("end_s"), c_outcome = pods.column("outcome"),
             c_node = pods.column("node"), c_gpus = pods.column("gpus"),
             c_cpu = pods.column("cpu_milli"), c_milli = pods.column("gpu_milli"),
             c_share = pods.column("gpu_share_milli");
  const auto node_of = [&](std::string_view name, const fs::path& file, std::size_t r) {
    const auto it = node_index.find(std::string(name));
    if (it == node_index.end()) throw InputError(fmt::format("{}:{}: node: '{}' is not in {}", file.string(), r + 2, name, (o.dir / "nodes.csv").string()));
    return it->second;
  };
  const auto span_of = [](double start, double end, const fs::path& file, std::size_t r) {
    if (end >= 0 && end < start) throw InputError(fmt::format("{}:{}: end_s: {} is before start_s {}", file.string(), r + 2, end, start));
  };
  std::vector<Placed> placed;
  std::vector<PodRow> rows;
  double span = 0;
  for (std::size_t r = 0; r < pods.row_count(); ++r) {
    PodRow row{number(pods, pods_file, r, c_arrival, kMaxSeconds, false), number(pods, pods_file, r, c_end, kMaxSeconds, true),
               std::string(pods.row(r)[c_outcome])};
    const double start = number(pods, pods_file, r, c_start, kMaxSeconds, true);
    span = std::max({span, row.arrival, row.end});
    row.cpu_milli = static_cast<std::int64_t>(number(pods, pods_file, r, c_cpu, 1e12, false));
    row.gpu_milli = static_cast<std::int32_t>(number(pods, pods_file, r, c_milli, cluster::kMilliPerGpu, false));
    row.share_milli = static_cast<std::int32_t>(number(pods, pods_file, r, c_share, cluster::kMilliPerGpu, false));
    if (start >= 0) {
      span_of(start, row.end, pods_file, r);
      const std::size_t node = node_of(pods.row(r)[c_node], pods_file, r);
      const std::string_view gpus = pods.row(r)[c_gpus];
      placed.push_back({r, node, gpus.empty() ? std::vector<int>{} : physical_gpus(gpus, cluster.nodes[node], pods_file, r),
                        row.cpu_milli, row.held_on(cluster.nodes[node]), start, row.end});
    }
    rows.push_back(std::move(row));
  }
  if (const fs::path earlier_file = run.dir / "earlier-runs.csv"; fs::exists(earlier_file)) {
    const Table earlier = read_table(earlier_file);
    const auto c_row = earlier.column("order"), c_where = earlier.column("node"),
               c_devices = earlier.column("gpus"), c_from = earlier.column("start_s"),
               c_to = earlier.column("end_s");
    for (std::size_t r = 0; r < earlier.row_count(); ++r) {
      const double row = number(earlier, earlier_file, r, c_row, static_cast<double>(rows.size()) - 1, false);
      const std::size_t of = static_cast<std::size_t>(row);
      if (static_cast<double>(of) != row) throw InputError(fmt::format("{}:{}: order: not a row of pods.csv", earlier_file.string(), r + 2));
      const std::size_t node = node_of(earlier.row(r)[c_where], earlier_file, r);
      const double start = number(earlier, earlier_file, r, c_from, kMaxSeconds, false);
      const double end = number(earlier, earlier_file, r, c_to, kMaxSeconds, true);
      span_of(start, end, earlier_file, r);
      span = std::max(span, end);
      const std::string_view gpus = earlier.row(r)[c_devices];
      placed.push_back({of, node, gpus.empty() ? std::vector<int>{} : physical_gpus(gpus, cluster.nodes[node], earlier_file, r),
                        rows[of].cpu_milli, rows[of].held_on(cluster.nodes[node]), start, end});
    }
  }
  // A policy with queues of its own (Kueue, KAI) recorded their series: sampled at the same times,
  // to the last change at least.
  std::optional<QueueSeriesFile> queue_series;
  if (const fs::path file = run.dir / "queue-series.csv"; fs::exists(file)) {
    queue_series = read_queue_series(file);
    span = std::max(span, queue_series->last_time_s);
  }
  // Two DCGM series per GPU, two per node, a few cluster-wide: the default step keeps the file
  // near a million samples (a 6,212-GPU cluster: about 70 points a series; pass --step for more).
  std::int64_t gpu_count = 0;
  for (const auto& node : cluster.nodes) gpu_count += node.gpus;
  const double series = 2.0 * static_cast<double>(gpu_count) + 2.0 * static_cast<double>(cluster.nodes.size()) + 8;
  const double default_points = std::clamp(kDefaultSamples / series, 50.0, 500.0);
  // span is at most kMaxSeconds, so these casts are in range.
  const std::int64_t step =
      o.step_s > 0 ? o.step_s : std::max<std::int64_t>(kMinStep, static_cast<std::int64_t>(std::ceil(span / default_points)));
  // Every step from 0, and the end of the run itself, so that the final state is always sampled;
  // counted before anything is allocated.
  const double steps = std::floor(span / static_cast<double>(step)) + 1;
  const double sampled = steps + 1;  // at most: the run's end, if between two steps
  if (sampled * series > kMaxSamples) {
    throw InputError(fmt::format("--step {} s gives {:.0f} samples per series, {:.0f} in all (at most {:.0f}); choose a larger step",
                                 step, sampled, sampled * series, kMaxSamples));
  }
  std::vector<double> times;
  for (std::int64_t k = 0; static_cast<double>(k * step) <= span; ++k) times.push_back(static_cast<double>(k * step));
  if (times.back() < span) times.push_back(span);
  const std::size_t points = times.size();

  // FGD's fragmentation counts idle milli of whole GPUs; MIG instances are devices of several
  // sizes, where it is undefined (as the run's own fragmentation metrics say).
  // On time-slicing and MPS replicas the run measures it on its devices, which these per-GPU series
  // do not keep: summary.json has the run's figure.
  const bool mig = std::any_of(cluster.nodes.begin(), cluster.nodes.end(), [](const RunNode& node) { return node.plugin == "mig"; });
  const bool replicas = std::any_of(cluster.nodes.begin(), cluster.nodes.end(),
                                    [](const RunNode& node) { return node.plugin != "mig" && node.devices_per_gpu() > 1; });
  const std::vector<metrics::TypicalPod> no_typical;
  const std::vector<metrics::TypicalPod>& typical = mig || replicas ? no_typical : cluster.typical;
  if (mig && !cluster.typical.empty()) {
    fmt::print(stderr, "gpusim: note: no gpusim_fragmented_gpus series: FGD's fragmentation is undefined on MIG instances\n");
  } else if (replicas && !cluster.typical.empty()) {
    fmt::print(stderr, "gpusim: note: no gpusim_fragmented_gpus series: on time-slicing and MPS replicas the run measures "
                       "fragmentation on its devices (summary.json has it), not on the physical GPUs these series show\n");
  }

  // Sweep: at each sample time, the state after every start and end at or before it.
  std::vector<std::size_t> gpu_offset{0};
  for (const auto& node : cluster.nodes) gpu_offset.push_back(gpu_offset.back() + static_cast<std::size_t>(node.gpus));
  const std::size_t gpu_total = gpu_offset.back();
  std::vector<std::vector<double>> gpu_util(gpu_total, std::vector<double>(points));
  std::vector<std::vector<double>> node_alloc(cluster.nodes.size(), std::vector<double>(points));
  std::map<std::string, std::vector<double>> phases{{"Pending", std::vector<double>(points)}, {"Running", std::vector<double>(points)},
                                                    {"Succeeded", std::vector<double>(points)}, {"Failed", std::vector<double>(points)}};
  std::vector<double> fragmented(points), allocated(points);
  std::vector<std::int32_t> gpu_used(gpu_total), gpu_free(gpu_total);
  std::vector<std::int64_t> cpu_free(cluster.nodes.size());
  std::vector<std::uint8_t> running(rows.size());  // at the sample time, by row
  const bool fill = output.fill();
  for (std::size_t k = 0; k < points; ++k) {
    const double t = times[k];
    for (std::size_t n = 0; n < cluster.nodes.size(); ++n) cpu_free[n] = cluster.nodes[n].cpu_milli;
    std::fill(gpu_used.begin(), gpu_used.end(), 0);
    std::fill(running.begin(), running.end(), 0);
    for (const Placed& p : placed) {
      if (p.start > t || (p.end >= 0 && p.end <= t)) continue;
      running[p.row] = 1;
      cpu_free[p.node] -= p.cpu_milli;
      for (const int g : p.gpus) gpu_used[gpu_offset[p.node] + static_cast<std::size_t>(g)] += p.gpu_milli;
    }
    double total = 0, frag = 0;
    for (std::size_t n = 0; n < cluster.nodes.size(); ++n) {
      double node_milli = 0;
      for (std::size_t g = gpu_offset[n]; g < gpu_offset[n + 1]; ++g) {
        // Pods time-slicing one GPU may ask more than all of it: it is fully allocated.
        const std::int32_t used = std::min(gpu_used[g], cluster::kMilliPerGpu);
        gpu_free[g] = cluster::kMilliPerGpu - used;
        gpu_util[g][k] = used / 10.0;
        node_milli += used;
      }
      node_alloc[n][k] = node_milli / 1000.0;
      total += node_milli / 1000.0;
      if (!typical.empty() && cluster.nodes[n].gpus > 0) {
        const std::span<const std::int32_t> free(gpu_free.data() + gpu_offset[n], gpu_offset[n + 1] - gpu_offset[n]);
        frag += metrics::fragmentation_milli(typical, {cpu_free[n], free, cluster.nodes[n].model_id});
      }
    }
    allocated[k] = total;
    fragmented[k] = frag / 1000.0;
    for (std::size_t r = 0; r < rows.size(); ++r) {
      const PodRow& row = rows[r];
      if (row.arrival > t) continue;
      if (running[r] != 0) {
        phases["Running"][k] += 1;
      } else if (row.end >= 0 && row.end <= t) {
        // Ended: withdrawn, deleted and preempted-for-good pods vanish, as deleted ones do.
        if (row.outcome == "completed") phases["Succeeded"][k] += 1;
        else if (row.outcome == "failed") phases["Failed"][k] += 1;
      } else if (fill && row.outcome == "failed") {
        phases["Failed"][k] += 1;  // fill: fit nowhere and dropped on arrival
      } else {
        phases["Pending"][k] += 1;  // waiting, before its first run or between two
      }
    }
  }

  const auto gpu_labels = [&](const RunNode& node, int g) {
    return fmt::format("gpu=\"{}\",Hostname=\"{}\",modelName=\"{}\"", g, escape(node.name), escape(node.model_name));
  };
  {
    Family family(out, "DCGM_FI_DEV_GPU_UTIL", "GPU utilization (in %); gpusim: the share of the GPU allocated to pods");
    for (std::size_t n = 0; n < cluster.nodes.size(); ++n) {
      const auto& node = cluster.nodes[n];
      for (int g = 0; g < node.gpus; ++g) {
        family.series(gpu_labels(node, g), gpu_util[gpu_offset[n] + static_cast<std::size_t>(g)], o.epoch_s, times);
      }
    }
  }
  {
    Family family(out, "DCGM_FI_DEV_FB_USED", "Framebuffer memory used (in MiB); gpusim: the allocated share of the GPU's memory");
    for (std::size_t n = 0; n < cluster.nodes.size(); ++n) {
      const auto& node = cluster.nodes[n];
      const double memory = static_cast<double>(node.gpu_memory_mib);
      if (memory <= 0) continue;  // the model's memory is unknown: no series, not 0 MiB
      for (int g = 0; g < node.gpus; ++g) {
        std::vector<double> used = gpu_util[gpu_offset[n] + static_cast<std::size_t>(g)];
        for (double& v : used) v = std::round(v / 100.0 * memory);
        family.series(gpu_labels(node, g), used, o.epoch_s, times);
      }
    }
  }
  {
    // What the node advertises: its devices (time-slicing replicas and MIG instances count one each).
    Family family(out, "kube_node_status_allocatable", "The allocatable for different resources of a node that are available for scheduling.");
    for (const auto& node : cluster.nodes) {
      family.series(fmt::format("node=\"{}\",resource=\"nvidia_com_gpu\",unit=\"integer\"", escape(node.name)),
                    std::vector<double>(points, node.devices), o.epoch_s, times);
    }
  }
  {
    Family family(out, "gpusim_node_allocated_gpus", "GPUs allocated to pods on the node (gpu-milli / 1000).");
    for (std::size_t n = 0; n < cluster.nodes.size(); ++n) family.series(fmt::format("node=\"{}\"", escape(cluster.nodes[n].name)), node_alloc[n], o.epoch_s, times);
  }
  {
    Family family(out, "gpusim_pods", "Pods by Kubernetes phase: Pending (arrived, not started), Running, Succeeded, Failed.");
    for (const auto& [phase, values] : phases) family.series(fmt::format("phase=\"{}\"", phase), values, o.epoch_s, times);
  }
  Family(out, "gpusim_pending_pods", "Pods waiting to be scheduled.").series("", phases["Pending"], o.epoch_s, times);
  Family(out, "gpusim_allocated_gpus", "GPUs allocated in the cluster (gpu-milli / 1000).").series("", allocated, o.epoch_s, times);
  if (!typical.empty()) {
    Family(out, "gpusim_fragmented_gpus", "Fragmented idle GPUs under the workload's typical pods (FGD's measure).")
        .series("", fragmented, o.epoch_s, times);
  }
  if (queue_series) write_queue_families(*queue_series, o.epoch_s, times, out);
  out << "# EOF\n";
}

}  // namespace gpusim::report
