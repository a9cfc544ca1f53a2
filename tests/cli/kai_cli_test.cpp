// The policy kai through the real binary: KAI's Queues in --config, a queue reclaiming its fair share
// from one above it (the victim restarts when the reclaimer's job is done), the documented example of
// a queue limit and priority (docs/priority/README.md: a build pod preempts the train pod its queue's
// limit leaves no room beside), and the mistakes people make, each failing before anything is written.
#include <gtest/gtest.h>

#include <fstream>

#include "tests/cli/run_gpusim.hpp"

namespace gpusim::testing {
namespace {

namespace fs = std::filesystem;

constexpr const char* kQueues = R"(apiVersion: scheduling.run.ai/v2
kind: Queue
metadata: {name: department}
spec:
  resources:
    gpu: {quota: -1, overQuotaWeight: 1, limit: -1}
---
apiVersion: scheduling.run.ai/v2
kind: Queue
metadata: {name: a}
spec:
  parentQueue: department
  resources:
    gpu: {quota: 4, overQuotaWeight: 1, limit: -1}
---
apiVersion: scheduling.run.ai/v2
kind: Queue
metadata:
  name: team-b
  annotations: {gpusim.io/trace-queues: b}
spec:
  parentQueue: department
  resources:
    gpu: {quota: 4, overQuotaWeight: 1, limit: -1}
)";

class KaiCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fresh_dir(::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::ofstream(dir_ / "nodes.csv") << "sn,cpu_milli,memory_mib,gpu,model\nn0,0,0,4,p100-pcie-12gb\nn1,0,0,4,p100-pcie-12gb\n";
    // Queue b fills the cluster (its second job beyond its quota of 4); a's job comes 100 s later.
    std::ofstream(dir_ / "jobs.csv") << "timestamp,duration,num_gpus,gpu_time,cluster\n"
                                        "2017-10-09 00:00:00,3600.0,4,14400.0,b\n"
                                        "2017-10-09 00:00:10,3600.0,4,14400.0,b\n"
                                        "2017-10-09 00:01:40,600.0,4,2400.0,a\n";
    std::ofstream(dir_ / "kai.yaml") << kQueues;
  }
  CliResult run(const std::string& extra) {
    return run_gpusim(dir_, "run --cluster nodes.csv --workload jobs.csv --mode replay --quiet " + extra);
  }
  fs::path dir_;
};

TEST_F(KaiCli, AQueueReclaimsItsFairShareFromOneAboveIt) {
  const CliResult result = run("--policy kai --config kai.yaml --out o");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  // Fair shares: a asks 4 and deserves 4, b holds 8 and deserves 4: a's job, within a's fair share,
  // reclaims b's newer job (the least work lost) at 100 s; it restarts when a's job ends at 700 s
  // (it ran 90 s, less than a checkpoint interval, so it starts over).
  const std::string pods = slurp(dir_ / "o" / "pods.csv");
  EXPECT_NE(pods.find("2,job-00002,0,0,4,1000,100.000000,100.000000,700.000000,completed"), std::string::npos) << pods;
  EXPECT_NE(pods.find("1,job-00001,0,0,4,1000,10.000000,700.000000,4300.000000,completed"), std::string::npos) << pods;
  EXPECT_NE(pods.find("0,job-00000,0,0,4,1000,0.000000,0.000000,3600.000000,completed"), std::string::npos) << pods;
  const std::string summary = slurp(dir_ / "o" / "summary.json");
  EXPECT_NE(summary.find("\"kai_reclaim_evictions\": 1.0"), std::string::npos) << summary;
  EXPECT_NE(summary.find("\"kai_preempt_evictions\": 0.0"), std::string::npos) << summary;
  EXPECT_NE(summary.find("\"kai_files\""), std::string::npos);
}

