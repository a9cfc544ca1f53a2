// The deep-learning policies through the binary, on small Philly-format logs: which job SRTF
// preempts, and work conserved across a time-sharing policy's rounds. Expected figures are worked
// out in the comments.
#include <gtest/gtest.h>
#include <fmt/format.h>

#include <fstream>

#include "tests/cli/policy_files.hpp"
#include "tests/cli/run_gpusim.hpp"

namespace gpusim::testing {
namespace {

namespace fs = std::filesystem;

class DlPolicies : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fresh_dir(::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::ofstream(dir_ / "nodes.csv") << "sn,cpu_milli,memory_mib,gpu,model\nn0,64000,262144,2,v100-sxm2-16gb\n";
  }
  // A Philly log: jobs of one GPU, (arrival offset s, duration s) each, from 2017-10-01 00:00:00.
  void log(std::initializer_list<std::pair<int, int>> jobs) {
    std::ofstream out(dir_ / "jobs.csv");
    out << "timestamp,duration,num_gpus,gpu_time,cluster\n";
    for (const auto& [at, length] : jobs) {
      out << fmt::format("2017-10-01 {:02}:{:02}:{:02},{}.0,1,{}.0,vc\n", at / 3600, at / 60 % 60, at % 60, length, length);
    }
  }
  std::map<std::string, std::map<std::string, std::string>> run(const std::string& options) {
    const CliResult result =
        run_gpusim(dir_, "run --mode replay --cluster nodes.csv --workload jobs.csv --out out " + options);
    EXPECT_EQ(result.exit_code, 0) << result.err;
    summary_ = slurp(dir_ / "out" / "summary.json");
    return pods_by_name(dir_ / "out" / "pods.csv");
  }
  double metric(const std::string& name) const {
    const std::string key = "\"" + name + "\": {\n        \"mean\": ";
    const auto at = summary_.find(key);
    if (at == std::string::npos) {
      ADD_FAILURE() << name;
      return -1;
    }
    return std::stod(summary_.substr(at + key.size(), 32));
  }
  fs::path dir_;
  std::string summary_;
};

// Issue 28's SRTF example on one 2-GPU node, checkpoints every 600 s: J1 (5000 s) at 0, J2 (1000 s)
// at 50, J3 (50 s) at 700. At 700 J1 has 4300 s left and J2 350 s: J1, the lowest priority, is the
// one victim (700 s run, 600 kept: 100 GPU-s lost). J3 runs 700-750, J1 resumes at 750 with 4400 s
// left, 750-5150; J2 runs 50-1050. Mean JCT (5150 + 1000 + 50) / 3 = 2066.67 s. (Before: J2 went,
// then evicted J1: 2 preemptions, 160 GPU-s lost, 2086.7 s.) Pods are named by their log row.
TEST_F(DlPolicies, SrtfPreemptsTheLowestPriorityJobOnce) {
  log({{0, 5000}, {50, 1000}, {700, 50}});
  auto pods = run("--policy srtf --checkpoint-interval 600");
  EXPECT_EQ(metric("preemptions"), 1);
  EXPECT_NEAR(metric("gpu_hours_lost_to_preemption"), 100.0 / 3600, 1e-6);
  EXPECT_NEAR(metric("mean_jct_s"), 6200.0 / 3, 1e-3);
  ASSERT_EQ(pods.size(), 3U);
  std::vector<std::string> ends;
  for (auto& [name, row] : pods) ends.push_back(row["end_s"]);
  std::sort(ends.begin(), ends.end());
  EXPECT_EQ(ends, (std::vector<std::string>{"1050.000000", "5150.000000", "750.000000"}));
}

// The same with --free-preemption (Tiresias' simulator's setting): J1 keeps its 700 s, resumes at
// 750 with 4300 s left and ends at 5050; nothing is lost. Mean JCT (5050 + 1000 + 50) / 3.
TEST_F(DlPolicies, FreePreemptionKeepsAllWork) {
  log({{0, 5000}, {50, 1000}, {700, 50}});
  auto pods = run("--policy srtf --checkpoint-interval 600 --free-preemption");
  EXPECT_EQ(metric("preemptions"), 1);
  EXPECT_EQ(metric("gpu_hours_lost_to_preemption"), 0);
  EXPECT_NEAR(metric("mean_jct_s"), 6100.0 / 3, 1e-3);
  EXPECT_NE(summary_.find("\"free_preemption\": true"), std::string::npos);
  const CliResult fill = run_gpusim(dir_, "run --mode fill --cluster nodes.csv --workload jobs.csv --out fill --free-preemption");
  EXPECT_NE(fill.exit_code, 0);
  EXPECT_NE(fill.err.find("--free-preemption applies to --mode replay only"), std::string::npos) << fill.err;
}

// Tiresias' simulator's queues by default (3250 and 7200 GPU-s). One GPU; A (5000 s) at 0, B
// (100 s) at 3000. A, with 3000 GPU-s, shares queue 0 with B, so B waits; at 3250 A is demoted and
// B preempts it (A past its first checkpoint; 250 s since its checkpoint at 3000 lost). B runs
// 3250-3350; A, recreated at 3260, resumes at 3350 with 2000 s left: 3350-5350. (With the old
// default, one threshold at 3600, B started at 3600.)
TEST_F(DlPolicies, TiresiasDefaultThresholdsAreItsSimulators) {
  std::ofstream(dir_ / "nodes.csv") << "sn,cpu_milli,memory_mib,gpu,model\nn0,64000,262144,1,v100-sxm2-16gb\n";
  log({{0, 5000}, {3000, 100}});
  auto pods = run("--policy tiresias");
  std::vector<std::string> starts;
  for (auto& [name, row] : pods) starts.push_back(row["start_s"] + "-" + row["end_s"]);
  std::sort(starts.begin(), starts.end());
  EXPECT_EQ(starts, (std::vector<std::string>{"3250.000000-3350.000000", "3350.000000-5350.000000"}));
  EXPECT_NEAR(metric("gpu_hours_lost_to_preemption"), 250.0 / 3600, 1e-6);
  EXPECT_NE(summary_.find("\"tiresias_thresholds_gpu_s\": [\n"), std::string::npos);
}

// Tiresias' order within a queue, on one GPU, one threshold at 100 GPU-s, free preemption: A
// (1000 s) at 0, B (1000 s) at 10. A runs; at 100 s it passes 100 GPU-s and drops to queue 1, and
// B (queue 0) preempts it (A keeps its 100 s). B runs from 100 s and drops to queue 1 at 200 s.
// - creation (FIFO, the default): A and B are both in queue 1, and a job never preempts one of
//   its own queue, so B runs on to 1100 s; A resumes with 900 s left, 1100-2000 s. 1 preemption.
// - simulator: B joins the tail of queue 1 behind A, which waits there, so A preempts B at 200 s
//   and runs its 900 s left, 200-1100 s; after that pass A runs ahead of B, which resumes at
//   1100 s with 900 s left, 1100-2000 s. 2 preemptions. (Tiresias' dlas_sim_jobs gives the same:
//   the pass at 200 s walks queue 1 as [A, B], A takes the GPU and B is preempted.)
TEST_F(DlPolicies, TiresiasQueueOrder) {
  std::ofstream(dir_ / "nodes.csv") << "sn,cpu_milli,memory_mib,gpu,model\nn0,64000,262144,1,v100-sxm2-16gb\n";
  log({{0, 1000}, {10, 1000}});
  // Tiresias with one threshold at 100 GPU-seconds, in each queue order (its plugin args).
  derived_policy(dir_, "tiresias", "tiresias-100", "Tiresias", "{queueThresholdsGpuSeconds: [100]}");
  derived_policy(dir_, "tiresias", "tiresias-100-sim", "Tiresias", "{queueThresholdsGpuSeconds: [100], queueOrder: Simulator}");
  const std::string tiresias = "--free-preemption --policy ";
  auto ends = [](auto& pods) {
    std::vector<std::string> out;
    for (auto& [name, row] : pods) out.push_back(row["end_s"]);
    return out;
  };
  auto creation = run(tiresias + "tiresias-100.yaml");
  EXPECT_EQ(ends(creation), (std::vector<std::string>{"2000.000000", "1100.000000"}));
  EXPECT_EQ(metric("preemptions"), 1);
  EXPECT_NE(summary_.find("\"tiresias_queue_order\": \"creation\""), std::string::npos);
  // The second run replaces the first one's outputs (gpusim rewrites a directory it wrote).
  auto simulator = run(tiresias + "tiresias-100-sim.yaml");
  EXPECT_EQ(ends(simulator), (std::vector<std::string>{"1100.000000", "2000.000000"}));
  EXPECT_EQ(metric("preemptions"), 2);
  EXPECT_NE(summary_.find("\"tiresias_queue_order\": \"simulator\""), std::string::npos);
}

// A gang larger than the cluster (a 24-GPU job on two 8-GPU nodes: 3 workers of 8, each fitting a
// node) is marked unschedulable at arrival, so under strict FIFO the 1-GPU job behind it runs at
// once (before, all waited for ever).
TEST_F(DlPolicies, AGangLargerThanTheClusterBlocksNothing) {
  std::ofstream(dir_ / "nodes.csv") << "sn,cpu_milli,memory_mib,gpu,model\nn0,64000,262144,8,v100-sxm2-16gb\n"
                                       "n1,64000,262144,8,v100-sxm2-16gb\n";
  std::ofstream(dir_ / "jobs.csv") << "timestamp,duration,num_gpus,gpu_time,cluster\n2017-10-01 00:00:00,100.0,24,2400.0,vc\n"
                                      "2017-10-01 00:00:10,100.0,1,100.0,vc\n";
  auto pods = run("--policy fifo");
  ASSERT_EQ(pods.size(), 4U);
  int unschedulable = 0;
  for (auto& [name, row] : pods) {
    if (row["outcome"] == "unschedulable") ++unschedulable;
    else EXPECT_EQ(row["start_s"], "10.000000") << name;
  }
  EXPECT_EQ(unschedulable, 3);
  EXPECT_EQ(metric("unschedulable_pods"), 3);
}

// Issue 28's time-sharing example: maxmin, rounds of 100 s, two 1000 s jobs on one GPU: they take
// turns and end at 1900 and 2000 s exactly (before: 2000.000002 and 2100.000002, a whole extra round
// for 2 us of work left by rounding).
TEST_F(DlPolicies, MaxMinJobsEndOnTheRoundsEdge) {
  std::ofstream(dir_ / "nodes.csv") << "sn,cpu_milli,memory_mib,gpu,model\nn0,64000,262144,1,v100-sxm2-16gb\n";
  log({{0, 1000}, {0, 1000}});
  derived_policy(dir_, "maxmin", "maxmin-100", "Gavel", "{objective: MaxMin, heterogeneityAware: false, roundLengthSeconds: 100}");
  auto pods = run("--policy maxmin-100.yaml");
  std::vector<std::string> ends;
  for (auto& [name, row] : pods) ends.push_back(row["end_s"]);
  std::sort(ends.begin(), ends.end());
  EXPECT_EQ(ends, (std::vector<std::string>{"1900.000000", "2000.000000"}));
}

// On a cluster of one GPU type, heterogeneity-aware max-min is the agnostic one (its objective is
// the agnostic objective over a constant), so gavel-maxmin and maxmin give the same schedule, pod
// for pod. On the first 2,000 jobs of the Philly log at arrivals / 4 they did not: the aware LP was
// solved again and CLP picked another of its optima (1,191 against 1,198 suspensions were reported
// on the whole log).
TEST_F(DlPolicies, GavelMaxMinIsMaxMinOnOneGpuType) {
  copy_head(fs::path(GPUSIM_SOURCE_DIR) / "traces" / "data" / "philly" / "philly.csv", dir_ / "philly.csv", 2000);
  const CliResult result = run_gpusim(dir_, "compare --workload philly.csv --cluster philly --mode replay "
                                            "--time-compression 4 --policies maxmin,gavel-maxmin --seeds 1 --out out");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const std::string maxmin = slurp(dir_ / "out" / "runs" / "maxmin" / "seed-42" / "pods.csv");
  EXPECT_GT(maxmin.size(), 1000U);
  EXPECT_EQ(maxmin, slurp(dir_ / "out" / "runs" / "gavel-maxmin" / "seed-42" / "pods.csv"));
}

}  // namespace
}  // namespace gpusim::testing
