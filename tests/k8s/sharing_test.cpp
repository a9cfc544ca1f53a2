// GPU sharing through NVIDIA's device plugin (time-slicing and MPS): which replicas a pod gets,
// how fast pods run as co-runners come and go, and what the plugin refuses. Every outcome is
// worked out by hand in the comments; times are seconds.
#include <gtest/gtest.h>

#include "sim/core/status.hpp"
#include "sim/k8s/shared_progress.hpp"
#include "tests/k8s/k8s_harness.hpp"

namespace gpusim::testing {
namespace {

using experiment::PodOutcome;
using k8s::DevicePluginModel;

void share(K8sScenario& s, DevicePluginModel model, int replicas,
           k8s::ReplicaPolicy policy = k8s::ReplicaPolicy::kDistributed) {
  s.kube.default_model = model;
  s.kube.default_sharing.replicas = replicas;
  s.kube.default_sharing.policy = policy;
}

// One GPU time-sliced into 2 replicas. A (100 s of work) runs alone from 0 at full speed; B (100 s)
// arrives at 50 and from then both get half the GPU. A has 50 s of work left: it ends at
// 50 + 50 / 0.5 = 150. B has done 50 by then and runs alone: it ends at 150 + 50 = 200.
TEST(K8sTimeSlicing, CoRunnerArrivesAndLeavesExactFinishTimes) {
  K8sScenario s;
  s.node("ts", 1);
  share(s, DevicePluginModel::kTimeSlicing, 2);
  s.pod("a", 1, 0, 100);
  s.pod("b", 1, 50, 100);
  const auto result = s.run();
  EXPECT_EQ(record(result, 0).gpus, gpus({0}));  // replica 0 of GPU 0
  EXPECT_EQ(record(result, 1).gpus, gpus({1}));  // replica 1 of GPU 0
  EXPECT_EQ(seconds(record(result, 0).start_us), 0);
  EXPECT_EQ(seconds(record(result, 0).end_us), 150);
  EXPECT_EQ(seconds(record(result, 1).start_us), 50);
  EXPECT_EQ(seconds(record(result, 1).end_us), 200);
  // Each ran 150 s for 100 s of work.
  EXPECT_DOUBLE_EQ(metric(result, "mean_slowdown"), 1.5);
  EXPECT_DOUBLE_EQ(metric(result, "max_slowdown"), 1.5);
  EXPECT_EQ(metric(result, "shared_pods_with_corunners"), 2);
  // The GPU held one pod for 100 s (0..50, 150..200) and two for 100 s (50..150), busy throughout.
  EXPECT_NEAR(metric(result, "shared_gpu_hours_1_pods"), 100.0 / 3600, 1e-12);
  EXPECT_NEAR(metric(result, "shared_gpu_hours_2_pods"), 100.0 / 3600, 1e-12);
  EXPECT_NEAR(metric(result, "shared_busy_gpu_hours"), 200.0 / 3600, 1e-12);
  EXPECT_EQ(metric(result, "context_switch_gpu_hours"), 0);
  // Allocation counts replicas: one of two for 100 s, both for 100 s, over 200 s: 75 %.
  EXPECT_DOUBLE_EQ(metric(result, "mean_gpu_allocation_pct"), 75);
}

// Pods that use part of a GPU (openb fractions, asked as one device each) fit together: demands
// 0.5 + 0.5 do not exceed the GPU, so neither slows down.
TEST(K8sTimeSlicing, FractionsThatFitRunAtFullSpeed) {
  K8sScenario s;
  s.node("ts", 1);
  share(s, DevicePluginModel::kTimeSlicing, 4);
  s.kube.fraction_as_one_device = true;
  s.pod("a", 1, 0, 100).gpu_milli = 500;
  s.pod("b", 1, 50, 100).gpu_milli = 500;
  const auto result = s.run();
  EXPECT_EQ(seconds(record(result, 0).end_us), 100);
  EXPECT_EQ(seconds(record(result, 1).end_us), 150);
  EXPECT_DOUBLE_EQ(metric(result, "mean_slowdown"), 1);
  // Busy half the GPU while one runs, all of it while both do: (0.5 * 100 + 1 * 50) s.
  EXPECT_NEAR(metric(result, "shared_busy_gpu_hours"), 100.0 / 3600, 1e-12);
}

// Without the one-device setting a fraction cannot run on a count-only node.
TEST(K8sTimeSlicing, FractionsStayUnscheduledUnlessAskedAsOneDevice) {
  K8sScenario s;
  s.node("ts", 1);
  share(s, DevicePluginModel::kTimeSlicing, 2);
  s.pod("a", 1, 0, 100).gpu_milli = 500;
  const auto result = s.run();
  EXPECT_EQ(record(result, 0).outcome, PodOutcome::kPending);
}

// Max-min fair time shares: demands 0.3 and 1 on one GPU. The 0.3 pod is met in full (rate 1, it
// ends at 100); the other gets the remaining 0.7 (rate 0.7): at 100 s it has 30 s of work left and
// then runs alone, ending at 130.
TEST(K8sTimeSlicing, UnequalDemandsShareMaxMinFair) {
  K8sScenario s;
  s.node("ts", 1);
  share(s, DevicePluginModel::kTimeSlicing, 2);
  s.kube.fraction_as_one_device = true;
  s.pod("small", 1, 0, 100).gpu_milli = 300;
  s.pod("big", 1, 0, 100);
  const auto result = s.run();
  EXPECT_EQ(seconds(record(result, 0).end_us), 100);
  EXPECT_NEAR(seconds(record(result, 1).end_us), 130, 1e-5);
}

// NVIDIA's replica choice for a pod asking two replicas of an empty 2-GPU node (2 replicas each;
// devices 0,1 are GPU 0 and 2,3 GPU 1). distributed: device 0, then the GPU with fewer taken
// (GPU 1): devices 0 and 2, two GPUs. packed: device 0, then the GPU with more taken: devices 0
// and 1, both on GPU 0: one container on one device, one process, so 100 s of work take 100 s
// (counted as two processes halving each other, they took 200 s before issue 28).
TEST(K8sTimeSlicing, SeveralReplicasDistributedAcrossGpusOrPackedOnOne) {
  for (const auto policy : {k8s::ReplicaPolicy::kDistributed, k8s::ReplicaPolicy::kPacked}) {
    K8sScenario s;
    s.node("ts", 2);
    share(s, DevicePluginModel::kTimeSlicing, 2, policy);
    s.pod("two", 2, 0, 100);
    const auto result = s.run();
    const bool packed = policy == k8s::ReplicaPolicy::kPacked;
    EXPECT_EQ(record(result, 0).gpus, packed ? gpus({0, 1}) : gpus({0, 2}));
    EXPECT_EQ(seconds(record(result, 0).end_us), 100);
    EXPECT_EQ(metric(result, "multi_replica_split_across_gpus"), packed ? 0 : 1);
    EXPECT_EQ(metric(result, "multi_replica_on_one_gpu"), packed ? 1 : 0);
  }
}

// distributed with a GPU already busy: A takes device 0 (GPU 0); B, asking two, gets device 2 (GPU
// 1 has fewer taken), then device 1 (a tie, lowest index): one replica of each GPU, so it shares
// GPU 0 with A, as NVIDIA's device plugin issue #443 describes. A and B each get half of GPU 0:
// A (100 s) ends at 200; B runs at its slowest process (0.5) until then, 100 s done: it ends at 200.
TEST(K8sTimeSlicing, MultiReplicaPodSpreadOverGpusSharesWithNeighbours) {
  K8sScenario s;
  s.node("ts", 2);
  share(s, DevicePluginModel::kTimeSlicing, 2);
  s.pod("a", 1, 0, 100);
  s.pod("b", 2, 0, 100);
  const auto result = s.run();
  EXPECT_EQ(record(result, 0).gpus, gpus({0}));
  EXPECT_EQ(record(result, 1).gpus, gpus({1, 2}));
  EXPECT_EQ(seconds(record(result, 0).end_us), 200);
  EXPECT_EQ(seconds(record(result, 1).end_us), 200);
  EXPECT_EQ(metric(result, "multi_replica_split_across_gpus"), 1);
  // Busy: GPU 0 fully (A 0.5 + B 0.5) for 200 s; GPU 1 holds B's other process, which runs at B's
  // rate, 0.5: 100 GPU-s. 300 of 400 GPU-s.
  EXPECT_NEAR(metric(result, "shared_busy_gpu_hours"), 300.0 / 3600, 1e-12);
  EXPECT_DOUBLE_EQ(metric(result, "shared_busy_pct"), 75);
}

// Shared-GPU metrics cover the sharing nodes' GPUs only, over the makespan. Node ts (1 GPU, 2
// replicas) and node plain (1 GPU, scheduler-assigned). A and B (binpack) share ts's GPU and end at
// 200 s; C runs on plain. The shared GPU held two pods throughout: busy 100 %, never idle.
// Gavel's co-location figures on one V100: A beside B keeps 1.6 of its 2 steps/s (0.8), B beside A
// 2.4 of its 4 (0.6); two A's cannot share a GPU (0: out of memory).
const char* kPairTable = R"json({
  "v100": {"('A', 1)": {"null": 2.0, "('B', 1)": [1.6, 2.4], "('A', 1)": [0.0, 0.0]},
           "('B', 1)": {"null": 4.0, "('A', 1)": [2.4, 1.6]}}
})json";

