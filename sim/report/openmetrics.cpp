#include "sim/report/openmetrics.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <map>
#include <vector>

#include "sim/cluster/gpu_catalog.hpp"
#include "sim/cluster/pod.hpp"
#include "sim/core/status.hpp"
#include "sim/metrics/fragmentation.hpp"
#include "sim/core/rng.hpp"
#include "sim/io/input_file.hpp"
#include "sim/perf/calibration.hpp"
#include "sim/report/output_files.hpp"
#include "sim/sched/names.hpp"
#include "traces/bundled.hpp"
#include "traces/openb_reader.hpp"

namespace gpusim::report {
namespace {

std::string digest_of(const std::filesystem::path& path) {
  return fmt::format("{:016x}", core::fnv1a64(io::read_file(path, "input")));
}

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
  const auto& inputs = output.summary.at("inputs");
  const fs::path root = traces::data_root();
  const cluster::GpuCatalog catalog =
      cluster::GpuCatalog::load(o.catalog.empty() ? traces::default_catalog(root) : fs::path(o.catalog));
  const std::string cluster_name = o.cluster.empty() ? inputs.value("cluster", "") : o.cluster;
  const fs::path cluster_path = traces::resolve_cluster(cluster_name, root);
  // The node list must be the run's own: the summary keeps its digest.
  if (const std::string digest = digest_of(cluster_path); digest != inputs.value("cluster_fnv1a64", digest)) {
    throw InputError(fmt::format("{}: not the node list this run used (digest {} vs {} in summary.json); pass the run's with --cluster",
                                 cluster_path.string(), digest, inputs.value("cluster_fnv1a64", "")));
  }
  const traces::ClusterSpec cluster = traces::read_openb_nodes(cluster_path, catalog);
  std::map<std::string, std::size_t> node_index;
  for (std::size_t n = 0; n < cluster.nodes.size(); ++n) node_index[cluster.nodes[n].name] = n;

  // The run's pods, placed or not.
  const Table pods = read_table(run.dir / "pods.csv");
  const auto c_arrival = pods.column("arrival_s"), c_start = pods.column("start_s"), c_end = pods.column("end_s"),
             c_outcome = pods.column("outcome"), c_node = pods.column("node"), c_gpus = pods.column("gpus"),
             c_cpu = pods.column("cpu_milli"), c_milli = pods.column("gpu_milli");
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
    const std::string& node = pods.rows[r][c_node];
    const auto it = node_index.find(node);
    if (it == node_index.end()) {
      throw InputError(fmt::format("{}: pod on node '{}', which the node list {} does not have (pass --cluster)",
                                   (run.dir / "pods.csv").string(), node, cluster_name));
    }
    const double cpu = field(pods, r, c_cpu, false), milli = field(pods, r, c_milli, false);
    if (cpu < 0 || cpu > 1e12 || milli < 0 || milli > cluster::kMilliPerGpu) {
      throw InputError(fmt::format("pods.csv:{}: cpu_milli or gpu_milli out of range", r + 2));
    }
    Placed p{it->second, {}, static_cast<std::int64_t>(cpu), static_cast<std::int32_t>(milli), row.start, row.end, row.arrival, row.outcome};
    const std::string& gpus = pods.rows[r][c_gpus];
    for (std::size_t pos = 0; pos < gpus.size();) {
      const std::size_t dash = std::min(gpus.find('-', pos), gpus.size());
      int g = -1;
      const auto [end, error] = std::from_chars(gpus.data() + pos, gpus.data() + dash, g);
      if (error != std::errc{} || end != gpus.data() + dash || g < 0 || g >= cluster.nodes[p.node].gpu_count) {
        throw InputError(fmt::format("pods.csv:{}: gpus: '{}' is not a list of GPU indices of node {}", r + 2, gpus, node));
      }
      p.gpus.push_back(g);
      pos = dash + 1;
    }
    placed.push_back(std::move(p));
  }
  // Two DCGM series per GPU, two per node, a few cluster-wide: the default step keeps the file
  // near a million samples (a 6,212-GPU cluster: about 70 points a series; pass --step for more).
  std::int64_t gpu_count = 0;
  for (const auto& node : cluster.nodes) gpu_count += node.gpu_count;
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

  // The typical pods of the workload the run replayed, for the fragmentation series.
  std::vector<metrics::TypicalPod> typical;
  try {
    const fs::path workload = traces::resolve_workload(o.workload.empty() ? inputs.value("workload", "") : o.workload, root);
    if (digest_of(workload) != inputs.value("workload_fnv1a64", "")) throw InputError("not the run's pod list (digest differs)");
    typical = metrics::typical_pods(traces::read_openb_pods(workload, catalog).pods);
  } catch (const InputError& e) {
    fmt::print(stderr, "gpusim: note: no gpusim_fragmented_gpus series: the run's pod list is needed for its typical pods "
                       "(pass it with --workload): {}\n", e.what());
  }

