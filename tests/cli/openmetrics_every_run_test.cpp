// `gpusim export openmetrics` on every kind of run gpusim makes: fill, replay, each device-plugin
// model, Kubernetes manifests, Philly and DLRM. Each run is made from one directory with relative
// input paths and exported from another, with nothing but its output directory; the real promtool
// loads every exposition.
#include <gtest/gtest.h>
#include <fmt/format.h>

#include "tests/cli/run_gpusim.hpp"

namespace gpusim::testing {
namespace {

namespace fs = std::filesystem;

const fs::path kSource = fs::path(GPUSIM_SOURCE_DIR);

bool has_line(const std::string& text, const std::string& line) { return text.find("\n" + line + "\n") != std::string::npos; }

std::string at(int seconds) { return std::to_string(1767225600 + seconds); }

class ExportEveryRun : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(std::system("command -v promtool > /dev/null"), 0) << "promtool (Debian's prometheus package) is required: scripts/setup.sh installs it";
    dir_ = fresh_dir(::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_ / "work");
    fs::create_directories(dir_ / "elsewhere");
  }
  // Runs `args` in work/ (inputs by paths relative to it), then exports work/<out> from elsewhere/
  // and loads the exposition into a Prometheus TSDB. Returns the exposition ("" on failure).
  std::string run_and_export(const std::string& args, const std::string& out, const std::string& export_args) {
    const CliResult run = run_gpusim(dir_ / "work", args + " --out " + out);
    EXPECT_EQ(run.exit_code, 0) << args << "\n" << run.err;
    const CliResult exported = run_gpusim(dir_ / "elsewhere", fmt::format("export openmetrics ../work/{} {}", out, export_args));
    EXPECT_EQ(exported.exit_code, 0) << out << ": " << exported.err;
    notes_ = exported.err;
    if (exported.exit_code != 0) return "";
    std::ofstream(dir_ / "elsewhere" / (out + ".om")) << exported.out;
    const std::string promtool = fmt::format("cd '{}' && promtool tsdb create-blocks-from openmetrics {}.om {}-blocks > {}.log 2>&1",
                                             (dir_ / "elsewhere").string(), out, out, out);
    EXPECT_EQ(std::system(promtool.c_str()), 0) << out << ": " << slurp(dir_ / "elsewhere" / (out + ".log"));
    return exported.out;
  }
  void copy_example(const std::string& name) {
    fs::copy(kSource / "traces" / "examples" / name, dir_ / name, fs::copy_options::recursive);
  }
  fs::path dir_;
  std::string notes_;  // the export's stderr
};

TEST_F(ExportEveryRun, FillAndReplayOfTheBundledTrace) {
  const std::string fill = run_and_export("compare --policies fgd --seeds 1 --mode fill", "fill", "--step 3600");
  EXPECT_NE(fill.find("\ngpusim_fragmented_gpus "), std::string::npos);
  const std::string replay = run_and_export("run --mode replay --time-compression 100000 --policy bestfit", "replay", "--step 2592000");
  EXPECT_NE(replay.find("\ngpusim_fragmented_gpus "), std::string::npos);
  EXPECT_NE(replay.find("DCGM_FI_DEV_GPU_UTIL{gpu=\"0\",Hostname=\"openb-node-0000\""), std::string::npos);
  EXPECT_EQ(notes_, "");
}

// Every Kubernetes example: Node and Pod manifests (alpha-1.3, accelerators-1.6, the device plugin
// with XID errors, MIG mixed, HAMi and gpushare asks), read by relative paths from another directory.
TEST_F(ExportEveryRun, EveryKubernetesExample) {
  for (const char* example : {"plain", "k8s-1.3-one-gpu", "k8s-1.6-gpu-type-affinity", "k8s-1.6-two-containers",
                              "k8s-device-plugin-xid", "k8s-mig-profiles", "k8s-sharing-asks"}) {
    copy_example(example);
    std::string args = fmt::format("run --mode replay --cluster ../{0}/nodes.yaml --workload ../{0}/pods.yaml --policy binpack", example);
    if (fs::exists(dir_ / example / "kube.yaml")) args += fmt::format(" --kube ../{}/kube.yaml", example);
    const std::string om = run_and_export(args, example, "--step 600");
    EXPECT_TRUE(om.ends_with("# EOF\n")) << example;
  }
  // plain: DCGM's own label names, the Node's name as Hostname and the driver's device name.
  const std::string plain = slurp(dir_ / "elsewhere" / "plain.om");
  EXPECT_NE(plain.find("DCGM_FI_DEV_GPU_UTIL{gpu=\"3\",Hostname=\"gpu-worker-0\",modelName=\"NVIDIA A100-SXM4-40GB\"}"),
            std::string::npos);
  // k8s-mig-profiles: the 1g.10gb trials on devices 2, 3 (GPU 0) and 6, 7 (GPU 1) hold 1/7 of a
  // GPU's SMs each (142 milli), the 3g.40gb pod on device 0 from 60 s holds 3/7 (428): at 600 s
  // GPU 0 is 71.2 % allocated and GPU 1 28.4 %; the node advertises 8 instances.
  const std::string mig = slurp(dir_ / "elsewhere" / "k8s-mig-profiles.om");
  const std::string a100 = "Hostname=\"a100-0\",modelName=\"NVIDIA A100-SXM4-80GB\"";
  EXPECT_TRUE(has_line(mig, fmt::format("DCGM_FI_DEV_GPU_UTIL{{gpu=\"0\",{}}} 28.4 {}", a100, at(0)))) << mig.substr(0, 2000);
  EXPECT_TRUE(has_line(mig, fmt::format("DCGM_FI_DEV_GPU_UTIL{{gpu=\"0\",{}}} 71.2 {}", a100, at(600))));
  EXPECT_TRUE(has_line(mig, fmt::format("DCGM_FI_DEV_GPU_UTIL{{gpu=\"1\",{}}} 28.4 {}", a100, at(600))));
  EXPECT_TRUE(has_line(mig, fmt::format("kube_node_status_allocatable{{node=\"a100-0\",resource=\"nvidia_com_gpu\",unit=\"integer\"}} 8 {}", at(0))));
  EXPECT_EQ(mig.find("gpusim_fragmented_gpus"), std::string::npos) << "undefined on MIG instances";
}