struct PairScenario {
  K8sScenario s;
  perf::JobTypeSpeeds speeds;
  explicit PairScenario(bool figures) : speeds(traces::parse_gavel_throughputs(kPairTable, "pairs.json"), s.catalog) {
    speeds.use_colocation_figures(figures);
    s.job_types = &speeds;
    s.node("ts", 1);
    share(s, DevicePluginModel::kTimeSlicing, 2);
  }
};

// A (type A, 100 s of V100 work) runs alone from 0; B (type B, 100 s) joins at 50. With the table's
// figures A runs at 0.8 and B at 0.6: A's last 50 s take 62.5 s, ending at 112.5; B has done 37.5 s by
// then and ends alone at 112.5 + 62.5 = 175. Without them (--colocation model) both run at 0.5:
// A ends at 150, B at 200 (CoRunnerArrivesAndLeavesExactFinishTimes).
TEST(K8sTimeSlicing, JobsOfKnownTypesShareAGpuAtTheTablesPairSpeeds) {
  PairScenario measured(true);
  measured.s.pod("a", 1, 0, 100).job_type = 0;
  measured.s.pod("b", 1, 50, 100).job_type = 1;
  const auto result = measured.s.run();
  EXPECT_EQ(record(result, 0).gpus, gpus({0}));
  EXPECT_EQ(record(result, 1).gpus, gpus({1}));  // the other replica of the same GPU
  EXPECT_EQ(record(result, 0).end_us, 112'500'000);
  EXPECT_EQ(record(result, 1).end_us, 175'000'000);
  EXPECT_EQ(metric(result, "shared_pods_with_measured_pair"), 2);
  EXPECT_NEAR(metric(result, "shared_measured_pair_gpu_hours"), 62.5 / 3600, 1e-12);
  EXPECT_DOUBLE_EQ(metric(result, "mean_slowdown"), (1.125 + 1.25) / 2);
  // Together they do 1.4 jobs' worth: the GPU counts as busy, not more.
  EXPECT_NEAR(metric(result, "shared_busy_gpu_hours"), 175.0 / 3600, 1e-12);

  PairScenario modelled(false);
  modelled.s.pod("a", 1, 0, 100).job_type = 0;
  modelled.s.pod("b", 1, 50, 100).job_type = 1;
  const auto model = modelled.s.run();
  EXPECT_EQ(seconds(record(model, 0).end_us), 150);
  EXPECT_EQ(seconds(record(model, 1).end_us), 200);
  EXPECT_FALSE(model.metric("shared_pods_with_measured_pair").has_value());  // reported only with the figures on
}

