// MIG through NVIDIA's device plugin: which layouts a GPU takes (the driver's placement rules),
// which instance each pod gets under the single and mixed strategies, how fast it runs there and
// what happens when it outgrows its instance's memory. Outcomes are worked out by hand; times in
// seconds. A100-80GB: 108 SMs whole, 14 per compute slice with MIG on (7g: 98).
#include <gtest/gtest.h>

#include <cmath>

#include "sim/cluster/mig.hpp"
#include "sim/core/status.hpp"
#include "tests/k8s/k8s_harness.hpp"

namespace gpusim::testing {
namespace {

using experiment::PodOutcome;

const cluster::MigGeometry& a100_80() { return *cluster::mig_geometry("a100-sxm4-80gb"); }

std::optional<std::vector<int>> place(std::initializer_list<const char*> names) {
  std::vector<int> shapes;
  for (const char* name : names) shapes.push_back(a100_80().shape(name).value());
  return cluster::mig_placement(a100_80(), shapes);
}

TEST(MigGeometry, LayoutsThatFitAndThatDoNot) {
  // 3g instances start at memory slice 0 or 4; two of them fill all eight.
  EXPECT_EQ(place({"3g.40gb", "3g.40gb"}), (std::vector<int>{0, 4}));
  EXPECT_EQ(place({"3g.40gb", "4g.40gb"}), (std::vector<int>{4, 0}));  // 4g only at 0
  EXPECT_TRUE(place({"7g.80gb"}));
  EXPECT_TRUE(place({"1g.10gb", "1g.10gb", "1g.10gb", "1g.10gb", "1g.10gb", "1g.10gb", "1g.10gb"}));
  // 2g at 0, 2, 4 leaves slices 6 and 7: one more 1g (at 6) fits, of either memory size.
  EXPECT_EQ(place({"2g.20gb", "2g.20gb", "2g.20gb", "1g.10gb"}), (std::vector<int>{0, 2, 4, 6}));
  EXPECT_TRUE(place({"2g.20gb", "2g.20gb", "2g.20gb", "1g.20gb"}));
  // Two 3g use every memory slice: a 1g has nowhere to start, though 3 + 3 + 1 = 7 compute slices.
  EXPECT_FALSE(place({"3g.40gb", "3g.40gb", "1g.10gb"}));
  EXPECT_FALSE(place({"4g.40gb", "4g.40gb"}));                 // both only at 0
  EXPECT_FALSE(place({"7g.80gb", "1g.10gb"}));                 // 8 compute slices
  EXPECT_FALSE(place({"1g.20gb", "1g.20gb", "1g.20gb", "1g.20gb", "1g.10gb"}));  // memory full
}

TEST(MigGeometry, SmallestInstanceThatCoversAShare) {
  EXPECT_EQ(a100_80().profiles[static_cast<std::size_t>(cluster::mig_shape_for(a100_80(), 0.1))].name, "1g.10gb");
  EXPECT_EQ(a100_80().profiles[static_cast<std::size_t>(cluster::mig_shape_for(a100_80(), 0.25))].name, "2g.20gb");
  EXPECT_EQ(a100_80().profiles[static_cast<std::size_t>(cluster::mig_shape_for(a100_80(), 0.3))].name, "3g.40gb");
  EXPECT_EQ(a100_80().profiles[static_cast<std::size_t>(cluster::mig_shape_for(a100_80(), 0.5))].name, "4g.40gb");
  EXPECT_EQ(a100_80().profiles[static_cast<std::size_t>(cluster::mig_shape_for(a100_80(), 1.0))].name, "7g.80gb");
  EXPECT_EQ(cluster::mig_geometry("v100-sxm2-16gb"), nullptr);
}

K8sScenario mig_node(k8s::MigStrategy strategy, std::vector<std::string> layout, int gpus = 1) {
  K8sScenario s;
  s.catalog = cluster::GpuCatalog::from_models({{"a100-sxm4-80gb", "A100 80GB", {"A100"}, 81920, 0, 0, 0, 0, ""}});
  s.node("mig", gpus);
  s.kube.default_model = k8s::DevicePluginModel::kMig;
  s.kube.default_mig.strategy = strategy;
  s.kube.default_mig.layout = std::move(layout);
  return s;
}

// Mixed strategy, one GPU cut into 4g + 2g + 1g (devices 0, 1, 2). Each fraction asks the
// smallest instance whose compute covers it: 0.5 -> 4g (device 0), 0.25 -> 2g (1), 0.1 -> 1g (2).
// Each instance has more of the GPU's SMs than the pod uses alone (56/108 >= 0.5, 28/108 >= 0.25,
// 14/108 >= 0.1), so all run at full speed. A second 0.1 pod waits for the 1g instance although
// the 2g one is free after 100 s: it asks nvidia.com/mig-1g.10gb.
TEST(K8sMig, MixedStrategyGivesEachPodItsProfile) {
  K8sScenario s = mig_node(k8s::MigStrategy::kMixed, {"4g.40gb", "2g.20gb", "1g.10gb"});
  s.pod("half", 1, 0, 100).gpu_milli = 500;
  s.pod("quarter", 1, 0, 100).gpu_milli = 250;
  s.pod("tenth", 1, 0, 300).gpu_milli = 100;
  s.pod("tenth-2", 1, 10, 100).gpu_milli = 100;
  const auto result = s.run();
  EXPECT_EQ(record(result, 0).gpus, gpus({0}));
  EXPECT_EQ(record(result, 1).gpus, gpus({1}));
  EXPECT_EQ(record(result, 2).gpus, gpus({2}));
  EXPECT_EQ(seconds(record(result, 0).end_us), 100);
  EXPECT_EQ(seconds(record(result, 1).end_us), 100);
  EXPECT_EQ(seconds(record(result, 2).end_us), 300);
  EXPECT_EQ(record(result, 3).gpus, gpus({2}));
  EXPECT_EQ(seconds(record(result, 3).start_us), 300);
  EXPECT_EQ(seconds(record(result, 3).end_us), 400);
  EXPECT_EQ(metric(result, "mig_gpus"), 1);
  EXPECT_EQ(metric(result, "mig_pods_finished"), 4);
  EXPECT_DOUBLE_EQ(metric(result, "mig_max_slowdown"), 1);
}

// Users ask for profiles the cluster offers: with 4g + 2g + 1g instances a 0.32 share (a 3g one,
// were there any) asks the next offered size up, 4g.
TEST(K8sMig, PodsAskTheSmallestOfferedProfileThatCovers) {
  K8sScenario s = mig_node(k8s::MigStrategy::kMixed, {"4g.40gb", "2g.20gb", "1g.10gb"});
  s.pod("third", 1, 0, 100).gpu_milli = 320;
  s.pod("third-2", 1, 0, 100).gpu_milli = 320;
  const auto result = s.run();
  EXPECT_EQ(record(result, 0).gpus, gpus({0}));
  EXPECT_EQ(seconds(record(result, 1).start_us), 100);  // waits for the one 4g instance
}

// Pods asking different profiles are different requests even when their CPU, memory and device
// count match: a 1g pod that finds no free 1g instance must not hold back a 4g pod in the same
// cycle (the scheduler skips later pods of a shape that failed).
TEST(K8sMig, AFailedProfileDoesNotBlockAnother) {
  K8sScenario s = mig_node(k8s::MigStrategy::kMixed, {"4g.40gb", "1g.10gb"});
  // The queue orders pods created together by name: b-1g is tried before c-half.
  s.pod("a-1g", 1, 0, 100).gpu_milli = 100;
  s.pod("b-1g", 1, 10, 100).gpu_milli = 100;
  s.pod("c-half", 1, 10, 100).gpu_milli = 500;
  const auto result = s.run();
  EXPECT_EQ(seconds(record(result, 1).start_us), 100);
  EXPECT_EQ(seconds(record(result, 2).start_us), 10);
  EXPECT_EQ(record(result, 2).gpus, gpus({0}));
}

// A whole-GPU pod asks the 7g instance: 98 of the 108 SMs, so 100 s of work take 100 x 108/98 s.
// On a GPU cut into two 3g instances it has no such resource and stays pending.
TEST(K8sMig, WholeGpuPodsNeedTheFullInstance) {
  K8sScenario s = mig_node(k8s::MigStrategy::kMixed, {"7g.80gb"});
  s.pod("whole", 1, 0, 100);
  const auto result = s.run();
  EXPECT_EQ(record(result, 0).end_us, std::llround(100e6 * 108 / 98));
  EXPECT_NEAR(metric(result, "mig_mean_slowdown"), 108.0 / 98, 1e-12);

  K8sScenario halves = mig_node(k8s::MigStrategy::kMixed, {"3g.40gb", "3g.40gb"});
  halves.pod("whole", 1, 0, 100);
  EXPECT_EQ(record(halves.run(), 0).outcome, PodOutcome::kPending);
}

// Single strategy: the instances are plain nvidia.com/gpu devices, so a pod asking one GPU gets
// one 3g instance (42 of 108 SMs) and runs 108/42 times as long; two such pods share the GPU, a
// third waits for the first to end. A pod asking two GPUs gets two instances (of one GPU here).
TEST(K8sMig, SingleStrategyHandsOutInstancesAsGpus) {
  K8sScenario s = mig_node(k8s::MigStrategy::kSingle, {"3g.40gb", "3g.40gb"}, 2);
  s.pod("a", 1, 0, 100);
  s.pod("b", 1, 0, 100);
  s.pod("pair", 2, 0, 100);
  s.pod("c", 1, 1, 100);
  const auto result = s.run();
  const std::int64_t slow = std::llround(100e6 * 108 / 42);
  EXPECT_EQ(record(result, 0).gpus, gpus({0}));
  EXPECT_EQ(record(result, 1).gpus, gpus({1}));
  EXPECT_EQ(record(result, 2).gpus, gpus({2, 3}));  // both instances of GPU 1
  EXPECT_EQ(record(result, 0).end_us, slow);
  EXPECT_EQ(record(result, 2).end_us, slow);
  EXPECT_EQ(record(result, 3).start_us, slow);  // the first instance to come free
  EXPECT_EQ(record(result, 3).end_us, 2 * slow);
  EXPECT_NEAR(metric(result, "mig_max_slowdown"), 108.0 / 42, 1e-12);
}

// gpuMemory on: a pod that overruns (x 1.5) uses 0.75 of a GPU's memory in a 4g instance that has
// 4/8 of it: it fails alone (OOMKilled); the pod on the 3g instance beside it runs on. On a
// gpushare GPU the same overrun can kill the neighbour instead (sharing_test.cpp).
TEST(K8sMig, MemoryIsBoundedByTheInstance) {
  K8sScenario s = mig_node(k8s::MigStrategy::kMixed, {"4g.40gb", "3g.40gb"});
  s.kube.memory_model = true;
  s.kube.overrun_pods = {"big"};
  s.kube.backoff_limit = 0;
  s.pod("big", 1, 0, 100).gpu_milli = 500;
  s.pod("neighbour", 1, 0, 100).gpu_milli = 400;
  const auto result = s.run();
  EXPECT_EQ(record(result, 0).reason, "OOMKilled");
  EXPECT_EQ(record(result, 1).outcome, PodOutcome::kCompleted);
  EXPECT_EQ(record(result, 1).gpus, gpus({1}));
  EXPECT_EQ(metric(result, "oom_kills"), 1);
  EXPECT_EQ(metric(result, "oom_neighbours_killed"), 0);
}

// A GPU failure takes every instance of that GPU: the 1g pod on GPU 0 dies (XID 79); the next
// pod goes to GPU 1's instances.
TEST(K8sMig, GpuFailureTakesAllItsInstances) {
  K8sScenario s = mig_node(k8s::MigStrategy::kSingle, {"1g.10gb", "1g.10gb"}, 2);
  s.kube.node_status_period = s_(1);
  s.kube.backoff_limit = 0;
  s.kube.gpu_failures.push_back({s_(10), 0, 0, 79});
  s.pod("a", 1, 0, 100);
  s.pod("b", 1, 20, 100);
  s.pod("c", 1, 20, 100);
  const auto result = s.run();
  EXPECT_EQ(record(result, 0).reason, "GpuLost");
  EXPECT_EQ(record(result, 1).gpus, gpus({2}));
  EXPECT_EQ(record(result, 2).gpus, gpus({3}));
}

// Dynamic MIG: one GPU starts as one 7g instance. A 0.1 pod at 0 asks a 1g instance, which no
// GPU has: the idle GPU is re-partitioned to HAMi's first A100 template with a 1g (seven 1g) and
// serves nothing for 60 s; the kubelet publishes the new instances at its next status tick (60 s)
// and the pod runs 60..160. A whole-GPU pod at 200 asks the 7g instance: the idle GPU goes back
// to the 7g template (200..260) and the pod runs 100 x 108/98 s from 260.
TEST(K8sMig, DynamicRepartitionsAnIdleGpuWithItsDelay) {
  K8sScenario s = mig_node(k8s::MigStrategy::kMixed, {"7g.80gb"});
  s.kube.default_mig.dynamic = true;
  s.kube.default_mig.reconfigure_time = s_(60);
  s.pod("tenth", 1, 0, 100).gpu_milli = 100;
  s.pod("whole", 1, 200, 100);
  const auto result = s.run();
  EXPECT_EQ(seconds(record(result, 0).start_us), 60);
  EXPECT_EQ(seconds(record(result, 0).end_us), 160);
  EXPECT_EQ(record(result, 0).gpus, gpus({0}));  // the first of the seven 1g instances
  EXPECT_EQ(seconds(record(result, 1).start_us), 260);
  EXPECT_EQ(record(result, 1).end_us, 260'000'000 + std::llround(100e6 * 108 / 98));
  EXPECT_EQ(metric(result, "mig_reconfigurations"), 2);
  EXPECT_NEAR(metric(result, "mig_reconfiguration_gpu_hours"), 120.0 / 3600, 1e-12);
  EXPECT_EQ(metric(result, "admission_failures"), 0);
}

// A GPU that holds a pod is never re-partitioned: the second 1g pod waits for a free 1g instance
// of the re-partitioned GPU instead of taking the 7g GPU that is busy.
TEST(K8sMig, DynamicLeavesBusyGpusAlone) {
  K8sScenario s = mig_node(k8s::MigStrategy::kMixed, {"7g.80gb"}, 2);
  s.kube.default_mig.dynamic = true;
  s.kube.default_mig.reconfigure_time = s_(30);
  s.kube.node_status_period = s_(1);
  s.pod("whole", 1, 0, 1000);
  s.pod("tenth", 1, 5, 100).gpu_milli = 100;
  const auto result = s.run();
  EXPECT_EQ(record(result, 0).gpus, gpus({0}));           // GPU 0's 7g instance (slot 0)
  EXPECT_EQ(seconds(record(result, 1).start_us), 35);     // GPU 1 re-partitioned 5..35
  EXPECT_EQ(record(result, 1).gpus, gpus({7}));           // GPU 1's first 1g instance
  EXPECT_EQ(metric(result, "mig_reconfigurations"), 1);
}

// A pod bound to an instance but not yet admitted (5 s bind latency) keeps its GPU from being
// re-partitioned: the 1g pod gets GPU 1 re-partitioned (0..60, then the 10 s status grid) rather
// than GPU 0, which the whole-GPU pod was bound to at 0.
TEST(K8sMig, DynamicSparesGpusWithPodsOnTheirWay) {
  K8sScenario s = mig_node(k8s::MigStrategy::kMixed, {"7g.80gb"}, 2);
  s.kube.default_mig.dynamic = true;
  s.kube.bind_latency = s_(5);
  s.pod("a-whole", 1, 0, 1000);
  s.pod("b-tenth", 1, 0, 100).gpu_milli = 100;
  const auto result = s.run();
  EXPECT_EQ(metric(result, "admission_failures"), 0);
  EXPECT_EQ(record(result, 0).gpus, gpus({0}));
  EXPECT_EQ(record(result, 1).gpus, gpus({7}));
  EXPECT_EQ(seconds(record(result, 1).start_us), 65);  // re-partitioned 0..60, status at 60, bound 60, admitted 65
}

// A request to a node that is down does nothing, and the partitioner looks elsewhere: n0 is lost
// at 5, so its kubelet ignores the request made at 10 for the 1g pod. At 55 the node lifecycle
// taints n0 unreachable (50 s grace), the scheduler's cycle then has the partitioner look again:
// n0 no longer counts, n1's GPU is re-partitioned (55..115) and, at the status tick of 120, the
// pod starts there.
TEST(K8sMig, DynamicRequestsToADownNodeLapseAndAreRetried) {
  K8sScenario s = mig_node(k8s::MigStrategy::kMixed, {"7g.80gb"});
  s.node("mig-2", 1);
  s.kube.default_mig.dynamic = true;
  s.kube.node_events.push_back({s_(5), 0, k8s::NodeEventKind::kLost});
  s.pod("tenth", 1, 10, 100).gpu_milli = 100;
  const auto result = s.run();
  EXPECT_EQ(record(result, 0).node, 1);
  EXPECT_EQ(seconds(record(result, 0).start_us), 120);
}

// Dynamic nodes offer HAMi's templates' profiles only: a 0.5 pod asks 7g (no template has 4g),
// though the GPUs start as 4g + 3g, so it still runs after the GPU was re-partitioned to 7g.
TEST(K8sMig, DynamicOffersTheTemplatesProfiles) {
  K8sScenario s = mig_node(k8s::MigStrategy::kMixed, {"4g.40gb", "3g.40gb"});
  s.kube.default_mig.dynamic = true;
  s.pod("whole", 1, 0, 100);
  s.pod("half", 1, 10, 100).gpu_milli = 500;
  const auto result = s.run();
  EXPECT_EQ(record(result, 0).outcome, PodOutcome::kCompleted);
  EXPECT_EQ(record(result, 1).outcome, PodOutcome::kCompleted);
}

// Mixed-strategy MIG turns every GPU pod into a MIG profile request; a GPU node without MIG in the
// same cluster would silently serve none, so the setup is refused.
TEST(K8sMig, MixedBesideOtherGpuNodesIsAnInputError) {
  K8sScenario s = mig_node(k8s::MigStrategy::kMixed, {"7g.80gb"});
  s.node("plain", 4);
  k8s::NodePool plain;
  plain.name = "plain";
  plain.match.name_prefix = "plain";
  plain.model = k8s::DevicePluginModel::kDevicePlugin;
  s.kube.pools.push_back(plain);
  s.pod("a", 1, 0, 100);
  try {
    s.run();
    ADD_FAILURE() << "no error";
  } catch (const core::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("node plain: some nodes use MIG strategy mixed"), std::string::npos) << e.what();
  }
}

// A removed node is never asked to re-partition: n0 leaves at 5, the 1g pod at 10 gets n1's GPU
// (re-partitioned 10..70, shown at the 70 s status tick).
TEST(K8sMig, DynamicSkipsRemovedNodes) {
  K8sScenario s = mig_node(k8s::MigStrategy::kMixed, {"7g.80gb"});
  s.node("mig-2", 1);
  s.kube.default_mig.dynamic = true;
  s.kube.node_events.push_back({s_(5), 0, k8s::NodeEventKind::kRemove});
  s.pod("tenth", 1, 10, 100).gpu_milli = 100;
  const auto result = s.run();
  EXPECT_EQ(record(result, 0).node, 1);
  EXPECT_EQ(seconds(record(result, 0).start_us), 70);
}

// Static MIG counts instances per profile: after an XID the scheduler hides as many instances of
// that profile as the status lacks, whichever it had assumed a pod on. GPU 0 fails (XID 48, not
// fatal) at 301; E, bound at 302 before the status shows it, gets GPU 1 from the kubelet; F at 320
// must wait for E (no instance is left), not fail admission.
TEST(K8sMig, StaticCountsSurviveAGpuFailure) {
  K8sScenario s = mig_node(k8s::MigStrategy::kMixed, {"7g.80gb"}, 2);
  s.kube.backoff_limit = 0;
  s.kube.gpu_failures.push_back({s_(301), 0, 0, 48});
  s.pod("e", 1, 302, 1000);
  s.pod("f", 1, 320, 100);
  const auto result = s.run();
  EXPECT_EQ(metric(result, "admission_failures"), 0);
  EXPECT_EQ(record(result, 0).gpus, gpus({1}));
  EXPECT_EQ(record(result, 1).start_us, record(result, 0).end_us);
}

std::string setup_error(K8sScenario s) {
  s.pod("a", 1, 0, 100);
  try {
    s.run();
  } catch (const core::InputError& e) {
    return e.what();
  }
  return "";
}

TEST(K8sMig, ImpossibleLayoutsAreInputErrors) {
  EXPECT_NE(setup_error(mig_node(k8s::MigStrategy::kMixed, {"3g.40gb", "3g.40gb", "1g.10gb"}))
                .find("node mig: the defaults gives it devicePlugin mig: the layout [3g.40gb, 3g.40gb, 1g.10gb] does not fit"),
            std::string::npos);
  // A 40GB profile name on an 80GB GPU.
  EXPECT_NE(setup_error(mig_node(k8s::MigStrategy::kMixed, {"3g.20gb"})).find("a100-sxm4-80gb has no MIG profile '3g.20gb'"),
            std::string::npos);
  K8sScenario v100 = mig_node(k8s::MigStrategy::kSingle, {"7g.80gb"});
  v100.catalog = cluster::GpuCatalog::from_models({{"v100-sxm2-16gb", "V100", {"V100"}, 16384, 0, 0, 0, 0, ""}});
  EXPECT_NE(setup_error(v100).find("but its GPU (v100-sxm2-16gb) has no MIG"), std::string::npos);
  // 8 GPUs x 7 instances = 56 devices fit; 8 GPUs of 1g x 7 + ... cannot pass 64 since 7 is the most.
  EXPECT_EQ(setup_error(mig_node(k8s::MigStrategy::kSingle,
                                 {"1g.10gb", "1g.10gb", "1g.10gb", "1g.10gb", "1g.10gb", "1g.10gb", "1g.10gb"}, 8)),
            "");
  // Dynamic MIG keeps each GPU's layout in 4 bits of one word: at most 15 GPUs (16 x 7 = 112 devices
  // would fit the 128-device limit).
  K8sScenario sixteen = mig_node(k8s::MigStrategy::kMixed, {"7g.80gb"}, 16);
  sixteen.kube.default_mig.dynamic = true;
  EXPECT_NE(setup_error(sixteen).find("dynamic MIG on 16 GPUs; gpusim re-partitions at most 15 GPUs per node"),
            std::string::npos);
  K8sScenario fifteen = mig_node(k8s::MigStrategy::kMixed, {"7g.80gb"}, 15);
  fifteen.kube.default_mig.dynamic = true;
  EXPECT_EQ(setup_error(fifteen), "");
}

}  // namespace
}  // namespace gpusim::testing
