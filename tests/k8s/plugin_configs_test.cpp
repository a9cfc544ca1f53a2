// The real configuration files drive the simulated plugins: NVIDIA's time-slicing example as the
// GPU Operator's guide writes it, a ConfigMap's configs chosen per node by the label a --kube pool
// sets, MIG under the config's migStrategy, and HAMi's default values. Every outcome is worked out
// by hand in the comments; times are seconds.
#include <gtest/gtest.h>

#include "sim/core/status.hpp"
#include "sim/k8s/device_plugin_config.hpp"
#include "sim/k8s/hami_settings.hpp"
#include "sim/k8s/mig_parted_config.hpp"
#include "sim/k8s/pool_labels.hpp"
#include "tests/k8s/k8s_harness.hpp"

namespace gpusim::testing {
namespace {

using experiment::PodOutcome;
using k8s::DevicePluginModel;

// The GPU Operator's "Time-Slicing GPUs in Kubernetes" ConfigMap, as the guide writes it.
const char* const kOperatorTimeSlicing = R"(apiVersion: v1
kind: ConfigMap
metadata:
  name: time-slicing-config-all
data:
  any: |-
    version: v1
    flags:
      migStrategy: none
    sharing:
      timeSlicing:
        renameByDefault: false
        failRequestsGreaterThanOne: false
        resources:
          - name: nvidia.com/gpu
            replicas: 4
)";

void use_config(K8sScenario& s, const std::string& text) {
  s.kube.device_plugin_configs = std::make_shared<k8s::DevicePluginConfigs>(k8s::parse_device_plugin_config(text, "dp.yaml"));
}

std::string run_error(K8sScenario& s) {
  try {
    s.run();
  } catch (const core::InputError& e) {
    return e.what();
  }
  return "no error";
}

// One V100 node served by NVIDIA's plugin (--kube device-plugin), the Operator's ConfigMap: its
// one config `any` (the single fallback) makes the GPU 4 replicas. Five whole-GPU pods of 100 s
// arrive at 0: four get replicas 0-3 of GPU 0 and time-slice it, each at a quarter speed, so
// they end at 400; the fifth waits for a replica and runs alone from 400 to 500.
TEST(PluginConfigs, OperatorTimeSlicingExampleSharesEachGpuFourWays) {
  K8sScenario s;
  s.node("v100-0", 1);
  s.kube.default_model = DevicePluginModel::kDevicePlugin;
  use_config(s, kOperatorTimeSlicing);
  for (int i = 0; i < 5; ++i) s.pod("p" + std::to_string(i), 1, 0, 100);
  const auto result = s.run();
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(record(result, static_cast<std::size_t>(i)).gpus, gpus({i})) << i;
    EXPECT_EQ(seconds(record(result, static_cast<std::size_t>(i)).end_us), 400) << i;
  }
  EXPECT_EQ(seconds(record(result, 4).start_us), 400);
  EXPECT_EQ(seconds(record(result, 4).end_us), 500);
  // Without the config the node has one whole GPU: the pods run one after another.
  K8sScenario whole;
  whole.node("v100-0", 1);
  whole.kube.default_model = DevicePluginModel::kDevicePlugin;
  for (int i = 0; i < 2; ++i) whole.pod("p" + std::to_string(i), 1, 0, 100);
  EXPECT_EQ(seconds(record(whole.run(), 1).start_us), 100);
}

// Two configs in one ConfigMap; a --kube pool labels the nodes named shared-* with
// nvidia.com/device-plugin.config=ts-2, the other node gets `default` (no sharing). Three whole-GPU
// pods of 100 s: p0 and p1 go to the shared node's two replicas (binpack: the fuller node first,
// node order breaking the tie), p2 to the whole GPU of node plain-0. The sharers end at 200.
TEST(PluginConfigs, ConfigMapConfigChosenByThePoolsLabel) {
  K8sScenario s;
  s.node("shared-0", 1);
  s.node("plain-0", 1);
  s.kube.default_model = DevicePluginModel::kDevicePlugin;
  k8s::NodePool pool;
  pool.name = "shared";
  pool.match.name_prefix = "shared-";
  pool.model = DevicePluginModel::kDevicePlugin;
  pool.labels = {{k8s::kDevicePluginConfigLabel, "ts-2"}};
  s.kube.pools.push_back(pool);
  k8s::label_pool_nodes(s.kube, s.catalog, s.cluster.nodes);
  ASSERT_EQ(s.cluster.nodes[0].labels.size(), 1U);
  EXPECT_TRUE(s.cluster.nodes[1].labels.empty());
  use_config(s, R"(kind: ConfigMap
metadata: {name: plugin-configs}
data:
  default: |
    version: v1
  ts-2: |
    version: v1
    sharing:
      timeSlicing:
        resources: [{name: nvidia.com/gpu, replicas: 2}]
)");
  s.pod("p0", 1, 0, 100);
  s.pod("p1", 1, 0, 100);
  s.pod("p2", 1, 0, 100);
  const auto result = s.run();
  EXPECT_EQ(record(result, 0).node, 0);
  EXPECT_EQ(record(result, 1).node, 0);
  EXPECT_EQ(seconds(record(result, 0).end_us), 200);
  EXPECT_EQ(record(result, 2).node, 1);
  EXPECT_EQ(record(result, 2).gpus, gpus({0}));
  EXPECT_EQ(seconds(record(result, 2).end_us), 100);
}