// Where the table has no figure for the pair (two A's: it cannot run) or a GPU holds three pods, the
// shared-GPU model applies: two A's at 0.5 each end at 150 and 200, as without a table.
TEST(K8sTimeSlicing, PairsWithoutAFigureAndThreePodsUseTheSpeedModel) {
  PairScenario twins(true);
  twins.s.pod("a1", 1, 0, 100).job_type = 0;
  twins.s.pod("a2", 1, 50, 100).job_type = 0;
  const auto result = twins.s.run();
  EXPECT_EQ(seconds(record(result, 0).end_us), 150);
  EXPECT_EQ(seconds(record(result, 1).end_us), 200);
  EXPECT_EQ(metric(result, "shared_pods_with_measured_pair"), 0);
}

// Under MPS each client is capped at its share of the SMs (1/2 with 2 replicas): the table's pair
// speeds (0.8 and 0.6) cannot lift a pod past its cap. A alone runs at 0.5 from 0 (25 s done by 50);
// beside B both run at 0.5, the cap; A's other 75 s end at 200, and B, with 75 done, alone at 0.5 ends at 250.
TEST(K8sMps, PairSpeedsKeepTheClientsCap) {
  PairScenario mps(true);
  share(mps.s, DevicePluginModel::kMps, 2);
  mps.s.pod("a", 1, 0, 100).job_type = 0;
  mps.s.pod("b", 1, 50, 100).job_type = 1;
  const auto result = mps.s.run();
  EXPECT_EQ(seconds(record(result, 0).end_us), 200);
  EXPECT_EQ(seconds(record(result, 1).end_us), 250);
  EXPECT_EQ(metric(result, "shared_pods_with_measured_pair"), 2);
}

