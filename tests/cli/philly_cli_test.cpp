// The Philly job log through the real binary: the bundled workload runs on its own cluster by
// default, writes the job outputs, and a broken log fails before any output is written.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>

#include "tests/cli/policy_files.hpp"
#include "tests/cli/run_gpusim.hpp"

namespace gpusim::testing {
namespace {

namespace fs = std::filesystem;

TEST(PhillyCli, RunsOnThePhillyLikeClusterByDefault) {
  const auto dir = fresh_dir("philly_default");
  const auto result = run_gpusim(dir, "run --workload philly --mode replay --policy fifo --out out");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto summary = nlohmann::json::parse(slurp(dir / "out" / "summary.json"));
  EXPECT_EQ(summary["inputs"]["cluster"], "philly");
  EXPECT_EQ(summary["inputs"]["workload_skipped_lines"], 1);  // the log's final empty line
  const auto& run = summary["policies"][0]["runs"][0];
  EXPECT_EQ(run["jobs"], 82247);
  EXPECT_EQ(run["completed_jobs"], 82247);
  // At the log's own times nothing waits on 2,490 GPUs.
  EXPECT_EQ(run["job_mean_queueing_s"], 0);
  const std::string jobs = slurp(dir / "out" / "jobs.csv");
  EXPECT_EQ(std::count(jobs.begin(), jobs.end(), '\n'), 82248);
  EXPECT_TRUE(fs::exists(dir / "out" / "queues.csv"));
  EXPECT_NE(result.err.find("289 jobs ask more GPUs than the largest node has (8)"), std::string::npos) << result.err;
}

// Names longer than the string's inline buffer (16 characters and more) must reach pods.csv and
// jobs.csv intact: a formatter once kept a view of a temporary copy and wrote freed memory.
TEST(PhillyCli, LongNodeAndQueueNamesAreWrittenIntact) {
  const auto dir = fresh_dir("philly_long_names");
  const std::string node_name = "rack-0042-with-a-much-longer-node-name";
  const std::string queue_name = "a-long-virtual-cluster-name-for-research";
  {
    std::ofstream cluster(dir / "cluster.csv");
    cluster << "sn,cpu_milli,memory_mib,gpu,model\n"
            << node_name << "-0,0,0,8,p100-pcie-12gb\n"
            << node_name << "-1,0,0,8,p100-pcie-12gb\n";
    std::ofstream log(dir / "jobs.csv");
    log << "timestamp,duration,num_gpus,gpu_time,cluster\n"
        << "2017-10-09 07:01:55,66.0,1,66.0," << queue_name << "\n"
        << "2017-10-09 07:02:00,120.0,4,480.0," << queue_name << "\n";
  }
  const auto result = run_gpusim(dir, "run --workload jobs.csv --cluster cluster.csv --mode replay --policy fifo --out out");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const std::string pods = slurp(dir / "out" / "pods.csv");
  EXPECT_EQ(std::count(pods.begin(), pods.end(), '\0'), 0);
  EXPECT_NE(pods.find("," + node_name + "-0,"), std::string::npos) << pods;
  const std::string jobs = slurp(dir / "out" / "jobs.csv");
  EXPECT_EQ(std::count(jobs.begin(), jobs.end(), '\0'), 0);
  EXPECT_EQ(std::count(jobs.begin(), jobs.end(), ','), 2 * 10 + 10) << jobs;  // header and two rows, 11 fields each
  std::size_t at = 0;
  int found = 0;
  while ((at = jobs.find("," + queue_name + ",", at)) != std::string::npos) {
    ++found;
    ++at;
  }
  EXPECT_EQ(found, 2) << jobs;
}

TEST(PhillyCli, ComparesTheQueuePoliciesUnderTheirNames) {
  const auto dir = fresh_dir("philly_compare");
  const auto result = run_gpusim(dir, "compare --workload philly --mode replay --time-compression 4 "
                                      "--policies fifo,backfill,sjf --seeds 1 --out out");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto summary = nlohmann::json::parse(slurp(dir / "out" / "summary.json"));
  ASSERT_EQ(summary["policies"].size(), 3u);
  EXPECT_EQ(summary["policies"][0]["name"], "fifo");
  EXPECT_EQ(summary["policies"][1]["name"], "backfill");
  EXPECT_EQ(summary["policies"][2]["name"], "sjf");
  // Strict FIFO waits behind large jobs; backfilling and SJF do not as much.
  const double fifo = summary["policies"][0]["job_mean_jct_s"]["mean"];
  const double backfill = summary["policies"][1]["job_mean_jct_s"]["mean"];
  const double sjf = summary["policies"][2]["job_mean_jct_s"]["mean"];
  EXPECT_LT(backfill, fifo);
  EXPECT_LT(sjf, backfill);
}

TEST(PhillyCli, ABrokenLogFailsWithItsLineAndWritesNothing) {
  const auto dir = fresh_dir("philly_broken");
  std::ofstream(dir / "jobs.csv") << "timestamp,duration,num_gpus,gpu_time,cluster\n"
                                     "2017-10-01 00:00:00,10.0,2,20.0,vc\n"
                                     "2017-10-01 00:00:01,10.0,2,99.0,vc\n";
  const auto result = run_gpusim(dir, "run --workload jobs.csv --cluster philly --mode replay --policy fifo --out out");
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.err.find("jobs.csv:3: gpu_time: 99.0 is not duration x num_gpus (10.0 x 2 = 20)"), std::string::npos)
      << result.err;
  EXPECT_FALSE(fs::exists(dir / "out"));
}

TEST(PhillyCli, AMistypedBundledNameListsTheBundledOnes) {
  const auto dir = fresh_dir("philly_typo");
  const auto result = run_gpusim(dir, "run --workload phily --mode replay --policy fifo --out out");
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.err.find("phily: no such file, and not a bundled workload name (bundled: openb:<variant>, philly, dlrm)"),
            std::string::npos)
      << result.err;
  const auto cluster = run_gpusim(dir, "run --workload philly --cluster phily --mode replay --policy fifo --out out");
  EXPECT_NE(cluster.err.find("not a bundled cluster name (bundled: openb, openb:all, philly, philly-gavel, dlrm)"), std::string::npos)
      << cluster.err;
}

