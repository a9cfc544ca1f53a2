// The policy kai through the real binary: KAI's Queues in --config, a queue reclaiming its fair share
// from one above it (the victim restarts when the reclaimer's job is done), the documented example of
// a queue limit and priority (docs/priority/README.md: a build pod preempts the train pod its queue's
// limit leaves no room beside), and the mistakes people make, each failing before anything is written.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>
#include <tuple>

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

// Found by review: a queue of unlimited quota is never above its allocatable share, so nothing is
// reclaimed from it (KAI's compareQuantities): two such trees do not take each other's jobs for ever.
TEST_F(KaiCli, NothingIsReclaimedFromAQueueOfUnlimitedQuota) {
  std::ofstream(dir_ / "nodes8.csv") << "sn,cpu_milli,memory_mib,gpu,model\nn0,0,0,8,p100-pcie-12gb\n";
  std::ofstream(dir_ / "jobs.csv") << "timestamp,duration,num_gpus,gpu_time,cluster\n"
                                      "2017-10-09 00:00:00,600.0,6,3600.0,a1\n"
                                      "2017-10-09 00:01:40,600.0,6,3600.0,b1\n";
  std::string queues;
  for (const auto& [name, parent, quota] : {std::tuple{"ta", "", "-1"}, std::tuple{"a1", "ta", "1"}, std::tuple{"tb", "", "-1"}, std::tuple{"b1", "tb", "1"}}) {
    queues += std::string("---\napiVersion: scheduling.run.ai/v2\nkind: Queue\nmetadata: {name: ") + name + "}\nspec:\n" +
              (std::string(parent).empty() ? "" : std::string("  parentQueue: ") + parent + "\n") + "  resources:\n    gpu: {quota: " + quota +
              ", overQuotaWeight: 1, limit: -1}\n";
  }
  std::ofstream(dir_ / "unlimited.yaml") << queues;
  const CliResult result = run_gpusim(dir_, "run --cluster nodes8.csv --workload jobs.csv --mode replay --quiet --policy kai --config unlimited.yaml --out o");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const std::string pods = slurp(dir_ / "o" / "pods.csv");
  EXPECT_NE(pods.find("1,job-00001,0,0,6,1000,100.000000,600.000000,1200.000000,completed"), std::string::npos) << pods;
  EXPECT_NE(slurp(dir_ / "o" / "summary.json").find("\"kai_reclaim_evictions\": 0.0"), std::string::npos);
}

// Found by review: a parent's fair share is divided from what its subtree asks, once (queue p2's
// leaf asks 8 GPUs, p1's asks 2: KAI gives 2 and 6 of 8).
TEST_F(KaiCli, AParentsShareCountsItsSubtreesAskOnce) {
  std::ofstream(dir_ / "jobs.csv") << "timestamp,duration,num_gpus,gpu_time,cluster\n"
                                      "2017-10-09 00:00:00,3600.0,2,7200.0,a\n"
                                      "2017-10-09 00:00:00,3600.0,4,14400.0,b\n"
                                      "2017-10-09 00:00:00,3600.0,4,14400.0,b\n";
  std::string queues;
  for (const auto& [name, parent] : {std::pair{"p1", ""}, std::pair{"a", "p1"}, std::pair{"p2", ""}, std::pair{"b", "p2"}}) {
    queues += std::string("---\napiVersion: scheduling.run.ai/v2\nkind: Queue\nmetadata: {name: ") + name + "}\nspec:\n" +
              (std::string(parent).empty() ? "" : std::string("  parentQueue: ") + parent + "\n") +
              "  resources:\n    gpu: {quota: 0, overQuotaWeight: 1, limit: -1}\n";
  }
  std::ofstream(dir_ / "two-trees.yaml") << queues;
  ASSERT_EQ(run("--policy kai --config two-trees.yaml --out o").exit_code, 0);
  const std::string series = slurp(dir_ / "o" / "queue-series.csv");
  const auto share = [](const std::string& q, int gpus) {
    return "0.000000,kai_queue_fair_share_gpu,\"queue_name=\"\"" + q + "\"\",queue_metadata_name=\"\"" + q + "\"\",queue_display_name=\"\"\"\"\"," +
           std::to_string(gpus) + "\n";
  };
  for (const auto& [q, gpus] : {std::pair{"p1", 2}, std::pair{"a", 2}, std::pair{"p2", 6}, std::pair{"b", 6}}) {
    EXPECT_NE(series.find(share(q, gpus)), std::string::npos) << q << "\n" << series.substr(0, 1500);
  }
}

