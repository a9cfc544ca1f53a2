// Kubernetes' details through the binary: a Job's own spec (backoffLimit, activeDeadlineSeconds,
// podFailurePolicy), the backoff that a success resets, bare Pods that nothing recreates, the
// taint manager's choice of toleration, the node's pod count, pods still held when the run ends and
// pods larger than any node. Each expected figure is worked out in the comments.
#include <gtest/gtest.h>
#include <fmt/format.h>

#include <fstream>

#include "tests/cli/run_gpusim.hpp"

namespace gpusim::testing {
namespace {

namespace fs = std::filesystem;

// A device-plugin node (`n1` unless named) with `gpus` V100s, a label pool=<name> and, if given, a
// taint of its own and a pod count.
std::string node_yaml(int gpus, const std::string& taint = "", const std::string& name = "n1",
                      const std::string& pods = "") {
  std::string spec;
  if (!taint.empty()) spec = fmt::format("spec:\n  taints:\n  - {}\n", taint);
  return fmt::format(
      "---\napiVersion: v1\nkind: Node\nmetadata:\n  name: {}\n  labels:\n    pool: {}\n"
      "    nvidia.com/gpu.product: Tesla-V100-SXM2-16GB\n"
      "  annotations:\n    gpusim.io/device-plugin: device-plugin\n{}status:\n  allocatable:\n    cpu: \"16\"\n"
      "    memory: 64Gi\n    nvidia.com/gpu: \"{}\"\n{}",
      name, name, spec, gpus, pods.empty() ? "" : fmt::format("    pods: \"{}\"\n", pods));
}

// A bare Pod asking `gpus` GPUs, arriving at `arrival`, running `duration`; `extra` is added to its
// spec (tolerations, priority).
std::string pod_yaml(const std::string& name, int gpus, const std::string& arrival, const std::string& duration,
                     const std::string& extra = "") {
  return fmt::format(
      "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: {}\n  annotations:\n    gpusim.io/arrival: {}\n"
      "    gpusim.io/duration: {}\nspec:\n{}  containers:\n  - name: main\n    resources:\n      limits:\n"
      "        nvidia.com/gpu: {}\n",
      name, arrival, duration, extra, gpus);
}

// A Job of one pod (or `completions` pods, one at a time); `spec` is added to the Job's spec.
std::string job_yaml(const std::string& name, int gpus, const std::string& arrival, const std::string& duration,
                     const std::string& spec, int completions = 1, const std::string& pod_extra = "") {
  return fmt::format(
      "---\napiVersion: batch/v1\nkind: Job\nmetadata:\n  name: {}\n  annotations:\n    gpusim.io/arrival: {}\n"
      "    gpusim.io/duration: {}\nspec:\n  completions: {}\n{}  template:\n    spec:\n      restartPolicy: Never\n{}"
      "      containers:\n      - name: main\n        resources:\n          limits:\n            nvidia.com/gpu: {}\n",
      name, arrival, duration, completions, spec, pod_extra, gpus);
}

// The summary's metric of the run (the mean over its one seed).
double summary_metric(const std::string& summary, const std::string& name) {
  const std::string key = "\"" + name + "\": {\n        \"mean\": ";
  const auto at = summary.find(key);
  if (at == std::string::npos) {
    ADD_FAILURE() << name << " not in the summary";
    return -1;
  }
  return std::stod(summary.substr(at + key.size(), 32));
}

class K8sJobSpec : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = fresh_dir(::testing::UnitTest::GetInstance()->current_test_info()->name()); }

  void write(const std::string& file, const std::string& text) { std::ofstream(dir_ / file) << text; }

  // Runs nodes.yaml and pods.yaml (and kube.yaml, if written) under `policy`; pods.csv by name.
  std::map<std::string, std::map<std::string, std::string>> run(const std::string& policy = "binpack") {
    std::string args = fmt::format("run --mode replay --cluster nodes.yaml --workload pods.yaml --policy {} --out out", policy);
    if (fs::exists(dir_ / "kube.yaml")) args += " --kube kube.yaml";
    if (fs::exists(dir_ / "device-plugin.yaml")) args += " --config device-plugin.yaml";
    const CliResult result = run_gpusim(dir_, args);
    EXPECT_EQ(result.exit_code, 0) << result.err;
    err_ = result.err;
    summary_ = slurp(dir_ / "out" / "summary.json");
    return pods_by_name(dir_ / "out" / "pods.csv");
  }
  double metric(const std::string& name) const { return summary_metric(summary_, name); }

  // The XID situation of traces/examples/k8s-device-plugin-xid: 2 GPUs, GPU 1 falls off the bus at
  // 20 s, status every 60 s; `early` holds GPU 0 from 0 to 3600 s. A 1-GPU pod bound at 30 s is
  // refused (UnexpectedAdmissionError): the stale status still shows GPU 1.
  void xid_situation(const std::string& late) {
    write("nodes.yaml", node_yaml(2));
    write("kube.yaml", "kubelet: {nodeStatusUpdateFrequency: 60s}\nfailures:\n- {at: 20s, node: n1, gpu: 1, xid: 79}\n");
    write("pods.yaml", pod_yaml("early", 1, "0s", "1h") + late);
  }

  fs::path dir_;
  std::string err_, summary_;
};

// backoffLimit 0: the first failure (1 > 0) fails the Job with BackoffLimitExceeded at 30 s; the
// pod never runs and nothing replaces it. (Before, every owner used owners.backoffLimit, 6: the
// pod ran at 3600 s after 3 attempts.)
TEST_F(K8sJobSpec, BackoffLimitZeroFailsTheJobAtTheFirstFailure) {
  xid_situation(job_yaml("late", 1, "30s", "1h", "  backoffLimit: 0\n"));
  auto pods = run();
  EXPECT_EQ(pods["late-0"]["outcome"], "failed");
  EXPECT_EQ(pods["late-0"]["reason"], "UnexpectedAdmissionError");
  EXPECT_EQ(pods["late-0"]["attempts"], "1");
  EXPECT_EQ(pods["late-0"]["start_s"], "");
  EXPECT_EQ(pods["late-0"]["end_s"], "30.000000");
  EXPECT_EQ(metric("jobs_failed_backoff_limit"), 1);
  EXPECT_EQ(metric("jobs_succeeded"), 0);
  EXPECT_EQ(metric("pods_recreated"), 0);
  EXPECT_EQ(metric("pods_given_up"), 1);
}

