// Time-sliced MIG-backed vGPU (GB20x: the RTX PRO 6000 Blackwell Server Edition), worked out by
// hand: DC-1-8C puts 3 vGPUs on each 1g.24gb instance (46 of the GPU's 188 SMs, share c), and
// the vGPU scheduler divides the instance, not the GPU. With two busy VMs and a nearly idle one on
// instance 0 and one busy VM alone on instance 1:
//   best effort: max-min within c, (c - 0.001) / 2 each busy VM of instance 0; c alone;
//   equal share: c / 3 on instance 0 (3 powered on), c on instance 1 (1 powered on);
//   fixed share: c / 3 everywhere (1 / the type's 3 per instance), alone or not.
// Also the driver's refusals (MIG time-slicing mode off, too many, instances that do not fit),
// and the reason a pod asking nvidia.com/gpu of vGPU nodes gives.
#include <gtest/gtest.h>

#include "sim/cluster/mig.hpp"
#include "sim/core/status.hpp"
#include "sim/k8s/vgpu_dm_config.hpp"
#include "tests/k8s/k8s_harness.hpp"

namespace gpusim::k8s {
namespace {

using testing::K8sScenario;
using testing::record;
using testing::seconds;

const char* const kConfigs = R"(version: v1
vgpu-configs:
  DC-1-8C:
    - devices: all
      vgpu-devices: {"DC-1-8C": 5}
  DC-1-24C:
    - devices: all
      vgpu-devices: {"DC-1-24C": 4}
  too-many:
    - devices: all
      vgpu-devices: {"DC-1-8C": 13}
  no-room:
    - devices: all
      vgpu-devices: {"DC-2-12C": 5, "DC-1-8C": 6}
  two-profiles:
    - devices: all
      vgpu-devices: {"DC-2-12C": 4, "DC-1-8C": 6}
  gfx:
    - devices: all
      vgpu-devices: {"DC-1-8CGFX": 3}
)";

// One RTX PRO 6000 Blackwell Server Edition, its label selecting `config`, MIG time-slicing on.
K8sScenario rtx_pro_scenario(VgpuScheduler scheduler, const std::string& config) {
  K8sScenario s;
  s.catalog = cluster::GpuCatalog::from_models(
      {{"rtx-pro-6000-blackwell-server", "RTX PRO 6000 Blackwell Server Edition", {}, 98304, 0, 0, 0, 0, ""}});
  s.node("vm-host", 1);
  s.cluster.nodes.back().labels.emplace_back(kVgpuConfigLabel, config);
  s.kube.default_model = DevicePluginModel::kKubevirtVgpu;
  s.kube.default_vgpu.scheduler = scheduler;
  s.kube.default_vgpu.mig_time_slicing = true;
  s.kube.default_vgpu.boot_time = core::Time::zero();
  s.kube.vgpu_dm_configs = std::make_shared<VgpuDmConfigs>(parse_vgpu_dm_config(kConfigs, "vgpu.yaml"));
  return s;
}

double instance_share() {
  const cluster::MigGeometry* geometry = cluster::mig_geometry("rtx-pro-6000-blackwell-server");
  return geometry->compute_share(*geometry->shape("1g.24gb"));
}

TEST(MigTimeSlicedVgpu, TheSchedulerDividesEachInstance) {
  const double c = instance_share();
  EXPECT_DOUBLE_EQ(c, 46.0 / 188.0);
  struct Expected {
    VgpuScheduler scheduler;
    double shared_end;  // the busy VMs of instance 0
    double alone_end;   // the busy VM alone on instance 1
  };
  for (const Expected& e : {Expected{VgpuScheduler::kBestEffort, 100 / ((c - 0.001) / 2), 100 / c},
                            Expected{VgpuScheduler::kEqualShare, 100 / (c / 3), 100 / c},
                            Expected{VgpuScheduler::kFixedShare, 100 / (c / 3), 100 / (c / 3)}}) {
    K8sScenario s = rtx_pro_scenario(e.scheduler, "DC-1-8C");
    s.pod("a-busy", 1, 0, 100);
    s.pod("b-busy", 1, 0, 100);
    s.pod("c-idle", 1, 0, 5000).gpu_demand_milli = 1;
    s.pod("d-busy", 1, 0, 100);
    const auto result = s.run();
    // First fit: vGPUs 0-2 are instance 0's, 3 and 4 instance 1's.
    EXPECT_EQ(record(result, 2).gpus, testing::gpus({2})) << to_string(e.scheduler);
    EXPECT_EQ(record(result, 3).gpus, testing::gpus({3})) << to_string(e.scheduler);
    EXPECT_NEAR(seconds(record(result, 0).end_us), e.shared_end, 1e-4) << to_string(e.scheduler);
    EXPECT_NEAR(seconds(record(result, 1).end_us), e.shared_end, 1e-4) << to_string(e.scheduler);
    EXPECT_NEAR(seconds(record(result, 3).end_us), e.alone_end, 1e-4) << to_string(e.scheduler);
    // The nearly idle VM is under every share: full speed.
    EXPECT_EQ(seconds(record(result, 2).end_us), 5000) << to_string(e.scheduler);
  }
}

TEST(MigTimeSlicedVgpu, OneVgpuPerInstanceIsPlainMigBacked) {
  // DC-1-24C: 1 per 1g.24gb, whatever the scheduler: a busy VM runs at c.
  const double c = instance_share();
  for (const VgpuScheduler scheduler : {VgpuScheduler::kBestEffort, VgpuScheduler::kFixedShare}) {
    K8sScenario s = rtx_pro_scenario(scheduler, "DC-1-24C");
    s.pod("busy", 1, 0, 100);
    s.pod("busy-2", 1, 0, 100);
    const auto result = s.run();
    EXPECT_NEAR(seconds(record(result, 0).end_us), 100 / c, 1e-4) << to_string(scheduler);
    EXPECT_NEAR(seconds(record(result, 1).end_us), 100 / c, 1e-4) << to_string(scheduler);
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

TEST(MigTimeSlicedVgpu, WhatTheDriverRefuses) {
  K8sScenario off = rtx_pro_scenario(VgpuScheduler::kBestEffort, "DC-1-8C");
  off.kube.default_vgpu.mig_time_slicing = false;
  EXPECT_NE(run_error(off).find("vgpu.yaml:4: vgpu-configs.DC-1-8C[0]: vGPU type DC-1-8C is not supported on GPU (index=0): "
                                "it is a time-sliced MIG-backed type (3 per 1g.24gb instance)"),
            std::string::npos)
      << run_error(off);
  // One vGPU per instance needs no time-slicing mode.
  K8sScenario plain = rtx_pro_scenario(VgpuScheduler::kBestEffort, "DC-1-24C");
  plain.kube.default_vgpu.mig_time_slicing = false;
  EXPECT_EQ(run_error(plain), "no error");
  EXPECT_NE(run_error(rtx_pro_scenario(VgpuScheduler::kBestEffort, "too-many")).find("failed to create 13 DC-1-8C vGPU devices"),
            std::string::npos);
  // 5 DC-2-12C need two 2g.48gb instances (4 per instance), 6 DC-1-8C two 1g.24gb: 6 of 4 slices.
  EXPECT_NE(run_error(rtx_pro_scenario(VgpuScheduler::kBestEffort, "no-room"))
                .find("the GPU instances these vGPUs need (4) do not fit one rtx-pro-6000-blackwell-server (at most 4 compute slices"),
            std::string::npos);
  // One 2g.48gb and two 1g.24gb fill the GPU.
  EXPECT_EQ(run_error(rtx_pro_scenario(VgpuScheduler::kEqualShare, "two-profiles")), "no error");
  EXPECT_NE(run_error(rtx_pro_scenario(VgpuScheduler::kBestEffort, "gfx")).find("runs on MIG profile 1g.24gb+gfx, which gpusim does "
                                                                                 "not model"),
            std::string::npos);
}

TEST(MigTimeSlicedVgpu, TheMigDevicePluginIsRefusedOnThisGpu) {
  K8sScenario s = rtx_pro_scenario(VgpuScheduler::kBestEffort, "DC-1-8C");
  s.kube.default_model = DevicePluginModel::kMig;
  s.kube.default_mig.layout = {"1g.24gb", "1g.24gb"};
  EXPECT_NE(run_error(s).find("gpusim models MIG on its GPU (rtx-pro-6000-blackwell-server) only under MIG-backed vGPU"),
            std::string::npos)
      << run_error(s);
}

TEST(MigTimeSlicedVgpu, APodAskingNvidiaGpuOfVgpuNodesIsShortOfThatResource) {
  // KubeVirt's device plugin advertises nvidia.com/NVIDIA_<type> only: a pod asking nvidia.com/gpu
  // never runs, and says so (not a vGPU type or a MIG profile); a trace pod that cannot fit names
  // the type it asks.
  K8sScenario s = rtx_pro_scenario(VgpuScheduler::kBestEffort, "DC-1-24C");
  auto gpu = std::make_shared<cluster::PodConstraints>();
  gpu->gpu_resource = cluster::GpuResource::kNvidiaGpu;
  s.pod("asks-gpu", 1, 0, 100).constraints = gpu;
  s.pod("asks-five", 5, 0, 100);
  const auto result = s.run();
  EXPECT_EQ(record(result, 0).outcome, experiment::PodOutcome::kUnschedulable);
  EXPECT_EQ(record(result, 0).reason, "0/1 nodes are available: 1 Insufficient nvidia.com/gpu.");
  EXPECT_EQ(record(result, 1).outcome, experiment::PodOutcome::kUnschedulable);
  EXPECT_EQ(record(result, 1).reason, "0/1 nodes are available: 1 Insufficient nvidia.com/NVIDIA_DC-1-24C.");
}

}  // namespace
}  // namespace gpusim::k8s
