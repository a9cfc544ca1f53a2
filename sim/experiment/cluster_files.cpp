#include "sim/experiment/cluster_files.hpp"

#include <fmt/format.h>
#include <fmt/os.h>

#include "sim/perf/calibration.hpp"

namespace gpusim::experiment {

void write_nodes_csv(const std::filesystem::path& path, const traces::ClusterSpec& cluster,
                     const cluster::GpuCatalog& catalog, std::span<const NodeDevices> devices) {
  auto out = fmt::output_file(path.string());
  out.print("node,gpu_model,model_name,gpus,devices,device_plugin,cpu_milli,gpu_memory_mib\n");
  for (std::size_t n = 0; n < cluster.nodes.size(); ++n) {
    const cluster::NodeSpec& node = cluster.nodes[n];
    const NodeDevices own = n < devices.size() ? devices[n] : NodeDevices{};
    if (node.gpu_count == 0) {
      out.print("{},,,0,0,,{},0\n", node.name, node.cpu_milli);
      continue;
    }
    const cluster::GpuModel& model = catalog.at(node.gpu_model);
    // dcgm-exporter's modelName is the driver's device name; the catalog's name where none is known.
    const std::string device = perf::device_name_for(model.id);
    const std::int64_t memory = node.gpu_memory_mib > 0 ? node.gpu_memory_mib : model.memory_mib;
    out.print("{},{},{},{},{},{},{},{}\n", node.name, model.id, device.empty() ? model.name : device, node.gpu_count,
              std::int64_t{node.gpu_count} * own.per_gpu, own.plugin, node.cpu_milli, memory);
  }
  out.close();
}

void write_typical_pods_csv(const std::filesystem::path& path, std::span<const metrics::TypicalPod> typical,
                            const cluster::GpuCatalog& catalog) {
  auto out = fmt::output_file(path.string());
  out.print("cpu_milli,gpu_milli,gpu_count,gpu_models,count,probability\n");
  for (const metrics::TypicalPod& pod : typical) {
    std::string models;
    for (std::size_t id = 0; id < catalog.size(); ++id) {
      if (pod.models.bits == 0 || !pod.models.allows(static_cast<cluster::GpuModelId>(id))) continue;
      if (!models.empty()) models += '|';
      models += catalog.at(static_cast<cluster::GpuModelId>(id)).id;
    }
    // 17 significant digits: the export reads back the very probabilities the run used.
    out.print("{},{},{},{},{},{:.17g}\n", pod.cpu_milli, pod.gpu_milli, pod.gpu_count, models, pod.count, pod.probability);
  }
  out.close();
}

}  // namespace gpusim::experiment
