// The review of the Kubernetes layer found these; each scenario is worked out by hand.
#include <gtest/gtest.h>

#include "tests/k8s/k8s_harness.hpp"

namespace gpusim::testing {
namespace {

using experiment::PodOutcome;
using k8s::DevicePluginModel;
using k8s::NodeEventKind;

// 1.6 with a freeing delay and XID 48 on the GPU a pod holds: the failed GPU is not held after the
// pod ends (it is not advertised anyway); no internal error.
TEST(K8sReview, FreeingDelayWithAFailedGpu) {
  K8sScenario s;
  s.node("k16", 2);
  s.kube.default_model = DevicePluginModel::kAccelerators16;
  s.kube.gpu_free_delay = s_(30);
  s.kube.gpu_failures.push_back({s_(50), 0, 0, 48});
  s.pod("a", 2, 0, 100);
  const auto result = s.run();
  EXPECT_EQ(record(result, 0).outcome, PodOutcome::kCompleted);
  // Only GPU 1 is held 100..130 s.
  EXPECT_NEAR(metric(result, "terminated_pod_gpu_hours"), 30.0 / 3600, 1e-9);
}

// "recovered" for a node that was never lost, and "lost" twice, change nothing.
TEST(K8sReview, NodeEventsThatDoNotApplyAreIgnored) {
  K8sScenario s;
  s.node("n", 2);
  s.kube.node_events.push_back({s_(50), 0, NodeEventKind::kRecovered});
  s.kube.node_events.push_back({s_(60), 0, NodeEventKind::kJoin});
  s.pod("a", 1, 0, 100);
  const auto result = s.run();
  EXPECT_EQ(record(result, 0).outcome, PodOutcome::kCompleted);
  EXPECT_EQ(seconds(record(result, 0).end_us), 100);
}

// A pod killed before its containers started (container start latency 10 s, XID 79 at 5 s) must not
// cancel anyone else's event: `late` still arrives at 1000 s and runs 1010..1110 s; `early` is
// recreated at 15 s and runs 25..125 s.
TEST(K8sReview, KilledBeforeStartCancelsNothingElse) {
  K8sScenario s;
  s.node("n1", 2);
  s.kube.default_model = DevicePluginModel::kDevicePlugin;
  s.kube.container_start_latency = s_(10);
  s.kube.gpu_failures.push_back({s_(5), 0, 0, 79});
  s.pod("late", 1, 1000, 100);
  s.pod("early", 1, 0, 100);
  const auto result = s.run();
  EXPECT_EQ(seconds(record(result, 0).start_us), 1010);
  EXPECT_EQ(seconds(record(result, 1).start_us), 25);
  EXPECT_EQ(record(result, 1).attempts, 2U);
}

// An owner that gives up after an admission failure: the row never ran, so it has no start and
// no GPU-hours, and the time-to-Running parts still add up (only `a` reached Running).
TEST(K8sReview, GivenUpRowsHaveNoStartAndTtrAddsUp) {
  K8sScenario s;
  s.node("n1", 1);
  s.kube.default_model = DevicePluginModel::kDevicePlugin;
  s.kube.node_status_period = s_(60);
  s.kube.backoff_limit = 0;
  s.kube.plugin_restarts.push_back({s_(95), 0, s_(60)});
  s.pod("a", 1, 0, 100);
  s.pod("b", 1, 10, 100);  // bound at 100 s on the stale status, refused; the owner gives up
  const auto result = s.run();
  EXPECT_EQ(record(result, 1).outcome, PodOutcome::kFailed);
  EXPECT_EQ(record(result, 1).start_us, -1);
  EXPECT_EQ(record(result, 1).reason, "UnexpectedAdmissionError");
  EXPECT_NEAR(metric(result, "gpu_hours"), 100.0 / 3600, 1e-9);
  EXPECT_EQ(metric(result, "failed_gpu_hours"), 0);
  const double parts = metric(result, "mean_ttr_queueing_s") + metric(result, "mean_ttr_binding_s") +
                       metric(result, "mean_ttr_admission_retries_s") + metric(result, "mean_ttr_start_s");
  EXPECT_DOUBLE_EQ(parts, metric(result, "mean_time_to_running_s"));
}

// Allocation over the makespan never passes 100 %, even with GPUs held long after the last pod.
TEST(K8sReview, AllocationStaysWithinTheMakespan) {
  K8sScenario s;
  s.node("k16", 2);
  s.kube.default_model = DevicePluginModel::kAccelerators16;
  s.kube.gpu_free_delay = s_(1'000'000);
  s.pod("a", 2, 0, 100);
  const auto result = s.run();
  EXPECT_DOUBLE_EQ(metric(result, "mean_gpu_allocation_pct"), 100);
}

// A bind in flight (5 s) when its node is removed (2 s): the pod ends NodeRemoved at 5 s, is
// recreated at 15 s and runs on n2 from 20 s.
TEST(K8sReview, BindInFlightToARemovedNode) {
  K8sScenario s;
  s.node("n1", 2);
  s.node("n2", 2);
  s.kube.bind_latency = s_(5);
  s.kube.node_events.push_back({s_(2), 0, NodeEventKind::kRemove});
  s.pod("a", 1, 0, 100);
  const auto result = s.run();
  EXPECT_EQ(record(result, 0).node, 1);
  EXPECT_EQ(seconds(record(result, 0).start_us), 20);
  EXPECT_EQ(record(result, 0).attempts, 2U);
  // One GPU of four for 100 s of the 120 s makespan.
  EXPECT_NEAR(metric(result, "mean_gpu_allocation_pct"), 100.0 / 120 / 4 * 100, 1e-6);
}

// A node joining with GPU Operator delays registers without GPUs at once: no pod is bound to it
// on its full capacity. b waits for n2's GPUs (5 + 60 s, published at the 70 s tick).
TEST(K8sReview, JoiningNodeWaitsForTheGpuOperator) {
  K8sScenario s;
  s.node("n1", 1);
  s.node("n2", 1);
  s.kube.default_model = DevicePluginModel::kDevicePlugin;
  s.kube.operator_driver = s_(60);
  s.kube.node_events.push_back({s_(5), 1, NodeEventKind::kJoin});
  s.pod("a", 1, 0, 1000);
  s.pod("b", 1, 6, 100);
  const auto result = s.run();
  EXPECT_EQ(metric(result, "admission_failures"), 0);
  EXPECT_EQ(seconds(record(result, 0).start_us), 60);
  EXPECT_EQ(seconds(record(result, 1).start_us), 70);
}

// A node lost at 100 s and removed at 120 s: the work lost ends at the loss (100 GPU-seconds).
TEST(K8sReview, LostThenRemovedCountsWorkToTheLoss) {
  K8sScenario s;
  s.node("n1", 1);
  s.node("n2", 1);
  s.kube.node_events.push_back({s_(100), 0, NodeEventKind::kLost});
  s.kube.node_events.push_back({s_(120), 0, NodeEventKind::kRemove});
  s.pod("a", 1, 0, 1000);
  const auto result = s.run();
  EXPECT_NEAR(metric(result, "gpu_hours_lost_to_node_failures"), 100.0 / 3600, 1e-9);
  EXPECT_EQ(record(result, 0).node, 1);
}

// backoffLimit counts a Job's failures together. Limit 1; the plugin is down 1..31 s while the
// status (60 s) still shows 2 GPUs. Both pods are refused at 5 s: the Job's first failure gets a
// replacement for train-0 due at 15 s, the second (train-1) passes the limit (2 > 1) and the Job
// fails with BackoffLimitExceeded: the replacement is never created. Counted per row instead, each
// pod would get a replacement: 4 refusals, 2 replacements.
TEST(K8sReview, BackoffLimitIsPerJob) {
  K8sScenario s;
  s.node("n1", 2);
  s.kube.default_model = DevicePluginModel::kDevicePlugin;
  s.kube.node_status_period = s_(60);
  s.kube.backoff_limit = 1;
  s.kube.plugin_restarts.push_back({s_(1), 0, s_(30)});
  s.workload.jobs.push_back(job("train", 2, 2));
  auto constraints = std::make_shared<cluster::PodConstraints>();
  constraints->job = 0;
  s.pod("train-0", 1, 5, 100).constraints = constraints;
  s.pod("train-1", 1, 5, 100).constraints = constraints;
  const auto result = s.run();
  EXPECT_EQ(metric(result, "admission_failures"), 2);
  EXPECT_EQ(metric(result, "pods_recreated"), 0);
  EXPECT_EQ(metric(result, "pods_given_up"), 1);
  EXPECT_EQ(metric(result, "jobs_failed_backoff_limit"), 1);
}

}  // namespace
}  // namespace gpusim::testing
