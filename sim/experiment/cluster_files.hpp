#pragma once
// nodes.csv and typical-pods.csv: what a run's cluster and workload were, written with the run so
// that its output directory stands alone (`gpusim export openmetrics` reads nothing else; the
// cluster and workload files may have moved, or been a relative path from another directory).
// Columns are documented in results/README.md.
#include <filesystem>
#include <span>

#include "sim/cluster/gpu_catalog.hpp"
#include "sim/experiment/run_result.hpp"
#include "sim/metrics/fragmentation.hpp"
#include "traces/workload.hpp"

namespace gpusim::experiment {

// One line per node: name, GPU model (catalog id and the device name DCGM reports), physical GPUs,
// the devices its plugin advertises (replicas, MIG instance slots), the plugin, CPU and GPU memory.
// `devices`: one per node (replay), or empty (fill: one device per GPU, no device plugin).
void write_nodes_csv(const std::filesystem::path& path, const traces::ClusterSpec& cluster,
                     const cluster::GpuCatalog& catalog, std::span<const NodeDevices> devices);

// FGD's typical pods of the run's workload (sim/metrics/fragmentation.hpp), as the runs' fragmentation
// metrics take them (--typical-pods changes FGD's score, not the metric), their GPU models by
// catalog id, with each shape's count and probability as the fragmentation measure uses them.
void write_typical_pods_csv(const std::filesystem::path& path, std::span<const metrics::TypicalPod> typical,
                            const cluster::GpuCatalog& catalog);

}  // namespace gpusim::experiment