// backoffLimit 1: refused at 30 s (1 failure, replaced after 10 s), refused again at 40 s (2 > 1):
// BackoffLimitExceeded at 40 s, 2 attempts.
TEST_F(K8sJobSpec, BackoffLimitOneAllowsOneReplacement) {
  xid_situation(job_yaml("late", 1, "30s", "1h", "  backoffLimit: 1\n"));
  auto pods = run();
  EXPECT_EQ(pods["late-0"]["attempts"], "2");
  EXPECT_EQ(pods["late-0"]["end_s"], "40.000000");
  EXPECT_EQ(metric("jobs_failed_backoff_limit"), 1);
  EXPECT_EQ(metric("pods_recreated"), 1);
}

// A bare Pod refused at admission stays Failed at 30 s: no controller owns it. (Before, it was
// recreated at 40 s and 60 s and ran at 3600 s.)
TEST_F(K8sJobSpec, BarePodIsNeverRecreated) {
  xid_situation(pod_yaml("late", 1, "30s", "1h"));
  auto pods = run();
  EXPECT_EQ(pods["late"]["outcome"], "failed");
  EXPECT_EQ(pods["late"]["reason"], "UnexpectedAdmissionError");
  EXPECT_EQ(pods["late"]["attempts"], "1");
  EXPECT_EQ(pods["late"]["end_s"], "30.000000");
  EXPECT_EQ(metric("pods_recreated"), 0);
  EXPECT_EQ(metric("pods_given_up"), 0);
  EXPECT_EQ(pods["early"]["outcome"], "completed");
}

// activeDeadlineSeconds 100 from the Job's start at 30 s: refused at 30 s and 40 s, its third pod
// (due at 60 s) waits, as the status now shows GPU 1 gone; at 130 s the Job fails with
// DeadlineExceeded and deletes it: withdrawn at 130 s after 3 attempts.
TEST_F(K8sJobSpec, DeadlineDeletesTheWaitingPod) {
  xid_situation(job_yaml("late", 1, "30s", "1h", "  activeDeadlineSeconds: 100\n"));
  auto pods = run();
  EXPECT_EQ(pods["late-0"]["outcome"], "withdrawn");
  EXPECT_EQ(pods["late-0"]["attempts"], "3");
  EXPECT_EQ(pods["late-0"]["end_s"], "130.000000");
  EXPECT_EQ(metric("jobs_failed_deadline"), 1);
}

// A running pod past the deadline is stopped: started at 0 s, deadline 600 s, so it ends at 600 s
// (failed, DeadlineExceeded) after 600 GPU-s = 0.1667 GPU-hours of its 1 h.
TEST_F(K8sJobSpec, DeadlineStopsTheRunningPod) {
  write("nodes.yaml", node_yaml(2));
  write("pods.yaml", job_yaml("long", 1, "0s", "1h", "  activeDeadlineSeconds: 600\n"));
  auto pods = run();
  EXPECT_EQ(pods["long-0"]["outcome"], "failed");
  EXPECT_EQ(pods["long-0"]["reason"], "DeadlineExceeded");
  EXPECT_EQ(pods["long-0"]["start_s"], "0.000000");
  EXPECT_EQ(pods["long-0"]["end_s"], "600.000000");
  EXPECT_NEAR(metric("gpu_hours"), 600.0 / 3600.0, 1e-6);  // the summary keeps 6 decimals
  EXPECT_EQ(metric("jobs_failed_deadline"), 1);
}

// Preemption under the `preemption` profile: `low` (priority 0, 2 GPUs, 1 h from 0 s) is evicted
// at 100 s for `high` (priority 1000, 2 GPUs, 100 s). What its Job does with the preempted pod
// (DisruptionTarget) depends on its podFailurePolicy; backoffLimit 0 throughout.
class K8sJobSpecPreempted : public K8sJobSpec {
 protected:
  std::map<std::string, std::map<std::string, std::string>> run_with(const std::string& policy_rules) {
    write("nodes.yaml", node_yaml(2));
    write("pods.yaml", job_yaml("low", 2, "0s", "1h", "  backoffLimit: 0\n" + policy_rules, 1, "      priority: 0\n") +
                           pod_yaml("high", 2, "100s", "100s", "  priority: 1000\n"));
    return run("preemption");
  }
};

// No policy: the preemption counts, 1 > 0: BackoffLimitExceeded at 100 s.
TEST_F(K8sJobSpecPreempted, WithoutAPolicyThePreemptionCounts) {
  auto pods = run_with("");
  EXPECT_EQ(pods["low-0"]["reason"], "Preempted");
  EXPECT_EQ(pods["low-0"]["end_s"], "100.000000");
  EXPECT_EQ(metric("jobs_failed_backoff_limit"), 1);
  EXPECT_EQ(pods["high"]["start_s"], "100.000000");
}

// Ignore on DisruptionTarget: not counted; the replacement comes after 10 s (110 s: the backoff
// counts ignored failures), waits for `high` to end at 200 s and runs its whole hour (no checkpoint
// in 100 s): 200 to 3800 s.
TEST_F(K8sJobSpecPreempted, IgnoreOnDisruptionReplacesThePod) {
  auto pods = run_with("  podFailurePolicy:\n    rules:\n    - action: Ignore\n      onPodConditions:\n      - type: DisruptionTarget\n");
  EXPECT_EQ(pods["low-0"]["outcome"], "completed");
  EXPECT_EQ(pods["low-0"]["attempts"], "2");
  EXPECT_EQ(pods["low-0"]["start_s"], "200.000000");
  EXPECT_EQ(pods["low-0"]["end_s"], "3800.000000");
  EXPECT_EQ(metric("jobs_succeeded"), 1);
  EXPECT_EQ(metric("jobs_failed_backoff_limit"), 0);
}

