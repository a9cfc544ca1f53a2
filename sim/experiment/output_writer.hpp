#pragma once
// Writes a comparison (or a single run, a comparison of one) to a directory: summary.json,
// report.md, and per run pods.csv, timeseries.csv and (fill mode) curve.csv. Everything is
// written to a sibling temporary directory first and renamed into place at the end, so a failed
// run never leaves half-written outputs. Column orders are documented in results/README.md.
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "sim/experiment/compare.hpp"

namespace gpusim::experiment {

struct OutputContext {
  std::string gpusim_version;
  std::string cluster_source;
  std::string workload_source;
  std::string cluster_digest;   // fnv1a64 of the file bytes, hex
  std::string workload_digest;
  const traces::Workload* workload = nullptr;  // for pod names in pods.csv
  const traces::ClusterSpec* cluster = nullptr;
  // true: per-run files go straight into the directory (gpusim run); false: runs/<policy>/seed-<n>/
  bool single_run = false;
  // Replay with a performance model: its settings and every figure with its source; null otherwise.
  nlohmann::json performance = nullptr;
};

void write_outputs(const std::filesystem::path& dir, const CompareResult& result, const OutputContext& context);

// Hex FNV-1a 64 of a file's bytes (a cheap, stable digest for manifests).
std::string file_digest(const std::filesystem::path& path);

}  // namespace gpusim::experiment
