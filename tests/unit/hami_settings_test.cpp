// HAMi's settings readers (sim/k8s/hami_settings.hpp): the chart's values with its defaults, the
// embedded device config and node config, the ConfigMaps, and every refusal naming file:line: field.
#include <gtest/gtest.h>

#include "sim/core/status.hpp"
#include "sim/k8s/hami_settings.hpp"

namespace gpusim::k8s {
namespace {

std::string values_error(const std::string& text) {
  try {
    parse_hami_values(text, "values.yaml");
  } catch (const core::InputError& e) {
    return e.what();
  }
  return "no error";
}

std::string device_error(const std::string& text) {
  try {
    parse_hami_device_config(text, "device.yaml");
  } catch (const core::InputError& e) {
    return e.what();
  }
  return "no error";
}

// No values: the chart's defaults (values.yaml): binpack nodes, spread GPUs, 10 pods per GPU, scaling 1.
TEST(HamiValues, EmptyValuesAreTheChartDefaults) {
  const HamiSettings s = parse_hami_values("", "values.yaml");
  EXPECT_EQ(s.config, HamiConfig{});
  EXPECT_EQ(s.config.node_policy, HamiNodePolicy::kBinpack);
  EXPECT_EQ(s.config.gpu_policy, HamiGpuPolicy::kSpread);
  EXPECT_EQ(s.config.device_split_count, 10);
  EXPECT_EQ(s.config.device_memory_scaling, 1);
  EXPECT_TRUE(s.notes.empty());
}

TEST(HamiValues, ReadsPoliciesSplitCountAndScaling) {
  const HamiSettings s = parse_hami_values(R"(scheduler:
  defaultSchedulerPolicy:
    nodeSchedulerPolicy: spread
    gpuSchedulerPolicy: topology-aware
  kubeScheduler:
    image: {registry: registry.k8s.io, tag: v1.31.0}
devicePlugin:
  deviceSplitCount: 4
  deviceMemoryScaling: 1.5
  resources:
    limits: {cpu: "1"}
  tolerations:
  - {key: gpu, operator: Exists}
)", "values.yaml");
  EXPECT_EQ(s.config.node_policy, HamiNodePolicy::kSpread);
  EXPECT_EQ(s.config.gpu_policy, HamiGpuPolicy::kTopologyAware);
  EXPECT_EQ(s.config.device_split_count, 4);
  EXPECT_EQ(s.config.device_memory_scaling, 1.5);
  ASSERT_EQ(s.notes.size(), 1U);
  EXPECT_NE(s.notes[0].find("3 chart settings accepted that do not change the simulation"), std::string::npos) << s.notes[0];
  EXPECT_NE(s.notes[0].find("scheduler.kubeScheduler.image, devicePlugin.resources, devicePlugin.tolerations"),
            std::string::npos) << s.notes[0];
  // fractionAsks stays gpusim's --kube choice.
  EXPECT_FALSE(s.for_node("any", false).fraction_asks_cores);
  EXPECT_EQ(s.for_node("any", false).device_split_count, 4);
}

// devicePlugin.nodeConfiguration.config: HAMi's per-node config.json, by node name (keys matched
// without regard to case, as Go's encoding/json matches them).
TEST(HamiValues, NodeConfigOverridesPerNode) {
  const HamiSettings s = parse_hami_values(R"(devicePlugin:
  deviceSplitCount: 10
  nodeConfiguration:
    config: |
      {
        "nodeconfig": [
          {"name": "gpu-a", "operatingmode": "hami-core", "devicesplitcount": 2, "migstrategy": "none"},
          {"name": "gpu-b", "DeviceMemoryScaling": 3, "filterdevices": {"uuid": [], "index": []}}
        ]
      }
)", "values.yaml");
  ASSERT_EQ(s.nodes.size(), 2U);
  EXPECT_EQ(s.nodes[0].line, 7);
  EXPECT_EQ(s.for_node("gpu-a", true).device_split_count, 2);
  EXPECT_EQ(s.for_node("gpu-a", true).device_memory_scaling, 1);
  EXPECT_EQ(s.for_node("gpu-b", true).device_split_count, 10);
  EXPECT_EQ(s.for_node("gpu-b", true).device_memory_scaling, 3);
  EXPECT_EQ(s.for_node("gpu-c", true).device_split_count, 10);
}

// device-config.content replaces the device config the chart renders from devicePlugin's values.
TEST(HamiValues, DeviceConfigContentReplacesTheRenderedOne) {
  const HamiSettings s = parse_hami_values(R"(devicePlugin:
  deviceSplitCount: 3
device-config:
  content: |
    nvidia:
      resourceCountName: nvidia.com/gpu
      deviceSplitCount: 5
      deviceMemoryScaling: 2
)", "values.yaml");
  EXPECT_EQ(s.config.device_split_count, 5);
  EXPECT_EQ(s.config.device_memory_scaling, 2);
  ASSERT_EQ(s.notes.size(), 1U);
  EXPECT_EQ(s.notes[0], "devicePlugin.deviceSplitCount: not used: device-config.content replaces the device config the chart "
                        "renders from them");
  // An error inside it names the values file's line.
  EXPECT_EQ(values_error("device-config:\n  content: |\n    nvidia:\n      deviceSplitCount: 5\n"),
            "values.yaml:4: device-config.content.nvidia.deviceMemoryScaling: missing: HAMi's device plugin needs it (the "
            "chart writes devicePlugin's value)");
}

TEST(HamiValues, ErrorsNameFileLineAndField) {
  EXPECT_EQ(values_error("devicePlugin:\n  deviceSplitCont: 4\n"),
            "values.yaml:2: devicePlugin.deviceSplitCont: unknown setting: HAMi's chart (charts/hami/values.yaml) has none such");
  EXPECT_EQ(values_error("scheduler:\n  defaultSchedulerPolicy: {gpuSchedulerPolicy: numa}\n"),
            "values.yaml:2: scheduler.defaultSchedulerPolicy.gpuSchedulerPolicy: 'numa': gpusim models spread, binpack, "
            "topology-aware (not numa, mutex or comma-separated chains)");
  EXPECT_EQ(values_error("scheduler:\n  defaultSchedulerPolicy:\n    nodeSchedulerPolicy: random\n"),
            "values.yaml:3: scheduler.defaultSchedulerPolicy.nodeSchedulerPolicy: 'random': gpusim models binpack, spread");
  EXPECT_EQ(values_error("devicePlugin:\n  deviceSplitCount: 0\n"),
            "values.yaml:2: devicePlugin.deviceSplitCount: '0' is not an integer from 1 to 1000");
  EXPECT_EQ(values_error("devicePlugin:\n  deviceMemoryScaling: 0.5\n"),
            "values.yaml:2: devicePlugin.deviceMemoryScaling: '0.5' is not a number from 1 to 100");
  EXPECT_EQ(values_error("devicePlugin:\n  deviceCoreScaling: 2\n"),
            "values.yaml:2: devicePlugin.deviceCoreScaling: '2': gpusim models 1 only (each GPU registers 100 cores)");
  EXPECT_EQ(values_error("resourceMem: example.com/mem\n"),
            "values.yaml:1: resourceMem: 'example.com/mem': gpusim models nvidia.com/gpumem only (the resources gpusim's "
            "manifests ask by these names)");
  EXPECT_EQ(values_error("devices:\n  nvidia:\n    gpuCorePolicy: disable\n"),
            "values.yaml:3: devices.nvidia.gpuCorePolicy: 'disable': gpusim models default only (libvgpu.so enforces gpucores)");
  EXPECT_EQ(values_error("devicePlugin:\n  nodeConfiguration:\n    externalConfigName: my-nodes\n"),
            "values.yaml:3: devicePlugin.nodeConfiguration.externalConfigName: 'my-nodes' names a ConfigMap gpusim does not "
            "see: pass that ConfigMap (data config.json) instead of this values file");
  EXPECT_EQ(values_error("scheduler: 3\n"), "values.yaml:1: scheduler: expected a mapping of the chart's settings");
  // Inside the node config's JSON: the values file's lines.
  const std::string json = "devicePlugin:\n  nodeConfiguration:\n    config: |\n      {\"nodeconfig\": [\n";
  EXPECT_EQ(values_error(json + "        {\"name\": \"a\", \"operatingmode\": \"mig\"}]}\n"),
            "values.yaml:5: devicePlugin.nodeConfiguration.config.nodeconfig[0].operatingmode: 'mig': gpusim's HAMi nodes "
            "run hami-core (HAMi's dynamic MIG is --kube devicePlugin mig with dynamic: true)");
  EXPECT_EQ(values_error(json + "        {\"name\": \"a\",\n         \"filterdevices\": {\"index\": [1]}}]}\n"),
            "values.yaml:6: devicePlugin.nodeConfiguration.config.nodeconfig[0].filterdevices.index: the node would not "
            "register these GPUs; gpusim registers every GPU of a node");
  EXPECT_NE(values_error(json + "        {\"name\": \"a\", \"split\": 2}]}\n").find("values.yaml:5: "
                                                                                  "devicePlugin.nodeConfiguration.config."
                                                                                  "nodeconfig[0].split: unknown field"),
            std::string::npos);
  EXPECT_EQ(values_error(json + "        {\"devicesplitcount\": 2}]}\n"),
            "values.yaml:5: devicePlugin.nodeConfiguration.config.nodeconfig[0].name: missing: the node this entry is for");
}

// The scheduler's device ConfigMap and the device plugin's node ConfigMap, as the chart renders them.
TEST(HamiDeviceConfig, ConfigMaps) {
  const HamiSettings s = parse_hami_device_config(R"(apiVersion: v1
kind: ConfigMap
metadata:
  name: hami-scheduler-device
  namespace: kube-system
data:
  device-config.yaml: |-
    nvidia:
      resourceCountName: nvidia.com/gpu
      resourceMemoryName: nvidia.com/gpumem
      resourceMemoryPercentageName: nvidia.com/gpumem-percentage
      resourceCoreName: nvidia.com/gpucores
      resourcePriorityName: nvidia.com/priority
      overwriteEnv: false
      defaultMemory: 0
      defaultCores: 0
      defaultGPUNum: 1
      memoryFactor: 1
      deviceSplitCount: 8
      deviceMemoryScaling: 1
      deviceCoreScaling: 1
      gpuCorePolicy: default
    cambricon:
      resourceCountName: cambricon.com/vmlu
  config.json: |
    {"nodeconfig": [{"name": "n1", "devicesplitcount": 2}]}
)", "device.yaml");
  EXPECT_EQ(s.config.device_split_count, 8);
  EXPECT_EQ(s.for_node("n1", true).device_split_count, 2);
  ASSERT_EQ(s.notes.size(), 2U);
  EXPECT_EQ(s.notes[0], "cambricon: accepted; gpusim models NVIDIA GPUs only");
  EXPECT_EQ(device_error("nvidia:\n  deviceSplitCount: 10\n  deviceMemoryScaling: 1\n  defaultCores: 50\n"),
            "device.yaml:4: nvidia.defaultCores: '50': gpusim models 0 only (a pod asking nvidia.com/gpu alone takes a whole "
            "GPU's memory and cores)");
  EXPECT_EQ(device_error("nvidia:\n  deviceSplitCount: 10\n  deviceMemoryScaling: 1\n  splitCount: 2\n").substr(0, 48),
            "device.yaml:4: nvidia.splitCount: unknown field ");
  EXPECT_EQ(device_error("nvidia:\n  deviceMemoryScaling: 1\n"),
            "device.yaml:2: nvidia.deviceSplitCount: missing: HAMi's device plugin needs it (the chart writes devicePlugin's value)");
  EXPECT_EQ(device_error("kind: ConfigMap\nmetadata: {name: x}\ndata:\n  device-config.yaml: |\n    nvidia:\n      "
                         "deviceSplitCount: 10\n      deviceMemoryScaling: 1\n      disableCoreLimit: true\n"),
            "device.yaml:8: data.device-config.yaml.nvidia.disableCoreLimit: true: gpusim models HAMi's gpucores limit in force");
}

TEST(HamiSettings, RecognisedByContent) {
  EXPECT_TRUE(is_hami_values(YAML::Load("devicePlugin: {deviceSplitCount: 4}\n")));
  EXPECT_TRUE(is_hami_values(YAML::Load("scheduler: {defaultSchedulerPolicy: {gpuSchedulerPolicy: binpack}}\n")));
  EXPECT_FALSE(is_hami_values(YAML::Load("devicePlugin: {model: hami-vgpu}\n")));  // --kube
  EXPECT_FALSE(is_hami_values(YAML::Load("devicePlugin: {model: hami-vgpu}\npools: []\n")));
  EXPECT_FALSE(is_hami_values(YAML::Load("version: v1\nsharing: {}\n")));  // NVIDIA's
  EXPECT_TRUE(is_hami_device_config(YAML::Load("nvidia: {deviceSplitCount: 10}\nhygon: {}\n")));
  EXPECT_TRUE(is_hami_device_config(YAML::Load("kind: ConfigMap\nmetadata: {name: x}\ndata: {config.json: '{}'}\n")));
  EXPECT_FALSE(is_hami_device_config(YAML::Load("kind: ConfigMap\nmetadata: {name: x}\ndata: {any: 'version: v1'}\n")));
}

}  // namespace
}  // namespace gpusim::k8s
