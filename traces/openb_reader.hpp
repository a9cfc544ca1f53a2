#pragma once
// Reader for the Alibaba "openb" GPU-sharing trace (clusterdata cluster-trace-gpu-v2023): node
// lists (sn,cpu_milli,memory_mib,gpu,model) and pod lists, both the 11-column files and the
// 5-column multigpu files. Format and quirks: traces/README.md.
#include <filesystem>
#include <istream>
#include <string>

#include "sim/cluster/gpu_catalog.hpp"
#include "traces/workload.hpp"

namespace gpusim::traces {

// Throws core::InputError ("file:line: field: reason") on malformed input.
// Duplicate names, negative sizes and out-of-range times are errors; blank and comment lines are
// skipped and counted (skipped_lines).
ClusterSpec read_openb_nodes(const std::filesystem::path& path, const cluster::GpuCatalog& catalog);
Workload read_openb_pods(const std::filesystem::path& path, const cluster::GpuCatalog& catalog);
// The same from a stream; `name` stands for the file in messages (fuzzing, tests).
ClusterSpec read_openb_nodes(std::istream& in, const std::string& name, const cluster::GpuCatalog& catalog);
Workload read_openb_pods(std::istream& in, const std::string& name, const cluster::GpuCatalog& catalog);

}  // namespace gpusim::traces
