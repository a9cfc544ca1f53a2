#include "sim/report/openmetrics.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <map>
#include <vector>

#include "sim/cluster/pod.hpp"
#include "sim/core/status.hpp"
#include "sim/metrics/fragmentation.hpp"
#include "sim/report/output_files.hpp"
#include "sim/report/run_cluster.hpp"
#include "sim/sched/names.hpp"

namespace gpusim::report {
namespace {

// A number field of pods.csv; a malformed one is an input error, never a made-up value.
double field(const Table& table, std::size_t row, std::size_t column, bool allow_empty) {
  const double value = table.number(row, column);
  if (std::isnan(value) && !(allow_empty && table.rows[row][column].empty())) {
    throw core::InputError(fmt::format("pods.csv:{}: {}: '{}' is not a number", row + 2, table.header[column], table.rows[row][column]));
  }
  return value;
}

namespace fs = std::filesystem;
using core::InputError;

constexpr std::int64_t kMinStep = 15;              // a Prometheus scrape interval
constexpr double kDefaultSamples = 1'000'000;      // the default step aims at about this many
constexpr double kMaxSamples = 50'000'000;         // an explicit --step may not ask for more

// A pod of pods.csv that started: where, what, from when to when (end -1: still running).
struct Placed {
  std::size_t node = 0;
  std::vector<int> gpus;
  std::int64_t cpu_milli = 0;
  std::int32_t gpu_milli = 0;
  double start = 0, end = -1, arrival = 0;
  std::string outcome;
};

struct PodRow {
  double arrival = 0, start = -1, end = -1;
  std::string outcome;
};

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

  // The run's pods, placed or not.
  const fs::path pods_file = run.dir / "pods.csv";
  const Table pods = read_table(pods_file);
  const auto column = [&](const char* name) {
    try {
      return pods.column(name);
    } catch (const InputError& e) {
      throw InputError(fmt::format("{}:1: header: {}", pods_file.string(), e.what()));
    }
  };
  const auto c_arrival = column("arrival_s"), c_start = column("start_s"), c_end = column("end_s"), c_outcome = column("outcome"),
             c_node = column("node"), c_gpus = column("gpus"), c_cpu = column("cpu_milli"), c_milli = column("gpu_milli"),
             c_share = column("gpu_share_milli");
  std::vector<Placed> placed;
  std::vector<PodRow> rows;
  double span = 0;
  for (std::size_t r = 0; r < pods.rows.size(); ++r) {
    if (pods.rows[r].size() != pods.header.size()) throw InputError(fmt::format("pods.csv:{}: expected {} fields", r + 2, pods.header.size()));
    PodRow row{field(pods, r, c_arrival, false), field(pods, r, c_start, true), field(pods, r, c_end, true), pods.rows[r][c_outcome]};
    if (std::isnan(row.start)) row.start = -1;
    if (std::isnan(row.end)) row.end = -1;
    span = std::max({span, row.arrival, row.end});
    rows.push_back(row);
    if (row.start < 0) continue;
    const std::string& node_name = pods.rows[r][c_node];
    const auto it = node_index.find(node_name);
    if (it == node_index.end()) {
      throw InputError(fmt::format("pods.csv:{}: node: '{}' is not in {}", r + 2, node_name, (o.dir / "nodes.csv").string()));
    }
    const RunNode& node = cluster.nodes[it->second];
    const double cpu = field(pods, r, c_cpu, false), milli = field(pods, r, c_milli, false), held = field(pods, r, c_share, false);
    if (cpu < 0 || cpu > 1e12 || milli < 0 || milli > cluster::kMilliPerGpu || held < 0 || held > cluster::kMilliPerGpu) {
      throw InputError(fmt::format("pods.csv:{}: cpu_milli, gpu_milli or gpu_share_milli out of range", r + 2));
    }
    // On a node whose GPUs are one device each, a pod holds gpu_milli of each; on replicas and MIG
    // instances, the share of the physical GPU it holds or runs at (gpu_share_milli).
    const double share = node.devices_per_gpu() == 1 ? milli : held;
    Placed p{it->second, {}, static_cast<std::int64_t>(cpu), static_cast<std::int32_t>(share), row.start, row.end, row.arrival, row.outcome};
    const std::string& gpus = pods.rows[r][c_gpus];
    for (std::size_t pos = 0; pos < gpus.size();) {
      const std::size_t dash = std::min(gpus.find('-', pos), gpus.size());
      int device = -1;
      const auto [end, error] = std::from_chars(gpus.data() + pos, gpus.data() + dash, device);
      if (error != std::errc{} || end != gpus.data() + dash || device < 0 || device >= node.devices) {
        throw InputError(fmt::format("pods.csv:{}: gpus: '{}' is not a list of device indices of node {} ({} devices)", r + 2,
                                     gpus, node.name, node.devices));
      }
      p.gpus.push_back(device / node.devices_per_gpu());
      pos = dash + 1;
    }
    placed.push_back(std::move(p));
  }
  // Two DCGM series per GPU, two per node, a few cluster-wide: the default step keeps the file
  // near a million samples (a 6,212-GPU cluster: about 70 points a series; pass --step for more).
  std::int64_t gpu_count = 0;
  for (const auto& node : cluster.nodes) gpu_count += node.gpus;
  const double series = 2.0 * static_cast<double>(gpu_count) + 2.0 * static_cast<double>(cluster.nodes.size()) + 8;
  const double default_points = std::clamp(kDefaultSamples / series, 50.0, 500.0);
  const std::int64_t step =
      o.step_s > 0 ? o.step_s : std::max<std::int64_t>(kMinStep, static_cast<std::int64_t>(std::ceil(span / default_points)));
  // Every step from 0, and the end of the run itself, so that the final state is always sampled.
  std::vector<double> times;
  for (double t = 0; t <= span; t += static_cast<double>(step)) times.push_back(t);
  if (times.back() < span) times.push_back(span);
  const std::size_t points = times.size();
  if (static_cast<double>(points) * series > kMaxSamples) {
    throw InputError(fmt::format("--step {} s gives {} samples per series, {:.0f} in all (at most {:.0f}); choose a larger step",
                                 step, points, static_cast<double>(points) * series, kMaxSamples));
  }