// The plugin runs on GPU nodes only: a CPU node without the label is no error, though the
// ConfigMap's two configs leave an unlabelled GPU node without one.
TEST(PluginConfigs, NoConfigNeededWhereNoPluginRuns) {
  K8sScenario s;
  s.node("gpu-0", 1);
  s.node("cpu-0", 0);
  s.cluster.nodes[0].labels.emplace_back(k8s::kDevicePluginConfigLabel, "a");
  s.kube.default_model = DevicePluginModel::kDevicePlugin;
  use_config(s, "kind: ConfigMap\nmetadata: {name: two}\ndata:\n  a: 'version: v1'\n  b: 'version: v1'\n");
  s.pod("p", 1, 0, 100);
  EXPECT_EQ(record(s.run(), 0).node, 0);
  s.cluster.nodes[0].labels.clear();
  EXPECT_NE(run_error(s).find("node gpu-0: no label nvidia.com/device-plugin.config"), std::string::npos);
}

// A label kubectl would refuse to change without --overwrite is refused.
TEST(PluginConfigs, PoolLabelsDoNotOverwriteANodesOwn) {
  K8sScenario s;
  s.node("n0", 1);
  s.cluster.nodes[0].labels.emplace_back(k8s::kDevicePluginConfigLabel, "a");
  k8s::NodePool pool;
  pool.name = "all";
  pool.labels = {{k8s::kDevicePluginConfigLabel, "b"}};
  s.kube.pools.push_back(pool);
  try {
    k8s::label_pool_nodes(s.kube, s.catalog, s.cluster.nodes);
    ADD_FAILURE() << "no error";
  } catch (const core::InputError& e) {
    EXPECT_EQ(std::string(e.what()), "node n0: pool all labels it nvidia.com/device-plugin.config=b, but the node has "
                                     "nvidia.com/device-plugin.config=a (kubectl label would refuse it without --overwrite)");
  }
}

// An A100 whose --kube layout cuts it into two 3g.40gb instances: the config's migStrategy single
// advertises them as nvidia.com/gpu, so two whole-GPU pods run side by side on instances 0 and 1
// (each on 42 of 108 SMs: 100 s of work take 100 x 108 / 42 = 257.14 s); migStrategy none would
// not advertise them at all, which is refused.
TEST(PluginConfigs, MigStrategyComesFromTheConfig) {
  K8sScenario s;
  s.catalog = cluster::GpuCatalog::from_models({{"a100-sxm4-80gb", "A100 80GB", {"A100"}, 81920, 0, 0, 0, 0, ""}});
  s.node("a100-0", 1);
  s.kube.default_model = DevicePluginModel::kMig;
  s.kube.default_mig.layout = {"3g.40gb", "3g.40gb"};
  s.kube.fraction_as_one_device = true;
  use_config(s, "version: v1\nflags: {migStrategy: single}\n");
  s.pod("a", 1, 0, 100);
  s.pod("b", 1, 0, 100);
  const auto result = s.run();
  EXPECT_EQ(record(result, 0).gpus, gpus({0}));
  EXPECT_EQ(record(result, 1).gpus, gpus({1}));
  EXPECT_NEAR(seconds(record(result, 1).end_us), 100.0 * 108 / 42, 1e-5);
  K8sScenario none = s;
  use_config(none, "version: v1\nflags: {migStrategy: none}\n");
  EXPECT_EQ(run_error(none), "node a100-0: device-plugin config dp.yaml says migStrategy none, but the --kube devicePlugin "
                             "cuts its GPUs into MIG instances: the plugin would not advertise them; set flags.migStrategy "
                             "single or mixed");
  K8sScenario shared = s;
  use_config(shared, "sharing:\n  timeSlicing:\n    resources: [{name: gpu, replicas: 2}]\nflags: {migStrategy: single}\n");
  EXPECT_NE(run_error(shared).find("gpusim does not model replicas of MIG instances"), std::string::npos);
}

