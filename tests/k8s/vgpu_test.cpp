// NVIDIA vGPU for VMs (devicePlugin kubevirt-vgpu): the vGPU schedulers' rates worked out by hand
// (the issue's example: a type of 4 per GPU with 2 busy vGPUs gets 1/2 each under best effort,
// 1/2 or 1/4 under equal share as 2 or 4 are powered on, 1/4 under fixed share), VM boot time,
// a booting VM counting for equal share, one resource per vGPU type, MIG-backed vGPUs on their
// GPU instances, and the vGPU Device Manager's refusals with file and line.
#include <gtest/gtest.h>

#include <map>

#include "sim/cluster/mig.hpp"
#include "sim/core/status.hpp"
#include "sim/k8s/shared_progress.hpp"
#include "sim/k8s/vgpu_dm_config.hpp"
#include "tests/k8s/k8s_harness.hpp"
#include "traces/k8s_manifests.hpp"

namespace gpusim::k8s {
namespace {

using testing::K8sScenario;
using testing::record;
using testing::seconds;

SharedGpuModel vgpu_model(TimeShare share, int max_instances) {
  SharedGpuModel m;
  m.time_share = share;
  m.fixed_share = 1.0 / max_instances;
  return m;
}

// Two busy vGPUs (demand 1, 100 s of work each) on one GPU of a type with 4 per GPU.
double finish_s(TimeShare share, int powered_on) {
  SharedProgress progress({vgpu_model(share, 4)});
  for (int k = 0; k < powered_on; ++k) progress.power(0, +1, core::Time::zero());
  progress.add(0, {0}, 1.0, 100e6, false, core::Time::zero());
  progress.add(1, {0}, 1.0, 100e6, false, core::Time::zero());
  // The pod just added is always among those moved (pod 0 only where its rate changed).
  EXPECT_EQ(progress.moved().back().pod, 1U);
  return seconds(progress.moved().back().at.micros());
}

TEST(VgpuScheduler, TheIssuesExampleTwoBusyOfFour) {
  // Best effort: the busy two share the GPU, 1/2 each: 200 s, however many are powered on.
  EXPECT_EQ(finish_s(TimeShare::kCuda, 2), 200);
  EXPECT_EQ(finish_s(TimeShare::kCuda, 4), 200);
  // Equal share: 1/2 each with 2 powered on, 1/4 with 4 (two idle VMs keep their slices).
  EXPECT_EQ(finish_s(TimeShare::kEqualShare, 2), 200);
  EXPECT_EQ(finish_s(TimeShare::kEqualShare, 4), 400);
  // Fixed share: 1/4 whatever runs.
  EXPECT_EQ(finish_s(TimeShare::kFixedShare, 2), 400);
  EXPECT_EQ(finish_s(TimeShare::kFixedShare, 4), 400);
}

TEST(VgpuScheduler, ALightVmUnderItsShareRunsAtFullSpeedAndFixedShareIdlesTheRest) {
  // A VM that uses a fifth of the GPU fits in a quarter slice: full speed under equal and fixed
  // share; the busy one gets 1/4 (fixed) or 1/2 (equal, 2 on), where best effort gives it 0.8.
  // The busy VM's finish is as projected at the second start (under best effort it speeds up to
  // full once the light one ends at 100 s, and really ends at 120 s).
  for (const auto& [share, busy_finish] : {std::pair{TimeShare::kCuda, 125.0}, std::pair{TimeShare::kEqualShare, 200.0},
                                           std::pair{TimeShare::kFixedShare, 400.0}}) {
    SharedProgress progress({vgpu_model(share, 4)});
    progress.power(0, +2, core::Time::zero());
    std::map<std::uint32_t, double> finish;
    const auto note = [&] {
      for (const auto& f : progress.moved()) finish[f.pod] = seconds(f.at.micros());
    };
    progress.add(0, {0}, 1.0, 100e6, false, core::Time::zero());
    note();
    progress.add(1, {0}, 0.2, 100e6, false, core::Time::zero());
    note();
    EXPECT_EQ(finish[0], busy_finish);  // pod 0
    EXPECT_EQ(finish[1], 100);          // pod 1, rate 1
    // Fixed share over the first 100 s: the GPU is busy 1/4 + 0.2, not 1.
    const auto totals = progress.totals(core::Time::from_seconds(100));
    const double busy = share == TimeShare::kFixedShare ? 0.45 : share == TimeShare::kEqualShare ? 0.7 : 1.0;
    EXPECT_NEAR(totals.busy_gpu_s, 100 * busy, 1e-6);
  }
}

const char* const kConfigs = R"(version: v1
vgpu-configs:
  default:
    - devices: all
      device-filter: ["0x20B210DE"]
      vgpu-devices: {"A100DX-40C": 2}
  A100DX-20C:
    - devices: all
      vgpu-devices:
        "A100DX-20C": 4
  too-many:
    - devices: all
      vgpu-devices: {"A100DX-20C": 5}
  mixed:
    - devices: all
      vgpu-devices: {"A100DX-40C": 1, "A100DX-20C": 2}
  other-gpu:
    - devices: all
      vgpu-devices: {"T4-4C": 4}
  mig:
    - devices: all
      vgpu-devices: {"A100DX-1-10C": 7}
  mixed-unplaceable:
    - devices: all
      vgpu-devices: {"A100DX-16C": 4, "A100DX-8C": 2}
  mixed-placeable:
    - devices: all
      vgpu-devices: {"A100DX-16C": 2, "A100DX-8C": 4, "A100DX-4C": 2}
  mixed-many-small:
    - devices: all
      vgpu-devices: {"A100DX-8C": 1, "A100DX-4C": 15}
  mig-too-big:
    - devices: all
      vgpu-devices: {"A100DX-3-40C": 2, "A100DX-1-10C": 2}
  mig-me:
    - devices: all
      vgpu-devices: {"A100DX-1-10CME": 1}
)";

// One A100 80GB node running vGPU under `scheduler`, its label selecting `config`.
K8sScenario vgpu_scenario(VgpuScheduler scheduler, const std::string& config, int boot_s) {
  K8sScenario s;
  s.catalog = cluster::GpuCatalog::from_models({{"a100-sxm4-80gb", "A100 80GB", {}, 81920, 0, 0, 0, 0, ""}});
  s.node("vm-host", 1);
  if (!config.empty()) s.cluster.nodes.back().labels.emplace_back(kVgpuConfigLabel, config);
  s.kube.default_model = DevicePluginModel::kKubevirtVgpu;
  s.kube.default_vgpu.scheduler = scheduler;
  s.kube.default_vgpu.boot_time = core::Time::from_seconds(boot_s);
  s.kube.vgpu_dm_configs = std::make_shared<VgpuDmConfigs>(parse_vgpu_dm_config(kConfigs, "vgpu.yaml"));
  return s;
}

TEST(KubevirtVgpu, TwoBusyAndTwoIdleVmsUnderEachScheduler) {
  // Four 20 GB vGPUs: two busy VMs (100 s of work) and two nearly idle ones (demand 0.001,
  // 1000 s); every VM boots for 30 s first. Best effort: the busy two share what the idle ones
  // leave, (1 - 0.002) / 2 each; equal and fixed share: 1/4 each, 400 s.
  for (const auto& [scheduler, busy_end] : {std::pair{VgpuScheduler::kBestEffort, 30 + 100 / 0.499},
                                            std::pair{VgpuScheduler::kEqualShare, 430.0},
                                            std::pair{VgpuScheduler::kFixedShare, 430.0}}) {
    K8sScenario s = vgpu_scenario(scheduler, "A100DX-20C", 30);
    s.pod("busy-0", 1, 0, 100);
    s.pod("busy-1", 1, 0, 100);
    s.pod("idle-0", 1, 0, 1000).gpu_demand_milli = 1;
    s.pod("idle-1", 1, 0, 1000).gpu_demand_milli = 1;
    s.pod("z-fifth", 1, 0, 10);  // no fifth vGPU: it waits for one (queued last: by name)
    const auto result = s.run();
    EXPECT_EQ(record(result, 0).gpus, testing::gpus({0}));
    EXPECT_EQ(record(result, 3).gpus, testing::gpus({3}));
    EXPECT_EQ(seconds(record(result, 0).start_us), 30) << to_string(scheduler);  // running once booted
    EXPECT_NEAR(seconds(record(result, 0).end_us), busy_end, 1e-5) << to_string(scheduler);
    EXPECT_NEAR(seconds(record(result, 1).end_us), busy_end, 1e-5) << to_string(scheduler);
    EXPECT_GE(seconds(record(result, 4).start_us), busy_end - 1e-5) << to_string(scheduler);
  }
}

TEST(KubevirtVgpu, ABootingVmAlreadyTakesItsEqualShare) {
  // VM 1 boots 0-30 s and works 100 s; VM 2 is admitted at 100 s and boots until 130 s. Best
  // effort: VM 1 runs alone until 130 s, done then. Equal share: from 100 s it has 1/2 (2 powered
  // on): 70 s done by 100 s, the other 30 s take 60: 160 s.
  for (const auto& [scheduler, end] : {std::pair{VgpuScheduler::kBestEffort, 130.0}, std::pair{VgpuScheduler::kEqualShare, 160.0}}) {
    K8sScenario s = vgpu_scenario(scheduler, "A100DX-20C", 30);
    s.pod("vm-1", 1, 0, 100);
    s.pod("vm-2", 1, 100, 100);
    const auto result = s.run();
    EXPECT_NEAR(seconds(record(result, 0).end_us), end, 1e-5) << to_string(scheduler);
  }
}

TEST(KubevirtVgpu, TheDefaultConfigAndOneResourcePerType) {
  // No label: the GPU Operator's default config, two A100DX-40C per A100 80GB. A pod asking
  // nvidia.com/NVIDIA_A100DX-40C runs; one asking another type no node creates is refused.
  K8sScenario s = vgpu_scenario(VgpuScheduler::kBestEffort, "", 0);
  auto named = std::make_shared<cluster::PodConstraints>();
  named->gpu_resource = cluster::GpuResource::kVgpuType;
  named->vgpu_resource = "NVIDIA_A100DX-40C";
  s.pod("vm", 1, 0, 100).constraints = named;
  s.pod("vm-2", 1, 0, 100).constraints = named;
  const auto result = s.run();
  EXPECT_EQ(record(result, 0).gpus, testing::gpus({0}));
  EXPECT_EQ(record(result, 1).gpus, testing::gpus({1}));
  EXPECT_EQ(seconds(record(result, 1).end_us), 200);  // two busy vGPUs, best effort: 1/2 each

  auto other = std::make_shared<cluster::PodConstraints>(*named);
  other->vgpu_resource = "NVIDIA_A100DX-20C";
  s.workload.pods[1].constraints = other;
  try {
    s.run();
    ADD_FAILURE() << "a type no node creates ran";
  } catch (const core::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("asks nvidia.com/NVIDIA_A100DX-20C, which no node's vGPU config creates"), std::string::npos)
        << e.what();
  }
}