// Three pods on one GPU of 3 replicas: A and B pair from 0 at 0.8 and 0.6; a second B at 10 makes
// three, and the model gives each 1/3. A has done 8 s by then and B1 6 s. The GPU keeps three pods
// until A ends at 10 + 92 * 3 = 286; B1 has done 6 + 92 = 98 s and B2 92 s. Two B's have no figure
// (the table has no B-B entry): 0.5 each, B1 ends at 286 + 4 = 290, and B2, with 94 done, runs alone:
// 290 + 6 = 296.
TEST(K8sTimeSlicing, AThirdPodEndsThePairsMeasuredSpeeds) {
  PairScenario three(true);
  share(three.s, DevicePluginModel::kTimeSlicing, 3);
  three.s.pod("a", 1, 0, 100).job_type = 0;
  three.s.pod("b1", 1, 0, 100).job_type = 1;
  three.s.pod("b2", 1, 10, 100).job_type = 1;
  const auto result = three.s.run();
  EXPECT_EQ(seconds(record(result, 0).end_us), 286);
  EXPECT_EQ(seconds(record(result, 1).end_us), 290);
  EXPECT_EQ(seconds(record(result, 2).end_us), 296);
  EXPECT_NEAR(metric(result, "shared_measured_pair_gpu_hours"), 10.0 / 3600, 1e-12);
  EXPECT_EQ(metric(result, "shared_pods_with_measured_pair"), 2);
}

TEST(K8sTimeSlicing, SharedMetricsCoverSharingGpusOverTheMakespan) {
  K8sScenario s;
  s.node("ts", 1);
  s.node("plain", 1);
  s.kube.pools.push_back({"ts", {"ts", ""}, DevicePluginModel::kTimeSlicing, k8s::DeviceChoice::kFirstFit, "", {2}});
  s.pod("a", 1, 1000, 100);
  s.pod("b", 1, 1000, 100);
  s.pod("c", 1, 1000, 100);
  const auto result = s.run();
  EXPECT_EQ(record(result, 0).node, 0);
  EXPECT_EQ(record(result, 1).node, 0);
  EXPECT_EQ(record(result, 2).node, 1);
  EXPECT_EQ(seconds(record(result, 0).end_us), 1200);
  EXPECT_EQ(metric(result, "shared_physical_gpus"), 1);
  EXPECT_DOUBLE_EQ(metric(result, "shared_busy_pct"), 100);
  EXPECT_DOUBLE_EQ(metric(result, "shared_gpus_in_use_pct"), 100);
  EXPECT_EQ(metric(result, "shared_gpu_hours_0_pods"), 0);
  EXPECT_NEAR(metric(result, "shared_gpu_hours_2_pods"), 200.0 / 3600, 1e-12);
}

// failRequestsGreaterThanOne: the plugin's Allocate refuses a pod asking two replicas; its owner
// recreates it after the Job backoff until the backoffLimit (6), then gives up.
TEST(K8sTimeSlicing, FailRequestsGreaterThanOneRefusesAtAdmission) {
  K8sScenario s;
  s.node("ts", 2);
  share(s, DevicePluginModel::kTimeSlicing, 2);
  s.kube.default_sharing.fail_requests_greater_than_one = true;
  s.pod("one", 1, 0, 100);
  s.pod("two", 2, 0, 100);
  const auto result = s.run();
  EXPECT_EQ(record(result, 0).outcome, PodOutcome::kCompleted);
  EXPECT_EQ(record(result, 1).outcome, PodOutcome::kFailed);
  EXPECT_EQ(record(result, 1).reason, "UnexpectedAdmissionError");
  EXPECT_EQ(metric(result, "multi_replica_refused"), 7);  // the first try and 6 replacements
  EXPECT_EQ(metric(result, "pods_given_up"), 1);
}

