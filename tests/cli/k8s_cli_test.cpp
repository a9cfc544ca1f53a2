// The Kubernetes layer through the binary: the seed situations of traces/examples/ with their
// expected outcomes (each example's README works them out), and the --kube option's mistakes.
#include <gtest/gtest.h>
#include <fmt/format.h>

#include <fstream>
#include <map>

#include "tests/cli/policy_files.hpp"
#include "tests/cli/run_gpusim.hpp"

namespace gpusim::testing {
namespace {

namespace fs = std::filesystem;

const fs::path kExamples = fs::path(GPUSIM_SOURCE_DIR) / "traces" / "examples";

// NVIDIA's device-plugin config with time-slicing (and --kube's devicePlugin: device-plugin beside it).
void write_time_slicing(const fs::path& dir, int replicas, bool packed) {
  std::ofstream(dir / "kube.yaml") << "devicePlugin: {model: device-plugin}\n";
  std::ofstream(dir / "ts.yaml") << fmt::format(
      "version: v1\nflags:\n  plugin: {{sharedDevicesAllocationPolicy: {}}}\nsharing:\n  timeSlicing:\n    resources:\n"
      "    - name: nvidia.com/gpu\n      replicas: {}\n", packed ? "packed" : "distributed", replicas);
}

class K8sExamples : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = fresh_dir(::testing::UnitTest::GetInstance()->current_test_info()->name()); }
  // Runs an example with binpack; returns its pods.csv rows.
  std::map<std::string, std::map<std::string, std::string>> run(const std::string& example) {
    const fs::path ex = kExamples / example;
    std::string args = fmt::format("run --mode replay --cluster {} --workload {} --policy binpack --out out",
                                   (ex / "nodes.yaml").string(), (ex / "pods.yaml").string());
    if (fs::exists(ex / "kube.yaml")) args += " --kube " + (ex / "kube.yaml").string();
    if (fs::exists(ex / "hami-pool.yaml")) args += " --kube " + (ex / "hami-pool.yaml").string();
    for (const char* config : {"device-plugin.yaml", "mig-parted.yaml", "hami-values.yaml"}) {
      if (fs::exists(ex / config)) args += " --config " + (ex / config).string();
    }
    const CliResult result = run_gpusim(dir_, args);
    EXPECT_EQ(result.exit_code, 0) << result.err;
    return pods_by_name(dir_ / "out" / "pods.csv");
  }
  fs::path dir_;
};

TEST_F(K8sExamples, Alpha13OneGpuTheFirst) {
  auto pods = run("k8s-1.3-one-gpu");
  EXPECT_EQ(pods["first-gpu"]["gpus"], "0");
  EXPECT_EQ(pods["first-gpu"]["start_s"], "0.000000");
  EXPECT_EQ(pods["second-gpu"]["gpus"], "0");
  EXPECT_EQ(pods["second-gpu"]["start_s"], "3600.000000");
  EXPECT_EQ(pods["two-gpus"]["outcome"], "pending");
}

TEST_F(K8sExamples, Accelerators16TwoContainersGetFiveDistinctGpus) {
  auto pods = run("k8s-1.6-two-containers");
  EXPECT_EQ(pods["two-container-pod"]["gpus"], "0-1-2-3-4");
  EXPECT_EQ(pods["two-container-pod"]["containers"], "0-1|2-3-4");
}

TEST_F(K8sExamples, GpuTypeAffinityKeepsPodsOffTheV100Node) {
  auto pods = run("k8s-1.6-gpu-type-affinity");
  ASSERT_EQ(pods.size(), 2U);
  for (auto& [name, row] : pods) {
    EXPECT_EQ(row["outcome"], "completed") << name;
    EXPECT_TRUE(row["node"] == "node-k80" || row["node"] == "node-p100") << name << " ran on " << row["node"];
  }
}

TEST_F(K8sExamples, XidWithStaleStatusFailsAdmissionTwice) {
  auto pods = run("k8s-device-plugin-xid");
  EXPECT_EQ(pods["early"]["gpus"], "0");
  EXPECT_EQ(pods["late-0"]["attempts"], "3");
  EXPECT_EQ(pods["late-0"]["start_s"], "3600.000000");
  EXPECT_EQ(pods["late-0"]["gpus"], "0");
  const std::string summary = slurp(dir_ / "out" / "summary.json");
  EXPECT_NE(summary.find("\"admission_failures\": {\n        \"mean\": 2.0"), std::string::npos) << summary.substr(0, 2000);
}

