// Consolidated against scattered placement of multi-GPU jobs (traces/job_placement.hpp): a
// scattered job becomes one-GPU workers that start together wherever GPUs are free, and runs slower
// by the stated factor when they land on several nodes. Schedules worked out by hand (seconds).
#include <gtest/gtest.h>

#include "tests/k8s/k8s_harness.hpp"
#include "traces/job_placement.hpp"

namespace gpusim::testing {
namespace {

TEST(JobPlacement, ScatteringSplitsJobsIntoOneGpuWorkersOfOneGang) {
  traces::Workload w;
  w.source = "t";
  cluster::PodSpec a;
  a.name = "a";
  a.gpu_count = 3;
  a.gpu_milli = 1000;
  a.cpu_milli = 1000;  // 334 + 333 + 333
  a.memory_mib = 10;
  w.pods.push_back(a);
  cluster::PodSpec one = a;
  one.name = "one";
  one.gpu_count = 1;
  w.pods.push_back(one);
  // A gang of the trace (two 8-GPU workers, gang 5) stays gang 5, with sixteen workers.
  for (const char* name : {"g-w0", "g-w1"}) {
    cluster::PodSpec g = a;
    g.name = name;
    g.gpu_count = 8;
    g.gang = 5;
    w.pods.push_back(g);
  }
  traces::scatter_jobs(w);
  ASSERT_EQ(w.pods.size(), 3u + 1u + 16u);
  EXPECT_TRUE(w.has_gangs);
  EXPECT_EQ(w.pods[0].name, "a-g0");
  EXPECT_EQ(w.pods[2].name, "a-g2");
  for (int k = 0; k < 3; ++k) {
    EXPECT_EQ(w.pods[k].gpu_count, 1);
    EXPECT_EQ(w.pods[k].gang, 6u);  // a new gang after the trace's largest
    EXPECT_TRUE(w.pods[k].scattered);
  }
  EXPECT_EQ(w.pods[0].cpu_milli, 334);
  EXPECT_EQ(w.pods[1].cpu_milli, 333);
  EXPECT_EQ(w.pods[0].memory_mib + w.pods[1].memory_mib + w.pods[2].memory_mib, 10);
  EXPECT_EQ(w.pods[3].name, "one");  // a one-GPU job is left alone
  EXPECT_EQ(w.pods[3].gang, 0u);
  for (std::size_t k = 4; k < w.pods.size(); ++k) {
    EXPECT_EQ(w.pods[k].gang, 5u);
    EXPECT_FALSE(w.pods[k].scattered);  // it ran spread in the trace already
  }
  EXPECT_EQ(w.pods[4].name, "g-w0-g0");
  EXPECT_EQ(w.pods[19].name, "g-w1-g7");
}

// Two 4-GPU nodes, x0 and x1 (3 GPUs each, 0-100) one on each: one GPU free on each node. j (2
// GPUs, 100 s) arrives at 1; it is split (scattered) before x0 and x1 join the workload, so that
// only j is scattered.
K8sScenario fragmented(bool scattered, double slowdown) {
  K8sScenario s;
  s.policy = "fifo";
  s.node("n0", 4);
  s.node("n1", 4);
  s.pod("j", 2, 1, 100);
  if (scattered) traces::scatter_jobs(s.workload);
  s.pod("x0", 3, 0, 100);
  s.pod("x1", 3, 0, 100);
  s.kube.scatter_slowdown = slowdown;
  return s;
}

TEST(JobPlacement, AConsolidatedJobWaitsForAWholeNode) {
  // x0 takes n0 and x1 n1 at 0 (n0 keeps one GPU, too few for x1). j needs two GPUs of one node:
  // it waits until x0 and x1 end, 100-200.
  const auto result = fragmented(false, 2).run();
  EXPECT_EQ(record(result, 1).node, 0);
  EXPECT_EQ(record(result, 2).node, 1);
  EXPECT_EQ(seconds(record(result, 0).start_us), 100);
  EXPECT_EQ(seconds(record(result, 0).end_us), 200);
}

TEST(JobPlacement, AScatteredJobStartsAtOnceAndPaysTheFactor) {
  // j's two workers take the free GPU of n0 and of n1 at 1: spread over two nodes, they run
  // 100 x 1.5 = 150 s, 1-151.
  const auto result = fragmented(true, 1.5).run();
  ASSERT_EQ(result.pods.size(), 4u);
  for (std::size_t w = 0; w < 2; ++w) {
    EXPECT_EQ(seconds(record(result, w).start_us), 1) << w;
    EXPECT_EQ(seconds(record(result, w).end_us), 151) << w;
  }
  EXPECT_EQ(record(result, 0).node, 0);
  EXPECT_EQ(record(result, 1).node, 1);
  EXPECT_EQ(metric(result, "gang_starts_spread"), 1);
  EXPECT_EQ(metric(result, "gang_starts_on_one_node"), 0);
  // Counted once, as one job of two GPUs.
  EXPECT_EQ(result.jobs.at(0).gpus, 2);
  EXPECT_EQ(seconds(result.jobs.at(0).end_us - result.jobs.at(0).arrival_us), 150);
}

TEST(JobPlacement, AScatteredJobOnOneNodeRunsAtFullSpeed) {
  // On an empty cluster best fit puts all four workers on n0 (each leaves it the fullest): one
  // node, so the factor does not apply, 0-100.
  K8sScenario s;
  s.policy = "fifo";
  s.node("n0", 4);
  s.node("n1", 4);
  s.pod("j", 4, 0, 100);
  traces::scatter_jobs(s.workload);
  s.kube.scatter_slowdown = 3;
  const auto result = s.run();
  for (std::size_t w = 0; w < 4; ++w) {
    EXPECT_EQ(record(result, w).node, 0) << w;
    EXPECT_EQ(seconds(record(result, w).end_us), 100) << w;
  }
  EXPECT_EQ(metric(result, "gang_starts_on_one_node"), 1);
  EXPECT_EQ(metric(result, "gang_starts_spread"), 0);
}

}  // namespace
}  // namespace gpusim::testing