// MPS always refuses a request for several replicas (the plugin forces failRequestsGreaterThanOne
// since v0.15.0), even when the settings say otherwise.
TEST(K8sMps, RequestsForSeveralReplicasAlwaysFail) {
  K8sScenario s;
  s.node("mps", 2);
  share(s, DevicePluginModel::kMps, 2);
  s.kube.default_sharing.fail_requests_greater_than_one = false;
  s.pod("two", 2, 0, 100);
  const auto result = s.run();
  EXPECT_EQ(record(result, 0).outcome, PodOutcome::kFailed);
  EXPECT_GE(metric(result, "multi_replica_refused"), 1);
}

// MPS with 2 replicas: each client may use 50 % of the SMs. A whole-GPU job alone runs at
// min(1, 0.5 / 1) = 0.5 (100 s of work take 200 s); two half-GPU jobs side by side each run at
// min(1, 0.5 / 0.5, 1 / max(1, 1)) = 1.
TEST(K8sMps, ActiveThreadCapAndSpatialSharing) {
  {
    K8sScenario s;
    s.node("mps", 1);
    share(s, DevicePluginModel::kMps, 2);
    s.pod("whole", 1, 0, 100);
    const auto result = s.run();
    EXPECT_EQ(seconds(record(result, 0).end_us), 200);
    EXPECT_DOUBLE_EQ(metric(result, "mean_slowdown"), 2);
  }
  {
    K8sScenario s;
    s.node("mps", 1);
    share(s, DevicePluginModel::kMps, 2);
    s.kube.fraction_as_one_device = true;
    s.pod("a", 1, 0, 100).gpu_milli = 500;
    s.pod("b", 1, 0, 100).gpu_milli = 500;
    const auto result = s.run();
    EXPECT_EQ(seconds(record(result, 0).end_us), 100);
    EXPECT_EQ(seconds(record(result, 1).end_us), 100);
  }
  {
    // mpsActiveThreadPercentage 100: a whole-GPU client may use every SM; two of them share the
    // GPU's stream capacity (1): 0.5 each, 100 s of work take 200 s.
    K8sScenario s;
    s.node("mps", 1);
    share(s, DevicePluginModel::kMps, 2);
    s.kube.default_sharing.mps_active_thread_percentage = 100;
    s.pod("a", 1, 0, 100);
    s.pod("b", 1, 0, 100);
    const auto result = s.run();
    EXPECT_EQ(seconds(record(result, 0).end_us), 200);
    EXPECT_EQ(seconds(record(result, 1).end_us), 200);
  }
}

// A fatal XID takes the physical GPU, so every replica of it: both pods on GPU 0 die, and the
// status advertises the other GPU's two replicas only.
TEST(K8sTimeSlicing, FatalXidKillsEveryReplicaOfTheGpu) {
  K8sScenario s;
  s.node("ts", 2);
  share(s, DevicePluginModel::kTimeSlicing, 2, k8s::ReplicaPolicy::kPacked);
  s.kube.backoff_limit = 0;
  s.kube.gpu_failures.push_back({s_(20), 0, 0, 79});
  s.pod("a", 1, 0, 100);
  s.pod("b", 1, 0, 100);
  const auto result = s.run();
  EXPECT_EQ(record(result, 0).gpus, gpus({0}));
  EXPECT_EQ(record(result, 1).gpus, gpus({1}));
  EXPECT_EQ(record(result, 0).reason, "GpuLost");
  EXPECT_EQ(record(result, 1).reason, "GpuLost");
  EXPECT_EQ(seconds(record(result, 0).end_us), 20);
}

