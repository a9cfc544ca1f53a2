// Why replay pods never ran (sim/k8s/scheduler_diagnosis.cpp), on gangs: a worker larger than any
// node gets kube-scheduler's FitError; a worker that fits a node alone, but whose gang asks more
// GPUs than the nodes that could hold its workers have, says so instead of a FitError it did not
// have.
#include <gtest/gtest.h>

#include <sstream>

#include "tests/k8s/k8s_harness.hpp"
#include "traces/philly_reader.hpp"

namespace gpusim::testing {
namespace {

// Two nodes of 4 GPUs. Philly's reader splits a 12-GPU job into workers of 8 and 4 GPUs (8 per
// node in its cluster): the first fits no node, the second fits one, and the gang's 12 GPUs are
// more than the 8 of the nodes its workers could use. A 2-GPU job runs.
K8sScenario too_large_gang() {
  K8sScenario s;
  s.policy = "fifo";
  s.node("n0", 4);
  s.node("n1", 4);
  std::istringstream log(
      "timestamp,duration,num_gpus,gpu_time,cluster\n"
      "2017-10-01 00:00:00,100.0,12,1200.0,vc-a\n"
      "2017-10-01 00:00:01,10.0,2,20.0,vc-a\n");
  s.workload = traces::read_philly_jobs(log, "gang.csv", 8);
  return s;
}

TEST(NeverRanReplay, AGangLargerThanTheClusterSaysSoWorkerByWorker) {
  const auto result = too_large_gang().run();
  ASSERT_EQ(result.pods.size(), 3u);  // the gang's two workers, the small job
  EXPECT_EQ(record(result, 0).outcome, experiment::PodOutcome::kUnschedulable);
  EXPECT_EQ(record(result, 0).reason, "0/2 nodes are available: 2 Insufficient nvidia.com/gpu.");
  EXPECT_EQ(record(result, 1).outcome, experiment::PodOutcome::kUnschedulable);
  EXPECT_EQ(record(result, 1).reason, "its gang asks more GPUs than all the nodes that could hold its workers have");
  EXPECT_EQ(record(result, 2).outcome, experiment::PodOutcome::kCompleted);
  EXPECT_EQ(record(result, 2).reason, "");
  // The run's tally: one pod per reason, under its causes.
  ASSERT_EQ(result.never_ran.size(), 2u);
  EXPECT_EQ(result.never_ran[0].reason, "0/2 nodes are available: 2 Insufficient nvidia.com/gpu.");
  EXPECT_EQ(result.never_ran[0].causes, std::vector<std::string>{"Insufficient nvidia.com/gpu"});
  EXPECT_EQ(result.never_ran[1].causes, std::vector<std::string>{"gang larger than the cluster"});
  EXPECT_EQ(result.never_ran[1].pods, 1);
}

}  // namespace
}  // namespace gpusim::testing