TEST_F(KaiCli, AJobOfHigherPriorityPreemptsWhereItsQueuesLimitLeavesNoRoom) {
  // docs/priority/README.md with example/limited-queue.yaml: queue test (under default, all -1) has a
  // GPU quota and limit of 1; train-pod (priority 50) runs, then build-pod (priority 100, not
  // preemptible) comes: allocate fails (OverLimit, 1 + 1 > 1), preempt evicts train-pod, build-pod runs.
  std::ofstream(dir_ / "e3.jsonl")
      << R"({"format":"gpusim-trace","version":1,"source":"docs","cluster":"philly","timed":true,"queues":["test"]})" "\n"
      << R"({"name":"train-pod","gpus":1,"priority":50,"phase":"Succeeded","created_us":0,"deleted_us":3600000000,"duration_us":3600000000,"queue":"test"})" "\n"
      << R"({"name":"build-pod","gpus":1,"priority":100,"phase":"Succeeded","created_us":100000000,"deleted_us":700000000,"duration_us":600000000,"queue":"test"})" "\n";
  std::ofstream(dir_ / "limited.yaml") << R"(apiVersion: scheduling.run.ai/v2
kind: Queue
metadata:
  name: default
spec:
  resources:
    cpu: {quota: -1, limit: -1}
    memory: {quota: -1, limit: -1}
    gpu: {quota: -1, limit: -1}
---
apiVersion: scheduling.run.ai/v2
kind: Queue
metadata:
  name: test
spec:
  parentQueue: default
  resources:
    cpu: {quota: -1, limit: -1}
    memory: {quota: -1, limit: -1}
    gpu: {quota: 1, limit: 1}
)";
  const CliResult result =
      run_gpusim(dir_, "run --cluster nodes.csv --workload e3.jsonl --mode replay --quiet --policy kai --config limited.yaml --out o");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const std::string pods = slurp(dir_ / "o" / "pods.csv");
  EXPECT_NE(pods.find("1,build-pod,0,0,1,1000,100.000000,100.000000,700.000000,completed"), std::string::npos) << pods;
  EXPECT_NE(pods.find("0,train-pod,0,0,1,1000,0.000000,700.000000,4300.000000,completed"), std::string::npos) << pods;
  const std::string summary = slurp(dir_ / "o" / "summary.json");
  EXPECT_NE(summary.find("\"kai_preempt_evictions\": 1.0"), std::string::npos) << summary;
  EXPECT_NE(summary.find("\"kai_reclaim_evictions\": 0.0"), std::string::npos) << summary;
}

TEST_F(KaiCli, ALimitHoldsAJobBackEvenOnAnIdleCluster) {
  // b's limit of 4 GPUs: its second job waits for its first although the other node is idle.
  std::string limited = kQueues;
  limited.replace(limited.rfind("limit: -1"), 9, "limit: 4");
  std::ofstream(dir_ / "limited.yaml") << limited;
  std::ofstream(dir_ / "jobs.csv") << "timestamp,duration,num_gpus,gpu_time,cluster\n"
                                      "2017-10-09 00:00:00,600.0,4,2400.0,b\n"
                                      "2017-10-09 00:00:10,600.0,4,2400.0,b\n";
  const CliResult result = run("--policy kai --config limited.yaml --out o");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const std::string pods = slurp(dir_ / "o" / "pods.csv");
  EXPECT_NE(pods.find("1,job-00001,0,0,4,1000,10.000000,600.000000,1200.000000,completed"), std::string::npos) << pods;
}

TEST_F(KaiCli, MistakesFailBeforeAnythingIsWritten) {
  std::ofstream(dir_ / "orphan.yaml") << "apiVersion: scheduling.run.ai/v2\nkind: Queue\nmetadata: {name: c}\n"
                                         "spec: {parentQueue: research, resources: {gpu: {quota: 1, limit: -1}}}\n";
  std::ofstream(dir_ / "only-a.yaml") << "apiVersion: scheduling.run.ai/v2\nkind: Queue\nmetadata: {name: a}\n"
                                         "spec: {resources: {gpu: {quota: 1, limit: -1}}}\n";
  const std::pair<std::string, std::string> cases[] = {
      {"--policy kai --out o", "policy 'kai' needs KAI's Queues in --config"},
      {"--policy capacity --config kai.yaml --out o", "kai.yaml: KAI's Queues apply to the policy kai"},
      {"--policy kai --config kai.yaml --config orphan.yaml --out o", "orphan.yaml:3: Queue c: spec.parentQueue 'research' names no Queue"},
      {"--policy kai --config only-a.yaml --out o", "the trace's queue 'b' has no KAI Queue"},
  };
  for (const auto& [args, message] : cases) {
    const CliResult result = run(args);
    EXPECT_NE(result.exit_code, 0) << args;
    EXPECT_NE(result.err.find(message), std::string::npos) << args << "\n" << result.err;
    EXPECT_FALSE(fs::exists(dir_ / "o")) << args;
  }
  const CliResult fill = run_gpusim(dir_, "run --cluster nodes.csv --workload jobs.csv --policy kai --config kai.yaml --out o");
  EXPECT_EQ(fill.exit_code, 2);
  EXPECT_NE(fill.err.find("KAI's Queues apply to --mode replay only"), std::string::npos) << fill.err;
  const CliResult check = run_gpusim(dir_, "config check kai.yaml");
  EXPECT_EQ(check.exit_code, 0) << check.err;
  EXPECT_NE(check.out.find("kai.yaml: ok: KAI Queues: 3 queues: department, a, team-b"), std::string::npos) << check.out;
}

}  // namespace
}  // namespace gpusim::testing