// A node lost while its pod runs on a shared GPU: the pod stops progressing (alone it would have
// ended at 100 s). The node is tainted unreachable at 50 + 50 s and the pod evicted 300 s later.
TEST(K8sTimeSlicing, LostNodeFreezesSharedPods) {
  K8sScenario s;
  s.node("ts", 1);
  share(s, DevicePluginModel::kTimeSlicing, 2);
  s.kube.backoff_limit = 0;
  s.kube.node_events.push_back({s_(50), 0, k8s::NodeEventKind::kLost});
  s.kube.node_events.push_back({s_(1000), 0, k8s::NodeEventKind::kRecovered});
  s.pod("a", 1, 0, 100);
  const auto result = s.run();
  EXPECT_EQ(record(result, 0).outcome, PodOutcome::kFailed);
  EXPECT_EQ(record(result, 0).reason, "Evicted");
  EXPECT_EQ(seconds(record(result, 0).end_us), 400);
}

// A sharing node removed after the last pod ended adds no idle time past the makespan; an MPS pod
// killed the moment it starts has lost no run time.
TEST(K8sTimeSlicing, RemovalAfterTheEndAndKillsAtStartCountNoTime) {
  K8sScenario s;
  s.node("ts", 1);
  share(s, DevicePluginModel::kMps, 2);
  s.kube.fraction_as_one_device = true;
  s.kube.memory_model = true;
  s.kube.backoff_limit = 0;
  s.kube.node_events.push_back({s_(1000), 0, k8s::NodeEventKind::kRemove});
  s.pod("a", 1, 0, 100);
  s.pod("big", 1, 50, 100).gpu_milli = 600;  // past its client's half of the memory
  const auto result = s.run();
  EXPECT_EQ(record(result, 0).outcome, PodOutcome::kCompleted);
  EXPECT_EQ(record(result, 1).reason, "OOMKilled");
  EXPECT_EQ(metric(result, "oom_kills"), 1);
  EXPECT_EQ(metric(result, "oom_neighbours_killed"), 0);
  EXPECT_EQ(metric(result, "oom_run_hours_lost"), 0);
  EXPECT_DOUBLE_EQ(metric(result, "shared_gpus_in_use_pct"), 100);
  EXPECT_EQ(metric(result, "shared_gpu_hours_0_pods"), 0);
}

// A node has at most 128 devices; replicas apply to whole GPUs, not to a node's topology.
TEST(K8sTimeSlicing, ImpossibleSetupsAreInputErrors) {
  K8sScenario s;
  s.node("big", 8);
  share(s, DevicePluginModel::kTimeSlicing, 17);
  s.pod("a", 1, 0, 100);
  try {
    s.run();
    FAIL() << "expected an input error";
  } catch (const core::InputError& e) {
    EXPECT_STREQ(e.what(), "node big: 8 GPUs x 17 replicas (136) is more than the 128 devices a node may have");
  }
  s.kube.default_sharing.replicas = 2;
  s.kube.default_topology = "dgx1-v100";
  try {
    s.run();
    FAIL() << "expected an input error";
  } catch (const core::InputError& e) {
    EXPECT_STREQ(e.what(), "node big: the defaults gives it time-slicing with topology 'dgx1-v100'; topologies apply to whole GPUs only");
  }
}

// gpushare: the extender binds each pod to the GPU that fits it most tightly (whatever the
// profile's own GPU choice: binpack's is first fit). A (0.5) takes GPU 0; C (0.6) does not fit
// there and takes GPU 1; B (0.3) fits both and goes to GPU 1, the tighter (0.4 free against 0.5).
// Demands on GPU 1 add up to 0.9: no slowdown. D asks two GPUs: gpushare gives one GPU per pod.
TEST(K8sGpushare, ExtenderBinpacksOneGpuPerPod) {
  K8sScenario s;
  s.node("gs", 2);
  s.kube.default_model = DevicePluginModel::kGpushare;
  s.pod("a", 1, 0, 100).gpu_milli = 500;
  s.pod("c", 1, 1, 100).gpu_milli = 600;
  s.pod("b", 1, 2, 100).gpu_milli = 300;
  s.pod("d", 2, 3, 100);
  const auto result = s.run();
  EXPECT_EQ(record(result, 0).gpus, gpus({0}));
  EXPECT_EQ(record(result, 1).gpus, gpus({1}));
  EXPECT_EQ(record(result, 2).gpus, gpus({1}));
  EXPECT_EQ(seconds(record(result, 2).end_us), 102);
  EXPECT_EQ(record(result, 3).outcome, PodOutcome::kPending);
  EXPECT_DOUBLE_EQ(metric(result, "mean_slowdown"), 1);
}