// The layout from NVIDIA's MIG manager config instead of --kube: node a100-0 is labelled
// nvidia.com/mig.config=mixed-3-2-1-1 (3g.40gb, 2g.20gb and two 1g.10gb per GPU, written smallest
// first; mig-parted creates them largest first), a100-1 has no label and gets all-disabled: a
// whole GPU. Under migStrategy mixed a pod asking 0.1 of a GPU asks the smallest profile that
// covers it, 1g.10gb: a on device 2 and b on device 3 of a100-0, both at full speed (their demand
// is the instance's share). A whole-GPU pod asks 7g, which no layout offers, so with MIG on one
// node every GPU pod asks a profile: the whole GPU of a100-1 would be refused, which gpusim does
// (a cluster with mixed MIG nodes and other GPU nodes) — so both nodes are labelled here.
TEST(PluginConfigs, MigLayoutFromTheMigManagersConfig) {
  K8sScenario s;
  s.catalog = cluster::GpuCatalog::from_models({{"a100-sxm4-80gb", "A100 80GB", {"A100"}, 81920, 0, 0, 0, 0, ""}});
  s.node("a100-0", 1);
  s.node("a100-1", 1);
  s.kube.default_model = DevicePluginModel::kDevicePlugin;
  s.cluster.nodes[0].labels.emplace_back(k8s::kMigConfigLabel, "mixed-3-2-1-1");
  s.cluster.nodes[1].labels.emplace_back(k8s::kMigConfigLabel, "all-7g");
  use_config(s, "version: v1\nflags: {migStrategy: mixed}\n");
  const char* const parted = R"(version: v1
mig-configs:
  all-disabled:
    - {devices: all, mig-enabled: false}
  all-7g:
    - {devices: all, mig-enabled: true, mig-devices: {"7g.80gb": 1}}
  mixed-3-2-1-1:
    - devices: all
      mig-enabled: true
      mig-devices: {"1g.10gb": 2, "2g.20gb": 1, "3g.40gb": 1}
)";
  s.kube.mig_parted_configs = std::make_shared<k8s::MigPartedConfigs>(k8s::parse_mig_parted_config(parted, "mig.yaml"));
  s.pod("a", 1, 0, 100).gpu_milli = 100;
  s.pod("b", 1, 0, 100).gpu_milli = 100;
  s.pod("w", 1, 0, 100);
  const auto result = s.run();
  EXPECT_EQ(record(result, 0).node, 0);
  EXPECT_EQ(record(result, 0).gpus, gpus({2}));
  EXPECT_EQ(record(result, 1).gpus, gpus({3}));
  EXPECT_EQ(seconds(record(result, 1).end_us), 100);
  // The whole-GPU pod takes a100-1's 7g instance (98 of 108 SMs): 100 x 108 / 98 s.
  EXPECT_EQ(record(result, 2).node, 1);
  EXPECT_NEAR(seconds(record(result, 2).end_us), 100.0 * 108 / 98, 1e-5);
  // A --kube layout as well is refused; a mig-parted config without a device-plugin config too.
  K8sScenario both = s;
  both.kube.default_model = DevicePluginModel::kMig;
  both.kube.default_mig.layout = {"7g.80gb"};
  EXPECT_EQ(run_error(both), "node a100-0: mig-parted config 'mixed-3-2-1-1' (mig.yaml) gives its MIG layout, and the --kube "
                             "devicePlugin gives one too: keep it in the mig-parted config alone");
  K8sScenario alone = s;
  alone.kube.device_plugin_configs = nullptr;
  EXPECT_NE(run_error(alone).find("a mig-parted config cuts GPUs into MIG instances, but without NVIDIA's device-plugin config"),
            std::string::npos);
}

// The same parameters in --kube and in the config are refused: they have one place.
TEST(PluginConfigs, KubeSharingAndAConfigAreRefusedTogether) {
  K8sScenario s;
  s.node("n0", 1);
  s.kube.default_model = DevicePluginModel::kTimeSlicing;
  s.kube.default_sharing.replicas = 4;
  use_config(s, kOperatorTimeSlicing);
  s.pod("a", 1, 0, 100);
  EXPECT_EQ(run_error(s), "node n0: device-plugin config 'any' (dp.yaml:7) gives its sharing, and the --kube devicePlugin "
                          "gives sharing settings too: keep them in the device-plugin config alone");
  // A --kube model that names a sharing mode must be the config's: mps against a time-slicing
  // config is refused rather than guessed.
  s.kube.default_sharing = {};
  s.kube.default_model = DevicePluginModel::kMps;
  EXPECT_EQ(run_error(s), "node n0: devicePlugin mps (from the --kube devicePlugin), but the device-plugin config dp.yaml "
                          "makes it time-slicing: give the config sharing.mps, or say devicePlugin: device-plugin and let "
                          "the config decide");
  // time-slicing (or device-plugin) with the config's 4 replicas runs.
  s.kube.default_model = DevicePluginModel::kTimeSlicing;
  s.pod("b", 1, 0, 100);
  const auto result = s.run();
  EXPECT_EQ(record(result, 1).gpus, gpus({1}));
  EXPECT_EQ(seconds(record(result, 1).end_us), 200);  // two time-sliced pods at half speed
}

