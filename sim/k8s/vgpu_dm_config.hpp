#pragma once
// NVIDIA's vGPU Device Manager configuration (`version: v1` / `vgpu-configs`, api/spec/v1 of
// github.com/NVIDIA/vgpu-device-manager at v0.5.0): named lists of vGPU types and counts per GPU,
// of which the manager applies to each node the one its label `nvidia.com/vgpu.config` names (the
// GPU Operator's default, "default", when it has none). Either the bare file or the ConfigMap the
// GPU Operator mounts (data `config.yaml`). Sources and the checks the manager makes:
// sim/k8s/notes/vgpu-sources.md, §1.
#include <yaml-cpp/yaml.h>

#include <string>
#include <utility>
#include <vector>

#include "sim/cluster/node.hpp"

namespace gpusim::k8s {

// The node label the vGPU Device Manager watches, and the config it applies without one
// (the GPU Operator's vgpuDeviceManager.config.default, passed as DEFAULT_VGPU_CONFIG).
inline constexpr const char* kVgpuConfigLabel = "nvidia.com/vgpu.config";
inline constexpr const char* kVgpuDefaultConfig = "default";

struct VgpuDmEntry {
  int line = 1;
  std::vector<std::string> device_filter;  // PCI ids "0xDDDDVVVV[:0xSSSSssss]"; empty: every GPU
  bool all_devices = true;                 // devices: all
  std::vector<int> devices;                // else these GPU indices
  // vgpu-devices, in file order: type name and count (> 0).
  std::vector<std::pair<std::string, int>> vgpu_devices;
  bool mig_backed = false;  // its types are MIG-backed (<GPU>-<g>-<GB><series>)
};

struct VgpuDmConfig {
  std::string name;
  int line = 1;
  std::vector<VgpuDmEntry> entries;
};

struct VgpuDmConfigs {
  std::string file;
  std::vector<VgpuDmConfig> configs;  // in file order
  std::vector<std::string> notes;

  // The config `node`'s label names, or "default" without one. Throws core::InputError when that
  // name is not in the file (the manager's validation fails there).
  const VgpuDmConfig& for_node(const cluster::NodeSpec& node) const;
};

// Whether `id` (a device-filter entry) names a GPU of PCI device id `device_id` (0xDDDD10DE):
// hex digits in either case; with a subsystem part, gpusim's catalog GPUs have none to match.
bool vgpu_filter_matches(const std::string& id, std::uint32_t device_id);

// `version` and `vgpu-configs` at the top, or a ConfigMap whose data `config.yaml` holds them.
bool is_vgpu_dm_config(const YAML::Node& doc);
// Throws core::InputError `file:line: field: why`, with the vGPU Device Manager's own wording
// where it refuses the input.
VgpuDmConfigs parse_vgpu_dm_config(const std::string& text, const std::string& source);

}  // namespace gpusim::k8s