// gpushare without isolation: pods whose compute demands exceed the GPU time-slice it. Memory
// shares 0.4 + 0.6 fit one GPU; compute demands 0.8 and 0.6 do not: max-min fair shares of 0.5 each,
// rates 0.625 and 0.833..; the 0.6 pod (100 s of work) ends at 120 s, then the other runs alone
// with 100 - 0.625 * 120 = 25 s of work left, ending at 145 s.
TEST(K8sGpushare, OverlappingDemandsTimeSlice) {
  K8sScenario s;
  s.node("gs", 1);
  s.kube.default_model = DevicePluginModel::kGpushare;
  s.pod("big", 1, 0, 100).gpu_milli = 400;
  s.pod("small", 1, 0, 100).gpu_milli = 600;
  s.workload.pods[0].gpu_demand_milli = 800;  // it uses more of the GPU's time than its memory share
  const auto result = s.run();
  EXPECT_NEAR(seconds(record(result, 1).end_us), 120, 1e-5);
  EXPECT_NEAR(seconds(record(result, 0).end_us), 145, 1e-5);
}

// HAMi vGPU: the HAMi scheduler's GPU policy picks the GPU. A (0.3) takes GPU 0; B (0.3) goes to the
// least used GPU under spread (GPU 1), to the tightest fit under binpack (GPU 0).
TEST(K8sHami, GpuPolicySpreadOrBinpack) {
  for (const auto policy : {k8s::HamiGpuPolicy::kSpread, k8s::HamiGpuPolicy::kBinpack}) {
    K8sScenario s;
    s.node("hami", 2);
    s.kube.default_model = DevicePluginModel::kHamiVgpu;
    s.kube.default_hami.gpu_policy = policy;
    s.pod("a", 1, 0, 100).gpu_milli = 300;
    s.pod("b", 1, 1, 100).gpu_milli = 300;
    const auto result = s.run();
    EXPECT_EQ(record(result, 0).gpus, gpus({0}));
    EXPECT_EQ(record(result, 1).gpus, policy == k8s::HamiGpuPolicy::kSpread ? gpus({1}) : gpus({0}));
  }
}

// HAMi caps a pod's compute at its gpucores (the share it asked): a pod asking half a GPU that
// would keep a whole one busy runs at 0.5 even alone (100 s of work take 200 s); its neighbour
// asking 0.4 and using 0.4 is not slowed (0.5 + 0.4 fit).
TEST(K8sHami, GpuCoresCapCompute) {
  K8sScenario s;
  s.node("hami", 1);
  s.kube.default_model = DevicePluginModel::kHamiVgpu;
  s.pod("greedy", 1, 0, 100).gpu_milli = 500;
  s.workload.pods[0].gpu_demand_milli = 1000;
  s.pod("modest", 1, 0, 100).gpu_milli = 400;
  const auto result = s.run();
  EXPECT_EQ(record(result, 0).gpus, record(result, 1).gpus);
  EXPECT_EQ(seconds(record(result, 0).end_us), 200);
  EXPECT_EQ(seconds(record(result, 1).end_us), 100);
}