TEST_F(K8sExamples, PlainManifestsRunWithStatedDefaults) {
  const fs::path ex = kExamples / "plain";
  const CliResult result = run_gpusim(dir_, fmt::format("run --mode replay --cluster {} --workload {} --policy binpack --out out",
                                                        (ex / "nodes.yaml").string(), (ex / "pods.yaml").string()));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.err.find("gpusim: note:"), std::string::npos);
  EXPECT_NE(result.err.find("gpusim.io/duration"), std::string::npos) << result.err;
  for (auto& [name, row] : pods_by_name(dir_ / "out" / "pods.csv")) EXPECT_EQ(row["outcome"], "completed") << name;
}

TEST_F(K8sExamples, KubeOptionMistakes) {
  const fs::path ex = kExamples / "k8s-device-plugin-xid";
  const std::string base = fmt::format("--cluster {} --workload {} --policy binpack", (ex / "nodes.yaml").string(),
                                       (ex / "pods.yaml").string());
  // Not for fill mode.
  CliResult result = run_gpusim(dir_, fmt::format("run --mode fill {} --kube {} --out a", base, (ex / "kube.yaml").string()));
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("--kube applies to --mode replay only"), std::string::npos) << result.err;
  // A missing file.
  result = run_gpusim(dir_, fmt::format("run --mode replay {} --kube nope.yaml --out b", base));
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.err.find("nope.yaml"), std::string::npos) << result.err;
  EXPECT_FALSE(fs::exists(dir_ / "b"));
  // A misspelt field: file, line and field.
  std::ofstream(dir_ / "bad.yaml") << "kubelet:\n  nodeStatusPeriod: 10s\n";
  result = run_gpusim(dir_, fmt::format("run --mode replay {} --kube bad.yaml --out c", base));
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.err.find("bad.yaml:2: kubelet.nodeStatusPeriod: unknown field"), std::string::npos) << result.err;
  EXPECT_FALSE(fs::exists(dir_ / "c"));
  // An unknown topology lists the known ones.
  std::ofstream(dir_ / "topo.yaml") << "devicePlugin: {topology: dgx2}\n";
  result = run_gpusim(dir_, fmt::format("run --mode replay {} --kube topo.yaml --out d", base));
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.err.find("unknown topology 'dgx2' (known: dgx1-v100"), std::string::npos) << result.err;
  // A topology whose GPU count does not match the node.
  std::ofstream(dir_ / "count.yaml") << "devicePlugin: {topology: dgx1-v100}\n";
  result = run_gpusim(dir_, fmt::format("run --mode replay {} --kube count.yaml --out e", base));
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.err.find("of 8 GPUs, but the node has 2"), std::string::npos) << result.err;
}

// A profile without node-affinity would place pods where Kubernetes never would: refused.
TEST_F(K8sExamples, ProfileWithoutAffinityFilterIsRefusedForRuledPods) {
  std::ofstream(dir_ / "bare.yaml") << gpusim::testing::placement_policy("bare", "{name: most-allocated}");
  const fs::path ex = kExamples / "k8s-1.6-gpu-type-affinity";
  const CliResult result = run_gpusim(dir_, fmt::format("run --mode replay --cluster {} --workload {} --policy bare.yaml --out out",
                                                        (ex / "nodes.yaml").string(), (ex / "pods.yaml").string()));
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.err.find("add the node-affinity filter"), std::string::npos) << result.err;
}

