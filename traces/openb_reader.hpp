#pragma once
// Reader for the Alibaba "openb" GPU-sharing trace (clusterdata cluster-trace-gpu-v2023): node
// lists (sn,cpu_milli,memory_mib,gpu,model) and pod lists, both the 11-column files and the
// 5-column multigpu files. Format and quirks: traces/README.md.
#include <filesystem>

#include "sim/cluster/gpu_catalog.hpp"
#include "traces/workload.hpp"

namespace gpusim::traces {

// Throws core::InputError ("file:line: field: reason") on malformed input.
ClusterSpec read_openb_nodes(const std::filesystem::path& path, const cluster::GpuCatalog& catalog);
Workload read_openb_pods(const std::filesystem::path& path, const cluster::GpuCatalog& catalog);

}  // namespace gpusim::traces