// GPU memory without isolation against MPS's per-client limit. A (half the GPU's memory, 100 s)
// starts at 0; B (half, overrunning 1.5x: 0.75) at 10. gpushare: the GPU needs 1.25, so one of the
// two, at random, fails (OOMKilled); with some seeds it is A, the neighbour that kept to its
// request. MPS (2 replicas, a limit of 0.5 per client) and HAMi (gpumem enforced): only B fails,
// whatever the seed.
TEST(K8sSharedMemory, OverrunKillsANeighbourWithoutIsolationOnlyItselfUnderMpsAndHami) {
  int neighbour_killed = 0;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    for (const auto model : {DevicePluginModel::kGpushare, DevicePluginModel::kMps, DevicePluginModel::kHamiVgpu}) {
      K8sScenario s;
      s.seed = seed;
      s.node("n", 1);
      share(s, model, 2);
      s.kube.fraction_as_one_device = model == DevicePluginModel::kMps;
      s.kube.memory_model = true;
      s.kube.overrun_pods = {"b"};
      s.kube.backoff_limit = 0;
      s.pod("a", 1, 0, 100).gpu_milli = 500;
      s.pod("b", 1, 10, 100).gpu_milli = 500;
      const auto result = s.run();
      EXPECT_EQ(metric(result, "oom_kills"), 1);
      EXPECT_EQ(metric(result, "overrunning_pods"), 1);
      if (model != DevicePluginModel::kGpushare) {
        EXPECT_EQ(record(result, 0).outcome, PodOutcome::kCompleted);
        EXPECT_EQ(record(result, 1).reason, "OOMKilled");
        EXPECT_EQ(seconds(record(result, 1).end_us), 10);
        EXPECT_EQ(metric(result, "oom_neighbours_killed"), 0);
      } else if (record(result, 0).outcome == PodOutcome::kFailed) {
        ++neighbour_killed;
        EXPECT_EQ(record(result, 0).reason, "OOMKilled");
        EXPECT_EQ(seconds(record(result, 0).end_us), 10);
        EXPECT_EQ(record(result, 1).outcome, PodOutcome::kCompleted);
        EXPECT_EQ(metric(result, "oom_neighbours_killed"), 1);
        EXPECT_NEAR(metric(result, "oom_run_hours_lost"), 10.0 / 3600, 1e-12);
      } else {
        EXPECT_EQ(record(result, 1).reason, "OOMKilled");
        EXPECT_EQ(metric(result, "oom_neighbours_killed"), 0);
      }
    }
  }
  EXPECT_GT(neighbour_killed, 0);
  EXPECT_LT(neighbour_killed, 20);
}

// Without the memory model nothing runs out of memory, and the metrics are not reported.
TEST(K8sSharedMemory, OffByDefault) {
  K8sScenario s;
  s.node("n", 1);
  s.kube.default_model = DevicePluginModel::kGpushare;
  s.pod("a", 1, 0, 100).gpu_milli = 500;
  s.pod("b", 1, 10, 100).gpu_milli = 500;
  const auto result = s.run();
  EXPECT_EQ(record(result, 1).outcome, PodOutcome::kCompleted);
  EXPECT_FALSE(result.metric("oom_kills").has_value());
}

// The speed model alone, with a context-switch overhead d_inf = 0.2: two saturating processes
// share capacity 1 / (1 + 0.2 * 1/2) = 1/1.1, so each runs at 1/2.2. 110 s of work take 242 s;
// the GPU loses 1 - 1/1.1 of its time to switches while both are there.
TEST(SharedProgress, ContextSwitchOverheadSlowsEveryone) {
  k8s::SharedProgress progress({k8s::SharedGpuModel{false, 0.2, 1, 1}});
  progress.add(0, {0}, 1.0, 110e6, false, core::Time::zero());
  progress.add(1, {0}, 1.0, 110e6, false, core::Time::zero());
  ASSERT_EQ(progress.moved().size(), 2U);
  EXPECT_NEAR(seconds(progress.moved()[0].at.micros()), 242, 1e-5);
  EXPECT_NEAR(seconds(progress.moved()[1].at.micros()), 242, 1e-5);
  const auto totals = progress.totals(core::Time::from_seconds(242));
  EXPECT_NEAR(totals.switch_gpu_s, 242 * (1 - 1 / 1.1), 1e-6);
  EXPECT_NEAR(totals.busy_gpu_s, 242 / 1.1, 1e-6);
}

// A change touches only the pods on the GPUs it concerns: pods elsewhere keep their finish times.
TEST(SharedProgress, ChangesStayOnTheirGpu) {
  k8s::SharedProgress progress(std::vector<k8s::SharedGpuModel>(3));
  progress.add(0, {0}, 1.0, 100e6, false, core::Time::zero());
  progress.add(1, {1}, 1.0, 100e6, false, core::Time::zero());
  progress.add(2, {1}, 1.0, 100e6, false, core::Time::from_seconds(10));
  // Pods 1 and 2 moved (GPU 1); pod 0 on GPU 0 did not.
  ASSERT_EQ(progress.moved().size(), 2U);
  EXPECT_EQ(progress.moved()[0].pod, 1U);
  EXPECT_EQ(progress.moved()[1].pod, 2U);
  // Pod 1: 10 s done, 90 left at 0.5 -> 190 s; pod 2: 100 at 0.5 -> 210 s.
  EXPECT_EQ(seconds(progress.moved()[0].at.micros()), 190);
  EXPECT_EQ(seconds(progress.moved()[1].at.micros()), 210);
}

}  // namespace
}  // namespace gpusim::testing
