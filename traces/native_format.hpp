#pragma once
// gpusim's own trace format: versioned JSON Lines (traces/FORMAT.md). Every reader's workload
// converts to it (`gpusim trace convert`) and the simulator reads it directly, so a trace is parsed
// from its source format once and then replayed without loss.
#include <filesystem>
#include <istream>
#include <ostream>
#include <string>

#include "sim/cluster/gpu_catalog.hpp"
#include "traces/workload.hpp"

namespace gpusim::traces {

inline constexpr int kNativeFormatVersion = 1;

// Whether a file's first line is a native trace's header (it opens a JSON object naming the format).
bool is_native_header(const std::string& first_line);

// Throws core::InputError ("file:line: field: reason") on malformed input: bad JSON, a missing or
// mistyped field, an unknown field (a typo is never ignored), a value out of range, a duplicate pod
// name, or a GPU model the catalog lacks.
Workload read_native_workload(const std::filesystem::path& path, const cluster::GpuCatalog& catalog);
// The same from a stream; `name` stands for the file in messages (fuzzing, tests).
Workload read_native_workload(std::istream& in, const std::string& name, const cluster::GpuCatalog& catalog);

// Writes `workload` in the native format; `cluster` (may be empty) is the cluster it was read for
// (a Philly job's split into workers depends on it), recorded as the trace's default cluster. Pods
// with Kubernetes detail (manifests' constraints) or Jobs cannot be written: manifests are a native
// input already (throws core::InputError).
void write_native_workload(std::ostream& out, const Workload& workload, const cluster::GpuCatalog& catalog,
                           const std::string& cluster);

// The cluster a native trace's header names ("" when none), from its first line.
std::string native_default_cluster(const std::string& first_line);

}  // namespace gpusim::traces