// MPS: an MPS server on a V100 (compute capability 7.0) takes at most 16 clients.
TEST(PluginConfigs, MpsReplicasWithinTheServersClients) {
  K8sScenario s;
  s.catalog = cluster::GpuCatalog::from_models({{"v100-sxm2-32gb", "V100", {"V100M32"}, 32768, 0, 0, 0, 0, ""}});
  s.node("v100-0", 2);
  s.kube.default_model = DevicePluginModel::kDevicePlugin;
  use_config(s, "sharing:\n  mps:\n    resources: [{name: nvidia.com/gpu, replicas: 20}]\n");
  s.pod("a", 1, 0, 100);
  EXPECT_EQ(run_error(s), "node v100-0: device-plugin config dp.yaml: 20 MPS replicas per GPU, but an MPS server on a "
                          "v100-sxm2-32gb takes at most 16 clients (the plugin's mps-control-daemon refuses the config)");
}

// HAMi's default values on two one-GPU nodes: node policy binpack puts both 0.3 pods on node 0
// (HAMi's score 10 x (1/10 + 0.3 + 0.3) = 7 against 0), and 10 pods per GPU at most. With a
// nodeconfig giving node n0 devicesplitcount 1, the second pod cannot join the first there and
// goes to n1.
TEST(PluginConfigs, HamiDefaultValuesAndNodeConfig) {
  for (const bool split_one : {false, true}) {
    K8sScenario s;
    s.node("n0", 1);
    s.node("n1", 1);
    s.kube.default_model = DevicePluginModel::kHamiVgpu;
    const std::string values =
        split_one ? "devicePlugin:\n  nodeConfiguration:\n    config: '{\"nodeconfig\": [{\"name\": \"n0\", \"devicesplitcount\": 1}]}'\n"
                  : "";
    s.kube.hami_settings = std::make_shared<k8s::HamiSettings>(k8s::parse_hami_values(values, "values.yaml"));
    s.pod("a", 1, 0, 100).gpu_milli = 300;
    s.pod("b", 1, 1, 100).gpu_milli = 300;
    const auto result = s.run();
    EXPECT_EQ(record(result, 0).node, 0);
    EXPECT_EQ(record(result, 1).node, split_one ? 1 : 0) << split_one;
    EXPECT_EQ(seconds(record(result, 1).start_us), 1);
  }
}

// HAMi's GPU policy from the values: on one two-GPU node, A (0.3) takes GPU 0; B (0.3) takes the
// least used GPU under spread (GPU 1) and the most used that fits under binpack (GPU 0).
TEST(PluginConfigs, HamiGpuPolicyFromTheValues) {
  for (const char* policy : {"spread", "binpack"}) {
    K8sScenario s;
    s.node("n0", 2);
    s.kube.default_model = DevicePluginModel::kHamiVgpu;
    s.kube.hami_settings = std::make_shared<k8s::HamiSettings>(k8s::parse_hami_values(
        std::string("scheduler:\n  defaultSchedulerPolicy:\n    gpuSchedulerPolicy: ") + policy + "\n", "values.yaml"));
    s.pod("a", 1, 0, 100).gpu_milli = 300;
    s.pod("b", 1, 1, 100).gpu_milli = 300;
    const auto result = s.run();
    EXPECT_EQ(record(result, 0).gpus, gpus({0}));
    EXPECT_EQ(record(result, 1).gpus, gpus({std::string(policy) == "spread" ? 1 : 0})) << policy;
  }
  // --kube giving HAMi's parameters as well is refused.
  K8sScenario s;
  s.node("n0", 1);
  s.kube.default_model = DevicePluginModel::kHamiVgpu;
  s.kube.default_hami.device_split_count = 3;
  s.kube.hami_settings = std::make_shared<k8s::HamiSettings>(k8s::parse_hami_values("", "values.yaml"));
  s.pod("a", 1, 0, 100).gpu_milli = 300;
  EXPECT_EQ(run_error(s), "node n0: HAMi's settings (values.yaml) give its policies, split count and memory scaling, and the "
                          "--kube devicePlugin gives HAMi settings too: keep only fractionAsks in --kube");
}

}  // namespace
}  // namespace gpusim::testing
