#pragma once
// Writes a comparison (or a single run, a comparison of one) to an output directory:
// summary.json, per run pods.csv, timeseries.csv and (fill mode) curve.csv, then report.md and
// its plots drawn from those files (sim/report/report.hpp). The
// files go into the directory's staging area and are committed (swapped into place) at the end,
// so a failed run never leaves half-written outputs (sim/io/output_dir.hpp). Column orders are
// documented in results/README.md.
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "sim/experiment/compare.hpp"
#include "sim/io/output_dir.hpp"

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
  // Replay with a --kube file: its name and digest; null otherwise.
  nlohmann::json kube = nullptr;
  // Replay with --config files: each one's name and digest; null otherwise.
  nlohmann::json configs = nullptr;
  // Fill with --typical-pods: its name and digest; null otherwise.
  nlohmann::json typical_pods = nullptr;
  // Replay with preempting policies: the checkpoint interval and Tiresias' knobs; null otherwise.
  nlohmann::json preemption = nullptr;
  // Time-sharing policies' knobs and the throughput table, when used.
  nlohmann::json time_sharing = nullptr;
  // Gangs through Permit (policy gang): the Permit timeout and the rejected gangs' backoff.
  nlohmann::json gang = nullptr;
  // Queue-quota policies (proportion, capacity): the Volcano Queue file and its digest, if any.
  nlohmann::json queue_quotas = nullptr;
  // --job-placement and --scatter-slowdown, when given.
  nlohmann::json placement = nullptr;
  // For nodes.csv and typical-pods.csv (sim/experiment/cluster_files.hpp): the catalog the run's
  // models come from.
  const cluster::GpuCatalog* catalog = nullptr;
  // Policies read from configuration files: each one's name, file and digest; null when none.
  nlohmann::json profile_files = nullptr;
};

// Writes and commits; throws core::InputError (naming the target) when a file cannot be written.
void write_outputs(io::OutputDirectory& out, const CompareResult& result, const OutputContext& context);

// Hex FNV-1a 64 of a file's bytes (a cheap, stable digest for manifests).
std::string file_digest(const std::filesystem::path& path);

}  // namespace gpusim::experiment
