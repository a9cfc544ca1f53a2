#pragma once
// Reader for Microsoft's Philly job log as the Pollux authors reduced it to one line per job
// (timestamp,duration,num_gpus,gpu_time,cluster; traces/data/philly/README.md). Each job becomes
// a pod, or a gang of pods when it asks more GPUs than the largest node has; each virtual cluster
// becomes a queue.
#include <filesystem>
#include <istream>
#include <string>

#include "traces/workload.hpp"

namespace gpusim::traces {

// Whether a CSV header line is a Philly job log's (the first three columns).
bool is_philly_header(const std::string& first_line);

// `max_gpus_per_pod`: the most GPUs one node has; a larger job is split into workers of that many
// GPUs and a last worker with the rest, which start together or not at all (PodSpec::gang).
// Throws core::InputError ("file:line: field: reason") on malformed input. Arrival times are
// seconds after the earliest timestamp; blank and comment lines are skipped and counted.
Workload read_philly_jobs(const std::filesystem::path& path, int max_gpus_per_pod);
// The same from a stream; `name` stands for the file in messages (fuzzing, tests).
Workload read_philly_jobs(std::istream& in, const std::string& name, int max_gpus_per_pod);

}  // namespace gpusim::traces