  // Sweep: at each sample time, the state after every start and end at or before it.
  std::vector<std::size_t> gpu_offset{0};
  for (const auto& node : cluster.nodes) gpu_offset.push_back(gpu_offset.back() + static_cast<std::size_t>(node.gpu_count));
  const std::size_t gpu_total = gpu_offset.back();
  std::vector<std::vector<double>> gpu_util(gpu_total, std::vector<double>(points));
  std::vector<std::vector<double>> node_alloc(cluster.nodes.size(), std::vector<double>(points));
  std::map<std::string, std::vector<double>> phases{{"Pending", std::vector<double>(points)}, {"Running", std::vector<double>(points)},
                                                    {"Succeeded", std::vector<double>(points)}, {"Failed", std::vector<double>(points)}};
  std::vector<double> fragmented(points), allocated(points);
  std::vector<std::int32_t> gpu_free(gpu_total);
  std::vector<std::int64_t> cpu_free(cluster.nodes.size());
  for (std::size_t k = 0; k < points; ++k) {
    const double t = times[k];
    for (std::size_t n = 0; n < cluster.nodes.size(); ++n) cpu_free[n] = cluster.nodes[n].cpu_milli;
    std::fill(gpu_free.begin(), gpu_free.end(), cluster::kMilliPerGpu);
    for (const Placed& p : placed) {
      if (p.start > t || (p.end >= 0 && p.end <= t)) continue;
      cpu_free[p.node] -= p.cpu_milli;
      for (const int g : p.gpus) gpu_free[gpu_offset[p.node] + static_cast<std::size_t>(g)] -= p.gpu_milli;
    }
    double total = 0, frag = 0;
    for (std::size_t n = 0; n < cluster.nodes.size(); ++n) {
      double node_milli = 0;
      for (std::size_t g = gpu_offset[n]; g < gpu_offset[n + 1]; ++g) {
        const double used = cluster::kMilliPerGpu - gpu_free[g];
        gpu_util[g][k] = used / 10.0;
        node_milli += used;
      }
      node_alloc[n][k] = node_milli / 1000.0;
      total += node_milli / 1000.0;
      if (!typical.empty() && cluster.nodes[n].gpu_count > 0) {
        const std::span<const std::int32_t> free(gpu_free.data() + gpu_offset[n], gpu_offset[n + 1] - gpu_offset[n]);
        frag += metrics::fragmentation_milli(typical, {cpu_free[n], free, cluster.nodes[n].gpu_model});
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

  // dcgm-exporter's modelName is the driver's device name; the catalog name stands in where none is known.
  const auto model_name = [&](cluster::GpuModelId id) {
    const std::string device = perf::device_name_for(catalog.at(id).id);
    return escape(device.empty() ? catalog.at(id).name : device);
  };
  {
    Family family(out, "DCGM_FI_DEV_GPU_UTIL", "GPU utilization (in %); gpusim: the share of the GPU allocated to pods");
    for (std::size_t n = 0; n < cluster.nodes.size(); ++n) {
      const auto& node = cluster.nodes[n];
      for (int g = 0; g < node.gpu_count; ++g) {
        family.series(fmt::format("gpu=\"{}\",Hostname=\"{}\",modelName=\"{}\"", g, escape(node.name), model_name(node.gpu_model)),
                      gpu_util[gpu_offset[n] + static_cast<std::size_t>(g)], o.epoch_s, times);
      }
    }
  }
  {
    Family family(out, "DCGM_FI_DEV_FB_USED", "Framebuffer memory used (in MiB); gpusim: the allocated share of the GPU's memory");
    for (std::size_t n = 0; n < cluster.nodes.size(); ++n) {
      const auto& node = cluster.nodes[n];
      const double memory = static_cast<double>(catalog.at(node.gpu_model).memory_mib);
      if (memory <= 0) continue;  // the catalog does not know this model's memory: no series, not 0 MiB
      for (int g = 0; g < node.gpu_count; ++g) {
        std::vector<double> used = gpu_util[gpu_offset[n] + static_cast<std::size_t>(g)];
        for (double& v : used) v = std::round(v / 100.0 * memory);
        family.series(fmt::format("gpu=\"{}\",Hostname=\"{}\",modelName=\"{}\"", g, escape(node.name), model_name(node.gpu_model)),
                      used, o.epoch_s, times);
      }
    }
  }
  {
    Family family(out, "kube_node_status_allocatable", "The allocatable for different resources of a node that are available for scheduling.");
    for (const auto& node : cluster.nodes) {
      family.series(fmt::format("node=\"{}\",resource=\"nvidia_com_gpu\",unit=\"integer\"", escape(node.name)),
                    std::vector<double>(points, node.gpu_count), o.epoch_s, times);
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