// Found by review: preempt evicts a queue's lower-priority jobs for a job held back by its limit
// only if the job then fits a node (KAI places the preemptor in its simulation first).
TEST_F(KaiCli, PreemptEvictsNothingWhenTheJobWouldStillNotFit) {
  std::ofstream(dir_ / "w.jsonl")
      << R"({"format":"gpusim-trace","version":1,"source":"review","cluster":"philly","timed":true,"queues":["l","o"]})" "\n"
      << R"({"name":"j1-low","gpus":1,"priority":50,"phase":"Succeeded","created_us":0,"deleted_us":3600000000,"duration_us":3600000000,"queue":"l"})" "\n"
      << R"({"name":"o-4","gpus":4,"priority":50,"phase":"Succeeded","created_us":1000000,"deleted_us":3601000000,"duration_us":3600000000,"queue":"o"})" "\n"
      << R"({"name":"o-3","gpus":3,"priority":50,"phase":"Succeeded","created_us":2000000,"deleted_us":3602000000,"duration_us":3600000000,"queue":"o"})" "\n"
      << R"({"name":"h-4","gpus":4,"priority":100,"phase":"Succeeded","created_us":100000000,"deleted_us":700000000,"duration_us":600000000,"queue":"l"})" "\n";
  std::ofstream(dir_ / "lo.yaml") << "apiVersion: scheduling.run.ai/v2\nkind: Queue\nmetadata: {name: l}\nspec:\n  resources:\n"
                                     "    gpu: {quota: 4, overQuotaWeight: 1, limit: 4}\n---\n"
                                     "apiVersion: scheduling.run.ai/v2\nkind: Queue\nmetadata: {name: o}\nspec:\n  resources:\n"
                                     "    gpu: {quota: 4, overQuotaWeight: 1, limit: -1}\n";
  const CliResult result = run_gpusim(dir_, "run --cluster nodes.csv --workload w.jsonl --mode replay --quiet --policy kai --config lo.yaml --out o");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const std::string pods = slurp(dir_ / "o" / "pods.csv");
  // j1-low keeps running: evicting it frees 1 GPU on n0, where o-3 holds 3, and h-4 needs 4.
  EXPECT_NE(pods.find("0,j1-low,0,0,1,1000,0.000000,0.000000,3600.000000,completed"), std::string::npos) << pods;
  EXPECT_NE(pods.find("3,h-4,0,0,4,1000,100.000000,3600.000000,4200.000000,completed"), std::string::npos) << pods;
  EXPECT_NE(slurp(dir_ / "o" / "summary.json").find("\"kai_preempt_evictions\": 0.0"), std::string::npos);
}

// A row of a gpusim-trace (jsonl) workload: a job's pod; gang 0 for a job of its own.
std::string trace_row(const char* name, int gpus, int cpu, int priority, int created_s, int duration_s, const char* queue, int gang = 0) {
  return fmt::format(R"({{"name":"{}","gpus":{},"cpu_milli":{},"priority":{},"phase":"Succeeded","created_us":{},"duration_us":{},)"
                     R"("queue":"{}"{}}})"
                     "\n",
                     name, gpus, cpu, priority, created_s * 1000000LL, duration_s * 1000000LL, queue,
                     gang != 0 ? fmt::format(R"(,"gang":{})", gang) : std::string());
}
constexpr const char* kTraceHeader =
    R"({"format":"gpusim-trace","version":1,"source":"test","cluster":"philly","timed":true,"queues":["a","b"]})"
    "\n";
// kQueues with CPU unlimited in every queue, so that only GPUs decide.
std::string queues_with_cpu() {
  std::string queues = kQueues;
  for (std::size_t at = 0; (at = queues.find("    gpu: {", at)) != std::string::npos;) {
    at = queues.find('\n', at) + 1;
    queues.insert(at, "    cpu: {quota: -1, overQuotaWeight: 1, limit: -1}\n");
  }
  return queues;
}
// Queue b fills both nodes of 4 GPUs and 8 cores, each with a non-preemptible 1-GPU pod beside a
// preemptible 3-GPU job; a-4 (4 GPUs, queue a) can then reclaim nowhere, as at most 3 GPUs of a node
// can be freed.
std::string b_fills_both_nodes() {
  return std::string(kTraceHeader) + trace_row("b-np1", 1, 0, 100, 0, 3600, "b") + trace_row("b-big1", 3, 0, 0, 1, 3600, "b") +
         trace_row("b-np2", 1, 0, 100, 2, 3600, "b") + trace_row("b-big2", 3, 0, 0, 3, 3600, "b") + trace_row("a-4", 4, 0, 0, 100, 600, "a");
}

