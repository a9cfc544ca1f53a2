#include "sim/k8s/retired_kube_keys.hpp"

#include <fmt/format.h>

#include <map>
#include <vector>

namespace gpusim::k8s {
namespace {

// A scalar as given, or `fallback` when absent (the reader of the real file then checks it).
std::string value_or(const YAML::Node& map, const char* key, const char* fallback) {
  const YAML::Node v = map[key];
  return v && v.IsScalar() ? v.Scalar() : fallback;
}

}  // namespace

std::string retired_sharing_message(const YAML::Node& sharing, bool mps) {
  const std::string policy = value_or(sharing, "allocationPolicy", "distributed");
  return fmt::format(
      "gone from --kube: NVIDIA's device-plugin config gives it (--config FILE; here devicePlugin: {0} may stay, or "
      "say device-plugin: the config makes the nodes {0}). The lines:\n"
      "  version: v1\n"
      "  flags:\n"
      "    plugin: {{sharedDevicesAllocationPolicy: {1}}}\n"
      "  sharing:\n"
      "    {2}:\n"
      "      renameByDefault: {3}\n"
      "      failRequestsGreaterThanOne: {4}\n"
      "      resources:\n"
      "      - name: nvidia.com/gpu\n"
      "        replicas: {5}\n"
      "For one pool, make it a ConfigMap of named configs and label the pool's nodes "
      "(labels: {{nvidia.com/device-plugin.config: NAME}}); traces/sharing/{6}.device-plugin.yaml is an example. "
      "mpsActiveThreadPercentage stays here, with devicePlugin: mps",
      mps ? "mps" : "time-slicing", policy, mps ? "mps" : "timeSlicing", value_or(sharing, "renameByDefault", "false"),
      value_or(sharing, "failRequestsGreaterThanOne", mps ? "true" : "false"), value_or(sharing, "replicas", "2"), mps ? "mps-2" : "time-slicing-2");
}

std::string retired_hami_message(const YAML::Node& hami) {
  return fmt::format(
      "gone from --kube: HAMi's Helm values give it (--config FILE; they apply to every hami-vgpu node, and "
      "devicePlugin.nodeconfig sets a node's split count and memory scaling by name). The lines:\n"
      "  scheduler:\n"
      "    defaultSchedulerPolicy:\n"
      "      nodeSchedulerPolicy: {}\n"
      "      gpuSchedulerPolicy: {}\n"
      "  devicePlugin:\n"
      "    deviceSplitCount: {}\n"
      "    deviceMemoryScaling: {}\n"
      "traces/sharing/*.hami-values.yaml are examples. fractionAsks stays here",
      value_or(hami, "nodeSchedulerPolicy", "binpack"), value_or(hami, "gpuSchedulerPolicy", "spread"),
      value_or(hami, "deviceSplitCount", "10"), value_or(hami, "deviceMemoryScaling", "1"));
}

std::string retired_mig_message(const YAML::Node& mig) {
  // mig-parted's mig-devices: each profile, in the order first given, with its count.
  std::vector<std::string> names;
  std::map<std::string, int> counts;
  if (const YAML::Node layout = mig["layout"]; layout && layout.IsSequence()) {
    for (const YAML::Node& p : layout) {
      if (!p.IsScalar()) continue;
      if (counts[p.Scalar()]++ == 0) names.push_back(p.Scalar());
    }
  }
  std::string devices;
  for (const std::string& name : names) devices += fmt::format("{}\"{}\": {}", devices.empty() ? "" : ", ", name, counts[name]);
  return fmt::format(
      "gone from --kube: NVIDIA's files give it (--config, with devicePlugin: device-plugin here): the device-plugin "
      "config says how instances are advertised,\n"
      "  version: v1\n"
      "  flags: {{migStrategy: {}}}\n"
      "and NVIDIA's MIG manager config (mig-parted) cuts the GPUs,\n"
      "  version: v1\n"
      "  mig-configs:\n"
      "    my-layout:\n"
      "    - devices: all\n"
      "      mig-enabled: true\n"
      "      mig-devices: {{{}}}\n"
      "for the nodes labelled nvidia.com/mig.config: my-layout (a pool's labels:). Instances are created largest "
      "first, as mig-parted does. traces/sharing/mig.mig-parted.yaml is an example. HAMi's dynamic MIG "
      "(dynamic: true, with its starting layout) stays here",
      value_or(mig, "strategy", "single"), devices.empty() ? "\"3g.40gb\": 2" : devices);
}

}  // namespace gpusim::k8s
