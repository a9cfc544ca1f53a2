// Gavel's time-sharing policies and throughput table through the real binary: a run on a small
// heterogeneous cluster records its knobs and rounds, and the mistakes users make fail at once with
// the file or option named and nothing written.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <fstream>

#include "tests/cli/policy_files.hpp"
#include "tests/cli/run_gpusim.hpp"

namespace gpusim::testing {
namespace {

namespace fs = std::filesystem;

void write_small_inputs(const fs::path& dir) {
  std::ofstream(dir / "jobs.csv") << "timestamp,duration,num_gpus,gpu_time,cluster\n"
                                     "2017-10-01 00:00:00,3600.0,1,3600.0,vc1\n"
                                     "2017-10-01 00:00:00,3600.0,1,3600.0,vc1\n"
                                     "2017-10-01 00:01:00,7200.0,2,14400.0,vc2\n"
                                     "2017-10-01 00:02:00,1800.0,1,1800.0,vc2\n";
  std::ofstream(dir / "nodes.csv") << "sn,cpu_milli,memory_mib,gpu,model\n"
                                      "k,0,0,2,k80\n"
                                      "p,0,0,2,p100-pcie-16gb\n"
                                      "v,0,0,2,v100-pcie\n";
}

TEST(GavelCli, ComparesAwareAndBlindPoliciesWithTheTable) {
  const auto dir = fresh_dir("gavel_compare");
  write_small_inputs(dir);
  // The four time-sharing policies with rounds of 120 s: their Gavel plugin's args.
  std::string policies = "fifo";
  for (const auto& [base, args] : {std::pair{"maxmin", "MaxMin, heterogeneityAware: false"}, {"gavel-maxmin", "MaxMin, heterogeneityAware: true"},
                                   {"ftf", "FinishTimeFairness, heterogeneityAware: false"},
                                   {"gavel-ftf", "FinishTimeFairness, heterogeneityAware: true"}}) {
    derived_policy(dir, base, std::string(base) + "-120", "Gavel", fmt::format("{{objective: {}, roundLengthSeconds: 120}}", args));
    policies += fmt::format(",{}-120.yaml", base);
  }
  const auto result = run_gpusim(dir, "compare --workload jobs.csv --cluster nodes.csv --throughputs gavel --mode replay "
                                      "--policies " + policies + " --seeds 1 --out out");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto summary = nlohmann::json::parse(slurp(dir / "out" / "summary.json"));
  ASSERT_EQ(summary["policies"].size(), 5u);
  EXPECT_EQ(summary["policies"][2]["name"], "gavel-maxmin-120");
  EXPECT_EQ(summary["inputs"]["time_sharing"]["round_length_s"], 120);
  EXPECT_EQ(summary["inputs"]["time_sharing"]["throughputs"]["file"], "gavel");
  for (std::size_t p = 0; p < 5; ++p) {
    const auto& policy = summary["policies"][p];
    EXPECT_EQ(policy["completed_jobs"]["mean"], 4) << policy["name"];
    EXPECT_TRUE(policy.contains("job_mean_ftf_rho")) << policy["name"];
    // Rounds and LPs only for the time-sharing policies.
    EXPECT_EQ(policy.contains("rounds"), p > 0) << policy["name"];
  }
  EXPECT_GT(summary["policies"][2]["lp_solves"]["mean"].get<double>(), 0);
}

TEST(GavelCli, TheSameSeedGivesTheSameOutputs) {
  const auto dir = fresh_dir("gavel_determinism");
  write_small_inputs(dir);
  const std::string args = "run --workload jobs.csv --cluster nodes.csv --throughputs gavel --mode replay --policy gavel-ftf ";
  ASSERT_EQ(run_gpusim(dir, args + "--out a").exit_code, 0);
  ASSERT_EQ(run_gpusim(dir, args + "--out b").exit_code, 0);
  for (const char* file : {"summary.json", "pods.csv", "jobs.csv"}) EXPECT_EQ(slurp(dir / "a" / file), slurp(dir / "b" / file)) << file;
}

TEST(GavelCli, MistakesFailBeforeAnythingIsWritten) {
  const auto dir = fresh_dir("gavel_mistakes");
  write_small_inputs(dir);
  std::ofstream(dir / "t4.csv") << "sn,cpu_milli,memory_mib,gpu,model\nt,0,0,2,t4\n";
  std::ofstream(dir / "table.json") << R"json({"k80": {"('X', 3)": {"null": 1}}})json";
  const struct {
    std::string args;
    std::string message;
  } cases[] = {
      {"run --workload jobs.csv --cluster t4.csv --throughputs gavel --mode replay --policy gavel-maxmin --out out",
       "node t: its GPU model has no column in the Gavel throughput table"},
      {"run --workload jobs.csv --cluster nodes.csv --throughputs table.json --mode replay --policy gavel-maxmin --out out",
       "table.json: k80 / ('X', 3): job key"},
      {"run --workload jobs.csv --cluster nodes.csv --throughputs missing.json --mode replay --policy gavel-maxmin --out out",
       "missing.json"},
      {"run --workload jobs.csv --cluster nodes.csv --mode replay --policy fifo --round-length 60 --out out",
       "--round-length is gone: policy parameters are plugin args in a KubeSchedulerConfiguration now"},
      {"run --workload jobs.csv --cluster nodes.csv --mode fill --policy gavel-maxmin --out out", "works in --mode replay only"},
      {"run --workload jobs.csv --cluster nodes.csv --mode fill --policy fifo --throughputs gavel --out out",
       "--throughputs applies to --mode replay only"},
      {"run --workload jobs.csv --cluster nodes.csv --mode replay --policy gavel-maxmin --throughputs gavel --perf-model --out out",
       "two run-time models"},
      {"run --workload jobs.csv --cluster nodes.csv --mode replay --policy fifo --colocation table --out out",
       "--colocation applies only with --throughputs"},
      {"run --workload jobs.csv --cluster nodes.csv --mode replay --policy fifo --throughputs gavel --colocation gavel --out out",
       "--colocation: gavel not in {table,model}"},
  };
  for (const auto& c : cases) {
    const auto result = run_gpusim(dir, c.args);
    EXPECT_NE(result.exit_code, 0) << c.args;
    EXPECT_NE(result.err.find(c.message), std::string::npos) << c.args << "\n" << result.err;
    EXPECT_FALSE(fs::exists(dir / "out" / "summary.json")) << c.args;
  }
}

// Two 4-GPU jobs of type X on time-sliced GPUs (2 replicas each). X runs at 4 GPUs on V100s only,
// but the 2-GPU K80 node advertises 4 replicas: the second job must not go there (gpusim used to
// stop with an internal error), so both share the V100 node's 4 GPUs. The table says X beside X at
// 4 GPUs keeps 4.5 of its 6 steps/s: 0.75. Job 0 runs alone for 1 s, then both at 0.75: job 0's
// other 3,599 s take 4,798.67 s (ends at 4,799.67 s); job 1 has then 1 s left, alone (4,800.67 s).
// With --colocation model both run at half speed: 7,199 and 7,200 s.
TEST(GavelCli, JobsOfKnownTypesShareReplicasAtTheTablesPairSpeedsOnlyWhereTheyRun) {
  const auto dir = fresh_dir("gavel_colocation");
  std::ofstream(dir / "jobs.csv") << "timestamp,duration,num_gpus,gpu_time,cluster\n"
                                     "2017-10-01 00:00:00,3600.0,4,14400.0,vc1\n"
                                     "2017-10-01 00:00:01,3600.0,4,14400.0,vc1\n";
  std::ofstream(dir / "nodes.csv") << "sn,cpu_milli,memory_mib,gpu,model\nk,0,0,2,k80\nv,0,0,4,v100-pcie\n";
  std::ofstream(dir / "table.json") << R"json({"k80": {"('X', 1)": {"null": 1.0}},
    "v100": {"('X', 1)": {"null": 2.0}, "('X', 4)": {"null": 6.0, "('X', 4)": [4.5, 4.5]}}})json";
  std::ofstream(dir / "ts.yaml") << "devicePlugin: {model: device-plugin}\n";
  std::ofstream(dir / "dp.yaml") << "version: v1\nsharing:\n  timeSlicing:\n    resources:\n    - {name: nvidia.com/gpu, replicas: 2}\n";
  const std::string args = "run --workload jobs.csv --cluster nodes.csv --throughputs table.json --kube ts.yaml --config dp.yaml "
                           "--mode replay --policy fifo ";
  const auto table = run_gpusim(dir, args + "--out table");
  ASSERT_EQ(table.exit_code, 0) << table.err;
  const auto summary = nlohmann::json::parse(slurp(dir / "table" / "summary.json"));
  EXPECT_EQ(summary["inputs"]["time_sharing"]["throughputs"]["colocation"], "table");
  EXPECT_EQ(summary["policies"][0]["shared_pods_with_measured_pair"]["mean"], 2);
  const std::string pods = slurp(dir / "table" / "pods.csv");
  EXPECT_NE(pods.find("0,job-00000,0,0,4,1000,0.000000,0.000000,4799.666667,completed,v,"), std::string::npos) << pods;
  EXPECT_NE(pods.find("1,job-00001,0,0,4,1000,1.000000,1.000000,4800.666667,completed,v,"), std::string::npos) << pods;

  const auto model = run_gpusim(dir, args + "--colocation model --out model");
  ASSERT_EQ(model.exit_code, 0) << model.err;
  const std::string model_pods = slurp(dir / "model" / "pods.csv");
  EXPECT_NE(model_pods.find("0.000000,7199.000000,completed,v,"), std::string::npos) << model_pods;
  EXPECT_NE(model_pods.find("1.000000,7200.000000,completed,v,"), std::string::npos) << model_pods;
  const auto model_summary = nlohmann::json::parse(slurp(dir / "model" / "summary.json"));
  EXPECT_EQ(model_summary["inputs"]["time_sharing"]["throughputs"]["colocation"], "model");
  EXPECT_FALSE(model_summary["policies"][0].contains("shared_pods_with_measured_pair"));
}

}  // namespace
}  // namespace gpusim::testing
