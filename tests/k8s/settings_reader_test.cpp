// The --kube settings file: every section read, and bad input refused with file:line: field.
#include <gtest/gtest.h>

#include "sim/core/status.hpp"
#include "sim/k8s/settings_reader.hpp"

namespace gpusim::k8s {
namespace {

const std::vector<cluster::NodeSpec>& nodes() {
  static const std::vector<cluster::NodeSpec> list{{"n0", 1000, 1024, 2, 0, {}, {}, false},
                                                   {"cpu", 1000, 1024, 0, 0, {}, {}, false}};
  return list;
}

std::string error_of(const std::string& text) {
  try {
    parse_kube_settings(text, "kube.yaml", nodes());
  } catch (const core::InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(KubeSettings, ReadsEverySection) {
  const KubeSettings s = parse_kube_settings(R"(
kubelet: {nodeStatusUpdateFrequency: 1m, bindLatency: 50ms, containerStartLatency: 2s, gpuFreeDelay: 30s}
owners: {backoff: 5s, maxBackoff: 6m, backoffLimit: 3}
nodeLifecycle: {nodeMonitorGracePeriod: 40s, unreachableTolerationSeconds: 120s}
gpuOperator: {driverInstall: 3m, containerToolkit: 30s, devicePlugin: 10s, featureDiscovery: 20s}
devicePlugin: {model: device-plugin, deviceChoice: preferred, topology: dgx1-v100}
pools:
  - {name: old, match: {namePrefix: k80-}, devicePlugin: accelerators-1.6}
health: {ignoredXids: [13], fatalXids: [79, 48]}
failures:
  - {at: 20s, node: n0, gpu: 1, xid: 79}
  - {at: 1h, node: n0, gpu: 1, repaired: true}
  - {at: 30s, node: n0, pluginRestart: 1m}
nodeEvents:
  - {at: 2h, node: n0, event: lost}
randomFailures: {mtbfHours: 1000, xid: 48, repairTime: 2h}
)", "kube.yaml", nodes());
  EXPECT_EQ(s.node_status_period, core::Time::from_seconds(60));
  EXPECT_EQ(s.bind_latency, core::Time::from_micros(50'000));
  EXPECT_EQ(s.gpu_free_delay, core::Time::from_seconds(30));
  EXPECT_EQ(s.backoff_limit, 3);
  EXPECT_EQ(s.node_monitor_grace_period, core::Time::from_seconds(40));
  EXPECT_EQ(s.gpu_operator_delay(), core::Time::from_seconds(240));
  EXPECT_EQ(s.default_model, DevicePluginModel::kDevicePlugin);
  EXPECT_EQ(s.default_choice, DeviceChoice::kPreferred);
  ASSERT_EQ(s.pools.size(), 1U);
  EXPECT_EQ(s.pools[0].model, DevicePluginModel::kAccelerators16);
  EXPECT_EQ(s.fatal_xids, (std::vector<int>{79, 48}));
  ASSERT_EQ(s.gpu_failures.size(), 2U);
  EXPECT_EQ(s.gpu_failures[1].xid, 0);
  ASSERT_EQ(s.plugin_restarts.size(), 1U);
  EXPECT_EQ(s.plugin_restarts[0].down_for, core::Time::from_seconds(60));
  ASSERT_EQ(s.node_events.size(), 1U);
  EXPECT_EQ(s.node_events[0].kind, NodeEventKind::kLost);
  EXPECT_EQ(s.mtbf_hours, 1000);
  EXPECT_EQ(s.random_failure_xid, 48);
}

TEST(KubeSettings, EmptyFileMeansDefaults) {
  const KubeSettings s = parse_kube_settings("", "kube.yaml", nodes());
  EXPECT_EQ(s.node_status_period, core::Time::from_seconds(10));
  EXPECT_EQ(s.default_model, DevicePluginModel::kSchedulerAssigned);
}

TEST(KubeSettings, ErrorsNameFileLineAndField) {
  EXPECT_EQ(error_of("kubelet:\n  nodeStatusUpdateFrequncy: 10s\n"),
            "kube.yaml:2: kubelet.nodeStatusUpdateFrequncy: unknown field (known: nodeStatusUpdateFrequency, "
            "bindLatency, containerStartLatency, gpuFreeDelay, terminationGracePeriod)");
  EXPECT_NE(error_of("kubelet: {nodeStatusUpdateFrequency: ten}\n").find("kube.yaml:1: kubelet.nodeStatusUpdateFrequency:"),
            std::string::npos);
  EXPECT_EQ(error_of("devicePlugin: {model: nvidia}\n"),
            "kube.yaml:1: devicePlugin.model: expected scheduler-assigned, device-plugin, accelerators-1.6, alpha-1.3, "
            "time-slicing, mps, gpushare, hami-vgpu or mig");
  EXPECT_EQ(error_of("failures:\n  - {at: 1s, node: n9, gpu: 0, xid: 79}\n"),
            "kube.yaml:2: failures[0].node: no node named 'n9' in the cluster");
  EXPECT_EQ(error_of("failures:\n  - {at: 1s, node: n0, gpu: 2, xid: 79}\n"),
            "kube.yaml:2: failures[0].gpu: '2' is not an integer from 0 to 1");
  EXPECT_EQ(error_of("failures:\n  - {at: 1s, node: cpu, gpu: 0, xid: 79}\n"),
            "kube.yaml:2: failures[0].node: the node has no GPU");
  EXPECT_EQ(error_of("failures:\n  - {at: 1s, node: n0, gpu: 0}\n"),
            "kube.yaml:2: failures[0]: give exactly one of xid (with gpu), repaired (with gpu) or pluginRestart");
  EXPECT_EQ(error_of("owners: {backoff: 1m, maxBackoff: 10s}\n"), "kube.yaml:1: owners.maxBackoff: must be at least owners.backoff");
  EXPECT_EQ(error_of("nodeEvents:\n  - {at: 1s, node: n0, event: crash}\n"),
            "kube.yaml:2: nodeEvents[0].event: expected join, remove, lost or recovered");
  EXPECT_EQ(error_of("randomFailures: {mtbfHours: -1}\n"),
            "kube.yaml:1: randomFailures.mtbfHours: '-1' is not a number from 0.001 to 1000000000");
  EXPECT_NE(error_of("kubelet: [1, 2\n").find("kube.yaml:"), std::string::npos);
}

TEST(KubeSettings, SharingOptions) {
  // What stays in --kube (no real file has it): the MPS clients' SM share and how a trace fraction
  // asks HAMi's resources.
  const KubeSettings s = parse_kube_settings(
      "fractionalGpuRequests: one-device\n"
      "devicePlugin:\n  model: time-slicing\n"
      "pools:\n  - name: m\n    match: {namePrefix: n1}\n    devicePlugin: mps\n    sharing: {mpsActiveThreadPercentage: 30}\n"
      "  - name: h\n    devicePlugin: hami-vgpu\n    hami: {fractionAsks: gpumem}\n",
      "kube.yaml", nodes());
  EXPECT_TRUE(s.fraction_as_one_device);
  EXPECT_EQ(s.default_model, DevicePluginModel::kTimeSlicing);
  EXPECT_EQ(s.default_sharing, k8s::SharingConfig{});  // the device-plugin config gives the replicas
  EXPECT_TRUE(s.shared_nodes_need_config);
  ASSERT_EQ(s.pools.size(), 2U);
  EXPECT_EQ(s.pools[0].model, DevicePluginModel::kMps);
  EXPECT_EQ(s.pools[0].sharing.mps_active_thread_percentage, 30);
  // HAMi's defaults (charts/hami values) until its Helm values say otherwise.
  EXPECT_EQ(s.default_hami, k8s::HamiConfig{});
  EXPECT_EQ(s.default_hami.device_split_count, 10);
  EXPECT_EQ(s.default_hami.node_policy, k8s::HamiNodePolicy::kBinpack);
  EXPECT_EQ(s.default_hami.gpu_policy, k8s::HamiGpuPolicy::kSpread);
  EXPECT_FALSE(s.pools[1].hami.fraction_asks_cores);
  const KubeSettings m = parse_kube_settings("gpuMemory: {overrunProbability: 0.05, overrunFactor: 2, overrunPods: [a, b]}\n",
                                             "kube.yaml", nodes());
  EXPECT_TRUE(m.memory_model);
  EXPECT_EQ(m.memory_overrun_probability, 0.05);
  EXPECT_EQ(m.memory_overrun_factor, 2);
  EXPECT_EQ(m.overrun_pods, (std::vector<std::string>{"a", "b"}));
}

// The keys issue 30 retired: each is refused at its line with the real file's lines, the values
// given filled in.
TEST(KubeSettings, RetiredSharingHamiAndMigKeysGiveTheRealFilesLines) {
  const std::string ts = error_of("devicePlugin:\n  model: time-slicing\n  sharing: {replicas: 4, allocationPolicy: packed, "
                                  "failRequestsGreaterThanOne: true}\n");
  EXPECT_TRUE(ts.starts_with("kube.yaml:3: devicePlugin.sharing.replicas: gone from --kube: NVIDIA's device-plugin config "
                             "gives it (--config FILE; here devicePlugin: time-slicing may stay, or say device-plugin: the "
                             "config makes the nodes time-slicing). The lines:\n  version: v1\n  flags:\n    plugin: {sharedDevicesAllocationPolicy: "
                             "packed}\n  sharing:\n    timeSlicing:\n      renameByDefault: false\n      "
                             "failRequestsGreaterThanOne: true\n      resources:\n      - name: nvidia.com/gpu\n        "
                             "replicas: 4\n")) << ts;
  const std::string mps = error_of("pools:\n  - name: m\n    devicePlugin: mps\n    sharing: {renameByDefault: true}\n");
  EXPECT_TRUE(mps.starts_with("kube.yaml:4: pools[0].sharing.renameByDefault: gone from --kube:")) << mps;
  EXPECT_NE(mps.find("    mps:\n      renameByDefault: true\n      failRequestsGreaterThanOne: true\n"), std::string::npos) << mps;
  const std::string hami = error_of("devicePlugin:\n  model: hami-vgpu\n  hami: {deviceSplitCount: 4, gpuSchedulerPolicy: binpack}\n");
  EXPECT_TRUE(hami.starts_with("kube.yaml:3: devicePlugin.hami.gpuSchedulerPolicy: gone from --kube: HAMi's Helm values give "
                               "it")) << hami;
  EXPECT_NE(hami.find("  scheduler:\n    defaultSchedulerPolicy:\n      nodeSchedulerPolicy: binpack\n      "
                      "gpuSchedulerPolicy: binpack\n  devicePlugin:\n    deviceSplitCount: 4\n    deviceMemoryScaling: 1\n"),
            std::string::npos) << hami;
  const std::string mig = error_of("devicePlugin:\n  model: mig\n  mig: {strategy: mixed, layout: [3g.40gb, 2g.20gb, 2g.20gb]}\n");
  EXPECT_TRUE(mig.starts_with("kube.yaml:3: devicePlugin.mig.layout: gone from --kube: NVIDIA's files give it")) << mig;
  EXPECT_NE(mig.find("  flags: {migStrategy: mixed}\n"), std::string::npos) << mig;
  EXPECT_NE(mig.find("      mig-devices: {\"3g.40gb\": 1, \"2g.20gb\": 2}\n"), std::string::npos) << mig;
  EXPECT_TRUE(error_of("pools:\n  - name: m\n    devicePlugin: mig\n    mig: {strategy: single}\n")
                  .starts_with("kube.yaml:4: pools[0].mig.strategy: gone from --kube")) ;
}

TEST(KubeSettings, MigOptions) {
  // A mig node's layout comes from NVIDIA's MIG manager config (--config): --kube names the model only.
  const KubeSettings s = parse_kube_settings(
      "devicePlugin:\n  model: mig\npools:\n  - name: h\n    match: {namePrefix: n1}\n    devicePlugin: mig\n", "kube.yaml", nodes());
  EXPECT_EQ(s.default_model, DevicePluginModel::kMig);
  EXPECT_TRUE(s.default_mig.layout.empty());
  ASSERT_EQ(s.pools.size(), 1U);
  EXPECT_TRUE(s.pools[0].mig.layout.empty());
  // HAMi's dynamic MIG stays in --kube, with its starting layout.
  const KubeSettings d = parse_kube_settings(
      "devicePlugin:\n  model: mig\n  mig: {strategy: mixed, layout: [7g.80gb], dynamic: true, reconfigureTime: 2m}\n", "kube.yaml", nodes());
  EXPECT_TRUE(d.default_mig.dynamic);
  EXPECT_EQ(d.default_mig.strategy, MigStrategy::kMixed);
  EXPECT_EQ(d.default_mig.layout, (std::vector<std::string>{"7g.80gb"}));
  EXPECT_EQ(d.default_mig.reconfigure_time, core::Time::from_seconds(120));
}

TEST(KubeSettings, MigErrorsNameFileLineAndField) {
  const std::string dynamic = "devicePlugin:\n  model: mig\n  mig:\n    dynamic: true\n";
  EXPECT_EQ(error_of(dynamic + "    strategy: none\n    layout: [7g.80gb]\n"), "kube.yaml:5: devicePlugin.mig.strategy: expected single or mixed");
  EXPECT_EQ(error_of(dynamic + "    strategy: mixed\n    layout:\n      - 3g.40gb\n      - 3g.4gb\n").substr(0, 75),
            "kube.yaml:8: devicePlugin.mig.layout[1]: '3g.4gb' is no MIG profile of a kn");
  EXPECT_EQ(error_of(dynamic + "    strategy: mixed\n    layout: []\n"),
            "kube.yaml:6: devicePlugin.mig.layout: expected a list of 1 to 7 MIG profile names");
  EXPECT_EQ(error_of(dynamic + "    strategy: mixed\n"),
            "kube.yaml:4: devicePlugin.mig.layout: missing: the MIG instances of each GPU, e.g. [3g.40gb, 3g.40gb]");
  EXPECT_EQ(error_of("devicePlugin:\n  model: mps\n  mig: {layout: [7g.80gb], dynamic: true}\n"),
            "kube.yaml:3: devicePlugin.mig: applies to model mig only");
  EXPECT_EQ(error_of("devicePlugin:\n  model: mig\n  mig: {layout: [7g.80gb], dynamic: true}\n"),
            "kube.yaml:3: devicePlugin.mig.dynamic: re-partitioning changes which profiles a GPU offers: needs strategy mixed");
  EXPECT_EQ(error_of("devicePlugin:\n  model: mig\n  mig: {strategy: mixed, layout: [7g.80gb], dynamic: true, reconfigureTime: soon}\n")
                .substr(0, 53),
            "kube.yaml:3: devicePlugin.mig.reconfigureTime: 'soon'");
  EXPECT_EQ(error_of("devicePlugin:\n  model: mig\n  mig: {strategy: mixed, layout: [7g.80gb], dynamic: true, reconfigureTime: 0s}\n"),
            "kube.yaml:3: devicePlugin.mig.reconfigureTime: must be more than 0s");
}

TEST(KubeSettings, SharingErrorsNameFileLineAndField) {
  EXPECT_EQ(error_of("devicePlugin:\n  model: mps\n  sharing: {mpsActiveThreadPercentage: 0}\n"),
            "kube.yaml:3: devicePlugin.sharing.mpsActiveThreadPercentage: '0' is not a number from 1 to 100");
  EXPECT_EQ(error_of("devicePlugin:\n  model: mps\n  sharing: {rename: true}\n"),
            "kube.yaml:3: devicePlugin.sharing.rename: unknown field (known: mpsActiveThreadPercentage)");
  EXPECT_EQ(error_of("devicePlugin:\n  model: device-plugin\n  sharing: {mpsActiveThreadPercentage: 50}\n"),
            "kube.yaml:3: devicePlugin.sharing: applies to model time-slicing or mps only");
  EXPECT_EQ(error_of("devicePlugin:\n  model: hami-vgpu\n  hami: {fractionAsks: gpucores}\n"),
            "kube.yaml:3: devicePlugin.hami.fractionAsks: expected gpumem-and-gpucores or gpumem");
  EXPECT_EQ(error_of("devicePlugin:\n  model: hami-vgpu\n  hami: {splitCount: 4}\n"),
            "kube.yaml:3: devicePlugin.hami.splitCount: unknown field (known: fractionAsks)");
  EXPECT_EQ(error_of("devicePlugin:\n  model: mps\n  hami: {fractionAsks: gpumem}\n"),
            "kube.yaml:3: devicePlugin.hami: applies to model hami-vgpu only");
  EXPECT_EQ(error_of("descheduler: {evictionsPerCycle: 0}\n"),
            "kube.yaml:1: descheduler.evictionsPerCycle: '0' is not an integer from 1 to 1000");
  EXPECT_EQ(error_of("descheduler: {checkpointInterval: 0s}\n"), "kube.yaml:1: descheduler.checkpointInterval: must be more than 0s");
  EXPECT_EQ(error_of("descheduler: {budget: 3}\n"),
            "kube.yaml:1: descheduler.budget: unknown field (known: interval, evictionsPerCycle, checkpointInterval, minRunTime)");
  EXPECT_EQ(error_of("fractionalGpuRequests: split\n"), "kube.yaml:1: fractionalGpuRequests: expected keep or one-device");
  EXPECT_EQ(error_of("gpuMemory: {overrunProbability: 2}\n"),
            "kube.yaml:1: gpuMemory.overrunProbability: '2' is not a number from 0 to 1");
  EXPECT_EQ(error_of("gpuMemory: {overrunFactor: 0.5}\n"), "kube.yaml:1: gpuMemory.overrunFactor: '0.5' is not a number from 1 to 100");
  EXPECT_EQ(error_of("gpuMemory: {overrunPods: b}\n"), "kube.yaml:1: gpuMemory.overrunPods: expected a list of pod names");
}

}  // namespace
}  // namespace gpusim::k8s