// FailJob on DisruptionTarget: the Job fails with PodFailurePolicy at 100 s.
TEST_F(K8sJobSpecPreempted, FailJobOnDisruption) {
  auto pods = run_with("  podFailurePolicy:\n    rules:\n    - action: FailJob\n      onPodConditions:\n      - type: DisruptionTarget\n");
  EXPECT_EQ(pods["low-0"]["reason"], "Preempted");
  EXPECT_EQ(metric("jobs_failed_pod_failure_policy"), 1);
  EXPECT_EQ(metric("jobs_failed_backoff_limit"), 0);
}

// An exit-code rule: GPU 0 falls off the bus at 50 s under the running pod (GpuLost, exit code 1
// in gpusim's model). `In [1]` with FailJob fails the Job at 50 s; `In [137]` (an OOM kill's) does
// not match, so the failure counts (backoffLimit 6) and the pod is replaced at 60 s on GPU 1 and
// runs 60 to 160 s.
TEST_F(K8sJobSpec, ExitCodeRules) {
  write("nodes.yaml", node_yaml(2));
  write("kube.yaml", "failures:\n- {at: 50s, node: n1, gpu: 0, xid: 79}\n");
  const std::string rule =
      "  podFailurePolicy:\n    rules:\n    - action: FailJob\n      onExitCodes:\n        operator: In\n        values: [{}]\n";
  write("pods.yaml", job_yaml("train", 1, "0s", "100s", fmt::format(fmt::runtime(rule), 1)));
  auto pods = run();
  EXPECT_EQ(pods["train-0"]["reason"], "GpuLost");
  EXPECT_EQ(pods["train-0"]["end_s"], "50.000000");
  EXPECT_EQ(metric("jobs_failed_pod_failure_policy"), 1);

  write("pods.yaml", job_yaml("train", 1, "0s", "100s", fmt::format(fmt::runtime(rule), 137)));
  fs::remove_all(dir_ / "out");
  pods = run();
  EXPECT_EQ(pods["train-0"]["outcome"], "completed");
  EXPECT_EQ(pods["train-0"]["attempts"], "2");
  EXPECT_EQ(pods["train-0"]["start_s"], "60.000000");
  EXPECT_EQ(pods["train-0"]["gpus"], "1");
  EXPECT_EQ(pods["train-0"]["end_s"], "160.000000");
  EXPECT_EQ(metric("jobs_succeeded"), 1);
}

// The backoff counts failures since the Job's last success (failuresAfterLastSuccess). One GPU,
// status every 1000 s (so the scheduler keeps binding), the plugin down 1-31 s and 130-160 s;
// Job `train`, 2 completions one at a time, 100 s each, from 5 s.
// - train-0: refused at 5 s (1 failure: +10 s), at 15 s (2: +20 s), runs 35-135 s: success.
// - train-1, created at 135 s: refused (1 since the success: +10 s), at 145 s (2: +20 s), runs
//   165-265 s. Without the reset its delays would be 40 s and 80 s: it would run from 175 s.
TEST_F(K8sJobSpec, BackoffResetsAfterASuccess) {
  write("nodes.yaml", node_yaml(1));
  write("kube.yaml",
        "kubelet: {nodeStatusUpdateFrequency: 1000s}\nfailures:\n- {at: 1s, node: n1, pluginRestart: 30s}\n"
        "- {at: 130s, node: n1, pluginRestart: 30s}\n");
  write("pods.yaml", job_yaml("train", 1, "5s", "100s", "", 2));
  auto pods = run();
  EXPECT_EQ(pods["train-0"]["attempts"], "3");
  EXPECT_EQ(pods["train-0"]["start_s"], "35.000000");
  EXPECT_EQ(pods["train-1"]["attempts"], "3");
  EXPECT_EQ(pods["train-1"]["start_s"], "165.000000");
  EXPECT_EQ(pods["train-1"]["end_s"], "265.000000");
  EXPECT_EQ(metric("jobs_succeeded"), 1);
}

// Mistakes in a Job's spec fail with file, line and field, and write nothing.
TEST_F(K8sJobSpec, SpecMistakes) {
  write("nodes.yaml", node_yaml(1));
  const auto refused = [&](const std::string& job, const std::string& expected) {
    write("pods.yaml", job);
    const CliResult result = run_gpusim(dir_, "run --mode replay --cluster nodes.yaml --workload pods.yaml --out out");
    EXPECT_NE(result.exit_code, 0);
    EXPECT_NE(result.err.find(expected), std::string::npos) << result.err;
    EXPECT_FALSE(fs::exists(dir_ / "out"));
  };
  refused(job_yaml("j", 1, "0s", "1h", "  backoffLimit: -1\n"), "pods.yaml:11: spec.backoffLimit: '-1' is out of range");
  refused(job_yaml("j", 1, "0s", "1h", "  activeDeadlineSeconds: 0\n"), "spec.activeDeadlineSeconds: '0' is out of range");
  refused(job_yaml("j", 1, "0s", "1h", "  podFailurePolicy:\n    rules:\n    - action: Restart\n      onPodConditions: []\n"),
          "spec.podFailurePolicy.rules[0].action: 'Restart' is not FailJob, Ignore or Count");
  refused(job_yaml("j", 1, "0s", "1h", "  podFailurePolicy:\n    rules:\n    - action: FailIndex\n      onPodConditions: []\n"),
          "FailIndex needs completionMode Indexed");
  refused(job_yaml("j", 1, "0s", "1h",
                   "  podFailurePolicy:\n    rules:\n    - action: Ignore\n      onExitCodes: {operator: In, values: [0]}\n"),
          "0 cannot be used with operator In");
  std::string always = job_yaml("j", 1, "0s", "1h", "");
  always.replace(always.find("restartPolicy: Never"), 20, "restartPolicy: Always");
  refused(always, "spec.template.spec.restartPolicy: 'Always': a Job's pods use Never or OnFailure");
}

