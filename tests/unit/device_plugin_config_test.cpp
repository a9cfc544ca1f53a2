// NVIDIA's device-plugin config reader (sim/k8s/device_plugin_config.hpp): the examples of the
// plugin's README and the GPU Operator's guide, defaults as api/config/v1 has them, the per-node
// choice of a ConfigMap's configs, and every refusal naming file:line: field.
#include <gtest/gtest.h>

#include "sim/core/status.hpp"
#include "sim/k8s/device_plugin_config.hpp"

namespace gpusim::k8s {
namespace {

std::string error_of(const std::string& text) {
  try {
    parse_device_plugin_config(text, "dp.yaml");
  } catch (const core::InputError& e) {
    return e.what();
  }
  return "no error";
}

cluster::NodeSpec node(const std::string& name, const std::string& config = "") {
  cluster::NodeSpec n{name, 1000, 1024, 1, 0, {}, {}, false};
  if (!config.empty()) n.labels.emplace_back(kDevicePluginConfigLabel, config);
  return n;
}

// The README's time-slicing example ("Shared Access to GPUs"): 10 replicas of nvidia.com/gpu, the
// other fields at the plugin's defaults.
TEST(DevicePluginConfig, ReadmeTimeSlicingExample) {
  const DevicePluginConfigs c = parse_device_plugin_config(R"(version: v1
sharing:
  timeSlicing:
    resources:
    - name: nvidia.com/gpu
      replicas: 10
)", "dp.yaml");
  EXPECT_TRUE(c.config_map.empty());
  ASSERT_EQ(c.configs.size(), 1U);
  const DevicePluginConfig& ts = c.configs[0];
  EXPECT_EQ(ts.sharing, DevicePluginModel::kTimeSlicing);
  EXPECT_EQ(ts.sharing_config.replicas, 10);
  EXPECT_FALSE(ts.sharing_config.rename_by_default);
  EXPECT_FALSE(ts.sharing_config.fail_requests_greater_than_one);
  EXPECT_EQ(ts.sharing_config.policy, ReplicaPolicy::kDistributed);
  EXPECT_FALSE(ts.mig_strategy);  // none
  EXPECT_TRUE(c.notes.empty());
  // A bare file serves every node, labelled or not.
  EXPECT_EQ(&c.for_node(node("a", "other")), &c.configs[0]);
}

// The README's MPS example; the plugin sets failRequestsGreaterThanOne for MPS unless told otherwise.
TEST(DevicePluginConfig, MpsForcesOneReplicaPerRequest) {
  const DevicePluginConfigs c = parse_device_plugin_config(
      "version: v1\nsharing:\n  mps:\n    renameByDefault: true\n    resources:\n    - name: gpu\n      replicas: 4\n", "dp.yaml");
  EXPECT_EQ(c.configs[0].sharing, DevicePluginModel::kMps);
  EXPECT_EQ(c.configs[0].sharing_config.replicas, 4);
  EXPECT_TRUE(c.configs[0].sharing_config.fail_requests_greater_than_one);
  EXPECT_TRUE(c.configs[0].sharing_config.rename_by_default);
}

// No version is v1; no sharing is whole GPUs; flags are read or noted.
TEST(DevicePluginConfig, FlagsAndDefaults) {
  const DevicePluginConfigs c = parse_device_plugin_config(R"(flags:
  migStrategy: mixed
  failOnInitError: true
  nvidiaDriverRoot: "/"
  plugin:
    passDeviceSpecs: false
    deviceListStrategy: [envvar, cdi-annotations]
    deviceIDStrategy: uuid
    sharedDevicesAllocationPolicy: packed
  gfd: {oneshot: false, sleepInterval: 60s}
)", "dp.yaml");
  const DevicePluginConfig& d = c.configs[0];
  EXPECT_EQ(d.sharing, DevicePluginModel::kDevicePlugin);
  ASSERT_TRUE(d.mig_strategy);
  EXPECT_EQ(*d.mig_strategy, MigStrategy::kMixed);
  EXPECT_EQ(d.sharing_config.policy, ReplicaPolicy::kPacked);
  ASSERT_EQ(c.notes.size(), 1U);
  EXPECT_NE(c.notes[0].find("flags.failOnInitError, flags.nvidiaDriverRoot, flags.plugin.passDeviceSpecs, "
                            "flags.plugin.deviceListStrategy, flags.plugin.deviceIDStrategy, flags.gfd: accepted"),
            std::string::npos)
      << c.notes[0];
  EXPECT_EQ(*parse_device_plugin_config("flags: {migStrategy: single}", "dp.yaml").configs[0].mig_strategy, MigStrategy::kSingle);
  EXPECT_FALSE(parse_device_plugin_config("flags: {migStrategy: none}", "dp.yaml").configs[0].mig_strategy);
}

// The plugin ignores `rename` and `devices` (DisableResourceNamingInConfig) and warns: so does gpusim, with a note.
TEST(DevicePluginConfig, RenameAndDevicesAreNotedAsIgnored) {
  const DevicePluginConfigs c = parse_device_plugin_config(R"(version: v1
sharing:
  timeSlicing:
    resources:
    - name: nvidia.com/gpu
      rename: nvidia.com/gpu-shared
      devices: [0, 1]
      replicas: 2
)", "dp.yaml");
  EXPECT_EQ(c.configs[0].sharing_config.replicas, 2);
  ASSERT_EQ(c.notes.size(), 2U);
  EXPECT_NE(c.notes[0].find("sharing.timeSlicing.resources[0].rename"), std::string::npos);
  EXPECT_NE(c.notes[1].find("sharing.timeSlicing.resources[0].devices"), std::string::npos);
}

TEST(DevicePluginConfig, ErrorsNameFileLineAndField) {
  const std::string head = "version: v1\nsharing:\n  timeSlicing:\n    resources:\n";
  EXPECT_EQ(error_of(head + "    - name: nvidia.com/gpu\n      replicas: 1\n"),
            "dp.yaml:6: sharing.timeSlicing.resources[0].replicas: '1' is not an integer from 2 to 128");
  EXPECT_EQ(error_of(head + "    - name: nvidia.com/gpu\n"),
            "dp.yaml:5: sharing.timeSlicing.resources[0].replicas: missing (the plugin: no replicas specified)");
  EXPECT_EQ(error_of(head + "    - replicas: 2\n"),
            "dp.yaml:5: sharing.timeSlicing.resources[0].name: missing (the plugin: no resource name specified)");
  EXPECT_EQ(error_of(head + "    - {name: nvidia.com/mig-1g.10gb, replicas: 2}\n"),
            "dp.yaml:5: sharing.timeSlicing.resources[0].name: 'nvidia.com/mig-1g.10gb': gpusim does not model sharing "
            "MIG instances (replicas of a MIG device)");
  EXPECT_NE(error_of(head + "    - {name: example.com/fpga, replicas: 2}\n")
                .find("dp.yaml:5: sharing.timeSlicing.resources[0].name: 'nvidia.com/example.com/fpga' is not a resource"),
            std::string::npos);
  EXPECT_EQ(error_of(head + "    - {name: gpu, replicas: 2}\n    - {name: nvidia.com/gpu, replicas: 4}\n"),
            "dp.yaml:6: sharing.timeSlicing.resources[1].name: 'nvidia.com/gpu' is listed twice");
  EXPECT_EQ(error_of("sharing:\n  timeSlicing:\n    renameByDefault: true\n"),
            "dp.yaml:3: sharing.timeSlicing.resources: missing: the plugin refuses sharing without resources");
  EXPECT_EQ(error_of("sharing:\n  timeSlicing:\n    resources: []\n"),
            "dp.yaml:3: sharing.timeSlicing.resources: expected a list of at least one resource (name, replicas)");
  EXPECT_NE(error_of("sharing:\n  timeSlicing:\n    replica: 2\n").find("dp.yaml:3: sharing.timeSlicing.replica: unknown field"),
            std::string::npos);
  EXPECT_NE(error_of("version: v1\nsharings: {}\n").find("dp.yaml:2: sharings: unknown field"), std::string::npos);
  EXPECT_EQ(error_of("version: v2\n"), "dp.yaml:1: version: unknown version 'v2' (the plugin reads v1)");
  EXPECT_EQ(error_of("flags:\n  migStrategy: all\n"), "dp.yaml:2: flags.migStrategy: 'all' is not one of none, single, mixed");
  EXPECT_EQ(error_of("flags:\n  plugin:\n    deviceListStrategy: [envvar, nvml]\n"),
            "dp.yaml:3: flags.plugin.deviceListStrategy[1]: 'nvml' is not one of envvar, volume-mounts, cdi-annotations, cdi-cri");
  EXPECT_EQ(error_of("flags:\n  plugin:\n    sharedDevicesAllocationPolicy: spread\n"),
            "dp.yaml:3: flags.plugin.sharedDevicesAllocationPolicy: 'spread' is not one of distributed, packed");
  EXPECT_EQ(error_of("flags:\n  failOnInitError: maybe\n"), "dp.yaml:2: flags.failOnInitError: 'maybe' is not true or false");
  EXPECT_EQ(error_of("flags:\n  gfd: {sleepInterval: soon}\n"),
            "dp.yaml:2: flags.gfd.sleepInterval: 'soon' is not a duration (e.g. 60s) or infinite");
  EXPECT_EQ(error_of("imex: {channelIDs: [1]}\n"), "dp.yaml:1: imex.channelIDs[0]: '1' is not an integer from 0 to 0");
  // MPS: at most 48 clients; false for failRequestsGreaterThanOne is not modelled; not with migStrategy mixed.
  const std::string mps = "sharing:\n  mps:\n    resources:\n    - {name: nvidia.com/gpu, replicas: ";
  EXPECT_EQ(error_of(mps + "49}\n"), "dp.yaml:4: sharing.mps.resources[0].replicas: '49' is not an integer from 2 to 48");
  EXPECT_NE(error_of("sharing:\n  mps:\n    failRequestsGreaterThanOne: false\n    resources:\n    - {name: gpu, replicas: 2}\n")
                .find("dp.yaml:3: sharing.mps.failRequestsGreaterThanOne: false lets a pod take several MPS replicas"),
            std::string::npos);
  EXPECT_EQ(error_of("flags: {migStrategy: mixed}\n" + mps + "2}\n"),
            "dp.yaml:4: sharing.mps: the plugin refuses MPS with migStrategy mixed");
  EXPECT_NE(error_of("sharing:\n  timeSlicing:\n    resources: [{name: gpu, replicas: 2}]\n  mps:\n    resources: [{name: gpu, "
                     "replicas: 2}]\n")
                .find("dp.yaml:5: sharing.mps: give one of sharing.timeSlicing and sharing.mps"),
            std::string::npos);
  EXPECT_EQ(error_of("version: v1\nflags: [1\n"), "dp.yaml:3: end of sequence flow not found");
  EXPECT_EQ(error_of("version: v1\n- 1\n").substr(0, 8), "dp.yaml:");
  EXPECT_EQ(error_of("[1, 2]\n"), "dp.yaml:1: config: expected a mapping (version, flags, sharing)");
  EXPECT_EQ(error_of(""), "dp.yaml:1: empty: expected a device-plugin config (version: v1, ...) or a ConfigMap of them");
}

// The GPU Operator's guide, with two named configs as its per-node example has them.
const char* const kConfigMap = R"(apiVersion: v1
kind: ConfigMap
metadata:
  name: time-slicing-config-fine
data:
  a100-40gb: |-
    version: v1
    flags:
      migStrategy: mixed
    sharing:
      timeSlicing:
        resources:
        - name: nvidia.com/gpu
          replicas: 8
  tesla-t4: |-
    version: v1
    sharing:
      timeSlicing:
        resources:
        - name: nvidia.com/gpu
          replicas: 4
)";

TEST(DevicePluginConfig, ConfigMapConfigsChosenByNodeLabel) {
  const DevicePluginConfigs c = parse_device_plugin_config(kConfigMap, "cm.yaml");
  EXPECT_EQ(c.config_map, "time-slicing-config-fine");
  ASSERT_EQ(c.configs.size(), 2U);
  EXPECT_EQ(c.configs[0].name, "a100-40gb");
  EXPECT_EQ(c.configs[0].line, 7);  // the first line of its text, below `a100-40gb: |-`
  EXPECT_EQ(c.configs[1].line, 16);
  EXPECT_EQ(c.for_node(node("t4-0", "tesla-t4")).sharing_config.replicas, 4);
  EXPECT_EQ(c.for_node(node("a100-0", "a100-40gb")).sharing_config.replicas, 8);
  // Two configs, none named default, no label: the Helm chart's fallbacks (named, single) fail.
  try {
    c.for_node(node("plain"));
    ADD_FAILURE() << "no error";
  } catch (const core::InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "node plain: no label nvidia.com/device-plugin.config and cm.yaml (ConfigMap time-slicing-config-fine) has 2 "
              "configs, none named 'default': the plugin's config-manager (its Helm chart's fallbacks: named, single) finds no "
              "config; label the node or name one config 'default'");
  }
  try {
    c.for_node(node("x", "h100"));
    ADD_FAILURE() << "no error";
  } catch (const core::InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "node x: its label nvidia.com/device-plugin.config=h100 names no config of cm.yaml (ConfigMap "
              "time-slicing-config-fine: a100-40gb, tesla-t4); the plugin's config-manager fails there");
  }
}

