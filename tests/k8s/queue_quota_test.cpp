// Queue quotas in the style of Volcano's capacity and proportion plugins (sim/k8s/queue_quotas.hpp):
// borrowing idle GPUs, reclaiming them for a queue within its deserved GPUs, capability and
// guarantee limits, deserved GPUs from weights. Schedules are worked out by hand (times in seconds).
// Defaults that matter: checkpoints every 600 s of run time; a reclaimed pod's owner recreates it
// after the 10 s base backoff and it resumes from its last checkpoint; best fit, node-index ties.
#include <gtest/gtest.h>

#include "tests/k8s/k8s_harness.hpp"

namespace gpusim::testing {
namespace {

constexpr double kUs = 2e-6;

k8s::QueueQuota deserved(double gpus) {
  k8s::QueueQuota q;
  q.deserved_milli = static_cast<std::int64_t>(gpus * 1000);
  return q;
}

// Four 1-GPU nodes, queues a and b, each deserving 2 GPUs. a1..a4 (1000 s) at 0; b1, b2, b3
// (100 s) at 700, 710 and 720.
K8sScenario borrowed_gpus() {
  K8sScenario s;
  s.policy = "capacity";
  for (int n = 0; n < 4; ++n) s.node("n" + std::to_string(n), 1);
  s.workload.queues = {"a", "b"};
  s.kube.queue_quotas.queues = {deserved(2), deserved(2)};
  for (int i = 1; i <= 4; ++i) s.pod("a" + std::to_string(i), 1, 0, 1000).queue = 0;
  for (int i = 1; i <= 3; ++i) s.pod("b" + std::to_string(i), 1, 690 + 10 * i, 100).queue = 1;
  return s;
}

TEST(QueueQuotas, AQueueBorrowsIdleGpusAndGivesThemBackToTheirOwner) {
  // 0: b asks nothing, so a borrows all four GPUs (a1..a4 on n0..n3). 700: b1 fits nowhere; b holds
  // 0 of its 2, a holds 4 of its 2, so b reclaims: every a pod would lose 100 s (since its
  // checkpoint at 600); the lowest node's, a1, goes and b1 takes n0, 700-800. 710: b2 reclaims a2
  // (n1, 110 s lost), 710-810; a1's owner recreates it (400 s left). 720: a and b both hold their
  // 2: b3 may not reclaim (b would hold 3), a may not either. 800: b (1 of 2) goes before a (2 of
  // 2): b3 takes n0, 800-900. 810: a1 resumes on n1, 810-1210. 900: a2 on n0, 900-1300.
  const auto result = borrowed_gpus().run();
  EXPECT_EQ(seconds(record(result, 0).first_start_us), 0);
  EXPECT_EQ(seconds(record(result, 0).start_us), 810);
  EXPECT_NEAR(seconds(record(result, 0).end_us), 1210, kUs);
  EXPECT_EQ(record(result, 0).attempts, 2u);
  EXPECT_EQ(seconds(record(result, 1).start_us), 900);
  EXPECT_NEAR(seconds(record(result, 1).end_us), 1300, kUs);
  EXPECT_EQ(seconds(record(result, 2).end_us), 1000);  // a3 and a4 keep running: a holds its 2
  EXPECT_EQ(record(result, 2).attempts, 1u);
  EXPECT_EQ(seconds(record(result, 3).end_us), 1000);
  EXPECT_EQ(seconds(record(result, 4).start_us), 700);
  EXPECT_EQ(record(result, 4).node, 0);
  EXPECT_EQ(seconds(record(result, 5).start_us), 710);
  EXPECT_EQ(record(result, 5).node, 1);
  EXPECT_EQ(seconds(record(result, 6).start_us), 800);
  EXPECT_EQ(metric(result, "reclaim_evictions"), 2);
  EXPECT_EQ(metric(result, "preemptions"), 2);
  EXPECT_NEAR(metric(result, "gpu_hours_lost_to_preemption"), (100 + 110) / 3600.0, 1e-12);
}

TEST(QueueQuotas, TheReclaimingJobGetsTheGpusItFreed) {
  // Eleven 1-GPU nodes; r deserves 10, v 1.5. r1..r9 (1000 s) at 0 take n0..n8; v1..v5 (1000 s) at
  // 1: v1 and v2 borrow n9 and n10, the rest wait. r10 at 100 reclaims: v holds 2 > 1.5, so v1
  // (n9, the lower node of two equal losses) goes. r10 is nominated for n9 and starts there at 100:
  // v, now at 1 of 1.5, does not take it back (its next pod would put it at 2 again and be
  // reclaimed in turn). One eviction; v1's owner recreates it, and it waits with v3..v5.
  K8sScenario s;
  s.policy = "capacity";
  for (int n = 0; n < 11; ++n) s.node("n" + std::to_string(n), 1);
  s.workload.queues = {"r", "v"};
  s.kube.queue_quotas.queues = {deserved(10), deserved(1.5)};
  for (int i = 1; i <= 9; ++i) s.pod("r" + std::to_string(i), 1, 0, 1000).queue = 0;
  for (int i = 1; i <= 5; ++i) s.pod("v" + std::to_string(i), 1, 1, 1000).queue = 1;
  s.pod("r10", 1, 100, 1000).queue = 0;
  const auto result = s.run();
  EXPECT_EQ(seconds(record(result, 14).start_us), 100);
  EXPECT_EQ(record(result, 14).node, 9);
  EXPECT_EQ(record(result, 9).attempts, 2u);  // v1, evicted once
  EXPECT_EQ(seconds(record(result, 10).start_us), 1);  // v2 keeps n10
  EXPECT_EQ(metric(result, "reclaim_evictions"), 1);
}

TEST(QueueQuotas, ANonReclaimableQueueKeepsWhatItBorrowed) {
  // As above, but a is not reclaimable: b1, b2 and b3 wait for a's pods to end at 1000.
  K8sScenario s = borrowed_gpus();
  s.kube.queue_quotas.queues[0].reclaimable = false;
  const auto result = s.run();
  for (std::size_t row = 4; row <= 6; ++row) EXPECT_EQ(seconds(record(result, row).start_us), 1000) << row;
  EXPECT_EQ(metric(result, "reclaim_evictions"), 0);
  EXPECT_EQ(metric(result, "preemptions"), 0);
}

TEST(QueueQuotas, CapabilityCapsAQueueEvenOnAnIdleCluster) {
  // Four GPUs, one queue capped at 2 (proportion, weight 1): a1 and a2 run 0-100 while two GPUs
  // stay idle; a3 waits for them, 100-200.
  K8sScenario s;
  s.policy = "proportion";
  for (int n = 0; n < 4; ++n) s.node("n" + std::to_string(n), 1);
  s.workload.queues = {"a"};
  k8s::QueueQuota capped;
  capped.capability_milli = 2000;
  s.kube.queue_quotas.queues = {capped};
  for (int i = 1; i <= 3; ++i) s.pod("a" + std::to_string(i), 1, 0, 100);
  const auto result = s.run();
  EXPECT_EQ(seconds(record(result, 0).start_us), 0);
  EXPECT_EQ(seconds(record(result, 1).start_us), 0);
  EXPECT_EQ(seconds(record(result, 2).start_us), 100);
  EXPECT_EQ(metric(result, "reclaim_evictions"), 0);
}

TEST(QueueQuotas, AGuaranteeIsKeptFreeForItsQueue) {
  // Four GPUs; b is guaranteed 2, so a may hold at most 4 - 2 = 2 although b is idle: a1 and a2
  // run 0-100, a3 and a4 100-200. b1 at 10 starts at once on a guaranteed GPU, 10-110.
  K8sScenario s;
  s.policy = "capacity";
  for (int n = 0; n < 4; ++n) s.node("n" + std::to_string(n), 1);
  s.workload.queues = {"a", "b"};
  k8s::QueueQuota guaranteed = deserved(2);
  guaranteed.guarantee_milli = 2000;
  s.kube.queue_quotas.queues = {deserved(2), guaranteed};
  for (int i = 1; i <= 4; ++i) s.pod("a" + std::to_string(i), 1, 0, 100).queue = 0;
  s.pod("b1", 1, 10, 100).queue = 1;
  const auto result = s.run();
  EXPECT_EQ(seconds(record(result, 0).start_us), 0);
  EXPECT_EQ(seconds(record(result, 1).start_us), 0);
  EXPECT_EQ(seconds(record(result, 2).start_us), 100);
  EXPECT_EQ(seconds(record(result, 3).start_us), 100);
  EXPECT_EQ(seconds(record(result, 4).start_us), 10);
  EXPECT_EQ(metric(result, "reclaim_evictions"), 0);
}

TEST(QueueQuotas, ProportionSharesByWeightAmongTheQueuesThatAsk) {
  // Four GPUs; weights a 1, b 3. a1..a4 (1000 s) at 0: only a asks, so it deserves all four and
  // takes them. b1..b3 (100 s) at 50: a asks 4 and b 3; water-filling gives a 4 x 1/4 = 1 and b
  // min(4 x 3/4, 3) = 3. b reclaims one GPU per cycle, all at 50: a1 (n0), a2 (n1), a3 (n2), each
  // losing 50 s (no checkpoint yet), and b1..b3 run 50-150 there. a4 keeps its GPU (a holds its
  // deserved 1). The owners recreate a1..a3 at 60; they restart from scratch at 150, 150-1150.
  K8sScenario s;
  s.policy = "proportion";
  for (int n = 0; n < 4; ++n) s.node("n" + std::to_string(n), 1);
  s.workload.queues = {"a", "b"};
  k8s::QueueQuota heavy;
  heavy.weight = 3;
  s.kube.queue_quotas.queues = {k8s::QueueQuota{}, heavy};
  for (int i = 1; i <= 4; ++i) s.pod("a" + std::to_string(i), 1, 0, 1000).queue = 0;
  for (int i = 1; i <= 3; ++i) s.pod("b" + std::to_string(i), 1, 50, 100).queue = 1;
  const auto result = s.run();
  for (std::size_t row = 0; row < 3; ++row) {
    EXPECT_EQ(seconds(record(result, row).start_us), 150) << row;
    EXPECT_NEAR(seconds(record(result, row).end_us), 1150, kUs) << row;
    EXPECT_EQ(record(result, row).node, static_cast<int>(row)) << row;
  }
  EXPECT_EQ(seconds(record(result, 3).start_us), 0);
  EXPECT_EQ(seconds(record(result, 3).end_us), 1000);
  for (std::size_t row = 4; row < 7; ++row) {
    EXPECT_EQ(seconds(record(result, row).start_us), 50) << row;
    EXPECT_EQ(record(result, row).node, static_cast<int>(row - 4)) << row;
  }
  EXPECT_EQ(metric(result, "reclaim_evictions"), 3);
  EXPECT_NEAR(metric(result, "gpu_hours_lost_to_preemption"), 3 * 50 / 3600.0, 1e-12);
}

TEST(QueueQuotas, TheLeastServedQueueGoesFirst) {
  // One 2-GPU node, capacity: a deserves 1, b 1, c 2. x (c, 2 GPUs, 10 s) at 0 holds both, within c's
  // deserved GPUs, so nobody may reclaim them. a1, a2 at 1 and b1, b2 at 2 (1 GPU, 100 s). At 10
  // every queue holds 0: a (lower index) takes a1, then holds 1 of 1 while b holds 0 of 1, so b1
  // goes next; at 110 a2 and b2 the same way. FIFO would run a1 and a2 first.
  K8sScenario s;
  s.policy = "capacity";
  s.node("n0", 2);
  s.workload.queues = {"a", "b", "c"};
  s.kube.queue_quotas.queues = {deserved(1), deserved(1), deserved(2)};
  s.pod("x", 2, 0, 10).queue = 2;
  s.pod("a1", 1, 1, 100).queue = 0;
  s.pod("a2", 1, 1, 100).queue = 0;
  s.pod("b1", 1, 2, 100).queue = 1;
  s.pod("b2", 1, 2, 100).queue = 1;
  const auto result = s.run();
  EXPECT_EQ(seconds(record(result, 1).start_us), 10);
  EXPECT_EQ(seconds(record(result, 3).start_us), 10);
  EXPECT_EQ(seconds(record(result, 2).start_us), 110);
  EXPECT_EQ(seconds(record(result, 4).start_us), 110);
  EXPECT_EQ(metric(result, "reclaim_evictions"), 0);
}

}  // namespace
}  // namespace gpusim::testing