// One V100 node whose Node object names no device plugin, so that the --kube file's devicePlugin
// (MPS in these tests) applies to it.
// NVIDIA's device-plugin config for MPS with 2 replicas (--kube's devicePlugin: mps beside it).
constexpr const char* kMps2 =
    "version: v1\nsharing:\n  mps:\n    resources:\n    - name: nvidia.com/gpu\n      replicas: 2\n";

std::string mps_node_yaml() {
  std::string node = node_yaml(1);
  const std::string annotation = "  annotations:\n    gpusim.io/device-plugin: device-plugin\n";
  node.replace(node.find(annotation), annotation.size(), "");
  return node;
}

// restartPolicy OnFailure: the kubelet restarts a failed container in place, in the same pod on the
// same devices, after its crash-loop back-off (kuberuntime's doBackOff: the first restart at once,
// then after 10 s, doubling, at most 300 s); the Job fails when its live pods' restarts reach
// backoffLimit (pastBackoffLimitOnFailure).
std::string on_failure(std::string job) {
  job.replace(job.find("restartPolicy: Never"), 20, "restartPolicy: OnFailure");
  return job;
}

// GPU 0 falls off the bus at 50 s under the Job's only pod (backoffLimit 3). Its container fails at
// 50 s and restarts at once (restart 1, back-off entry 10 s); CUDA finds no GPU, so it fails again
// at 50 s and waits 10 s: restart 2 at 60 s (entry 20 s), fails, restart 3 at 80 s. 3 restarts >= 3:
// BackoffLimitExceeded at 80 s, in the same pod (1 attempt, nothing recreated).
TEST_F(K8sJobSpec, OnFailureCrashLoopsOnALostGpu) {
  write("nodes.yaml", node_yaml(1));
  write("kube.yaml", "failures:\n- {at: 50s, node: n1, gpu: 0, xid: 79}\n");
  write("pods.yaml", on_failure(job_yaml("j", 1, "0s", "1h", "  backoffLimit: 3\n")));
  auto pods = run();
  EXPECT_EQ(pods["j-0"]["outcome"], "failed");
  EXPECT_EQ(pods["j-0"]["reason"], "BackoffLimitExceeded");
  EXPECT_EQ(pods["j-0"]["attempts"], "1");
  EXPECT_EQ(pods["j-0"]["start_s"], "0.000000");
  EXPECT_EQ(pods["j-0"]["end_s"], "80.000000");
  EXPECT_EQ(metric("container_restarts"), 3);
  EXPECT_EQ(metric("jobs_failed_backoff_limit"), 1);
  EXPECT_EQ(metric("pods_recreated"), 0);
}

// The GPU is repaired at 70 s: the same crash loop restarts at 50 s and 60 s, fails at 60 s (still
// lost), and restart 3 at 80 s finds it healthy. The container redoes its whole hour from 80 s: it
// succeeds at 3,680 s in its first pod, after 3 restarts (the default backoffLimit, 6, is not
// reached).
TEST_F(K8sJobSpec, OnFailureRestartsOnTheRepairedGpu) {
  write("nodes.yaml", node_yaml(1));
  write("kube.yaml", "failures:\n- {at: 50s, node: n1, gpu: 0, xid: 79}\n- {at: 70s, node: n1, gpu: 0, repaired: true}\n");
  write("pods.yaml", on_failure(job_yaml("j", 1, "0s", "1h", "")));
  auto pods = run();
  EXPECT_EQ(pods["j-0"]["outcome"], "completed");
  EXPECT_EQ(pods["j-0"]["attempts"], "1");
  EXPECT_EQ(pods["j-0"]["end_s"], "3680.000000");
  EXPECT_EQ(metric("container_restarts"), 3);
  EXPECT_EQ(metric("jobs_succeeded"), 1);
}

// The back-off starts over once a container ran more than 600 s (twice MaxContainerBackOff) since
// its entry was updated: as above until restart 3 at 80 s, then the GPU falls off again at 1,000 s
// (920 s later). The entry has lapsed, so restart 4 is at once (not after 40 s); it fails on the
// lost GPU and restart 5 follows 10 s later, at 1,010 s: 5 >= backoffLimit 5 fails the Job there.
TEST_F(K8sJobSpec, OnFailureBackOffStartsOverAfterALongRun) {
  write("nodes.yaml", node_yaml(1));
  write("kube.yaml", "failures:\n- {at: 50s, node: n1, gpu: 0, xid: 79}\n- {at: 70s, node: n1, gpu: 0, repaired: true}\n"
                     "- {at: 1000s, node: n1, gpu: 0, xid: 79}\n");
  write("pods.yaml", on_failure(job_yaml("j", 1, "0s", "1h", "  backoffLimit: 5\n")));
  auto pods = run();
  EXPECT_EQ(pods["j-0"]["reason"], "BackoffLimitExceeded");
  EXPECT_EQ(pods["j-0"]["end_s"], "1010.000000");
  EXPECT_EQ(metric("container_restarts"), 5);
}

// An MPS client that always overruns its memory limit (1/2 of the GPU x 1.5) is OOM-killed as each
// container starts. Restarts at 0, 10, 30, 70, 150, 310 s (back-off 10, 20, 40, 80, 160 s, then
// capped at 300 s), 610 and 910 s: the 8th restart reaches backoffLimit 8 at 910 s.
TEST_F(K8sJobSpec, OnFailureBackOffDoublesToFiveMinutes) {
  write("kube.yaml",
        "gpuMemory: {overrunFactor: 1.5, overrunPods: [j-0]}\n"
        "devicePlugin: {model: mps}\n");
  write("nodes.yaml", mps_node_yaml());
  write("device-plugin.yaml", kMps2);
  write("pods.yaml", on_failure(job_yaml("j", 1, "0s", "1h", "  backoffLimit: 8\n")));
  auto pods = run();
  EXPECT_EQ(pods["j-0"]["reason"], "BackoffLimitExceeded");
  EXPECT_EQ(pods["j-0"]["end_s"], "910.000000");
  EXPECT_EQ(metric("container_restarts"), 8);
  EXPECT_EQ(metric("oom_kills"), 9);
}

