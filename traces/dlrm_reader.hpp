#pragma once
// Reader for Alibaba's 2025 GPU-disaggregated DLRM serving trace (cluster-trace-gpu-v2025,
// traces/data/dlrm/README.md). Each row is one inference instance: a CN instance (CPU node) or an
// HN instance (GPU node) of one of the services, with CPU, GPU, RDMA and memory requests, a limit
// on one service's instances per node, and creation, scheduled and deletion times.
#include <filesystem>
#include <istream>
#include <string>

#include "traces/workload.hpp"

namespace gpusim::traces {

// The node label that keeps CN instances on CPU nodes and HN instances on GPU nodes, as the trace's
// `role` column says (the bundled dlrm cluster labels its nodes with it).
inline constexpr const char* kDlrmRoleLabel = "gpusim.io/dlrm-role";

// Whether a CSV header line is the DLRM trace's (its first three columns).
bool is_dlrm_header(const std::string& first_line);

// Rows without times are read explicitly, never dropped (notes say how many):
// - no creation_time: the instance existed before the trace began; it arrives at 0 s, already
//   scheduled (the trace never leaves scheduled_time set without creation_time);
// - no deletion_time: it was alive at the trace's end; it runs until the trace's last time (the
//   largest time in the file) and is marked Running.
// Its run time is deletion minus scheduled time (minus creation time without one). Requests are
// what the scheduler sees; limits must equal them for CPU, GPU, RDMA and memory (as in the trace)
// and be at least the request for disk, which gpusim does not model (noted).
// Throws core::InputError ("file:line: field: reason").
Workload read_dlrm_instances(const std::filesystem::path& path);
// The same from a stream; `name` stands for the file in messages (fuzzing, tests).
Workload read_dlrm_instances(std::istream& in, const std::string& name);

}  // namespace gpusim::traces
