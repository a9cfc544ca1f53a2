#include "traces/bundled.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

#include "sim/core/status.hpp"
#include "sim/io/input_file.hpp"

namespace gpusim::traces {
namespace {

std::filesystem::path openb_dir(const std::filesystem::path& root) { return root / "traces" / "data" / "openb"; }
std::filesystem::path philly_dir(const std::filesystem::path& root) { return root / "traces" / "data" / "philly"; }

std::filesystem::path existing(std::filesystem::path path, std::string_view what) {
  io::require_file(path, what);
  return path;
}

// A word that is neither a file nor a bundled name is most likely a mistyped bundled name: say so
// and list them (a path with a directory part gets the file's own message).
void refuse_unknown_name(const std::string& name, std::string_view what, std::string_view bundled) {
  if (name.empty() || name.find('/') != std::string::npos || std::filesystem::exists(name)) return;
  throw core::InputError(
      fmt::format("{}: no such file, and not a bundled {} name (bundled: {})", name, what, bundled));
}

}  // namespace

std::filesystem::path default_data_root() { return GPUSIM_DEFAULT_DATA_DIR; }

std::filesystem::path data_root() {
  const char* env_root = std::getenv("GPUSIM_DATA_DIR");
  return env_root != nullptr && *env_root != '\0' ? std::filesystem::path(env_root) : default_data_root();
}

std::vector<std::string> openb_variants() {
  return {"default", "cpu050", "cpu100", "cpu200", "cpu250", "gpushare40", "gpushare60",
          "gpushare80", "gpushare100", "gpuspec10", "gpuspec20", "gpuspec25", "gpuspec33",
          "multigpu20", "multigpu30", "multigpu40", "multigpu50"};
}

std::filesystem::path resolve_cluster(const std::string& name, const std::filesystem::path& root) {
  if (name == "openb" || name == "openb:gpu") return existing(openb_dir(root) / "openb_node_list_gpu_node.csv", "bundled node list");
  if (name == "openb:all") return existing(openb_dir(root) / "openb_node_list_all_node.csv", "bundled node list");
  if (name == "philly") return existing(philly_dir(root) / "philly_cluster.csv", "bundled node list");
  if (name == "dlrm") return existing(root / "traces" / "data" / "dlrm" / "dlrm_cluster.csv", "bundled node list");
  if (name == "philly-gavel") return existing(root / "traces" / "data" / "gavel" / "philly_gavel_cluster.csv", "bundled node list");
  if (name.starts_with("openb:")) {
    throw core::InputError(fmt::format("unknown bundled cluster '{}' (openb, openb:all, philly, philly-gavel, dlrm)", name));
  }
  refuse_unknown_name(name, "cluster", "openb, openb:all, philly, philly-gavel, dlrm");
  return existing(name, "node list (--cluster)");
}

std::filesystem::path resolve_workload(const std::string& name, const std::filesystem::path& root) {
  if (name == "philly") return existing(philly_dir(root) / "philly.csv", "bundled Philly job log");
  if (name == "dlrm") return existing(root / "traces" / "data" / "dlrm" / "disaggregated_DLRM_trace.csv", "bundled DLRM trace");
  if (name.starts_with("openb:")) {
    const std::string variant = name.substr(6);
    const auto variants = openb_variants();
    if (std::find(variants.begin(), variants.end(), variant) == variants.end()) {
      throw core::InputError(fmt::format("unknown bundled workload '{}' (openb:{})", name,
                                         fmt::join(variants, ", openb:")));
    }
    return existing(openb_dir(root) / fmt::format("openb_pod_list_{}.csv", variant), "bundled pod list");
  }
  refuse_unknown_name(name, "workload", "openb:<variant>, philly, dlrm");
  return existing(name, "pod list (--workload)");
}

std::string default_cluster_for(const std::string& workload) {
  if (workload == "philly" || workload == "dlrm") return workload;
  return "openb";
}

bool is_bundled_workload(const std::string& name) {
  return name == "philly" || name == "dlrm" || name.starts_with("openb:");
}

std::filesystem::path default_catalog(const std::filesystem::path& root) {
  return root / "sim" / "cluster" / "gpu_catalog.json";
}

}  // namespace gpusim::traces