TEST(DevicePluginConfig, ConfigMapFallsBackToDefaultThenToTheOnlyConfig) {
  std::string text = kConfigMap;
  text.replace(text.find("tesla-t4: |-"), 12, "default: |-");
  const DevicePluginConfigs named = parse_device_plugin_config(text, "cm.yaml");
  EXPECT_EQ(named.for_node(node("plain")).name, "default");
  EXPECT_EQ(named.for_node(node("blank", "")).name, "default");  // an empty label is no choice
  const DevicePluginConfigs single = parse_device_plugin_config(
      "kind: ConfigMap\napiVersion: v1\nmetadata: {name: one}\ndata:\n  any: |-\n    version: v1\n", "one.yaml");
  EXPECT_EQ(single.for_node(node("plain")).name, "any");
}

// An error inside a config names the ConfigMap file's own line and the entry.
TEST(DevicePluginConfig, ConfigMapErrorsNameTheFileLine) {
  std::string text = kConfigMap;
  text.replace(text.find("replicas: 4"), 11, "replicas: 0");
  EXPECT_EQ(error_of(text),
            "dp.yaml:21: data.tesla-t4.sharing.timeSlicing.resources[0].replicas: '0' is not an integer from 2 to 128");
  EXPECT_EQ(error_of("kind: ConfigMap\nmetadata: {name: x}\ndata:\n  a: |-\n    version: v1\n    flag: {}\n"),
            "dp.yaml:6: data.a.flag: unknown field (known: version, flags, resources, sharing, imex)");
  EXPECT_EQ(error_of("kind: ConfigMap\nmetadata: {name: x}\nbinaryData: {a: eA==}\n"),
            "dp.yaml:3: binaryData: configuration files are text: give them under data");
  EXPECT_EQ(error_of("kind: ConfigMap\nmetadata: {name: x}\ndata: {}\n"), "dp.yaml:1: data: missing: the ConfigMap holds no config");
  EXPECT_NE(error_of("kind: ConfigMap\nmetadata: {nam: x}\ndata: {a: 'version: v1'}\n").find("dp.yaml:2: metadata.nam: unknown field"),
            std::string::npos);
}

TEST(DevicePluginConfig, RecognisedByContent) {
  EXPECT_TRUE(is_device_plugin_config(YAML::Load("version: v1\nsharing: {}\n")));
  EXPECT_TRUE(is_device_plugin_config(YAML::Load(kConfigMap)));
  EXPECT_FALSE(is_device_plugin_config(YAML::Load("devicePlugin: {model: time-slicing}\n")));  // --kube
  EXPECT_FALSE(is_device_plugin_config(YAML::Load("devicePlugin: {deviceSplitCount: 10}\n")));  // HAMi values
  EXPECT_FALSE(is_device_plugin_config(YAML::Load("version: v1\nmig-configs: {}\n")));  // mig-parted
  EXPECT_FALSE(is_device_plugin_config(
      YAML::Load("kind: ConfigMap\nmetadata: {name: x}\ndata:\n  device-config.yaml: 'nvidia: {}'\n")));  // HAMi's
}

}  // namespace
}  // namespace gpusim::k8s
