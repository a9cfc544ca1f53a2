// Pods that never ran say why, through the binary: kube-scheduler's FitError in pods.csv's reason,
// the count by reason in summary.json and report.md, and a note on stderr; the run still exits 0.
#include <gtest/gtest.h>
#include <fmt/format.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/cli/run_gpusim.hpp"

namespace gpusim::testing {
namespace {

namespace fs = std::filesystem;

// Three nodes of 8 GPUs in zone "a"; node-c is kept for batch work by a taint.
constexpr const char* kNodes = R"(apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata:
    name: node-a
    labels: {zone: a, nvidia.com/gpu.product: NVIDIA-A100-SXM4-80GB}
  status:
    allocatable: {cpu: "64", memory: 512Gi, nvidia.com/gpu: "8", pods: "110"}
- apiVersion: v1
  kind: Node
  metadata:
    name: node-b
    labels: {zone: a, nvidia.com/gpu.product: NVIDIA-A100-SXM4-80GB}
  status:
    allocatable: {cpu: "64", memory: 512Gi, nvidia.com/gpu: "8", pods: "110"}
- apiVersion: v1
  kind: Node
  metadata:
    name: node-c
    labels: {zone: a, nvidia.com/gpu.product: NVIDIA-A100-SXM4-80GB}
  spec:
    taints:
    - {key: dedicated, value: batch, effect: NoSchedule}
  status:
    allocatable: {cpu: "64", memory: 512Gi, nvidia.com/gpu: "8", pods: "110"}
)";

std::string pod(const std::string& name, int gpus, const std::string& arrival, const std::string& extra = "") {
  return fmt::format(R"(apiVersion: v1
kind: Pod
metadata:
  name: {}
  annotations: {{gpusim.io/arrival: {}, gpusim.io/duration: 1h}}
spec:
{}  containers:
  - name: main
    image: registry.example/job:1.0
    resources:
      limits: {{cpu: "1", memory: 1Gi, nvidia.com/gpu: {}}}
)",
                     name, arrival, extra, gpus);
}

class NeverRan : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fresh_dir(::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::ofstream(dir_ / "nodes.yaml") << kNodes;
  }
  CliResult run(const std::string& pods, const std::string& policy) {
    std::ofstream(dir_ / "pods.yaml") << pods;
    return run_gpusim(dir_, fmt::format("run --mode replay --cluster nodes.yaml --workload pods.yaml --policy {} --out out", policy));
  }
  fs::path dir_;
};

TEST_F(NeverRan, FitErrorsInPodsCsvSummaryReportAndStderr) {
  const CliResult result = run(pod("ok", 1, "0s") + "---\n" + pod("big", 16, "0s") + "---\n" +
                                   pod("lost", 1, "0s", "  nodeSelector: {zone: mars}\n"),
                               "binpack");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  auto pods = pods_by_name(dir_ / "out" / "pods.csv");
  EXPECT_EQ(pods["ok"]["outcome"], "completed");
  EXPECT_EQ(pods["ok"]["reason"], "");
  // node-c's taint comes first (TaintToleration runs before NodeAffinity and NodeResourcesFit);
  // the histogram's "N reason" strings sort bytewise.
  const std::string big = "0/3 nodes are available: 1 node(s) had untolerated taint {dedicated: batch}, 2 Insufficient nvidia.com/gpu.";
  const std::string lost =
      "0/3 nodes are available: 1 node(s) had untolerated taint {dedicated: batch}, 2 node(s) didn't match Pod's node "
      "affinity/selector.";
  EXPECT_EQ(pods["big"]["outcome"], "unschedulable");
  EXPECT_EQ(pods["big"]["reason"], big);
  EXPECT_EQ(pods["lost"]["outcome"], "pending");
  EXPECT_EQ(pods["lost"]["reason"], lost);
  // The reason holds commas: the CSV field is quoted.
  EXPECT_NE(slurp(dir_ / "out" / "pods.csv").find(",\"" + big + "\","), std::string::npos);

  const auto summary = nlohmann::json::parse(slurp(dir_ / "out" / "summary.json"));
  const nlohmann::json by_reason = summary["policies"][0]["runs"][0]["never_ran_by_reason"];
  EXPECT_EQ(by_reason, (nlohmann::json{{"Insufficient nvidia.com/gpu", 1},
                                       {"node(s) didn't match Pod's node affinity/selector", 1},
                                       {"node(s) had untolerated taint {dedicated: batch}", 2}}))
      << by_reason.dump();

  const std::string report = slurp(dir_ / "out" / "report.md");
  EXPECT_NE(report.find("## Pods that never ran"), std::string::npos) << report;
  EXPECT_NE(report.find("| binpack | Insufficient nvidia.com/gpu | 1 |"), std::string::npos) << report;
  EXPECT_NE(report.find("| binpack | node(s) had untolerated taint {dedicated: batch} | 2 |"), std::string::npos) << report;

  EXPECT_NE(result.err.find("gpusim: note: 2 pods never ran (pods.csv's reason column says why):\n"
                            "gpusim: note:   1 × " + big + "\n"
                            "gpusim: note:   1 × " + lost + "\n"),
            std::string::npos)
      << result.err;
}

TEST_F(NeverRan, EveryPodRanNoReasonNoNoteNoSection) {
  const CliResult result = run(pod("ok", 1, "0s"), "binpack");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.err.find("never ran"), std::string::npos) << result.err;
  EXPECT_EQ(slurp(dir_ / "out" / "summary.json").find("never_ran_by_reason"), std::string::npos);
  EXPECT_EQ(slurp(dir_ / "out" / "report.md").find("never ran"), std::string::npos);
}

// Pods that waited for something other than nodes say what, not a FitError they did not have.
TEST_F(NeverRan, PodsThatWaitedForSomethingElseSaySo) {
  // Strict FIFO: "lost" (no node matches its selector) heads the queue for ever, so "behind", which
  // a node could take, waits behind it; "elsewhere" names a scheduler this run does not have.
  const CliResult result = run(pod("lost", 1, "0s", "  nodeSelector: {zone: mars}\n") + "---\n" + pod("behind", 1, "60s") +
                                   "---\n" + pod("elsewhere", 1, "0s", "  schedulerName: volcano\n"),
                               "fifo");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  auto pods = pods_by_name(dir_ / "out" / "pods.csv");
  EXPECT_EQ(pods["lost"]["reason"],
            "0/3 nodes are available: 1 node(s) had untolerated taint {dedicated: batch}, 2 node(s) didn't match Pod's "
            "node affinity/selector.");
  EXPECT_EQ(pods["behind"]["outcome"], "pending");
  EXPECT_EQ(pods["behind"]["reason"],
            "a node could take it when the run ended, but it waited behind lost (strict queue order: nothing queued "
            "behind a pod that does not fit starts before it)");
  EXPECT_EQ(pods["elsewhere"]["outcome"], "pending");
  EXPECT_EQ(pods["elsewhere"]["reason"],
            "its schedulerName \"volcano\" names no scheduler of this run (gpusim runs one: default-scheduler, profile fifo)");
  const auto summary = nlohmann::json::parse(slurp(dir_ / "out" / "summary.json"));
  const nlohmann::json by_reason = summary["policies"][0]["runs"][0]["never_ran_by_reason"];
  EXPECT_EQ(by_reason["waited behind the head of a strict queue"], 1) << by_reason.dump();
  EXPECT_EQ(by_reason["schedulerName names no scheduler of the run"], 1) << by_reason.dump();
  EXPECT_NE(result.err.find("gpusim: note: 3 pods never ran"), std::string::npos) << result.err;
}

}  // namespace
}  // namespace gpusim::testing