TEST(KubevirtVgpu, MigBackedVgpusRunOnTheirInstanceAlone) {
  // Seven A100DX-1-10C: each a 1g.10gb instance. Under any vGPU scheduler a VM busy on the whole
  // GPU runs at the instance's share of the SMs; one whose demand fits the instance runs at full
  // speed; neighbours never slow each other; an eighth VM waits for an instance.
  const cluster::MigGeometry* geometry = cluster::mig_geometry("a100-sxm4-80gb");
  const double share = geometry->compute_share(*geometry->shape("1g.10gb"));
  for (const VgpuScheduler scheduler : {VgpuScheduler::kBestEffort, VgpuScheduler::kEqualShare, VgpuScheduler::kFixedShare}) {
    K8sScenario s = vgpu_scenario(scheduler, "mig", 10);
    s.pod("busy", 1, 0, 100);
    s.pod("light", 1, 0, 100).gpu_demand_milli = static_cast<std::int32_t>(share * 1000) - 1;
    for (int k = 0; k < 5; ++k) s.pod("other-" + std::to_string(k), 1, 0, 1000);
    s.pod("z-eighth", 1, 0, 10);
    const auto result = s.run();
    EXPECT_NEAR(seconds(record(result, 0).end_us), 10 + 100 / share, 1e-5) << to_string(scheduler);
    EXPECT_EQ(seconds(record(result, 1).end_us), 110) << to_string(scheduler);
    EXPECT_EQ(record(result, 6).gpus, testing::gpus({6}));
    EXPECT_GE(seconds(record(result, 7).start_us), 110) << to_string(scheduler);
  }
}