// KAI's reclaim tries every pending job of a queue, not only its first, but skips a job no easier
// to schedule than the smallest one of its queue and signature whose search failed in the session
// (actions/common/minimal_job_comparison.go). After a-4 fails, a-2-more-cpu (2 GPUs, 1 CPU) is
// smaller in GPUs but larger in CPU than a-4: not easier, so KAI skips it although it could
// reclaim. a-3 is smaller in every resource: it is tried after a-4 fails, in the same cycle, and
// reclaims b-big2 at once.
TEST_F(KaiCli, ReclaimTriesEveryJobEasierThanTheSmallestThatFailed) {
  std::ofstream(dir_ / "cpu-nodes.csv") << "sn,cpu_milli,memory_mib,gpu,model\nn0,8000,0,4,p100-pcie-12gb\nn1,8000,0,4,p100-pcie-12gb\n";
  std::ofstream(dir_ / "w.jsonl") << b_fills_both_nodes() + trace_row("a-2-more-cpu", 2, 1000, 0, 105, 600, "a") +
                                         trace_row("a-3", 3, 0, 0, 110, 600, "a");
  std::ofstream(dir_ / "kai-cpu.yaml") << queues_with_cpu();
  const CliResult result =
      run_gpusim(dir_, "run --cluster cpu-nodes.csv --workload w.jsonl --mode replay --quiet --policy kai --config kai-cpu.yaml --out o");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const std::string pods = slurp(dir_ / "o" / "pods.csv");
  EXPECT_NE(pods.find("6,a-3,0,0,3,1000,110.000000,110.000000,710.000000,completed,n1"), std::string::npos) << pods;
  EXPECT_NE(pods.find("3,b-big2,0,0,3,1000,3.000000,1310.000000,4910.000000,completed"), std::string::npos) << pods;
  // Skipped at 105 s and 110 s; it runs on the room a-3 leaves at 710 s.
  EXPECT_NE(pods.find("5,a-2-more-cpu,1000,0,2,1000,105.000000,710.000000,1310.000000,completed"), std::string::npos) << pods;
  // a-4 reclaims b-big1 once b-np1 has left n0 room for 4 GPUs.
  EXPECT_NE(pods.find("4,a-4,0,0,4,1000,100.000000,3600.000000,4200.000000,completed,n0"), std::string::npos) << pods;
  EXPECT_NE(slurp(dir_ / "o" / "summary.json").find("\"kai_reclaim_evictions\": 2.0"), std::string::npos);
}

