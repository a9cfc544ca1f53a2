#pragma once
// One entry point for every workload file gpusim reads: the format is told from the extension
// (Kubernetes manifests) or the first line (the native format's header, a Philly job log's or the
// DLRM trace's CSV header), and an openb pod list otherwise.
#include <filesystem>
#include <string>
#include <vector>

#include "sim/cluster/gpu_catalog.hpp"
#include "sim/cluster/node.hpp"
#include "traces/workload.hpp"

namespace gpusim::traces {

enum class WorkloadFormat { kManifests, kNative, kPhilly, kDlrm, kOpenb };
const char* to_string(WorkloadFormat format);

// Kubernetes manifests are told by their extension (.yaml, .yml, .json).
bool is_manifest_path(const std::filesystem::path& path);
WorkloadFormat workload_format(const std::filesystem::path& path);

// The cluster a workload file runs on when none is given: the bundled cluster its format was made
// for (philly, dlrm), the one a native trace's header names, or openb.
std::string default_cluster_for_file(const std::filesystem::path& path);

// Reads any workload format. `nodes` is the cluster it will run on: a Philly job larger than its
// largest GPU node becomes a gang of workers.
Workload read_workload(const std::filesystem::path& path, const cluster::GpuCatalog& catalog,
                       const std::vector<cluster::NodeSpec>& nodes);

}  // namespace gpusim::traces