// The sharing device plugins on a node list: time-slicing and MPS replicas, MIG single and dynamic.
// n1 has 2 A100 80GB GPUs. Pods a and b ask a whole GPU, c half of one, all for an hour from 0.
TEST_F(ExportEveryRun, EverySharingDevicePlugin) {
  std::ofstream(dir_ / "nodes.csv") << "sn,cpu_milli,memory_mib,gpu,model\nn1,64000,262144,2,a100-sxm4-80gb\n";
  std::ofstream(dir_ / "pods.csv") << "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n"
                                      "a,1000,1024,1,1000,,LS,Succeeded,0,3600,0\nb,1000,1024,1,1000,,LS,Succeeded,0,3600,0\n"
                                      "c,1000,1024,1,500,,LS,Succeeded,0,3600,0\n";
  for (const char* plugin : {"time-slicing-2", "mps-2", "mig-single-3g", "mig-dynamic", "whole-gpu", "gpushare", "hami-vgpu"}) {
    fs::copy(kSource / "traces" / "sharing" / (std::string(plugin) + ".yaml"), dir_ / (std::string(plugin) + ".yaml"));
    const std::string om = run_and_export(
        fmt::format("run --mode replay --cluster ../nodes.csv --workload ../pods.csv --kube ../{}.yaml --policy binpack", plugin),
        plugin, "--step 600");
    EXPECT_TRUE(om.ends_with("# EOF\n")) << plugin;
  }
  // time-slicing, 2 replicas a GPU (4 devices), the plugin's distributed choice: a on GPU 0, b on
  // GPU 1, c on GPU 0. a and c ask 1.5 GPUs of GPU 0: it is fully allocated, as is GPU 1.
  const std::string sliced = slurp(dir_ / "elsewhere" / "time-slicing-2.om");
  const std::string n1 = "Hostname=\"n1\",modelName=\"NVIDIA A100-SXM4-80GB\"";
  EXPECT_TRUE(has_line(sliced, fmt::format("DCGM_FI_DEV_GPU_UTIL{{gpu=\"0\",{}}} 100 {}", n1, at(600))));
  EXPECT_TRUE(has_line(sliced, fmt::format("DCGM_FI_DEV_GPU_UTIL{{gpu=\"1\",{}}} 100 {}", n1, at(600))));
  EXPECT_TRUE(has_line(sliced, fmt::format("kube_node_status_allocatable{{node=\"n1\",resource=\"nvidia_com_gpu\",unit=\"integer\"}} 4 {}", at(0))));
  EXPECT_TRUE(has_line(sliced, fmt::format("gpusim_allocated_gpus 2 {}", at(600))));
  // MIG single, 3g.40gb x 2 per GPU: each pod holds one instance, 3/7 of a GPU's SMs (428 milli),
  // whatever it asked: two on GPU 0 (85.6 %), one on GPU 1.
  const std::string mig = slurp(dir_ / "elsewhere" / "mig-single-3g.om");
  EXPECT_TRUE(has_line(mig, fmt::format("DCGM_FI_DEV_GPU_UTIL{{gpu=\"0\",{}}} 85.6 {}", n1, at(600)))) << mig.substr(0, 3000);
  EXPECT_TRUE(has_line(mig, fmt::format("DCGM_FI_DEV_GPU_UTIL{{gpu=\"1\",{}}} 42.8 {}", n1, at(600))));
}

// Philly's job log on its Philly-like cluster: the fragmentation series comes from the run's own
// typical pods (it was dropped with a note that read like a parse error).
TEST_F(ExportEveryRun, PhillyAndDlrm) {
  const std::string philly = run_and_export("run --workload philly --mode replay --policy fifo", "philly", "--step 2592000");
  EXPECT_NE(philly.find("\ngpusim_fragmented_gpus "), std::string::npos);
  EXPECT_EQ(notes_, "");
  const std::string dlrm = run_and_export("run --workload dlrm --mode replay --policy kube-default", "dlrm", "--step 2592000");
  EXPECT_NE(dlrm.find("\ngpusim_allocated_gpus "), std::string::npos);
}

}  // namespace
}  // namespace gpusim::testing
