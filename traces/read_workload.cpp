#include "traces/read_workload.hpp"

#include <algorithm>
#include <fstream>

#include "sim/io/input_file.hpp"
#include "traces/dlrm_reader.hpp"
#include "traces/k8s_manifests.hpp"
#include "traces/native_format.hpp"
#include "traces/openb_reader.hpp"
#include "traces/philly_reader.hpp"

namespace gpusim::traces {
namespace {

// The first line that is not blank or a comment (every reader skips those), without a UTF-8
// byte-order mark: what tells the formats apart.
std::string first_line(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::string line;
  for (bool first = true; std::getline(in, line); first = false) {
    if (first && line.starts_with("\xEF\xBB\xBF")) line.erase(0, 3);
    const auto start = line.find_first_not_of(" \t\r");
    if (start != std::string::npos && line[start] != '#') return line;
  }
  return {};
}

}  // namespace

const char* to_string(WorkloadFormat format) {
  switch (format) {
    case WorkloadFormat::kManifests: return "Kubernetes manifests";
    case WorkloadFormat::kNative: return "gpusim trace (JSON Lines)";
    case WorkloadFormat::kPhilly: return "Philly job log";
    case WorkloadFormat::kDlrm: return "Alibaba DLRM instances";
    case WorkloadFormat::kOpenb: return "openb pod list";
  }
  return "?";
}

bool is_manifest_path(const std::filesystem::path& path) {
  const std::string ext = path.extension().string();
  return ext == ".yaml" || ext == ".yml" || ext == ".json";
}

WorkloadFormat workload_format(const std::filesystem::path& path) {
  if (is_manifest_path(path)) return WorkloadFormat::kManifests;
  // JSON Lines by its extension too, so that a broken header gets the native reader's message.
  if (path.extension() == ".jsonl") return WorkloadFormat::kNative;
  const std::string first = first_line(path);
  if (is_native_header(first)) return WorkloadFormat::kNative;
  if (is_philly_header(first)) return WorkloadFormat::kPhilly;
  if (is_dlrm_header(first)) return WorkloadFormat::kDlrm;
  return WorkloadFormat::kOpenb;
}

std::string default_cluster_for_file(const std::filesystem::path& path) {
  if (is_manifest_path(path) || !std::filesystem::is_regular_file(path)) return "openb";
  switch (workload_format(path)) {
    case WorkloadFormat::kPhilly: return "philly";
    case WorkloadFormat::kDlrm: return "dlrm";
    case WorkloadFormat::kNative: {
      const std::string named = native_default_cluster(first_line(path));
      return named.empty() ? "openb" : named;
    }
    default: return "openb";
  }
}

Workload read_workload(const std::filesystem::path& path, const cluster::GpuCatalog& catalog,
                       const std::vector<cluster::NodeSpec>& nodes) {
  io::require_file(path, "workload");
  switch (workload_format(path)) {
    case WorkloadFormat::kManifests: return read_k8s_workload(path, catalog);
    case WorkloadFormat::kNative: return read_native_workload(path, catalog);
    case WorkloadFormat::kPhilly: {
      int largest = 0;
      for (const auto& node : nodes) largest = std::max(largest, node.gpu_count);
      return read_philly_jobs(path, largest);
    }
    case WorkloadFormat::kDlrm: return read_dlrm_instances(path);
    case WorkloadFormat::kOpenb: return read_openb_pods(path, catalog);
  }
  return {};
}

}  // namespace gpusim::traces
