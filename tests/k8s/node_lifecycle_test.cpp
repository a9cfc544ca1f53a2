// Node lifecycle: nodes lost, recovered, removed and joining late, the taint manager's evictions,
// and the GPU Operator's readiness delays; outcomes worked out by hand in the comments.
#include <gtest/gtest.h>

#include "tests/k8s/k8s_harness.hpp"

namespace gpusim::testing {
namespace {

using experiment::PodOutcome;
using k8s::NodeEventKind;

// n0 crashes at 100 s with A (0..1000 s) on it. B arrives at 120 s and binpack sends it to n0 too:
// nothing says the node is gone until the grace period ends (150 s), when it is tainted
// unreachable. Both pods are evicted 300 s later (450 s), recreated after 10 s and run on n1.
TEST(K8sNodeLifecycle, LostNodeIsTaintedAndItsPodsEvicted) {
  K8sScenario s;
  s.node("n0", 2);
  s.node("n1", 2);
  s.kube.default_model = k8s::DevicePluginModel::kDevicePlugin;
  s.kube.node_events.push_back({s_(100), 0, NodeEventKind::kLost});
  s.pod("a", 1, 0, 1000);
  s.pod("b", 1, 120, 1000);
  const auto result = s.run();
  EXPECT_EQ(metric(result, "pods_evicted"), 2);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(record(result, i).node, 1) << i;
    EXPECT_EQ(seconds(record(result, i).start_us), 460) << i;
    EXPECT_EQ(seconds(record(result, i).end_us), 1460) << i;
  }
  // A's 100 s of work on one GPU died with the node.
  EXPECT_NEAR(metric(result, "gpu_hours_lost_to_node_failures"), 100.0 / 3600, 1e-9);
}

// A pod that tolerates node.kubernetes.io/unreachable for 60 s is evicted at 150 + 60 s.
TEST(K8sNodeLifecycle, TolerationSecondsShortenTheWait) {
  K8sScenario s;
  s.node("n0", 2);
  s.node("n1", 2);
  s.kube.node_events.push_back({s_(100), 0, NodeEventKind::kLost});
  auto constraints = std::make_shared<cluster::PodConstraints>();
  constraints->tolerations.push_back({"node.kubernetes.io/unreachable", true, "", "NoExecute", 60});
  s.pod("a", 1, 0, 1000).constraints = constraints;
  const auto result = s.run();
  EXPECT_EQ(seconds(record(result, 0).start_us), 220);  // evicted at 210, recreated 10 s later
  EXPECT_EQ(record(result, 0).node, 1);
}

// Back before the eviction: the kubelet reports A failed at 200 s; its replacement (210 s) runs
// on n0 again, the taint being gone.
TEST(K8sNodeLifecycle, RecoveredNodeReportsItsPodsFailed) {
  K8sScenario s;
  s.node("n0", 2);
  s.kube.node_events.push_back({s_(100), 0, NodeEventKind::kLost});
  s.kube.node_events.push_back({s_(200), 0, NodeEventKind::kRecovered});
  s.pod("a", 1, 0, 1000);
  const auto result = s.run();
  EXPECT_EQ(metric(result, "pods_evicted"), 0);
  EXPECT_EQ(metric(result, "pods_lost_to_node_failures"), 1);
  EXPECT_EQ(seconds(record(result, 0).start_us), 210);
  EXPECT_EQ(seconds(record(result, 0).end_us), 1210);
}

// A removed node's pods get the 30 s termination grace period: A ends at 130 s (its work lost
// from 100 s), is recreated 10 s later and runs on the other node. B, which finishes its work
// within the grace period (at 110 s), completes normally.
TEST(K8sNodeLifecycle, RemovedNodeEndsItsPodsAfterTheGracePeriod) {
  K8sScenario s;
  s.node("n0", 2);
  s.node("n1", 2);
  s.kube.node_events.push_back({s_(100), 0, NodeEventKind::kRemove});
  s.pod("a", 1, 0, 1000);
  s.pod("b", 1, 0, 110);
  const auto result = s.run();
  EXPECT_EQ(record(result, 0).node, 1);
  EXPECT_EQ(seconds(record(result, 0).start_us), 140);
  EXPECT_NEAR(metric(result, "gpu_hours_lost_to_node_failures"), 100.0 / 3600, 1e-9);
  EXPECT_EQ(record(result, 1).outcome, PodOutcome::kCompleted);
  EXPECT_EQ(record(result, 1).node, 0);
  EXPECT_EQ(seconds(record(result, 1).end_us), 110);
}

TEST(K8sNodeLifecycle, RemovedNodeWithoutGracePeriod) {
  K8sScenario s;
  s.node("n0", 2);
  s.node("n1", 2);
  s.kube.termination_grace_period = core::Time::zero();
  s.kube.node_events.push_back({s_(100), 0, NodeEventKind::kRemove});
  s.pod("a", 1, 0, 1000);
  const auto result = s.run();
  EXPECT_EQ(record(result, 0).node, 1);
  EXPECT_EQ(seconds(record(result, 0).start_us), 110);
}

// n1 joins at 500 s; A asks 2 GPUs, which only n1 has: it starts at 500 s.
TEST(K8sNodeLifecycle, LateJoiningNode) {
  K8sScenario s;
  s.node("n0", 1);
  s.node("n1", 2);
  s.kube.node_events.push_back({s_(500), 1, NodeEventKind::kJoin});
  s.pod("a", 2, 0, 100);
  const auto result = s.run();
  EXPECT_EQ(record(result, 0).node, 1);
  EXPECT_EQ(seconds(record(result, 0).start_us), 500);
}

// GPU Operator: driver 60 s, toolkit 30 s, device plugin 10 s, feature discovery 20 s: the GPUs
// are advertised at 120 s (a tick of the 10 s status period) and A starts then.
TEST(K8sNodeLifecycle, GpuOperatorReadiness) {
  K8sScenario s;
  s.node("n0", 2);
  s.kube.operator_driver = s_(60);
  s.kube.operator_toolkit = s_(30);
  s.kube.operator_device_plugin = s_(10);
  s.kube.operator_feature_discovery = s_(20);
  s.pod("a", 1, 0, 100);
  s.pod("cpu", 0, 0, 100);  // CPU pods do not wait for the GPUs
  const auto result = s.run();
  EXPECT_EQ(seconds(record(result, 0).start_us), 120);
  EXPECT_EQ(seconds(record(result, 1).start_us), 0);
  EXPECT_EQ(metric(result, "admission_failures"), 0);
}

}  // namespace
}  // namespace gpusim::testing
