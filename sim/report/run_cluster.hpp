#pragma once
// Reading back the cluster a run ran on (nodes.csv) and its workload's typical pods
// (typical-pods.csv), both written with the run (sim/experiment/cluster_files.hpp): the export
// needs nothing but the output directory.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "sim/metrics/fragmentation.hpp"

namespace gpusim::report {

struct RunNode {
  std::string name;
  std::string model;       // catalog id; "" without GPUs
  std::string model_name;  // the device name DCGM reports
  std::int32_t gpus = 0;   // physical GPUs
  std::int32_t devices = 0;  // devices its plugin advertises: gpus x devices_per_gpu()
  std::string plugin;      // device-plugin model ("" in fill mode)
  std::int64_t cpu_milli = 0;
  std::int64_t gpu_memory_mib = 0;  // per GPU; 0: unknown
  cluster::GpuModelId model_id = 0;  // index into RunCluster::models
  std::int32_t devices_per_gpu() const { return gpus > 0 ? devices / gpus : 1; }
};

struct RunCluster {
  std::vector<RunNode> nodes;
  std::vector<std::string> models;  // catalog ids, by the ids nodes and typical pods use here
  std::vector<metrics::TypicalPod> typical;  // empty: typical-pods.csv absent (no GPUs)
};

// Throws core::InputError naming file, line and field; an output written before gpusim wrote
// nodes.csv gets an error that says to rerun it.
RunCluster read_run_cluster(const std::filesystem::path& dir);

}  // namespace gpusim::report