// Sharing through the binary: a time-sliced node, its report's shared-GPU table, and the
// mistakes people make in the sharing settings (file:line: field: reason, exit 1, no output).
TEST_F(K8sExamples, TimeSlicingThroughTheBinary) {
  std::ofstream(dir_ / "nodes.csv") << "sn,cpu_milli,memory_mib,gpu,model\nts-0,32000,262144,1,V100M32\n";
  std::ofstream(dir_ / "pods.csv")
      << "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n"
         "a,1000,1024,1,1000,,,Succeeded,0,100,0\nb,1000,1024,1,1000,,,Succeeded,50,150,50\n";
  write_time_slicing(dir_, 2, false);
  const CliResult ok = run_gpusim(dir_, "run --mode replay --cluster nodes.csv --workload pods.csv --kube kube.yaml "
                                        "--config ts.yaml --policy binpack --out out");
  ASSERT_EQ(ok.exit_code, 0) << ok.err;
  auto pods = pods_by_name(dir_ / "out" / "pods.csv");
  EXPECT_EQ(pods["a"]["end_s"], "150.000000");  // half speed from 50 s, as the scenario tests work out
  EXPECT_EQ(pods["b"]["end_s"], "200.000000");
  const std::string report = slurp(dir_ / "out" / "report.md");
  EXPECT_NE(report.find("Shared GPUs"), std::string::npos);
  EXPECT_NE(report.find("| binpack | 100.00 | 100.00 | 1.50 | 1.50 |"), std::string::npos) << report;

  std::ofstream(dir_ / "bad.yaml") << "devicePlugin:\n  model: time-slicing\n  sharing: {replicas: 2, allocationPolicy: spread}\n";
  const CliResult bad = run_gpusim(dir_, "run --mode replay --cluster nodes.csv --workload pods.csv --kube bad.yaml "
                                         "--policy binpack --out out2");
  EXPECT_EQ(bad.exit_code, 1);
  // gpusim's own sharing keys are retired: the message gives the device-plugin config's lines.
  EXPECT_NE(bad.err.find("bad.yaml:3: devicePlugin.sharing.replicas: gone from --kube: NVIDIA's device-plugin config gives "
                         "it"), std::string::npos) << bad.err;
  EXPECT_NE(bad.err.find("    plugin: {sharedDevicesAllocationPolicy: spread}\n"), std::string::npos) << bad.err;
  EXPECT_NE(bad.err.find("        replicas: 2\n"), std::string::npos) << bad.err;
  EXPECT_FALSE(fs::exists(dir_ / "out2"));
  // A time-slicing node without the config that says its replicas.
  std::ofstream(dir_ / "alone.yaml") << "devicePlugin: {model: time-slicing}\n";
  const CliResult alone = run_gpusim(dir_, "run --mode replay --cluster nodes.csv --workload pods.csv --kube alone.yaml "
                                           "--policy binpack --out out3");
  EXPECT_EQ(alone.exit_code, 1);
  EXPECT_NE(alone.err.find("node ts-0: devicePlugin time-slicing (from the defaults), but no device-plugin config says its "
                           "replicas"), std::string::npos) << alone.err;
  // ... or with a config that gives it no sharing: whole GPUs would be a silent guess.
  std::ofstream(dir_ / "plain.yaml") << "version: v1\nflags: {migStrategy: none}\n";
  const CliResult plain = run_gpusim(dir_, "run --mode replay --cluster nodes.csv --workload pods.csv --kube alone.yaml "
                                           "--config plain.yaml --policy binpack --out out3");
  EXPECT_EQ(plain.exit_code, 1);
  EXPECT_NE(plain.err.find("node ts-0: devicePlugin time-slicing (from the --kube devicePlugin), but the device-plugin config plain.yaml "
                           "makes it device-plugin"), std::string::npos) << plain.err;
  std::ofstream(dir_ / "many.yaml") << "version: v1\nsharing:\n  timeSlicing:\n    resources:\n    - {name: nvidia.com/gpu, replicas: 129}\n";
  EXPECT_EQ(run_gpusim(dir_, "run --mode replay --cluster nodes.csv --workload pods.csv --kube kube.yaml --config many.yaml "
                             "--policy binpack --out out3").exit_code, 1);
  std::ofstream(dir_ / "unknown.yaml") << "gpuMemory: {overrunPods: [zz]}\ndevicePlugin: {model: gpushare}\n";
  const CliResult unknown = run_gpusim(dir_, "run --mode replay --cluster nodes.csv --workload pods.csv --kube unknown.yaml "
                                             "--policy binpack --out out4");
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_NE(unknown.err.find("no pod named 'zz'"), std::string::npos) << unknown.err;
  EXPECT_FALSE(fs::exists(dir_ / "out4"));
}

// A pod holding 2 of the 4 time-slicing replicas of one GPU (packed) is one container on one
// device: one share of the GPU's time. With `b` (1 replica) beside it from 0 s, each runs at half
// speed: both 100 s pods end at 200 s. (Counted as 2 processes, `a` had 2 shares of 3 and ran at its
// slowest, 1/3, as did `b`: both ended at 300 s.)
TEST_F(K8sExamples, TimeSlicedReplicasOfOneGpuAreOneShare) {
  std::ofstream(dir_ / "nodes.csv") << "sn,cpu_milli,memory_mib,gpu,model\nts-0,32000,262144,1,V100M32\n";
  std::ofstream(dir_ / "pods.csv")
      << "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n"
         "a,1000,1024,2,1000,,,Succeeded,0,100,0\nb,1000,1024,1,1000,,,Succeeded,0,100,0\n";
  write_time_slicing(dir_, 4, true);
  const CliResult ok = run_gpusim(dir_, "run --mode replay --cluster nodes.csv --workload pods.csv --kube kube.yaml "
                                        "--config ts.yaml --policy binpack --out out");
  ASSERT_EQ(ok.exit_code, 0) << ok.err;
  auto pods = pods_by_name(dir_ / "out" / "pods.csv");
  EXPECT_EQ(pods["a"]["gpus"], "0-1");  // two replicas of GPU 0
  EXPECT_EQ(pods["a"]["end_s"], "200.000000");
  EXPECT_EQ(pods["b"]["end_s"], "200.000000");
}