TEST(PhillyCli, FillModeRefusesGangs) {
  const auto dir = fresh_dir("philly_fill");
  const auto result = run_gpusim(dir, "run --workload philly --policy fifo --out out");
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.err.find("only --mode replay models"), std::string::npos) << result.err;
  EXPECT_FALSE(fs::exists(dir / "out"));
}

TEST(PhillyCli, AJobLargerThanTheClusterIsNamedAndAPathGetsThePhillyCluster) {
  // A log given by path (not the bundled name) still runs on the Philly-like cluster by default;
  // a 4,096-GPU job exceeds its 2,490 GPUs, which is said before the run.
  const auto dir = fresh_dir("philly_too_large");
  std::ofstream(dir / "jobs.csv") << "timestamp,duration,num_gpus,gpu_time,cluster\n"
                                     "2017-10-01 00:00:00,10.0,4096,40960.0,vc\n"
                                     "2017-10-01 00:00:01,10.0,1,10.0,vc\n";
  const auto result = run_gpusim(dir, "run --workload jobs.csv --mode replay --policy backfill --out out");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.err.find("jobs asking more GPUs than the cluster's 2490: 1 (the largest asks 4096)"), std::string::npos)
      << result.err;
  const auto summary = nlohmann::json::parse(slurp(dir / "out" / "summary.json"));
  EXPECT_EQ(summary["inputs"]["cluster"], "philly");
  EXPECT_EQ(summary["policies"][0]["runs"][0]["completed_jobs"], 1);
}