// Found by review, three cases. (1) A gang is a signature of its own (KAI hashes every pending pod's):
// a-4's failure does not stand for gang g of two pods of 1 GPU and 1 core, which reclaims b-big2 at
// 105 s (it was skipped as not easier than a-4, and waited until 4,200 s). (2) A victim gang goes
// whole, its CPU-only worker too: on node y a non-preemptible pod holds every core and gang v's
// 4-GPU worker the GPUs; on x a non-preemptible pod holds 7 GPUs and v's other worker, CPU only,
// every core. Gang p (4 GPUs, then 1 GPU and 1 core) fits only with all of v gone; the room ceiling
// (policies/preemption/room_ceiling.hpp) did not count v's CPU-only worker, so p never searched.
TEST_F(KaiCli, AGangIsASignatureOfItsOwnAndAVictimGangFreesAllItsWorkers) {
  std::ofstream(dir_ / "cpu-nodes.csv") << "sn,cpu_milli,memory_mib,gpu,model\nn0,8000,0,4,p100-pcie-12gb\nn1,8000,0,4,p100-pcie-12gb\n";
  std::ofstream(dir_ / "sig.jsonl") << b_fills_both_nodes() + trace_row("g-w1", 1, 1000, 0, 105, 600, "a", 7) +
                                           trace_row("g-w2", 1, 1000, 0, 105, 600, "a", 7);
  std::ofstream(dir_ / "kai-cpu.yaml") << queues_with_cpu();
  const CliResult sig =
      run_gpusim(dir_, "run --cluster cpu-nodes.csv --workload sig.jsonl --mode replay --quiet --policy kai --config kai-cpu.yaml --out s");
  ASSERT_EQ(sig.exit_code, 0) << sig.err;
  const std::string sig_pods = slurp(dir_ / "s" / "pods.csv");
  EXPECT_NE(sig_pods.find("5,g-w1,1000,0,1,1000,105.000000,105.000000,705.000000,completed,n1"), std::string::npos) << sig_pods;
  EXPECT_NE(sig_pods.find("6,g-w2,1000,0,1,1000,105.000000,105.000000,705.000000,completed,n1"), std::string::npos) << sig_pods;

  std::ofstream(dir_ / "xy.csv") << "sn,cpu_milli,memory_mib,gpu,model\nx,8000,0,8,p100-pcie-12gb\ny,9000,0,4,p100-pcie-12gb\n";
  std::ofstream(dir_ / "gang.jsonl") << std::string(kTraceHeader) + trace_row("npy", 0, 9000, 100, 0, 36000, "b") +
                                            trace_row("npx", 7, 0, 100, 1, 36000, "b") + trace_row("v1", 4, 0, 0, 2, 3600, "b", 1) +
                                            trace_row("v2", 0, 8000, 0, 2, 3600, "b", 1) + trace_row("p1", 4, 0, 0, 100, 600, "a", 2) +
                                            trace_row("p2", 1, 1000, 0, 100, 600, "a", 2);
  std::string queues = queues_with_cpu();
  queues.replace(queues.find("quota: 4"), 8, "quota: 5");   // a
  queues.replace(queues.rfind("quota: 4"), 8, "quota: 7");  // team-b
  std::ofstream(dir_ / "kai-57.yaml") << queues;
  const CliResult gang =
      run_gpusim(dir_, "run --cluster xy.csv --workload gang.jsonl --mode replay --quiet --policy kai --config kai-57.yaml --out g");
  ASSERT_EQ(gang.exit_code, 0) << gang.err;
  const std::string gang_pods = slurp(dir_ / "g" / "pods.csv");
  EXPECT_NE(gang_pods.find("4,p1,0,0,4,1000,100.000000,100.000000,700.000000,completed,y"), std::string::npos) << gang_pods;
  EXPECT_NE(gang_pods.find("5,p2,1000,0,1,1000,100.000000,100.000000,700.000000,completed,x"), std::string::npos) << gang_pods;
  EXPECT_NE(slurp(dir_ / "g" / "summary.json").find("\"kai_reclaim_evictions\": 2.0"), std::string::npos);

  // (3) A gang whose pods name two queues (gpusim's traces allow it; KAI's PodGroup has one queue):
  // gang m's second worker, in queue b, frees y's cores when preempt takes m for gang p of queue a
  // (priority 50 over 0). The ceiling counted m's workers by their own queues and left b's out.
  std::ofstream(dir_ / "xy1.csv") << "sn,cpu_milli,memory_mib,gpu,model\nx,4000,0,1,p100-pcie-12gb\ny,16000,0,1,p100-pcie-12gb\n";
  std::ofstream(dir_ / "mixed.jsonl") << std::string(kTraceHeader) + trace_row("m1", 1, 0, 0, 0, 3600, "a", 1) +
                                             trace_row("m2", 1, 8000, 0, 0, 3600, "b", 1) + trace_row("p1", 1, 0, 50, 100, 600, "a", 2) +
                                             trace_row("p2", 1, 8000, 50, 100, 600, "a", 2);
  const CliResult mixed =
      run_gpusim(dir_, "run --cluster xy1.csv --workload mixed.jsonl --mode replay --quiet --policy kai --config kai-cpu.yaml --out m");
  ASSERT_EQ(mixed.exit_code, 0) << mixed.err;
  const std::string mixed_pods = slurp(dir_ / "m" / "pods.csv");
  EXPECT_NE(mixed_pods.find("3,p2,8000,0,1,1000,100.000000,100.000000,700.000000,completed,y"), std::string::npos) << mixed_pods;
  EXPECT_NE(slurp(dir_ / "m" / "summary.json").find("\"kai_preempt_evictions\": 2.0"), std::string::npos);
}

