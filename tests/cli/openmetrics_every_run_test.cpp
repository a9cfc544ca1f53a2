// `gpusim export openmetrics` on every kind of run gpusim makes: fill, replay, each device-plugin
// model, Kubernetes manifests, Philly and DLRM. Each run is made from one directory with relative
// input paths and exported from another, with nothing but its output directory; the real promtool
// loads every exposition.
#include <gtest/gtest.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <sstream>

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
    if (fs::exists(dir_ / example / "hami-pool.yaml")) args += fmt::format(" --kube ../{}/hami-pool.yaml", example);
    for (const char* config : {"device-plugin.yaml", "mig-parted.yaml", "hami-values.yaml"}) {
      if (fs::exists(dir_ / example / config)) args += fmt::format(" --config ../{}/{}", example, config);
    }
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
  fs::copy(kSource / "traces" / "sharing", dir_ / "sharing", fs::copy_options::recursive);
  // Each variant's files, as scripts/sharing_settings.sh gives them.
  const std::pair<const char*, const char*> variants[] = {
      {"time-slicing-2", "--kube ../sharing/whole-gpu.yaml --config ../sharing/time-slicing-2.device-plugin.yaml"},
      {"mps-2", "--kube ../sharing/whole-gpu.yaml --config ../sharing/mps-2.device-plugin.yaml"},
      {"mig-single-3g", "--kube ../sharing/mig-single-3g-labels.yaml --config ../sharing/mig-single.device-plugin.yaml "
                        "--config ../sharing/mig.mig-parted.yaml"},
      {"mig-dynamic", "--kube ../sharing/mig-dynamic.yaml"},
      {"whole-gpu", "--kube ../sharing/whole-gpu.yaml"},
      {"gpushare", "--kube ../sharing/gpushare.yaml"},
      {"hami-vgpu", "--kube ../sharing/hami-vgpu.yaml"}};
  for (const auto& [plugin, files] : variants) {
    const std::string om = run_and_export(
        fmt::format("run --mode replay --cluster ../nodes.csv --workload ../pods.csv {} --policy binpack", files), plugin,
        "--step 600");
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

namespace gpusim::testing {
namespace {

// The export's gpusim_allocated_gpus at every whole-second sample against the run's own
// timeseries.csv (the state after the last event at or before the sample).
int allocation_mismatches(const std::string& om, const fs::path& run_dir) {
  std::istringstream in(slurp(run_dir / "timeseries.csv"));
  std::string line;
  std::getline(in, line);
  std::vector<std::pair<double, double>> series;  // time, GPUs allocated
  while (std::getline(in, line)) {
    const auto comma = line.find(',');
    const auto second = line.find(',', comma + 1);
    const auto third = line.find(',', second + 1);
    series.emplace_back(std::stod(line.substr(0, comma)), std::stod(line.substr(second + 1, third - second - 1)) / 1000);
  }
  int mismatches = 0, samples = 0;
  std::istringstream lines(om);
  while (std::getline(lines, line)) {
    if (!line.starts_with("gpusim_allocated_gpus ")) continue;
    const auto space = line.rfind(' ');
    const std::string stamp = line.substr(space + 1);
    if (stamp.find('.') != std::string::npos) continue;  // the run's last moment: events at that instant
    const double t = std::stod(stamp) - 1767225600, value = std::stod(line.substr(22, space - 22));
    const auto after = std::upper_bound(series.begin(), series.end(), t, [](double x, const auto& p) { return x < p.first; });
    if (after == series.begin()) continue;
    ++samples;
    mismatches += std::abs(std::prev(after)->second - value) > 1e-6;
  }
  EXPECT_GT(samples, 100);
  return mismatches;
}

// SRTF preempts: a row's pods run several times. pods.csv has the last run only; earlier-runs.csv
// the others, so the export's allocation is the run's own at every sample (a longer Philly run
// differed at 289 of 4,407 samples when the export knew only the last run). Philly's first 1,000
// jobs on 64 GPUs: 242 earlier runs.
TEST_F(ExportEveryRun, PreemptedPodsCountEveryRun) {
  copy_head(kSource / "traces" / "data" / "philly" / "philly.csv", dir_ / "philly-1k.csv", 1000);
  std::ofstream cluster(dir_ / "c8.csv");
  cluster << "sn,cpu_milli,memory_mib,gpu,model\n";
  for (int n = 0; n < 8; ++n) cluster << "n" << n << ",64000,262144,8,V100M32\n";
  cluster.close();
  const std::string om = run_and_export("run --cluster ../c8.csv --workload ../philly-1k.csv --mode replay --policy srtf --quiet",
                                        "srtf", "--step 3600");
  ASSERT_TRUE(fs::exists(dir_ / "work" / "srtf" / "earlier-runs.csv"));
  EXPECT_GT(std::ranges::count(slurp(dir_ / "work" / "srtf" / "earlier-runs.csv"), '\n'), 100);
  EXPECT_EQ(allocation_mismatches(om, dir_ / "work" / "srtf"), 0);
}

// Damaged outputs are errors naming file, line and field, never a crash or a made-up value.
TEST_F(ExportEveryRun, DamagedOutputsAreClearErrors) {
  std::ofstream(dir_ / "work" / "c.csv") << "sn,cpu_milli,memory_mib,gpu,model\nn0,32000,131072,2,V100M32\n";
  std::ofstream(dir_ / "work" / "p.csv") << "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n"
                                            "a,1000,1024,1,1000,,LS,Succeeded,0,3600,0\n";
  ASSERT_EQ(run_gpusim(dir_ / "work", "run --mode replay --cluster c.csv --workload p.csv --out r").exit_code, 0);
  const auto damaged = [&](const std::string& file, const std::string& from, const std::string& to) {
    fs::remove_all(dir_ / "work" / "d");
    fs::copy(dir_ / "work" / "r", dir_ / "work" / "d", fs::copy_options::recursive);
    std::string text = slurp(dir_ / "work" / "d" / file);
    const auto at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    text.replace(at, from.size(), to);
    std::ofstream(dir_ / "work" / "d" / file) << text;
    const CliResult result = run_gpusim(dir_ / "work", "export openmetrics d --step 600");
    EXPECT_EQ(result.exit_code, 1) << file << ": " << result.out.substr(0, 200);
    return result.err;
  };
  EXPECT_NE(damaged("nodes.csv", "n0,v100-sxm2-32gb,Tesla V100-SXM2-32GB,2,2,", "n0,v100-sxm2-32gb,Tesla V100-SXM2-32GB,0,2,")
                .find("d/nodes.csv:2: devices: 2 on a node without GPUs"),
            std::string::npos);
  EXPECT_NE(damaged("pods.csv", ",3600.000000,completed", ",1e300,completed").find("d/pods.csv:2: end_s: '1e300' is not a number"),
            std::string::npos);
  EXPECT_NE(damaged("pods.csv", ",3600.000000,completed", ",inf,completed").find("d/pods.csv:2: end_s: 'inf' is not a number"),
            std::string::npos);
  EXPECT_NE(damaged("pods.csv", ",0.000000,3600.000000,completed", ",7200.000000,3600.000000,completed").find("end_s: 3600 is before start_s 7200"),
            std::string::npos);
  EXPECT_NE(damaged("pods.csv", ",completed,n0,0,", ",completed,n0,0-,").find("gpus: '0-' is not a list of device indices"), std::string::npos);
  // A short row: gpusim report said nothing and crashed on it; now every reader refuses it.
  const std::string err = damaged("pods.csv", ",completed,n0,0,", "\n");
  EXPECT_NE(err.find("d/pods.csv:2: expected 18 fields, found"), std::string::npos) << err;
  const CliResult report = run_gpusim(dir_ / "work", "report d");
  EXPECT_EQ(report.exit_code, 1);
  EXPECT_NE(report.err.find("pods.csv:2: expected 18 fields"), std::string::npos) << report.err;
}

// A replay pod that failed without running is Pending until it failed, not Failed from its arrival
// (that is fill's rule: dropped on arrival).
TEST_F(ExportEveryRun, AReplayPodFailsWhenItFails) {
  std::ofstream(dir_ / "work" / "c.csv") << "sn,cpu_milli,memory_mib,gpu,model\nn0,32000,131072,1,V100M32\n";
  std::ofstream(dir_ / "work" / "p.csv") << "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n"
                                            "a,1000,1024,1,1000,,LS,Succeeded,0,3600,0\nb,1000,1024,1,1000,,LS,Pending,600,1800,\n";
  const std::string om = run_and_export("run --mode replay --cluster c.csv --workload p.csv --policy binpack", "r", "--step 600");
  EXPECT_TRUE(has_line(om, fmt::format("gpusim_pods{{phase=\"Pending\"}} 1 {}", at(1200)))) << om.substr(0, 500);
  EXPECT_TRUE(has_line(om, fmt::format("gpusim_pods{{phase=\"Failed\"}} 0 {}", at(1200))));
}

// A fill whose curve has no point near its target draws its plot without the inset (gnuplot
// failed on the empty inset), and pod names that need quoting are quoted in pods.csv.
TEST_F(ExportEveryRun, SmallFillsAndOddNames) {
  std::ofstream(dir_ / "work" / "c.csv") << "sn,cpu_milli,memory_mib,gpu,model\nn0,32000,131072,2,V100M32\nn1,32000,131072,2,V100M32\n";
  std::ofstream(dir_ / "work" / "small.jsonl") << "{\"format\":\"gpusim-trace\",\"version\":1,\"timed\":false}\n"
                                                  "{\"name\":\"x\",\"cpu_milli\":1000,\"gpus\":1}\n{\"name\":\"y\",\"cpu_milli\":1000,\"gpus\":1}\n";
  const CliResult fill = run_gpusim(dir_ / "work", "run --mode fill --order as-listed --cluster c.csv --workload small.jsonl --policy fgd --out f");
  EXPECT_EQ(fill.exit_code, 0) << fill.err;
  EXPECT_EQ(fill.err.find("plots"), std::string::npos) << fill.err;
  EXPECT_TRUE(fs::exists(dir_ / "work" / "f" / "plots" / "allocation.svg"));
  std::ofstream(dir_ / "work" / "odd.jsonl")
      << "{\"format\":\"gpusim-trace\",\"version\":1,\"timed\":true}\n"
         "{\"name\":\"a,b\",\"cpu_milli\":1000,\"gpus\":1,\"created_us\":0,\"deleted_us\":1000000000,\"duration_us\":1000000000}\n"
         "{\"name\":\"q\\\"x\",\"cpu_milli\":1000,\"gpus\":1,\"created_us\":0,\"deleted_us\":1000000000,\"duration_us\":1000000000}\n";
  const std::string om = run_and_export("run --mode replay --cluster c.csv --workload odd.jsonl --policy binpack", "odd", "--step 600");
  const std::string pods = slurp(dir_ / "work" / "odd" / "pods.csv");
  EXPECT_NE(pods.find("\n0,\"a,b\",1000,"), std::string::npos) << pods;
  EXPECT_NE(pods.find("\n1,\"q\"\"x\",1000,"), std::string::npos) << pods;
  EXPECT_TRUE(has_line(om, fmt::format("gpusim_pods{{phase=\"Running\"}} 2 {}", at(600))));
}

}  // namespace
}  // namespace gpusim::testing
