#include "sim/report/run_cluster.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "sim/cluster/gpu_set.hpp"
#include "sim/cluster/pod.hpp"
#include "sim/core/status.hpp"
#include "sim/report/output_files.hpp"

namespace gpusim::report {
namespace {

namespace fs = std::filesystem;
using core::InputError;

// A whole number of a CSV field in [low, high], or an error naming the file, line and column.
template <typename Int>
Int whole(const Table& table, const fs::path& file, std::size_t row, std::size_t column, Int low, Int high) {
  const std::string_view text = table.row(row)[column];
  Int value{};
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc{} || end != text.data() + text.size() || value < low || value > high) {
    throw InputError(fmt::format("{}:{}: {}: '{}' is not a whole number in [{}, {}]", file.string(), row + 2,
                                 table.header[column], text, low, high));
  }
  return value;
}

cluster::GpuModelId model_id(std::vector<std::string>& models, const std::string& id, const fs::path& file, std::size_t row) {
  const auto it = std::find(models.begin(), models.end(), id);
  if (it != models.end()) return static_cast<cluster::GpuModelId>(it - models.begin());
  // A GPU model set is a 64-bit mask of model ids.
  if (models.size() >= 64) throw InputError(fmt::format("{}:{}: more than 64 GPU models", file.string(), row + 2));
  models.push_back(id);
  return static_cast<cluster::GpuModelId>(models.size() - 1);
}

std::vector<RunNode> read_nodes(const fs::path& file, std::vector<std::string>& models) {
  const Table table = read_table(file);
  const auto c_node = table.column("node"), c_model = table.column("gpu_model"), c_name = table.column("model_name"),
             c_gpus = table.column("gpus"), c_devices = table.column("devices"), c_plugin = table.column("device_plugin"),
             c_cpu = table.column("cpu_milli"), c_memory = table.column("gpu_memory_mib");
  std::vector<RunNode> nodes;
  for (std::size_t r = 0; r < table.row_count(); ++r) {
    const auto row = table.row(r);
    RunNode node{std::string(row[c_node]), std::string(row[c_model]), std::string(row[c_name]),
                 whole<std::int32_t>(table, file, r, c_gpus, 0, cluster::kMaxGpusPerNode),
                 whole<std::int32_t>(table, file, r, c_devices, 0, cluster::kMaxGpusPerNode), std::string(row[c_plugin]),
                 whole<std::int64_t>(table, file, r, c_cpu, 0, std::int64_t{1} << 50),
                 whole<std::int64_t>(table, file, r, c_memory, 0, std::int64_t{1} << 40), 0};
    if (node.name.empty()) throw InputError(fmt::format("{}:{}: node: empty", file.string(), r + 2));
    if (node.gpus == 0 && node.devices != 0) {
      throw InputError(fmt::format("{}:{}: devices: {} on a node without GPUs", file.string(), r + 2, node.devices));
    }
    if (node.gpus > 0 && (node.devices < node.gpus || node.devices % node.gpus != 0)) {
      throw InputError(fmt::format("{}:{}: devices: {} is not a multiple of the node's {} GPUs", file.string(), r + 2,
                                   node.devices, node.gpus));
    }
    if (node.gpus > 0) node.model_id = model_id(models, node.model, file, r);
    nodes.push_back(std::move(node));
  }
  return nodes;
}

std::vector<metrics::TypicalPod> read_typical(const fs::path& file, std::vector<std::string>& models) {
  const Table table = read_table(file);
  const auto c_cpu = table.column("cpu_milli"), c_milli = table.column("gpu_milli"), c_count = table.column("gpu_count"),
             c_models = table.column("gpu_models"), c_pods = table.column("count"), c_p = table.column("probability");
  std::vector<metrics::TypicalPod> typical;
  for (std::size_t r = 0; r < table.row_count(); ++r) {
    metrics::TypicalPod pod;
    pod.cpu_milli = whole<std::int64_t>(table, file, r, c_cpu, 0, std::int64_t{1} << 50);
    pod.gpu_milli = whole<std::int32_t>(table, file, r, c_milli, 0, cluster::kMilliPerGpu);
    pod.gpu_count = whole<std::int32_t>(table, file, r, c_count, 0, cluster::kMaxGpusPerNode);
    pod.count = whole<std::int64_t>(table, file, r, c_pods, 0, std::int64_t{1} << 50);
    const std::string_view list = table.row(r)[c_models];
    for (std::size_t pos = 0; pos < list.size();) {
      const std::size_t bar = std::min(list.find('|', pos), list.size());
      pod.models.add(model_id(models, std::string(list.substr(pos, bar - pos)), file, r));
      pos = bar + 1;
    }
    pod.probability = table.number(r, c_p);
    if (!(pod.probability >= 0 && pod.probability <= 1)) {
      throw InputError(fmt::format("{}:{}: probability: '{}' is not a number in [0, 1]", file.string(), r + 2, table.row(r)[c_p]));
    }
    typical.push_back(pod);
  }
  return typical;
}

}  // namespace

RunCluster read_run_cluster(const fs::path& dir) {
  const fs::path nodes = dir / "nodes.csv";
  if (!fs::exists(nodes)) {
    throw InputError(fmt::format("{}: no nodes.csv: a gpusim older than this one wrote this output; run it again "
                                 "to export it", dir.string()));
  }
  RunCluster cluster;
  cluster.nodes = read_nodes(nodes, cluster.models);
  if (const fs::path typical = dir / "typical-pods.csv"; fs::exists(typical)) cluster.typical = read_typical(typical, cluster.models);
  return cluster;
}

}  // namespace gpusim::report