// KAI's own pods (tests/cli/kai-cases/gpu-fractions/README.md): schedulerName kai-scheduler, the
// queue in the label kai.scheduler/queue, and gpu-fraction: two halves share the node's one GPU, a
// quarter waits for room on it. Then the mistakes, each at its file, line and field.
TEST_F(KaiCli, KaisOwnPodsNameTheirQueueAndShareAGpuByFraction) {
  fs::copy(fs::path(GPUSIM_SOURCE_DIR) / "tests" / "cli" / "kai-cases" / "gpu-fractions", dir_,
           fs::copy_options::recursive | fs::copy_options::overwrite_existing);
  const std::string kai = "run --cluster nodes.csv --mode replay --quiet --policy kai --config queues.yaml ";
  const CliResult result = run_gpusim(dir_, kai + "--workload share.yaml --out o");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const std::string pods = slurp(dir_ / "o" / "pods.csv");
  EXPECT_NE(pods.find("0,gpu-sharing,0,0,1,500,0.000000,0.000000,600.000000,completed,n0,0,"), std::string::npos) << pods;
  EXPECT_NE(pods.find("1,gpu-sharing-2,0,0,1,500,0.000000,0.000000,600.000000,completed,n0,0,"), std::string::npos) << pods;
  EXPECT_NE(pods.find("2,shared-job-0,0,0,1,250,0.000000,600.000000,1200.000000,completed,n0,0,"), std::string::npos) << pods;
  EXPECT_NE(slurp(dir_ / "o" / "queues.csv").find("\ntest,3,3,"), std::string::npos);

  const std::string text = slurp(dir_ / "share.yaml");
  const auto refused = [&](const std::string& from, const std::string& to, const std::string& args, const std::string& message) {
    std::string changed = text;
    if (!from.empty()) changed.replace(changed.find(from), from.size(), to);
    std::ofstream(dir_ / "changed.yaml") << changed;
    const CliResult r = run_gpusim(dir_, args + "--workload changed.yaml --out m");
    EXPECT_EQ(r.exit_code, 1) << from;
    EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(dir_ / "m"));
  };
  refused("", "", "run --cluster nodes.csv --mode replay --quiet --policy fifo ",
          "changed.yaml:8: metadata.annotations.gpu-fraction: only the KAI Scheduler reads this annotation");
  refused("\"0.5\"", "\"1.5\"", kai, "changed.yaml:8: metadata.annotations.gpu-fraction: '1.5' is not a fraction of a GPU in (0, 1]");
  refused("gpu-fraction: \"0.5\"", "gpu-memory: \"2000\"", kai,
          "changed.yaml:8: metadata.annotations.gpu-memory: KAI's GPU memory ask is not modelled");
  refused("kai.scheduler/queue: test", "kai.scheduler/queue: nosuch", kai,
          "changed.yaml:6: metadata.labels.kai.scheduler/queue: Queue 'nosuch' is not among KAI's Queues in --config");
  refused("kai.scheduler/queue: test", "kai.scheduler/queue: default", kai,
          "changed.yaml:6: metadata.labels.kai.scheduler/queue: Queue 'default' is a parent queue");
  refused("      args: [\"sh\", \"-c\", \"sleep infinity\"]\n", "      resources: {limits: {nvidia.com/gpu: 1}}\n", kai,
          "changed.yaml:8: metadata.annotations.gpu-fraction: the pod's containers also ask 1 GPU(s)");
  // KAI reads the annotation from the pod: on the Job it would give the pods no GPU.
  refused("  name: shared-job\n", "  name: shared-job\n  annotations: {gpu-fraction: \"0.25\"}\n", kai,
          "metadata.annotations.gpu-fraction: KAI reads this annotation from the pod, not the Job");
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
  // A cycle of parents within one file is refused by config check too (parents in other files are
  // checked when a run reads them all).
  std::ofstream(dir_ / "cycle.yaml") << "apiVersion: scheduling.run.ai/v2\nkind: Queue\nmetadata: {name: a}\nspec: {parentQueue: b, resources: {}}\n"
                                        "---\napiVersion: scheduling.run.ai/v2\nkind: Queue\nmetadata: {name: b}\nspec: {parentQueue: a, resources: {}}\n";
  const CliResult cycle = run_gpusim(dir_, "config check cycle.yaml");
  EXPECT_NE(cycle.exit_code, 0);
  EXPECT_NE((cycle.out + cycle.err).find("cycle.yaml:3: Queue a: its parents form a cycle through 'a'"), std::string::npos) << cycle.out << cycle.err;
}

}  // namespace
}  // namespace gpusim::testing
