#pragma once
// NVIDIA's MIG manager configuration (mig-parted's `version: v1` / `mig-configs`, api/spec/v1 of
// github.com/NVIDIA/mig-parted at bd7160f4): named MIG layouts, of which the MIG manager applies to
// each node the one its label `nvidia.com/mig.config` names. Either the bare file or the
// ConfigMap the GPU Operator mounts (data `config.yaml`). What instances a node's GPUs are cut into
// is the MIG manager's; how the device plugin advertises them (migStrategy) is the device-plugin
// config's, so a mig-parted config is read together with one (sim/k8s/README.md).
#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include "sim/cluster/node.hpp"

namespace gpusim::k8s {

// The node label the MIG manager reads (cmd/nvidia-mig-manager: MigConfigLabel).
inline constexpr const char* kMigConfigLabel = "nvidia.com/mig.config";
// The value the GPU Operator gives a MIG-capable node's label when it has none
// (ClusterPolicy migManager.config.default).
inline constexpr const char* kMigConfigDisabled = "all-disabled";

// One entry of a config: the GPUs it applies to and their layout.
struct MigPartedEntry {
  int line = 1;
  // device-filter: PCI device ids ("0x20B210DE"); empty: every GPU.
  std::vector<std::string> device_filter;
  // mig-enabled, and each GPU's instances, largest first as mig-parted creates them
  // (pkg/types MigConfig.Flatten: by GPU slices, then compute slices); empty with MIG off.
  bool enabled = false;
  std::vector<std::string> layout;
  // Set when the entry uses what gpusim does not model (a devices list, a profile gpusim has not,
  // MIG on without instances); a node it applies to is refused with this reason.
  std::string unmodelled;
};

struct MigPartedConfig {
  std::string name;
  int line = 1;
  std::vector<MigPartedEntry> entries;
};

struct MigPartedConfigs {
  std::string file;
  std::vector<MigPartedConfig> configs;  // in file order
  std::vector<std::string> notes;

  // The config `node`'s label names; no label: all-disabled if the file has it (the GPU Operator
  // labels MIG-capable nodes so), else nullptr (the node's GPUs keep MIG off). Throws
  // core::InputError for a label naming no config.
  const MigPartedConfig* for_node(const cluster::NodeSpec& node) const;
  // The instances of each GPU of `node` (whose GPUs are catalog model `gpu`) under `config`: the
  // layout of the entries whose device-filter has the GPU's PCI device id (or that have none);
  // empty when MIG stays off. Throws core::InputError when they cannot be modelled (entries that
  // disagree, an unmodelled entry).
  std::vector<std::string> layout(const MigPartedConfig& config, const cluster::NodeSpec& node, const std::string& gpu) const;
};

// The PCI device id ("0x20B210DE": device, then NVIDIA's vendor id 10DE) of a MIG-capable catalog
// model, as mig-parted's device-filter names GPUs; "" for others.
std::string mig_pci_device_id(const std::string& gpu);

// `version` and `mig-configs` at the top, or a ConfigMap whose data `config.yaml` holds them.
bool is_mig_parted_config(const YAML::Node& doc);
// Throws core::InputError `file:line: field: why`.
MigPartedConfigs parse_mig_parted_config(const std::string& text, const std::string& source);

}  // namespace gpusim::k8s