// An MPS node (1 GPU, 2 replicas) whose clients always overrun their memory limit (1/2 x 2.5): the
// Job's two pods run in parallel and are OOM-killed as each container starts. Both restart at 0 s
// (restarts 1 and 2), at 10 s (3, 4) and at 30 s (5, 6: both timers are due at once); the 5th
// reaches backoffLimit 5, and the Job stops both pods at 30 s. 4 kills each.
TEST_F(K8sJobSpec, OnFailureParallelPodsEndWithTheirJob) {
  write("kube.yaml", "gpuMemory: {overrunFactor: 2.5, overrunPods: [j-0, j-1]}\ndevicePlugin: {model: mps}\n");
  write("nodes.yaml", mps_node_yaml());
  write("device-plugin.yaml", kMps2);
  write("pods.yaml", on_failure(job_yaml("j", 1, "0s", "1000s", "  backoffLimit: 5\n  parallelism: 2\n", 2)));
  auto pods = run();
  for (const char* name : {"j-0", "j-1"}) {
    EXPECT_EQ(pods[name]["reason"], "BackoffLimitExceeded") << name;
    EXPECT_EQ(pods[name]["end_s"], "30.000000") << name;
  }
  EXPECT_EQ(metric("container_restarts"), 6);
  EXPECT_EQ(metric("oom_kills"), 8);
  EXPECT_EQ(metric("overrunning_pods"), 2);
}

// With backoffLimit 0 the same Job fails at 0 s at j-0's first restart, while the scheduler's
// binding of j-1 is on its way: the API server refuses it (the pod was deleted), so j-1 never runs
// and ends withdrawn. (Before, the binding revived j-1, which crash-looped for ever: the run never
// ended.)
TEST_F(K8sJobSpec, APodDeletedWhileItsBindingIsOnItsWayNeverRuns) {
  write("kube.yaml", "gpuMemory: {overrunFactor: 2.5, overrunPods: [j-0, j-1]}\ndevicePlugin: {model: mps}\n");
  write("nodes.yaml", mps_node_yaml());
  write("device-plugin.yaml", kMps2);
  write("pods.yaml", on_failure(job_yaml("j", 1, "0s", "1000s", "  backoffLimit: 0\n  parallelism: 2\n", 2)));
  auto pods = run();
  EXPECT_EQ(pods["j-0"]["reason"], "BackoffLimitExceeded");
  EXPECT_EQ(pods["j-0"]["end_s"], "0.000000");
  EXPECT_EQ(pods["j-1"]["outcome"], "withdrawn");
  EXPECT_EQ(pods["j-1"]["start_s"], "");
  EXPECT_EQ(metric("container_restarts"), 1);
}

// A container waiting out its OOM back-off finds its GPU lost when it restarts: MPS, j-0 always
// overruns. OOM-killed at 0 s, restart 1 at once, killed again; the GPU falls off the bus at 5 s;
// restart 2 at 10 s fails as it starts (GpuLost: no work lost, no OOM), restart 3 at 30 s too, and
// 3 >= backoffLimit 3 fails the Job at 30 s. 2 OOM kills.
TEST_F(K8sJobSpec, OnFailureRestartFindsItsGpuLost) {
  write("kube.yaml", "gpuMemory: {overrunFactor: 2.5, overrunPods: [j-0]}\ndevicePlugin: {model: mps}\n"
                     "failures:\n- {at: 5s, node: n1, gpu: 0, xid: 79}\n");
  write("nodes.yaml", mps_node_yaml());
  write("device-plugin.yaml", kMps2);
  write("pods.yaml", on_failure(job_yaml("j", 1, "0s", "1000s", "  backoffLimit: 3\n")));
  auto pods = run();
  EXPECT_EQ(pods["j-0"]["reason"], "BackoffLimitExceeded");
  EXPECT_EQ(pods["j-0"]["end_s"], "30.000000");
  EXPECT_EQ(metric("oom_kills"), 2);
  EXPECT_EQ(metric("pods_lost_to_gpu_failures"), 0);
  EXPECT_EQ(metric("container_restarts"), 3);
}

// Preemption after an in-place restart keeps only the work since the restart. `low` (3,600 s,
// OnFailure) runs from 0 s; its GPU falls off the bus at 1,000 s (1,000 GPU-s lost) and is repaired
// at 1,005 s: restart 1 at 1,000 s fails on the lost GPU, restart 2 at 1,010 s runs the whole
// 3,600 s again. `high` (priority 1000) preempts it at 2,000 s: 990 s since the restart, 600 kept at
// the checkpoint (every 600 s), 390 GPU-s lost. high runs 2,000-2,100 s; low's replacement runs the
// 3,000 s left, 2,100-5,100 s.
TEST_F(K8sJobSpec, OnFailurePreemptionAfterARestartKeepsTheRestartsWork) {
  write("nodes.yaml", node_yaml(1));
  write("kube.yaml", "failures:\n- {at: 1000s, node: n1, gpu: 0, xid: 79}\n- {at: 1005s, node: n1, gpu: 0, repaired: true}\n");
  write("pods.yaml", on_failure(job_yaml("low", 1, "0s", "3600s", "  backoffLimit: 10\n", 1, "      priority: 0\n")) +
                         pod_yaml("high", 1, "2000s", "100s", "  priority: 1000\n"));
  auto pods = run("preemption");
  EXPECT_EQ(pods["low-0"]["start_s"], "2100.000000");
  EXPECT_EQ(pods["low-0"]["end_s"], "5100.000000");
  EXPECT_EQ(pods["low-0"]["attempts"], "2");
  EXPECT_NEAR(metric("gpu_hours_lost_to_preemption"), 390.0 / 3600, 1e-6);
  EXPECT_NEAR(metric("gpu_hours_lost_to_failures"), 1000.0 / 3600, 1e-6);
  EXPECT_EQ(metric("pods_lost_to_gpu_failures"), 1);
  EXPECT_EQ(metric("container_restarts"), 2);
}