TEST(PhillyCli, PreemptingPoliciesRecordTheirKnobsAndPreemptions) {
  // One 2-GPU slot is enough to see it: a long job, then short ones that preempt it.
  const auto dir = fresh_dir("philly_preempt");
  std::ofstream(dir / "jobs.csv") << "timestamp,duration,num_gpus,gpu_time,cluster\n"
                                     "2017-10-01 00:00:00,20000.0,8,160000.0,vc\n"
                                     "2017-10-01 01:00:00,600.0,8,4800.0,vc\n"
                                     "2017-10-01 02:00:00,600.0,8,4800.0,vc\n";
  std::ofstream(dir / "one-node.csv") << "sn,cpu_milli,memory_mib,gpu,model\n"
                                         "node-0,96000,786432,8,V100M32\n";
  derived_policy(dir, "tiresias", "tiresias-3600", "Tiresias", "{queueThresholdsGpuSeconds: [3600, 100000]}");
  const auto result = run_gpusim(dir, "compare --workload jobs.csv --cluster one-node.csv --mode replay "
                                      "--policies fifo,srtf,tiresias-3600.yaml --checkpoint-interval 900 --seeds 1 --out out");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto summary = nlohmann::json::parse(slurp(dir / "out" / "summary.json"));
  const auto& knobs = summary["inputs"]["preemption"];
  EXPECT_EQ(knobs["checkpoint_interval_s"], 900);
  EXPECT_EQ(knobs["tiresias_thresholds_gpu_s"], nlohmann::json::array({3600, 100000}));
  EXPECT_EQ(knobs["tiresias_starvation"], 0);
  // FIFO makes the short jobs wait for the long one; SRTF and Tiresias (the long job passed
  // 3600 GPU-s after 450 s) preempt it twice each.
  const auto& policies = summary["policies"];
  EXPECT_EQ(policies[0]["runs"][0].value("preemptions", -1.0), -1.0);  // FIFO does not preempt
  EXPECT_EQ(policies[1]["runs"][0]["preemptions"], 2);
  EXPECT_EQ(policies[2]["runs"][0]["preemptions"], 2);
  EXPECT_LT(policies[1]["job_mean_jct_s"]["mean"].get<double>(), policies[0]["job_mean_jct_s"]["mean"].get<double>());
}

TEST(PhillyCli, TiresiasKnobsAreCheckedBeforeAnythingRuns) {
  const auto dir = fresh_dir("philly_knobs");
  // The knobs are the Tiresias plugin's args: the old options say which lines replace them, and
  // bad args are refused with the file, line and field.
  const auto retired = run_gpusim(dir, "run --workload philly --mode replay --out out --policy tiresias --tiresias-thresholds 3600,7200");
  EXPECT_EQ(retired.exit_code, 2);
  EXPECT_NE(retired.err.find("args: {queueThresholdsGpuSeconds: [3600,7200], starvationKnob: 0, queueOrder: Creation}"),
            std::string::npos) << retired.err;
  derived_policy(dir, "tiresias", "decreasing", "Tiresias", "{queueThresholdsGpuSeconds: [3600, 100]}");
  derived_policy(dir, "tiresias", "hours", "Tiresias", "{queueThresholdsGpuSeconds: [1h]}");
  const struct {
    const char* args;
    const char* message;
  } cases[] = {
      {"--policy decreasing.yaml", "decreasing.yaml:23: profiles[0].pluginConfig[0].args.queueThresholdsGpuSeconds[1]: thresholds must increase (100 after 3600)"},
      {"--policy hours.yaml", "hours.yaml:23: profiles[0].pluginConfig[0].args.queueThresholdsGpuSeconds[0]: '1h'"},
  };
  for (const auto& c : cases) {
    const auto result = run_gpusim(dir, std::string("run --workload philly --mode replay --out out ") + c.args);
    EXPECT_EQ(result.exit_code, 1) << c.args;
    EXPECT_NE(result.err.find(c.message), std::string::npos) << result.err;
    EXPECT_FALSE(fs::exists(dir / "out")) << c.args;
  }
  const auto fill = run_gpusim(dir, "run --policy fgd --checkpoint-interval 60 --out out");
  EXPECT_EQ(fill.exit_code, 2);
  EXPECT_NE(fill.err.find("--checkpoint-interval applies to --mode replay only"), std::string::npos) << fill.err;
  const auto fill_srtf = run_gpusim(dir, "run --policy srtf --out out");
  EXPECT_EQ(fill_srtf.exit_code, 2);
  EXPECT_NE(fill_srtf.err.find("policy 'srtf' works in --mode replay only"), std::string::npos) << fill_srtf.err;
  EXPECT_FALSE(fs::exists(dir / "out"));
  // Spaces after the commas are fine.
  std::ofstream(dir / "two.csv") << "timestamp,duration,num_gpus,gpu_time,cluster\n"
                                    "2017-10-01 00:00:00,100.0,1,100.0,vc\n"
                                    "2017-10-01 00:01:00,100.0,1,100.0,vc\n";
  derived_policy(dir, "tiresias", "two-queues", "Tiresias", "{queueThresholdsGpuSeconds: [3600, 36000]}");
  const auto spaced = run_gpusim(dir, "run --workload two.csv --mode replay --policy two-queues.yaml --out spaced");
  EXPECT_EQ(spaced.exit_code, 0) << spaced.err;
}

}  // namespace
}  // namespace gpusim::testing
