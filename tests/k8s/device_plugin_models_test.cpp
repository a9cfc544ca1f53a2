// The device-plugin models, admission against the kubelet's truth, stale node status, the owners'
// backoff, GPU failures and Jobs, each on a scenario whose outcome is worked out by hand in its
// comments.
#include <gtest/gtest.h>

#include "tests/k8s/k8s_harness.hpp"

namespace gpusim::testing {
namespace {

using experiment::PodOutcome;
using k8s::DevicePluginModel;

// Kubernetes 1.3: a 4-GPU node advertises one GPU, the first. A (1 GPU, 0 s, 1 h) runs on GPU 0;
// B (1 GPU, 60 s) waits for it and starts at 3600 s; C (2 GPUs, 120 s) can never run.
TEST(K8sAlpha13, OneGpuPerNodeTheFirst) {
  K8sScenario s;
  s.node("k13", 4);
  s.kube.default_model = DevicePluginModel::kAlpha13;
  s.pod("a", 1, 0, 3600);
  s.pod("b", 1, 60, 3600);
  s.pod("c", 2, 120, 3600);
  const auto result = s.run();
  EXPECT_EQ(record(result, 0).gpus, gpus({0}));
  EXPECT_EQ(seconds(record(result, 0).start_us), 0);
  EXPECT_EQ(record(result, 1).gpus, gpus({0}));
  EXPECT_EQ(seconds(record(result, 1).start_us), 3600);
  EXPECT_EQ(seconds(record(result, 1).end_us), 7200);
  EXPECT_EQ(record(result, 2).outcome, PodOutcome::kPending);
  EXPECT_EQ(metric(result, "unscheduled_pods"), 1);
  EXPECT_EQ(metric(result, "admission_failures"), 0);
}

// Kubernetes 1.6 with a 30 s GPU-freeing delay. A (2 GPUs, 0 s, 100 s) holds both GPUs until
// 130 s although it ends at 100 s. B (2 GPUs, 50 s) is bound at 100 s (the scheduler saw A end),
// refused at admission (UnexpectedAdmissionError), recreated after 10 s, refused again at 110 s,
// recreated after 20 s at 130 s, when the GPUs are back: it runs 130..230 s.
TEST(K8sAccelerators16, FreeingDelayCausesAdmissionFailuresAndBackoff) {
  K8sScenario s;
  s.node("k16", 2);
  s.kube.default_model = DevicePluginModel::kAccelerators16;
  s.kube.gpu_free_delay = core::Time::from_seconds(30);
  s.pod("a", 2, 0, 100);
  s.pod("b", 2, 50, 100);
  const auto result = s.run();
  EXPECT_EQ(seconds(record(result, 0).end_us), 100);
  EXPECT_EQ(record(result, 1).outcome, PodOutcome::kCompleted);
  EXPECT_EQ(seconds(record(result, 1).arrival_us), 50);
  EXPECT_EQ(seconds(record(result, 1).start_us), 130);
  EXPECT_EQ(seconds(record(result, 1).end_us), 230);
  EXPECT_EQ(metric(result, "admission_failures"), 2);
  EXPECT_EQ(metric(result, "pods_recreated"), 2);
  // Two GPUs held 30 s after A ended (100..130 s) and after B ended (230..260 s).
  EXPECT_NEAR(metric(result, "terminated_pod_gpu_hours"), 120.0 / 3600, 1e-9);
  // Creation to Running, over A (0) and B (80 = 50 queueing + 30 waiting for replacements).
  EXPECT_DOUBLE_EQ(metric(result, "mean_time_to_running_s"), 40);
  EXPECT_DOUBLE_EQ(metric(result, "mean_ttr_queueing_s"), 25);
  EXPECT_DOUBLE_EQ(metric(result, "mean_ttr_admission_retries_s"), 15);
  EXPECT_DOUBLE_EQ(metric(result, "mean_ttr_binding_s"), 0);
  EXPECT_DOUBLE_EQ(metric(result, "mean_ttr_start_s"), 0);
}

// The same without the delay: B is bound and admitted at 100 s, no failure.
TEST(K8sAccelerators16, NoDelayNoFailure) {
  K8sScenario s;
  s.node("k16", 2);
  s.kube.default_model = DevicePluginModel::kAccelerators16;
  s.pod("a", 2, 0, 100);
  s.pod("b", 2, 50, 100);
  const auto result = s.run();
  EXPECT_EQ(seconds(record(result, 1).start_us), 100);
  EXPECT_EQ(metric(result, "admission_failures"), 0);
}

// A device-plugin node with 2 GPUs and a 60 s status period. A (1 GPU, 0 s, 1 h) takes GPU 0. XID
// 79 takes GPU 1 at 20 s; the kubelet publishes it at the next tick, 60 s. B (1 GPU, 30 s) is
// bound on the stale count at 30 s and refused; its replacement at 40 s likewise; the next one,
// due at 60 s, meets the new status (1 GPU, used) and waits for A: it runs 3600..7200 s.
TEST(K8sDevicePlugin, StaleStatusAfterXidMakesAdmissionFail) {
  K8sScenario s;
  s.node("dp", 2);
  s.kube.default_model = DevicePluginModel::kDevicePlugin;
  s.kube.node_status_period = core::Time::from_seconds(60);
  s.kube.gpu_failures.push_back({core::Time::from_seconds(20), 0, 1, 79});
  s.pod("a", 1, 0, 3600);
  s.pod("b", 1, 30, 3600);
  const auto result = s.run();
  EXPECT_EQ(record(result, 0).gpus, gpus({0}));
  EXPECT_EQ(record(result, 1).gpus, gpus({0}));
  EXPECT_EQ(seconds(record(result, 1).start_us), 3600);
  EXPECT_EQ(metric(result, "admission_failures"), 2);
  EXPECT_EQ(metric(result, "gpu_failures"), 1);
  EXPECT_EQ(metric(result, "pods_lost_to_gpu_failures"), 0);
  // GPU 1 unhealthy from 20 s to the end of the run (7200 s).
  EXPECT_NEAR(metric(result, "unhealthy_gpu_hours"), 7180.0 / 3600, 1e-9);
}

// With a 1 s period the status is published at 20 s and B simply waits: no admission failure.
TEST(K8sDevicePlugin, FreshStatusAvoidsTheFailure) {
  K8sScenario s;
  s.node("dp", 2);
  s.kube.default_model = DevicePluginModel::kDevicePlugin;
  s.kube.node_status_period = core::Time::from_seconds(1);
  s.kube.gpu_failures.push_back({core::Time::from_seconds(20), 0, 1, 79});
  s.pod("a", 1, 0, 3600);
  s.pod("b", 1, 30, 3600);
  const auto result = s.run();
  EXPECT_EQ(seconds(record(result, 1).start_us), 3600);
  EXPECT_EQ(metric(result, "admission_failures"), 0);
}

// An ignored XID (13) changes nothing; a critical, non-fatal one (48) leaves the pod running on
// that GPU alone, but the GPU is no longer advertised: allocatable drops to 1 while a still counts
// against it, so as in Kubernetes the node has no GPU free until a ends (100 s), although GPU 1 is
// idle. b then runs on GPU 1 (100..200 s) and c after it (200..300 s).
TEST(K8sDevicePlugin, IgnoredAndNonFatalXids) {
  K8sScenario s;
  s.node("dp", 2);
  s.kube.default_model = DevicePluginModel::kDevicePlugin;
  s.kube.node_status_period = core::Time::from_seconds(1);
  s.kube.gpu_failures.push_back({core::Time::from_seconds(10), 0, 1, 13});
  s.kube.gpu_failures.push_back({core::Time::from_seconds(10), 0, 0, 48});
  s.pod("a", 1, 0, 100);  // on GPU 0: keeps running through XID 48
  s.pod("b", 1, 20, 100);
  s.pod("c", 1, 30, 100);
  const auto result = s.run();
  EXPECT_EQ(record(result, 0).outcome, PodOutcome::kCompleted);
  EXPECT_EQ(record(result, 0).gpus, gpus({0}));
  EXPECT_EQ(seconds(record(result, 0).end_us), 100);
  EXPECT_EQ(record(result, 1).gpus, gpus({1}));
  EXPECT_EQ(seconds(record(result, 1).start_us), 100);
  EXPECT_EQ(record(result, 2).gpus, gpus({1}));
  EXPECT_EQ(seconds(record(result, 2).start_us), 200);
  EXPECT_EQ(metric(result, "admission_failures"), 0);
  EXPECT_EQ(metric(result, "gpu_failures"), 1);
}

// XID 79 on the GPU a pod runs on kills it (GpuLost at 100 s: 100 GPU-seconds lost); the owner
// recreates it after 10 s and it runs on the other GPU from 110 s for its whole duration.
TEST(K8sDevicePlugin, FallenOffTheBusKillsAndTheOwnerRecreates) {
  K8sScenario s;
  s.node("dp", 2);
  s.kube.default_model = DevicePluginModel::kDevicePlugin;
  s.kube.gpu_failures.push_back({core::Time::from_seconds(100), 0, 0, 79});
  s.pod("a", 1, 0, 1000);
  const auto result = s.run();
  EXPECT_EQ(record(result, 0).outcome, PodOutcome::kCompleted);
  EXPECT_EQ(record(result, 0).gpus, gpus({1}));
  EXPECT_EQ(seconds(record(result, 0).start_us), 110);
  EXPECT_EQ(seconds(record(result, 0).end_us), 1110);
  EXPECT_EQ(metric(result, "pods_lost_to_gpu_failures"), 1);
  EXPECT_NEAR(metric(result, "gpu_hours_lost_to_failures"), 100.0 / 3600, 1e-9);
  EXPECT_EQ(metric(result, "pods_recreated"), 1);
  EXPECT_EQ(metric(result, "admission_failures"), 0);
}

// Past the backoff limit the owner gives up: limit 1, the GPU fails twice under the pod.
TEST(K8sOwners, GiveUpAfterTheBackoffLimit) {
  K8sScenario s;
  s.node("dp", 1);
  s.kube.default_model = DevicePluginModel::kDevicePlugin;
  s.kube.backoff_limit = 1;
  s.kube.gpu_failures.push_back({core::Time::from_seconds(50), 0, 0, 79});
  s.kube.gpu_failures.push_back({core::Time::from_seconds(55), 0, 0, 0});   // repaired
  s.kube.gpu_failures.push_back({core::Time::from_seconds(100), 0, 0, 79});  // the replacement dies too
  s.pod("a", 1, 0, 1000);
  const auto result = s.run();
  EXPECT_EQ(record(result, 0).outcome, PodOutcome::kFailed);
  EXPECT_EQ(seconds(record(result, 0).start_us), 60);  // replacement at 50 + 10 s
  EXPECT_EQ(seconds(record(result, 0).end_us), 100);
  EXPECT_EQ(metric(result, "pods_recreated"), 1);
  EXPECT_EQ(metric(result, "pods_given_up"), 1);
}

// A plugin restart at 5 s leaves the node without GPUs for 30 s. The status (10 s period) still
// shows 2 at 6 s: A is bound and refused. Its replacement (16 s) sees 0 (published at 10 s) and
// waits; the plugin registers at 35 s, the kubelet publishes at 40 s, and A runs from 40 s.
TEST(K8sDevicePlugin, PluginRestartMakesTheResourceUnavailable) {
  K8sScenario s;
  s.node("dp", 2);
  s.kube.default_model = DevicePluginModel::kDevicePlugin;
  s.kube.plugin_restarts.push_back({core::Time::from_seconds(5), 0, core::Time::from_seconds(30)});
  s.pod("a", 1, 6, 100);
  const auto result = s.run();
  EXPECT_EQ(metric(result, "admission_failures"), 1);
  EXPECT_EQ(seconds(record(result, 0).start_us), 40);
  EXPECT_EQ(record(result, 0).gpus, gpus({0}));
}

// scheduler-assigned: the kubelet honours the scheduler's GPU annotation, so a stale view of a
// failed GPU makes admission fail even with another GPU free. binpack's first-fit selection picks
// GPU 0, which XID 48 took at 10 s; the status (60 s period) still lists it at 30 s.
TEST(K8sSchedulerAssigned, StaleUnhealthyAnnotationFailsAdmission) {
  K8sScenario s;
  s.node("sa", 2);
  s.kube.node_status_period = core::Time::from_seconds(60);
  s.kube.gpu_failures.push_back({core::Time::from_seconds(10), 0, 0, 48});
  s.pod("a", 1, 30, 100);
  const auto result = s.run();
  EXPECT_EQ(metric(result, "admission_failures"), 2);  // at 30 s and 40 s
  EXPECT_EQ(record(result, 0).gpus, gpus({1}));         // at 60 s: the new status hides GPU 0
  EXPECT_EQ(seconds(record(result, 0).start_us), 60);
}

// A Job with parallelism 2 and 3 completions: two pods at 0 s; the third is created when the
// first succeeds (100 s).
TEST(K8sJobs, ParallelismGatesCreation) {
  K8sScenario s;
  s.node("dp", 4);
  s.kube.default_model = DevicePluginModel::kDevicePlugin;
  s.workload.jobs.push_back(job("train", 2, 3));
  auto constraints = std::make_shared<cluster::PodConstraints>();
  constraints->job = 0;
  for (int k = 0; k < 3; ++k) s.pod("train-" + std::to_string(k), 1, 0, 100 + k).constraints = constraints;
  const auto result = s.run();
  EXPECT_EQ(seconds(record(result, 0).start_us), 0);
  EXPECT_EQ(seconds(record(result, 1).start_us), 0);
  EXPECT_EQ(seconds(record(result, 2).arrival_us), 100);
  EXPECT_EQ(seconds(record(result, 2).start_us), 100);
  EXPECT_EQ(seconds(record(result, 2).end_us), 202);
}

// A pod asking a fraction of a GPU cannot run on a count-only node (nvidia.com/gpu is an integer
// resource) but runs on a scheduler-assigned one.
TEST(K8sDevicePlugin, FractionsOnlyOnSchedulerAssignedNodes) {
  for (const auto model : {DevicePluginModel::kDevicePlugin, DevicePluginModel::kSchedulerAssigned}) {
    K8sScenario s;
    s.node("n", 2);
    s.kube.default_model = model;
    s.pod("half", 1, 0, 100).gpu_milli = 500;
    const auto result = s.run();
    EXPECT_EQ(record(result, 0).outcome,
              model == DevicePluginModel::kDevicePlugin ? PodOutcome::kPending : PodOutcome::kCompleted);
  }
}

// nodeAffinity In ["Tesla K80", "Tesla P100"] (the 1.6 seed): with the K80 node full and the V100
// node idle, the second pod waits for the K80 node instead of taking the V100.
TEST(K8sPlacementRules, AffinityKeepsAPodWaitingForItsGpuType) {
  K8sScenario s;
  s.node("k80", 2);
  s.node("v100", 2);
  s.cluster.nodes[0].labels = {{"alpha.kubernetes.io/nvidia-gpu-name", "Tesla K80"}};
  s.cluster.nodes[1].labels = {{"alpha.kubernetes.io/nvidia-gpu-name", "Tesla V100"}};
  s.kube.default_model = DevicePluginModel::kAccelerators16;
  auto rules = std::make_shared<cluster::PodConstraints>();
  rules->required_terms = {{{{"alpha.kubernetes.io/nvidia-gpu-name", cluster::SelectorOperator::kIn, {"Tesla K80", "Tesla P100"}}}}};
  rules->gpu_resource = cluster::GpuResource::kAlphaNvidiaGpu;
  s.pod("first", 2, 0, 100).constraints = rules;
  s.pod("second", 2, 10, 100).constraints = rules;
  const auto result = s.run();
  EXPECT_EQ(record(result, 0).node, 0);
  EXPECT_EQ(record(result, 1).node, 0);
  EXPECT_EQ(seconds(record(result, 1).start_us), 100);
}

// A NoSchedule taint keeps pods off a node unless they tolerate it.
TEST(K8sPlacementRules, TaintsNeedTolerations) {
  K8sScenario s;
  s.node("tainted", 2);
  s.cluster.nodes[0].taints = {{"nvidia.com/gpu", "present", "NoSchedule"}};
  s.pod("plain", 1, 0, 100);
  auto tolerant = std::make_shared<cluster::PodConstraints>();
  tolerant->tolerations = {{"nvidia.com/gpu", true, "", "NoSchedule", std::nullopt}};
  s.pod("tolerant", 1, 0, 100).constraints = tolerant;
  const auto result = s.run();
  EXPECT_EQ(record(result, 0).outcome, PodOutcome::kPending);
  EXPECT_EQ(record(result, 1).outcome, PodOutcome::kCompleted);
}

// Pods naming another scheduler are left for it.
TEST(K8sPlacementRules, OtherSchedulersPodsWait) {
  K8sScenario s;
  s.node("n", 2);
  auto other = std::make_shared<cluster::PodConstraints>();
  other->scheduler_name = "volcano";
  s.pod("mine", 1, 0, 100);
  s.pod("theirs", 1, 0, 100).constraints = other;
  const auto result = s.run();
  EXPECT_EQ(record(result, 0).outcome, PodOutcome::kCompleted);
  EXPECT_EQ(record(result, 1).outcome, PodOutcome::kPending);
}

}  // namespace
}  // namespace gpusim::testing