// A GPU lost before the containers start (containerStartLatency 20 s): the Job's pod is admitted at
// 1,000 s, its GPU falls off the bus at 1,010 s and is never repaired. Its container fails as it
// starts at 1,020 s (no work lost) and crash-loops: restarts at 1,020, 1,030, 1,050, 1,090, 1,170,
// 1,330, 1,630, 1,930, 2,230 and 2,530 s (10, 20, ... 160 s, then 300 s); the 10th reaches
// backoffLimit 10 at 2,530 s.
TEST_F(K8sJobSpec, OnFailureGpuLostBeforeTheContainersStart) {
  write("nodes.yaml", node_yaml(1));
  write("kube.yaml", "kubelet: {containerStartLatency: 20s}\nfailures:\n- {at: 1010s, node: n1, gpu: 0, xid: 79}\n");
  write("pods.yaml", on_failure(job_yaml("j", 1, "1000s", "100s", "  backoffLimit: 10\n")));
  auto pods = run();
  EXPECT_EQ(pods["j-0"]["start_s"], "1020.000000");
  EXPECT_EQ(pods["j-0"]["end_s"], "2530.000000");
  EXPECT_EQ(pods["j-0"]["reason"], "BackoffLimitExceeded");
  EXPECT_EQ(metric("container_restarts"), 10);
  EXPECT_EQ(metric("gpu_hours_lost_to_failures"), 0);
  EXPECT_EQ(metric("pods_lost_to_gpu_failures"), 0);
}

// SRTF waits for a victim's first checkpoint counted from its container's last start: `low`
// (3,600 s, OnFailure) loses its GPU at 100 s (repaired at 105 s) and restarts at 100 s (fails on the
// lost GPU) and 110 s. `high` (100 s) arrives at 200 s and preempts low at 710 s, 600 s after the
// restart (without the XID: at 600 s); low's replacement resumes at 810 s with 3,000 s left.
TEST_F(K8sJobSpec, OnFailureSrtfWaitsForTheRestartedContainersCheckpoint) {
  write("nodes.yaml", node_yaml(1));
  write("kube.yaml", "failures:\n- {at: 100s, node: n1, gpu: 0, xid: 79}\n- {at: 105s, node: n1, gpu: 0, repaired: true}\n");
  write("pods.yaml", on_failure(job_yaml("low", 1, "0s", "3600s", "  backoffLimit: 10\n")) + pod_yaml("high", 1, "200s", "100s"));
  auto pods = run("srtf");
  EXPECT_EQ(pods["high"]["start_s"], "710.000000");
  EXPECT_EQ(pods["low-0"]["start_s"], "810.000000");
  EXPECT_EQ(pods["low-0"]["end_s"], "3810.000000");
}

// With restartPolicy Never the same lost GPU fails the pod; the Job replaces it after 10 s, and the
// replacement, refused at admission (the stale status still shows the GPU), counts too.
TEST_F(K8sJobSpec, NeverReplacesThePodInstead) {
  write("nodes.yaml", node_yaml(1));
  write("kube.yaml", "failures:\n- {at: 50s, node: n1, gpu: 0, xid: 79}\n");
  write("pods.yaml", job_yaml("j", 1, "0s", "1h", "  backoffLimit: 0\n"));
  auto pods = run();
  EXPECT_EQ(pods["j-0"]["reason"], "GpuLost");
  EXPECT_EQ(pods["j-0"]["end_s"], "50.000000");
  EXPECT_EQ(metric("container_restarts"), 0);
}

// The taint manager takes, for each NoExecute taint, the first toleration that matches it, and
// the least tolerationSeconds over those (Kubernetes' GetMatchingTolerations and
// getMinTolerationTime). The node is lost at 100 s and tainted unreachable at 150 s (grace 50 s).
class K8sTolerations : public K8sJobSpec {
 protected:
  std::map<std::string, std::map<std::string, std::string>> lost_node(const std::string& taint,
                                                                       const std::string& tolerations) {
    write("nodes.yaml", node_yaml(1, taint));
    write("kube.yaml", "nodeEvents:\n- {at: 100s, node: n1, event: lost}\n");
    write("pods.yaml", pod_yaml("p", 1, "0s", "1h", "  tolerations:\n" + tolerations));
    return run();
  }
};

// Two tolerations match the unreachable taint: the first (600 s) decides, not the smaller (60 s):
// evicted at 150 + 600 = 750 s.
TEST_F(K8sTolerations, TheFirstMatchingTolerationDecides) {
  auto pods = lost_node("", "  - {key: node.kubernetes.io/unreachable, operator: Exists, effect: NoExecute, tolerationSeconds: 600}\n"
                            "  - {operator: Exists, effect: NoExecute, tolerationSeconds: 60}\n");
  EXPECT_EQ(pods["p"]["reason"], "Evicted");
  EXPECT_EQ(pods["p"]["end_s"], "750.000000");
}

// The node's own NoExecute taint is tolerated for 1000 s: the taint manager schedules the pod's
// eviction at its binding, for 0 + 1000 s. When the unreachable taint comes at 150 s, Kubernetes'
// processPodOnNode keeps that scheduled eviction as it is (the least toleration over both taints,
// counted from its start, would trigger earlier, and then it returns without a change:
// kubernetes#108982), whether the unreachable toleration is 600 s or 60 s: evicted at 1000 s.
TEST_F(K8sTolerations, AnEvictionAlreadyScheduledIsKept) {
  const std::string own = "{key: dedicated, value: gpu, effect: NoExecute}";
  const std::string tolerate_own =
      "  - {key: dedicated, operator: Equal, value: gpu, effect: NoExecute, tolerationSeconds: 1000}\n";
  for (const char* seconds : {"600", "60"}) {
    fs::remove_all(dir_ / "out");
    auto pods = lost_node(own, tolerate_own + "  - {key: node.kubernetes.io/unreachable, operator: Exists, effect: NoExecute, "
                                              "tolerationSeconds: " + seconds + "}\n");
    EXPECT_EQ(pods["p"]["reason"], "Evicted") << seconds;
    EXPECT_EQ(pods["p"]["end_s"], "1000.000000") << seconds;
  }
}