std::string run_error(K8sScenario s) {
  s.pod("vm", 1, 0, 100);
  try {
    s.run();
  } catch (const core::InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(KubevirtVgpu, WhatTheManagerAndTheDriverRefuse) {
  EXPECT_NE(run_error(vgpu_scenario(VgpuScheduler::kBestEffort, "too-many", 0))
                .find("vgpu.yaml:12: vgpu-configs.too-many[0]: failed to create 5 A100DX-20C vGPU devices on GPU (index=0)"),
            std::string::npos);
  EXPECT_NE(run_error(vgpu_scenario(VgpuScheduler::kBestEffort, "other-gpu", 0)).find("vGPU type T4-4C is not supported on GPU"),
            std::string::npos);
  EXPECT_NE(run_error(vgpu_scenario(VgpuScheduler::kBestEffort, "mixed", 0)).find("need mixed-size mode"), std::string::npos);
  EXPECT_EQ(run_error(vgpu_scenario(VgpuScheduler::kBestEffort, "mig", 0)), "no error");
  EXPECT_NE(run_error(vgpu_scenario(VgpuScheduler::kBestEffort, "mig-too-big", 0)).find("do not fit one a100-sxm4-80gb"),
            std::string::npos);
  EXPECT_NE(run_error(vgpu_scenario(VgpuScheduler::kBestEffort, "mig-me", 0)).find("runs on MIG profile 1g.10gb+me, which gpusim does not model"),
            std::string::npos);
  EXPECT_NE(run_error(vgpu_scenario(VgpuScheduler::kBestEffort, "nope", 0)).find("its label nvidia.com/vgpu.config names config 'nope'"),
            std::string::npos);
  // Mixed-size mode: 1 x 40C + 2 x 20C fit (A100 80GB, mixed maxima 2 and 4), but not with fixed share.
  K8sScenario mixed = vgpu_scenario(VgpuScheduler::kBestEffort, "mixed", 0);
  mixed.kube.default_vgpu.mixed_size = true;
  EXPECT_EQ(run_error(mixed), "no error");
  // Placement IDs on the 80 GB region: four 16 GB vGPUs take 0, 24, 40 and 64, and no 8 GB one
  // fits beside them (its IDs 0, 12, 20, 32, 40, 52, 60, 72 all overlap one), though 80 GB would
  // hold them all. 2 x 16 + 4 x 8 + 2 x 4 fit (16 GB at 0 and 24, 8 GB at 40, 52, 60, 72, 4 GB at 16
  // and 20); with 4 x 4, though 80 GB in all, no two more 4 GB IDs are free.
  K8sScenario unplaceable = vgpu_scenario(VgpuScheduler::kBestEffort, "mixed-unplaceable", 0);
  unplaceable.kube.default_vgpu.mixed_size = true;
  EXPECT_NE(run_error(unplaceable).find("cannot all be placed on one GPU in mixed-size mode"), std::string::npos);
  // One 8 GB vGPU blocks two of the sixteen 4 GB IDs: refused at once (the search visits each set
  // of IDs once, not each of the 15! orders of equal vGPUs).
  K8sScenario many = vgpu_scenario(VgpuScheduler::kBestEffort, "mixed-many-small", 0);
  many.kube.default_vgpu.mixed_size = true;
  EXPECT_NE(run_error(many).find("cannot all be placed on one GPU in mixed-size mode"), std::string::npos);
  K8sScenario placeable = vgpu_scenario(VgpuScheduler::kBestEffort, "mixed-placeable", 0);
  placeable.kube.default_vgpu.mixed_size = true;
  EXPECT_EQ(run_error(placeable), "no error");
  placeable.kube.vgpu_dm_configs = std::make_shared<VgpuDmConfigs>(parse_vgpu_dm_config(
      "version: v1\nvgpu-configs:\n  default:\n    - devices: all\n      vgpu-devices: {\"A100DX-16C\": 2, \"A100DX-8C\": 4, "
      "\"A100DX-4C\": 4}\n", "vgpu.yaml"));
  placeable.cluster.nodes.back().labels.clear();
  EXPECT_NE(run_error(placeable).find("cannot all be placed on one GPU in mixed-size mode"), std::string::npos);
  mixed.kube.default_vgpu.scheduler = VgpuScheduler::kFixedShare;
  EXPECT_NE(run_error(mixed).find("fixed share scheduler is not supported with vGPUs of different framebuffer sizes"), std::string::npos);
}

std::string parse_error(const std::string& text) {
  try {
    parse_vgpu_dm_config(text, "vgpu.yaml");
  } catch (const core::InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(VgpuDmConfig, RefusalsNameFileLineAndField) {
  EXPECT_EQ(parse_error("version: v2\nvgpu-configs: {a: [{devices: all, vgpu-devices: {A100-4C: 1}}]}\n"),
            "vgpu.yaml:1: version: unknown version 'v2' (the vGPU Device Manager reads v1)");
  EXPECT_EQ(parse_error("version: v1\nvgpu-configs:\n  a:\n    - devices: all\n      vgpu-devices: {A100-4X: 1}\n"),
            "vgpu.yaml:5: vgpu-configs.a[0].vgpu-devices.A100-4X: 'A100-4X' is not a vGPU type name (time-sliced "
            "<GPU>-<GB><A|B|C|Q>, such as A100-4C; MIG-backed <GPU>-<g>-<GB><A|B|C|Q>, such as A100-1-5C)");
  EXPECT_EQ(parse_error("version: v1\nvgpu-configs:\n  a:\n    - devices: all\n      vgpu-devices: {A100-4C: 1, A100-1-5C: 1}\n"),
            "vgpu.yaml:5: vgpu-configs.a[0].vgpu-devices.A100-1-5C: cannot mix time-sliced and MIG-backed vGPU devices on the same GPU");
  EXPECT_EQ(parse_error("version: v1\nvgpu-configs:\n  a:\n    - devices: some\n      vgpu-devices: {A100-4C: 1}\n"),
            "vgpu.yaml:4: vgpu-configs.a[0].devices: 'some': expected all or a list of GPU indices");
  EXPECT_EQ(parse_error("version: v1\nvgpu-configs:\n  a:\n    - devices: all\n      vgpu-devices: {A100-4C: 0}\n"),
            "vgpu.yaml:5: vgpu-configs.a[0].vgpu-devices.A100-4C: '0' is not an integer from 1 to 1000");
  EXPECT_EQ(parse_error("version: v1\nvgpu-configs:\n  a:\n    - devices: all\n      device-filter: 20B2\n      vgpu-devices: {A100-4C: 1}\n"),
            "vgpu.yaml:5: vgpu-configs.a[0].device-filter: '20B2' is not a PCI id (0xDDDDVVVV, optionally :0xSSSSssss)");
  EXPECT_EQ(parse_error("version: v1\nvgpu-config: {}\n"), "vgpu.yaml:2: vgpu-config: unknown field (known: version, vgpu-configs)");
}

TEST(VgpuDmConfig, TypeNamesByTheManagersPatterns) {
  const auto accepted = [](const std::string& type) {
    return parse_error("version: v1\nvgpu-configs:\n  a:\n    - devices: all\n      vgpu-devices: {\"" + type + "\": 1}\n") ==
           "no error";
  };
  for (const char* ok : {"A100-4C", "A100DX-40C", "RTX-Pro-24Q", "T4-0B", "A100-1-5C", "A100-1-5CME", "DC-2-12CNOME", "H100-7-80CGFX"}) {
    EXPECT_TRUE(accepted(ok)) << ok;
  }
  for (const char* bad : {"a100-4C", "A100-04C", "A100-4D", "A100-4", "A100-1-05C", "A100-0-5C", "A100-1-5CX", "-4C", "A100-4C-", "RTX-Pro-6000-24Q"}) {
    EXPECT_FALSE(accepted(bad)) << bad;
  }
}

TEST(VgpuDmConfig, TheGpuOperatorsConfigMapForm) {
  const VgpuDmConfigs c = parse_vgpu_dm_config(R"(apiVersion: v1
kind: ConfigMap
metadata:
  name: default-vgpu-devices-config
data:
  config.yaml: |
    version: v1
    vgpu-configs:
      A10-12Q:
        - devices: all
          vgpu-devices:
            "A10-12Q": 2
)", "cm.yaml");
  ASSERT_EQ(c.configs.size(), 1U);
  EXPECT_EQ(c.configs[0].name, "A10-12Q");
  EXPECT_EQ(c.configs[0].entries[0].vgpu_devices[0], (std::pair<std::string, int>{"A10-12Q", 2}));
  EXPECT_EQ(c.configs[0].entries[0].line, 10);
}

std::string workload_error(const std::string& text) {
  try {
    traces::parse_k8s_workload(text, "vms.yaml", cluster::GpuCatalog::from_models({}));
  } catch (const core::InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(KubevirtVgpu, AVirtualMachineInstanceIsItsVirtLauncherPod) {
  // As KubeVirt renders it: the domain's requests (memory from memory.guest without one) and one
  // unit of each GPU's deviceName.
  const traces::Workload w = traces::parse_k8s_workload(R"(apiVersion: kubevirt.io/v1
kind: VirtualMachineInstance
metadata: {name: vm, annotations: {gpusim.io/duration: 600s}}
spec:
  nodeSelector: {pool: vgpu}
  domain:
    memory: {guest: 16Gi}
    resources: {requests: {cpu: "2"}}
    devices:
      gpus:
        - {name: gpu1, deviceName: nvidia.com/NVIDIA_A100DX-20C}
        - {name: gpu2, deviceName: nvidia.com/NVIDIA_A100DX-20C}
)", "vms.yaml", cluster::GpuCatalog::from_models({}));
  ASSERT_EQ(w.pods.size(), 1U);
  const cluster::PodSpec& pod = w.pods[0];
  EXPECT_EQ(pod.name, "vm");
  EXPECT_EQ(pod.cpu_milli, 2000);
  EXPECT_EQ(pod.memory_mib, 16384);
  EXPECT_EQ(pod.gpu_count, 2);
  EXPECT_EQ(pod.constraints->gpu_resource, cluster::GpuResource::kVgpuType);
  EXPECT_EQ(pod.constraints->vgpu_resource, "NVIDIA_A100DX-20C");
  EXPECT_EQ(pod.constraints->node_selector.size(), 1U);
  EXPECT_EQ(*pod.duration, core::Time::from_seconds(600));

  const std::string head = "apiVersion: kubevirt.io/v1\nkind: VirtualMachineInstance\nmetadata: {name: vm}\nspec:\n  domain:\n    devices:\n";
  EXPECT_EQ(workload_error(head + "      hostDevices: [{name: h, deviceName: nvidia.com/GA102GL_A10}]\n"),
            "vms.yaml:7: spec.domain.devices.hostDevices: host devices (PCI passthrough GPUs) are not modelled: give the VM vGPUs in gpus[]");
  EXPECT_EQ(workload_error(head + "      gpus: [{name: g, deviceName: nvidia.com/GA102GL_A10}]\n"),
            "vms.yaml:7: spec.domain.devices.gpus[0].deviceName: 'nvidia.com/GA102GL_A10' is not a vGPU resource of KubeVirt's GPU "
            "device plugin (nvidia.com/NVIDIA_<type>, e.g. nvidia.com/NVIDIA_A10-12Q); passthrough GPUs are not modelled");
  const std::string resources = "apiVersion: kubevirt.io/v1\nkind: VirtualMachineInstance\nmetadata: {name: vm}\nspec:\n  domain:\n"
                                "    resources:\n      requests: {cpu: 4x}\n";
  EXPECT_NE(workload_error(resources).find("vms.yaml:7: spec.domain.resources.requests.cpu:"), std::string::npos)
      << workload_error(resources);
  const std::string gpu_ask = "apiVersion: kubevirt.io/v1\nkind: VirtualMachineInstance\nmetadata: {name: vm}\nspec:\n  domain:\n"
                              "    resources:\n      limits: {nvidia.com/gpu: 1}\n";
  EXPECT_EQ(workload_error(gpu_ask), "vms.yaml:7: spec.domain.resources.limits.nvidia.com/gpu: gpusim reads cpu and memory here; a "
                                     "VM asks its vGPUs in spec.domain.devices.gpus[]");
  EXPECT_EQ(workload_error(head + "      gpus: [{name: g, deviceName: nvidia.com/NVIDIA_A10-12Q}, {name: g, deviceName: nvidia.com/NVIDIA_A10-12Q}]\n"),
            "vms.yaml:7: spec.domain.devices.gpus[1].name: 'g' given twice (KubeVirt requires unique device names)");
}

}  // namespace
}  // namespace gpusim::k8s
