// HAMi's scheduler (an extender that picks the node and the GPUs) and device plugin options, and
// NVIDIA's renameByDefault. Every outcome is worked out by hand in the comments; times are seconds.
#include <gtest/gtest.h>

#include "sim/core/status.hpp"
#include "sim/topology/topology.hpp"
#include "tests/k8s/k8s_harness.hpp"

namespace gpusim::testing {
namespace {

using k8s::DevicePluginModel;

void hami(K8sScenario& s, k8s::HamiConfig config = {}) {
  s.kube.default_model = DevicePluginModel::kHamiVgpu;
  s.kube.default_hami = config;
}

// deviceSplitCount 2: a GPU takes two pods at most. A and B (0.1 each) share GPU 0; C (0.1, at 2)
// fits by memory and cores but must wait for A to end at 100. With HAMi's default of 10 it starts
// at once beside them.
TEST(K8sHami, DeviceSplitCountLimitsPodsPerGpu) {
  for (const int split : {2, 10}) {
    K8sScenario s;
    s.node("hami", 1);
    hami(s, {.device_split_count = split});
    s.pod("a", 1, 0, 100).gpu_milli = 100;
    s.pod("b", 1, 1, 100).gpu_milli = 100;
    s.pod("c", 1, 2, 100).gpu_milli = 100;
    const auto result = s.run();
    EXPECT_EQ(seconds(record(result, 1).start_us), 1);
    EXPECT_EQ(seconds(record(result, 2).start_us), split == 2 ? 100 : 2) << "split " << split;
    EXPECT_EQ(record(result, 2).gpus, gpus({0}));
  }
}

// HAMi's extender returns one node: its node policy decides, whatever the profile's scoring (the
// harness runs binpack). A (0.3) takes node 0 (both idle: equal scores, the earliest node). For B
// (0.3) node 0 scores 10 x (1/10 + 0.3 + 0.3) = 7 and node 1 scores 0: binpack takes node 0,
// spread node 1.
TEST(K8sHami, NodePolicyBinpackOrSpreadOverridesTheProfile) {
  for (const auto policy : {k8s::HamiNodePolicy::kBinpack, k8s::HamiNodePolicy::kSpread}) {
    K8sScenario s;
    s.node("n0", 1);
    s.node("n1", 1);
    hami(s, {.node_policy = policy});
    s.pod("a", 1, 0, 100).gpu_milli = 300;
    s.pod("b", 1, 1, 100).gpu_milli = 300;
    const auto result = s.run();
    EXPECT_EQ(record(result, 0).node, 0);
    EXPECT_EQ(record(result, 1).node, policy == k8s::HamiNodePolicy::kBinpack ? 0 : 1);
  }
}

// Pools that disagree on the node policy are refused: HAMi runs one scheduler.
TEST(K8sHami, OneNodePolicyPerCluster) {
  K8sScenario s;
  s.node("n0", 1);
  s.node("n1", 1);
  hami(s);
  k8s::NodePool spread;
  spread.match.name_prefix = "n1";
  spread.model = DevicePluginModel::kHamiVgpu;
  spread.hami.node_policy = k8s::HamiNodePolicy::kSpread;
  s.kube.pools.push_back(spread);
  s.pod("a", 1, 0, 100);
  EXPECT_THROW(s.run(), core::InputError);
}

// deviceMemoryScaling 2 with gpumem alone: each GPU registers twice its memory, so two pods asking
// 0.6 of the physical memory (0.3 of the registered each) share one GPU. They time-slice it: demands
// 0.6 + 0.6 over a capacity of 1 give each 0.5, a rate of 0.5 / 0.6 = 5/6, so 100 s of work take
// 120 s. When the fraction also asks gpucores (HAMi's usual), the cores (0.6 + 0.6) do not fit and
// B waits for A (ends 200); so it does without scaling (memory 0.6 + 0.6 > 1).
TEST(K8sHami, MemoryScalingOversubscribesWhenPodsAskGpumemAlone) {
  struct Case {
    double scaling;
    bool asks_cores;
    double b_start;
    double b_end;
  };
  for (const Case c : {Case{2, false, 0, 120}, Case{2, true, 100, 200}, Case{1, false, 100, 200}}) {
    K8sScenario s;
    s.node("hami", 1);
    hami(s, {.device_memory_scaling = c.scaling, .fraction_asks_cores = c.asks_cores});
    s.pod("a", 1, 0, 100).gpu_milli = 600;
    s.pod("b", 1, 0, 100).gpu_milli = 600;
    const auto result = s.run();
    const auto& b = record(result, 1);
    EXPECT_EQ(seconds(b.start_us), c.b_start) << c.scaling << " " << c.asks_cores;
    EXPECT_EQ(seconds(b.end_us), c.b_end) << c.scaling << " " << c.asks_cores;
    EXPECT_EQ(seconds(record(result, 0).end_us), c.b_start == 0 ? 120 : 100);
  }
}

// With gpumem alone a pod has no gpucores cap: alone, a pod asking 0.5 that keeps a whole GPU busy
// runs at full speed (with gpucores it would run at 0.5: K8sHami.GpuCoresCapCompute).
TEST(K8sHami, NoComputeCapWithoutGpucores) {
  K8sScenario s;
  s.node("hami", 1);
  hami(s, {.fraction_asks_cores = false});
  s.pod("greedy", 1, 0, 100).gpu_milli = 500;
  s.workload.pods[0].gpu_demand_milli = 1000;
  const auto result = s.run();
  EXPECT_EQ(seconds(record(result, 0).end_us), 100);
}

// Scaled memory: a pod past its own gpumem still fails alone (libvgpu.so), and the GPU's pods may
// together ask more than its physical memory without anyone failing (HAMi's virtual device memory).
// B always overruns (named), so it fails at each start: its first try and the owner's 6 retries
// (backoffLimit 6), 7 kills, none of them of A, which completes although 0.6 + 0.45 > 1.
TEST(K8sHami, ScaledMemoryFailsOnlyThePodPastItsOwnLimit) {
  K8sScenario s;
  s.node("hami", 1);
  hami(s, {.device_memory_scaling = 2, .fraction_asks_cores = false});
  s.kube.memory_model = true;
  s.kube.memory_overrun_factor = 1.5;
  s.kube.overrun_pods = {"b"};
  s.pod("a", 1, 0, 100).gpu_milli = 600;
  s.pod("b", 1, 10, 100).gpu_milli = 300;
  const auto result = s.run();
  EXPECT_EQ(record(result, 0).outcome, experiment::PodOutcome::kCompleted);
  EXPECT_EQ(metric(result, "oom_kills"), 7);
  EXPECT_EQ(record(result, 1).outcome, experiment::PodOutcome::kFailed);
  EXPECT_EQ(metric(result, "oom_neighbours_killed"), 0);
}

// A cluster where a scaled HAMi pool sits beside other GPU nodes is refused: the scheduler sees
// fractions of the scaled memory, which another node would misread.
TEST(K8sHami, ScaledMemoryNeedsEveryGpuNodeOnHami) {
  K8sScenario s;
  s.node("hami-0", 1);
  s.node("plain-0", 1);
  k8s::NodePool pool;
  pool.match.name_prefix = "hami-";
  pool.model = DevicePluginModel::kHamiVgpu;
  pool.hami = {.device_memory_scaling = 2, .fraction_asks_cores = false};
  s.kube.pools.push_back(pool);
  s.pod("a", 1, 0, 100).gpu_milli = 500;
  try {
    s.run();
    ADD_FAILURE() << "expected an input error";
  } catch (const core::InputError& e) {
    // The error names the node that does not fit and the node whose scaling it must match.
    EXPECT_STREQ(e.what(),
                 "node plain-0: node hami-0 scales its memory (HAMi deviceMemoryScaling 2 with fractionAsks gpumem), so "
                 "a fraction asks a share of the scaled memory; give every GPU node devicePlugin hami-vgpu with the "
                 "same deviceMemoryScaling and fractionAsks");
  }
}

// topology-aware on a DGX-1 (hybrid cube-mesh; pair scores as sim/topology computes them, PCIe
// class points plus 100 per NVLink). Row by row (GPU a to b):
//   0: -   150 130 230 210  10  10  10      4: 210  10  10  10  -  150 130 230
//   1: 150  -  230 130  10 210  10  10      5:  10 210  10  10 150  -  230 130
//   2: 130 230  -  250  10  10 110  10      6:  10  10 110  10 130 230  -  250
//   3: 230 130 250  -   10  10  10 110      7:  10  10  10 110 230 130 250  -
// A 2-GPU pod takes the first pair, in index order, with the highest score: GPUs 2 and 3 (250;
// 6 and 7 tie later). A one-GPU pod then takes the candidate least connected to the other
// candidates 0, 1, 4, 5, 6, 7: their sums are 390, 390, 730, 730, 630, 630, so GPU 0. Spread takes
// the least used in index order: 0 and 1, then 2.
TEST(K8sHami, TopologyAwareTakesTheBestPairAndTheLeastConnectedSingle) {
  const topology::Library library;
  const topology::Topology& dgx1 = library.at(*library.find("dgx1-v100"));
  ASSERT_EQ(dgx1.pair_score(2, 3), 250);
  ASSERT_EQ(dgx1.pair_score(0, 4), 210);
  ASSERT_EQ(dgx1.pair_score(6, 7), 250);
  for (const auto policy : {k8s::HamiGpuPolicy::kTopologyAware, k8s::HamiGpuPolicy::kSpread}) {
    K8sScenario s;
    s.node("dgx", 8);
    hami(s, {.gpu_policy = policy});
    s.kube.default_topology = "dgx1-v100";
    s.pod("pair", 2, 0, 100);
    s.pod("single", 1, 1, 100);
    const auto result = s.run();
    const bool topology_aware = policy == k8s::HamiGpuPolicy::kTopologyAware;
    EXPECT_EQ(record(result, 0).gpus, topology_aware ? gpus({2, 3}) : gpus({0, 1}));
    EXPECT_EQ(record(result, 1).gpus, topology_aware ? gpus({0}) : gpus({2}));
  }
}

// renameByDefault: the time-slicing node advertises nvidia.com/gpu.shared. A pod asking that
// resource lands there even though binpack would rank the other node equal and earlier; a pod
// asking nvidia.com/gpu never does; a trace pod (no resource named) may.
TEST(K8sTimeSlicing, RenameByDefaultAdvertisesGpuShared) {
  K8sScenario s;
  s.node("plain", 1);
  s.node("shared", 1);
  s.kube.default_model = DevicePluginModel::kDevicePlugin;
  k8s::NodePool pool;
  pool.match.name_prefix = "shared";
  pool.model = DevicePluginModel::kTimeSlicing;
  pool.sharing.replicas = 2;
  pool.sharing.rename_by_default = true;
  s.kube.pools.push_back(pool);
  auto shared = std::make_shared<cluster::PodConstraints>();
  shared->gpu_resource = cluster::GpuResource::kNvidiaGpuShared;
  auto whole = std::make_shared<cluster::PodConstraints>();
  whole->gpu_resource = cluster::GpuResource::kNvidiaGpu;
  s.pod("notebook", 1, 0, 100).constraints = shared;
  s.pod("trainer", 1, 1, 100).constraints = whole;
  s.pod("second-trainer", 1, 2, 100).constraints = whole;
  const auto result = s.run();
  EXPECT_EQ(record(result, 0).node, 1);
  EXPECT_EQ(record(result, 1).node, 0);
  // The shared node has a free replica, but it is not nvidia.com/gpu: the second trainer waits.
  EXPECT_EQ(record(result, 2).node, 0);
  EXPECT_EQ(seconds(record(result, 2).start_us), 101);
}

}  // namespace
}  // namespace gpusim::testing