// Without a taint of the node's own, the unreachable toleration counts from the taint at 150 s;
// one beyond the simulated time range (10^14 s) is as good as for ever: the pod is still held when
// the run ends (it used to overflow into an internal error).
TEST_F(K8sTolerations, AHugeTolerationIsForEver) {
  auto pods = lost_node("", "  - {key: node.kubernetes.io/unreachable, operator: Exists, effect: NoExecute, "
                            "tolerationSeconds: 100000000000000}\n");
  EXPECT_EQ(pods["p"]["outcome"], "held-at-end");
}

// A NoExecute taint of a healthy node tolerated for 10 s evicts a pod whose binding takes 20 s to
// reach its kubelet (bindLatency): still bound, not admitted, it ends at 10 s and never runs.
TEST_F(K8sTolerations, ABoundPodIsEvictedBeforeItsKubeletAdmitsIt) {
  write("nodes.yaml", node_yaml(1, "{key: dedicated, value: gpu, effect: NoExecute}"));
  write("kube.yaml", "kubelet: {bindLatency: 20s}\n");
  write("pods.yaml", pod_yaml("p", 1, "0s", "100s",
                              "  tolerations:\n  - {key: dedicated, operator: Equal, value: gpu, effect: NoExecute, "
                              "tolerationSeconds: 10}\n"));
  auto pods = run();
  EXPECT_EQ(pods["p"]["reason"], "Evicted");
  EXPECT_EQ(pods["p"]["end_s"], "10.000000");
  EXPECT_EQ(pods["p"]["start_s"], "");
}

// On a healthy node, a NoExecute taint tolerated for 1000 s evicts the pod 1000 s after its
// binding; as a bare Pod it is not recreated.
TEST_F(K8sTolerations, AHealthyNodesTaintEvictsWhenItsTolerationRunsOut) {
  write("nodes.yaml", node_yaml(1, "{key: dedicated, value: gpu, effect: NoExecute}"));
  write("pods.yaml", pod_yaml("p", 1, "0s", "1h",
                              "  tolerations:\n  - {key: dedicated, operator: Equal, value: gpu, effect: NoExecute, "
                              "tolerationSeconds: 1000}\n"));
  auto pods = run();
  EXPECT_EQ(pods["p"]["reason"], "Evicted");
  EXPECT_EQ(pods["p"]["start_s"], "0.000000");
  EXPECT_EQ(pods["p"]["end_s"], "1000.000000");
  EXPECT_EQ(pods["p"]["attempts"], "1");
}

// A pod with no toleration of its own gets the admission plugin's 300 s: evicted at 450 s.
TEST_F(K8sTolerations, DefaultTolerationSeconds) {
  auto pods = lost_node("", "  - {key: other, operator: Exists, effect: NoSchedule}\n");
  EXPECT_EQ(pods["p"]["end_s"], "450.000000");
}

// status.allocatable.pods is enforced: with `pods: "2"`, three 1-GPU pods arriving at 0 s for
// 100 s on 4 GPUs run two at a time: the third waits until 100 s ("too many pods"), ends at 200 s.
// (Before, all three ran at 0 s.) A node without the figure gets the kubelet's 110, noted.
TEST_F(K8sJobSpec, NodePodCountIsEnforced) {
  write("nodes.yaml", node_yaml(4, "", "n1", "2"));
  write("pods.yaml", pod_yaml("a", 1, "0s", "100s") + pod_yaml("b", 1, "0s", "100s") + pod_yaml("c", 1, "0s", "100s"));
  auto pods = run();
  EXPECT_EQ(pods["a"]["start_s"], "0.000000");
  EXPECT_EQ(pods["b"]["start_s"], "0.000000");
  EXPECT_EQ(pods["c"]["start_s"], "100.000000");
  EXPECT_EQ(pods["c"]["end_s"], "200.000000");
  EXPECT_EQ(err_.find("without status.allocatable.pods"), std::string::npos) << err_;

  write("nodes.yaml", node_yaml(4));
  fs::remove_all(dir_ / "out");
  pods = run();
  EXPECT_EQ(pods["c"]["start_s"], "0.000000");
  EXPECT_NE(err_.find("1 node without status.allocatable.pods: 110 pods at most (the kubelet's default maxPods)"),
            std::string::npos)
      << err_;
}

// A node lost at 100 s that never recovers, and a pod on it that tolerates the unreachable taint
// for ever: it is still held when the run ends at 1000 s (the end of `other` on n2, a Job whose
// deadline, far later, is dropped when it completes and lengthens nothing). Outcome
// held-at-end, no end, counted, and its GPU time 0..1000 s: 1000/3600 = 0.277778 GPU-hours, out of
// 2000/3600 = 0.555556 in all with `other`'s. (Before: outcome `scheduled`, end 0, not counted.)
TEST_F(K8sJobSpec, PodsHeldAtTheEndAreCounted) {
  write("nodes.yaml", node_yaml(1, "", "n1") + node_yaml(1, "", "n2"));
  write("kube.yaml", "nodeEvents:\n- {at: 100s, node: n1, event: lost}\n");
  write("pods.yaml", pod_yaml("stuck", 1, "0s", "1h",
                              "  nodeSelector: {pool: n1}\n  tolerations:\n  - {key: node.kubernetes.io/unreachable, "
                              "operator: Exists, effect: NoExecute}\n") +
                         job_yaml("other", 1, "0s", "1000s", "  activeDeadlineSeconds: 100000\n", 1,
                                  "      nodeSelector: {pool: n2}\n"));
  auto pods = run();
  EXPECT_EQ(pods["stuck"]["outcome"], "held-at-end");
  EXPECT_EQ(pods["stuck"]["start_s"], "0.000000");
  EXPECT_EQ(pods["stuck"]["end_s"], "");
  EXPECT_EQ(pods["stuck"]["node"], "n1");
  EXPECT_EQ(pods["other-0"]["end_s"], "1000.000000");
  EXPECT_EQ(metric("held_at_end_pods"), 1);
  EXPECT_NEAR(metric("held_at_end_gpu_hours"), 1000.0 / 3600.0, 1e-6);
  EXPECT_NEAR(metric("gpu_hours"), 2000.0 / 3600.0, 1e-6);
}