  // FGD's fragmentation counts idle milli of whole GPUs; MIG instances are devices of several
  // sizes, where it is undefined (as the run's own fragmentation metrics say).
  const bool mig = std::any_of(cluster.nodes.begin(), cluster.nodes.end(), [](const RunNode& node) { return node.plugin == "mig"; });
  const std::vector<metrics::TypicalPod> no_typical;
  const std::vector<metrics::TypicalPod>& typical = mig ? no_typical : cluster.typical;
  if (mig && !cluster.typical.empty()) {
    fmt::print(stderr, "gpusim: note: no gpusim_fragmented_gpus series: FGD's fragmentation is undefined on MIG instances\n");
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
  for (std::size_t k = 0; k < points; ++k) {
    const double t = times[k];
    for (std::size_t n = 0; n < cluster.nodes.size(); ++n) cpu_free[n] = cluster.nodes[n].cpu_milli;
    std::fill(gpu_used.begin(), gpu_used.end(), 0);
    for (const Placed& p : placed) {
      if (p.start > t || (p.end >= 0 && p.end <= t)) continue;
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
    for (const PodRow& row : rows) {
      if (row.arrival > t) continue;
      const bool started = row.start >= 0 && row.start <= t;
      const bool ended = row.end >= 0 && row.end <= t;
      if (!started && row.outcome == "failed") {
        phases["Failed"][k] += 1;  // fill: fit nowhere and dropped on arrival
      } else if (!started) {
        if (!ended) phases["Pending"][k] += 1;  // still waiting (withdrawn pods vanish, like deleted ones)
      } else if (!ended) {
        phases["Running"][k] += 1;
      } else if (row.outcome == "completed") {
        phases["Succeeded"][k] += 1;
      } else if (row.outcome == "failed") {
        phases["Failed"][k] += 1;
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
  out << "# EOF\n";
}

}  // namespace gpusim::report