// NVIDIA's own time-slicing example: replicas 10 on an 8-GPU node, 80 devices (more than the 64
// gpusim allowed before issue 28). 81 one-replica pods of 100 s arrive at 0 and are bound in name
// order, p00 to p80. The distributed policy spreads them: pod k gets GPU k mod 8, its replica k div
// 8, so device 10 (k mod 8) + k div 8; the 80th, p79, gets device 79. Each GPU time-slices 10 pods,
// so each runs at 1/10: all 80 end at 1000 s. p80 waits for a device, and at 1000 s, alone on GPU
// 0, runs 1000-1100 s.
TEST_F(K8sExamples, TimeSlicingTenReplicasOnEightGpus) {
  std::ofstream(dir_ / "nodes.csv") << "sn,cpu_milli,memory_mib,gpu,model\nts-0,256000,1048576,8,V100M32\n";
  {
    std::ofstream pods(dir_ / "pods.csv");
    pods << "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n";
    for (int k = 0; k <= 80; ++k) pods << fmt::format("p{:02},1000,1024,1,1000,,,Succeeded,0,100,0\n", k);
  }
  write_time_slicing(dir_, 10, false);
  const CliResult ok = run_gpusim(dir_, "run --mode replay --cluster nodes.csv --workload pods.csv --kube kube.yaml "
                                        "--config ts.yaml --policy binpack --out out");
  ASSERT_EQ(ok.exit_code, 0) << ok.err;
  auto pods = pods_by_name(dir_ / "out" / "pods.csv");
  EXPECT_EQ(pods["p00"]["gpus"], "0");
  EXPECT_EQ(pods["p07"]["gpus"], "70");
  EXPECT_EQ(pods["p08"]["gpus"], "1");
  EXPECT_EQ(pods["p79"]["gpus"], "79");
  for (int k = 0; k < 80; ++k) EXPECT_EQ(pods[fmt::format("p{:02}", k)]["end_s"], "1000.000000") << k;
  EXPECT_EQ(pods["p80"]["start_s"], "1000.000000");
  EXPECT_EQ(pods["p80"]["gpus"], "0");
  EXPECT_EQ(pods["p80"]["end_s"], "1100.000000");
}

// traces/examples/k8s-sharing-asks: the notebooks' 6 and 10 GiB fill GPU 0 of the T4 node (16 GiB
// each, binpacked); the vGPUs (8000 MiB of 24576 = 325 milli; 50 % = 500) share GPU 0 of the A10
// node under HAMi's binpack; the plain nvidia.com/gpu trainer can only use the HAMi node, GPU 1.
TEST_F(K8sExamples, SharingPluginAsksThroughTheBinary) {
  auto pods = run("k8s-sharing-asks");
  EXPECT_EQ(pods["notebook-a"]["node"], "share-0");
  EXPECT_EQ(pods["notebook-a"]["gpu_milli"], "375");
  EXPECT_EQ(pods["notebook-b"]["gpus"], "0");
  EXPECT_EQ(pods["notebook-b"]["gpu_milli"], "625");
  EXPECT_EQ(pods["notebook-b"]["end_s"], "7260.000000");  // 375 + 625: no slowdown
  EXPECT_EQ(pods["inference-a"]["node"], "vgpu-0");
  EXPECT_EQ(pods["inference-a"]["gpu_milli"], "325");
  EXPECT_EQ(pods["inference-b"]["gpus"], "0");
  EXPECT_EQ(pods["trainer"]["node"], "vgpu-0");
  EXPECT_EQ(pods["trainer"]["gpus"], "1");
}

// traces/examples/k8s-mig-profiles: two 1g.10gb instances per GPU (devices 2, 3 and 6, 7) serve
// eight 1g trials four at a time; the 3g pod gets GPU 0's 3g instance (device 0).
TEST_F(K8sExamples, MigProfilesThroughTheBinary) {
  auto pods = run("k8s-mig-profiles");
  EXPECT_EQ(pods["sweep-0"]["gpus"], "2");
  EXPECT_EQ(pods["sweep-3"]["gpus"], "7");
  EXPECT_EQ(pods["sweep-4"]["start_s"], "1800.000000");
  EXPECT_EQ(pods["finetune"]["gpus"], "0");
  EXPECT_EQ(pods["finetune"]["end_s"], "7260.000000");
}

}  // namespace
}  // namespace gpusim::testing