// Under strict FIFO, a 4-GPU pod on a 2-GPU cluster is marked unschedulable when it arrives and
// blocks nothing: `small` (1 GPU, 10 s, 100 s) runs 10..110 s. (Before, `small` waited for ever
// behind it and both ended `pending` without a word.)
TEST_F(K8sJobSpec, APodLargerThanAnyNodeBlocksNothing) {
  write("nodes.yaml", node_yaml(2));
  write("pods.yaml", pod_yaml("big", 4, "0s", "100s") + pod_yaml("small", 1, "10s", "100s"));
  auto pods = run("fifo");
  EXPECT_EQ(pods["big"]["outcome"], "unschedulable");
  // kube-scheduler's FitError says why (sim/sched/fit_error.hpp).
  EXPECT_EQ(pods["big"]["reason"], "0/1 nodes are available: 1 Insufficient nvidia.com/gpu.");
  EXPECT_EQ(pods["big"]["start_s"], "");
  EXPECT_EQ(pods["small"]["start_s"], "10.000000");
  EXPECT_EQ(pods["small"]["end_s"], "110.000000");
  EXPECT_EQ(metric("unschedulable_pods"), 1);
  EXPECT_EQ(metric("unscheduled_pods"), 0);
}

// Jobs under a time-sharing policy: a round's end suspends a pod (reason Suspended), which is the
// scheduler's own lease, not a failure: nothing counts against backoffLimit (0 here) and the pod
// comes back after the base 10 s. maxmin, rounds of 360 s, two 2 h Jobs on one GPU: they take
// turns, A in rounds 0, 2, ..., 38 (ends 39 x 360 = 14040 s), B in rounds 1, ..., 39 (14400 s).
// (Counted as preemptions, both Jobs failed with BackoffLimitExceeded.)
TEST_F(K8sJobSpec, RoundSuspensionsAreNoFailures) {
  write("nodes.yaml", node_yaml(1));
  write("pods.yaml", job_yaml("a", 1, "0s", "2h", "  backoffLimit: 0\n") + job_yaml("b", 1, "0s", "2h", "  backoffLimit: 0\n"));
  auto pods = run("maxmin");
  EXPECT_EQ(pods["a-0"]["end_s"], "14040.000000");
  EXPECT_EQ(pods["b-0"]["end_s"], "14400.000000");
  EXPECT_EQ(pods["a-0"]["attempts"], "20");
  EXPECT_EQ(metric("jobs_succeeded"), 2);
  EXPECT_EQ(metric("jobs_failed_backoff_limit"), 0);
}

// The node's pod count takes part in the victim search, as NodeResourcesFit does in Kubernetes'
// selectVictimsOnNode: a node of 2 GPUs allowing 1 pod runs `low` (priority 0); `high` (priority
// 100, 1 GPU) at 100 s needs its pod slot, so `low` is preempted and `high` runs at 100 s. (The
// free GPU made the node look as if it needed no victim: `high` waited until 3600 s.)
TEST_F(K8sJobSpec, PreemptionFreesAPodSlot) {
  write("nodes.yaml", node_yaml(2, "", "n1", "1"));
  write("pods.yaml", pod_yaml("low", 1, "0s", "1h", "  priority: 0\n") + pod_yaml("high", 1, "100s", "100s", "  priority: 100\n"));
  auto pods = run("preemption");
  EXPECT_EQ(pods["low"]["reason"], "Preempted");
  EXPECT_EQ(pods["low"]["end_s"], "100.000000");
  EXPECT_EQ(pods["high"]["start_s"], "100.000000");
}

// GPU memory per device from the node: a gpushare node advertising 28 GiB over 2 T4s has 14 GiB
// per GPU, as gpushare's extender divides it. Two pods asking 8 GiB each cannot share a GPU (16 >
// 14): the second goes to GPU 1. (With the catalog's 16 GiB per T4, both went to GPU 0.)
TEST_F(K8sJobSpec, GpushareSizesGpusFromTheNode) {
  write("nodes.yaml", "kind: Node\nmetadata:\n  name: share-0\n  labels: {nvidia.com/gpu.product: Tesla-T4}\nstatus:\n"
                      "  capacity: {cpu: \"32\", memory: 128Gi, aliyun.com/gpu-count: \"2\", aliyun.com/gpu-mem: \"28\"}\n");
  std::string pods;
  for (const char* name : {"a", "b"}) {
    pods += fmt::format("---\nkind: Pod\nmetadata:\n  name: {}\n  annotations: {{gpusim.io/arrival: 0s, gpusim.io/duration: 1h}}\n"
                        "spec:\n  containers:\n  - name: main\n    resources:\n      limits: {{aliyun.com/gpu-mem: \"8\"}}\n",
                        name);
  }
  write("pods.yaml", pods);
  auto rows = run();
  EXPECT_EQ(rows["a"]["gpus"], "0");
  EXPECT_EQ(rows["b"]["gpus"], "1");
  EXPECT_NE(err_.find("node share-0: 14336 MiB per GPU from aliyun.com/gpu-mem / aliyun.com/gpu-count (the catalog's t4 "
                      "has 16384 MiB)"),
            std::string::npos)
      << err_;
}

}  // namespace
}  // namespace gpusim::testing
