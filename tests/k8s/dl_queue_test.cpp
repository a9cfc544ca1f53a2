// Deep-learning queue policies on the replay engine: strict FIFO (head-of-line blocking), shortest
// job first (oracle run times, skipping what does not fit), EASY backfilling, and gang admission for jobs spanning
// nodes (all workers placed at once or none). Every schedule is worked out by hand in the comments
// (times in seconds; GPUs are freed the instant a pod ends).
#include <gtest/gtest.h>

#include <sstream>

#include "sim/core/status.hpp"
#include "tests/k8s/k8s_harness.hpp"
#include "traces/philly_reader.hpp"

namespace gpusim::testing {
namespace {

// One 4-GPU node. A (2 GPUs, 100 s) at 0, B (4 GPUs, 100 s) at 1, C (1 GPU, 10 s) at 2.
K8sScenario head_of_line(const std::string& policy) {
  K8sScenario s;
  s.policy = policy;
  s.node("n0", 4);
  s.pod("a", 2, 0, 100);
  s.pod("b", 4, 1, 100);
  s.pod("c", 1, 2, 10);
  return s;
}

TEST(DlQueue, FifoBlocksBehindTheHeadOfTheQueue) {
  // B waits for all 4 GPUs until A ends at 100; C, queued behind B, may not pass it although a GPU
  // is free from 2 on: it starts when B ends.
  const auto result = head_of_line("fifo").run();
  EXPECT_EQ(seconds(record(result, 0).start_us), 0);
  EXPECT_EQ(seconds(record(result, 1).start_us), 100);
  EXPECT_EQ(seconds(record(result, 2).start_us), 200);
  EXPECT_EQ(seconds(record(result, 2).end_us), 210);
}

TEST(DlQueue, SjfAndKubernetesLetASmallJobPassOneThatDoesNotFit) {
  // C is the shortest and fits beside A at once; B starts when A ends.
  for (const char* policy : {"sjf", "kube-default"}) {
    const auto result = head_of_line(policy).run();
    EXPECT_EQ(seconds(record(result, 2).start_us), 2) << policy;
    EXPECT_EQ(seconds(record(result, 2).end_us), 12) << policy;
    EXPECT_EQ(seconds(record(result, 1).start_us), 100) << policy;
  }
}

TEST(DlQueue, SjfRunsTheShortestWaitingJobFirst) {
  // One GPU. A (100 s) at 0, B (50 s) at 1, C (20 s) at 2. When A ends, C is the shortest waiting.
  for (const char* policy : {"sjf", "fifo"}) {
    K8sScenario s;
    s.policy = policy;
    s.node("n0", 1);
    s.pod("a", 1, 0, 100);
    s.pod("b", 1, 1, 50);
    s.pod("c", 1, 2, 20);
    const auto result = s.run();
    const bool sjf = std::string(policy) == "sjf";
    EXPECT_EQ(seconds(record(result, 1).start_us), sjf ? 120 : 100) << policy;
    EXPECT_EQ(seconds(record(result, 2).start_us), sjf ? 100 : 150) << policy;
  }
}

// Two 8-GPU nodes; jobs from a Philly log (time stamps one second apart):
//   x: 4 GPUs, 100 s at 0 -- one pod;
//   g: 16 GPUs, 50 s at 1 -- a gang of two 8-GPU workers;
//   y: 4 GPUs, 10 s at 2;
//   z: 8 GPUs, 5 s at 3.
K8sScenario gang_scenario(const std::string& policy) {
  K8sScenario s;
  s.policy = policy;
  s.node("n0", 8);
  s.node("n1", 8);
  std::istringstream log(
      "timestamp,duration,num_gpus,gpu_time,cluster\n"
      "2017-10-01 00:00:00,100.0,4,400.0,vc-a\n"
      "2017-10-01 00:00:01,50.0,16,800.0,vc-b\n"
      "2017-10-01 00:00:02,10.0,4,40.0,vc-a\n"
      "2017-10-01 00:00:03,5.0,8,40.0,vc-b\n");
  s.workload = traces::read_philly_jobs(log, "gang.csv", 8);
  return s;
}

TEST(DlQueue, GangStartsAllItsWorkersTogetherUnderFifo) {
  // x takes 4 GPUs of n0. At 1, g's first worker fits n1 but the second fits nowhere: both stay
  // pending (n1 is handed back). y and z queue behind g. At 100 x ends: g's workers take n0 and n1
  // together, 100-150. At 150 y and z start: y on n0 (both nodes empty: the lower index), z on n1.
  const auto result = gang_scenario("fifo").run();
  ASSERT_EQ(result.pods.size(), 5u);  // x, g-w000, g-w001, y, z
  EXPECT_EQ(seconds(record(result, 1).start_us), 100);
  EXPECT_EQ(seconds(record(result, 2).start_us), 100);
  EXPECT_NE(record(result, 1).node, record(result, 2).node);
  EXPECT_EQ(seconds(record(result, 3).start_us), 150);
  EXPECT_EQ(seconds(record(result, 4).start_us), 150);
  EXPECT_EQ(metric(result, "jobs"), 4);
  EXPECT_EQ(metric(result, "completed_jobs"), 4);
  // g's JCT is 150 - 1 = 149 s, counted once although it has two pods.
  const auto& g = result.jobs.at(1);
  EXPECT_EQ(g.pods, 2);
  EXPECT_EQ(g.gpus, 16);
  EXPECT_EQ(seconds(g.end_us - g.arrival_us), 149);
}

TEST(DlQueue, AFailedGangLeavesNoWorkerHoldingGpus) {
  // Under SJF, z (5 s) arriving at 3 finds n1 whole: g's first worker did not keep it when g
  // failed at 1. y (10 s) fits beside x on n0 at 2. g starts when x ends at 100.
  const auto result = gang_scenario("sjf").run();
  EXPECT_EQ(seconds(record(result, 3).start_us), 2);   // y
  EXPECT_EQ(seconds(record(result, 4).start_us), 3);   // z
  EXPECT_EQ(record(result, 4).node, 1);
  EXPECT_EQ(seconds(record(result, 1).start_us), 100);  // g, both workers
  EXPECT_EQ(seconds(record(result, 2).start_us), 100);
  // Job metrics: JCTs 100, 149, 10, 5 (queueing 0, 99, 0, 0).
  EXPECT_DOUBLE_EQ(metric(result, "job_mean_jct_s"), (100.0 + 149 + 10 + 5) / 4);
  EXPECT_DOUBLE_EQ(metric(result, "job_mean_queueing_s"), 99.0 / 4);
  EXPECT_DOUBLE_EQ(metric(result, "job_p99_jct_s"), 149);
  ASSERT_EQ(result.queues.size(), 2u);
  EXPECT_EQ(result.queues[0].name, "vc-a");
  EXPECT_EQ(result.queues[0].jobs, 2);
  EXPECT_DOUBLE_EQ(result.queues[1].mean_jct_s, (149.0 + 5) / 2);
  // Slowdowns: vc-a (1 + 1) / 2 = 1, vc-b (149/50 + 1) / 2 = 1.99; Jain = (2.99)^2 / (2 (1 + 1.99^2)).
  EXPECT_NEAR(metric(result, "queue_slowdown_jain"), 2.99 * 2.99 / (2 * (1 + 1.99 * 1.99)), 1e-9);
}

TEST(DlQueue, BackfillStartsAShortJobThatEndsBeforeTheReservation) {
  // The head-of-line scenario: B (4 GPUs) waits for A to end at 100, its reservation. C (1 GPU,
  // 10 s) ends at 12, before 100, so it starts at once; FIFO made it wait until 200.
  const auto result = head_of_line("backfill").run();
  EXPECT_EQ(seconds(record(result, 1).start_us), 100);
  EXPECT_EQ(seconds(record(result, 2).start_us), 2);
}

TEST(DlQueue, BackfillKeepsTheReservedNodeFromJobsThatWouldDelayTheHead) {
  // n0 has 4 GPUs, n1 has 2. A (3 GPUs, 100 s) at 0 fits only n0. B (4 GPUs, 100 s) at 1 fits
  // only n0: reservation n0 at 100. C, D, E (1 GPU, 500 s each) at 2, 3, 4 would still run at 100,
  // so n0 is withheld from them: C and D start on n1 at once (best fit alone would have put C on
  // n0's last GPU), E waits although n0 has a free GPU, and B starts at 100 as reserved. E starts
  // when B ends (200).
  K8sScenario s;
  s.policy = "backfill";
  s.node("n0", 4);
  s.node("n1", 2);
  s.pod("a", 3, 0, 100);
  s.pod("b", 4, 1, 100);
  s.pod("c", 1, 2, 500);
  s.pod("d", 1, 3, 500);
  s.pod("e", 1, 4, 500);
  const auto result = s.run();
  EXPECT_EQ(record(result, 0).node, 0);
  EXPECT_EQ(seconds(record(result, 1).start_us), 100);
  EXPECT_EQ(seconds(record(result, 2).start_us), 2);
  EXPECT_EQ(record(result, 2).node, 1);
  EXPECT_EQ(seconds(record(result, 3).start_us), 3);
  EXPECT_EQ(record(result, 3).node, 1);
  EXPECT_EQ(seconds(record(result, 4).start_us), 200);
}

TEST(DlQueue, BackfillReservesWholeNodesForAGang) {
  // The gang scenario under backfill: g (two 8-GPU workers) is reserved n0 and n1 at 100 (n0 frees
  // when x ends; n1 is free now). y (10 s) ends at 12 and starts at 2 beside x; z (5 s) ends at 8
  // and starts at 3 on n1. Both end before 100, so g still starts at 100.
  const auto result = gang_scenario("backfill").run();
  EXPECT_EQ(seconds(record(result, 3).start_us), 2);
  EXPECT_EQ(seconds(record(result, 4).start_us), 3);
  EXPECT_EQ(seconds(record(result, 1).start_us), 100);
  EXPECT_EQ(seconds(record(result, 2).start_us), 100);
}

TEST(DlQueue, AGangThatLostAWorkerGetsItBackAndBlocksNoOne) {
  // Three 8-GPU nodes. g (16 GPUs, 1000 s) starts at 0 on n0 and n1. GPU 0 of n0 fails at 10 s
  // (XID 79): its worker is lost and its owner recreates it after the Job backoff (10 s), at 20 s;
  // the other worker runs on. The GPU is repaired at 20 s too, and the cycle runs after every change
  // of that instant: the new worker is placed alone, as the gang's missing part, on n0 (n0 and n2
  // are both empty: the lower index). b (1 GPU) at 100 starts at once under strict FIFO: nothing
  // waits forever behind g.
  K8sScenario s;
  s.policy = "fifo";
  for (const char* name : {"n0", "n1", "n2"}) s.node(name, 8);
  std::istringstream log(
      "timestamp,duration,num_gpus,gpu_time,cluster\n"
      "2020-01-01 00:00:00,1000.0,16,16000.0,a\n"
      "2020-01-01 00:01:40,50.0,1,50.0,b\n");
  s.workload = traces::read_philly_jobs(log, "lost.csv", 8);
  s.kube.gpu_failures.push_back({core::Time::from_seconds(10), 0, 0, 79});
  s.kube.gpu_failures.push_back({core::Time::from_seconds(20), 0, 0, 0});
  const auto result = s.run();
  const auto& lost = record(result, 0);  // g's worker on n0
  EXPECT_GT(lost.attempts, 1u);
  EXPECT_EQ(lost.outcome, experiment::PodOutcome::kCompleted);
  EXPECT_EQ(lost.node, 0);
  EXPECT_EQ(seconds(lost.start_us), 20);
  EXPECT_EQ(seconds(lost.end_us), 1020);
  EXPECT_EQ(seconds(record(result, 1).start_us), 0);  // the other worker ran on
  EXPECT_EQ(seconds(record(result, 1).end_us), 1000);
  EXPECT_EQ(seconds(record(result, 2).start_us), 100);
  EXPECT_EQ(metric(result, "completed_jobs"), 2);
}

TEST(DlQueue, AReplacedWorkerRunsAfterItsSiblingsEnded) {
  // Two 8-GPU nodes; g (16 GPUs, 100 s) on both from 0. GPU 0 of n0 fails for good at 10 s: the
  // worker there is lost and recreated at 20 s, but n0 has only 7 healthy GPUs and n1 holds the other
  // worker until 100. When that one ends, the replacement takes n1 (100-200) and the job completes.
  for (const char* policy : {"fifo", "backfill"}) {
    K8sScenario s;
    s.policy = policy;
    s.node("n0", 8);
    s.node("n1", 8);
    std::istringstream log(
        "timestamp,duration,num_gpus,gpu_time,cluster\n"
        "2020-01-01 00:00:00,100.0,16,1600.0,a\n");
    s.workload = traces::read_philly_jobs(log, "siblings.csv", 8);
    s.kube.gpu_failures.push_back({core::Time::from_seconds(10), 0, 0, 79});
    const auto result = s.run();
    EXPECT_EQ(seconds(record(result, 0).start_us), 100) << policy;
    EXPECT_EQ(record(result, 0).node, 1) << policy;
    EXPECT_EQ(metric(result, "completed_jobs"), 1) << policy;
  }
}

TEST(DlQueue, TraceWithoutJobsGetsNoJobMetrics) {
  // openb-like pods (no queues, no gangs): outputs stay as before.
  K8sScenario s;
  s.node("n0", 1);
  s.pod("a", 1, 0, 10);
  const auto result = s.run();
  EXPECT_FALSE(result.metric("jobs").has_value());
  EXPECT_TRUE(result.jobs.empty());
}

// Two GPUs, two queues. x (queue a, 2 GPUs, 10 s) at 0 holds both; a1-a3 (queue a) arrive at 1-3 and
// b1, b2 (queue b) at 4 and 5, each 1 GPU for 100 s.
K8sScenario two_queues(const std::string& policy) {
  K8sScenario s;
  s.policy = policy;
  s.node("n0", 2);
  s.workload.queues = {"a", "b"};
  s.pod("x", 2, 0, 10);
  for (int i = 1; i <= 3; ++i) s.pod("a" + std::to_string(i), 1, i, 100);
  for (int i = 1; i <= 2; ++i) s.pod("b" + std::to_string(i), 1, 3 + i, 100).queue = 1;
  return s;
}

TEST(DlQueue, DrfServesTheQueueWithTheSmallestDominantShare) {
  // At 10 x ends and both queues hold nothing: a (the lower index) gets a1, then holds half the
  // GPUs, so b gets b1. At 110 both end and both queues hold nothing again: a2, then b2. a3 at 210.
  // kube-scheduler's FIFO queue takes a1 and a2 at 10, a3 and b1 at 110, b2 at 210.
  const auto drf = two_queues("drf").run();
  EXPECT_EQ(seconds(record(drf, 1).start_us), 10);   // a1
  EXPECT_EQ(seconds(record(drf, 4).start_us), 10);   // b1
  EXPECT_EQ(seconds(record(drf, 2).start_us), 110);  // a2
  EXPECT_EQ(seconds(record(drf, 5).start_us), 110);  // b2
  EXPECT_EQ(seconds(record(drf, 3).start_us), 210);  // a3
  const auto fifo = two_queues("kube-default").run();
  EXPECT_EQ(seconds(record(fifo, 2).start_us), 10);
  EXPECT_EQ(seconds(record(fifo, 4).start_us), 110);
  EXPECT_EQ(seconds(record(fifo, 5).start_us), 210);
}

TEST(DlQueue, DrfCountsCpuWhenItIsTheDominantResource) {
  // One node with 6 GPUs and 24 CPUs. Queue a's pods ask 1 GPU and 8 CPUs (dominant: CPU, 1/3
  // each), queue b's 1 GPU and 1 CPU (dominant: GPU, 1/6 each). A blocker (queue a, 6 GPUs, 10 s)
  // holds the node until 10. Then, shares in brackets: a1 (a 1/3; a goes first on the tie at 0),
  // b1 (b 1/6), b2 (b 1/3), a2 on the tie (a 2/3), b3 (b 1/2), b4 (b 2/3); the GPUs are gone and a3
  // waits until 110. Counting GPUs alone would have given each queue three.
  K8sScenario s;
  s.policy = "drf";
  s.cluster.nodes.push_back({"n0", 24000, 262144, 6, 0, {}, {}, false});
  s.workload.queues = {"a", "b"};
  s.pod("blocker", 6, 0, 10).cpu_milli = 0;
  for (int i = 1; i <= 3; ++i) s.pod("a" + std::to_string(i), 1, i, 100).cpu_milli = 8000;
  for (int i = 1; i <= 4; ++i) s.pod("b" + std::to_string(i), 1, 3 + i, 100).queue = 1;
  const auto result = s.run();
  for (const std::size_t row : {1, 2, 4, 5, 6, 7}) EXPECT_EQ(seconds(record(result, row).start_us), 10) << row;
  EXPECT_EQ(seconds(record(result, 3).start_us), 110);  // a3
}

}  // namespace
}  // namespace gpusim::testing
