// NVIDIA vGPU through the binary, as a user runs traces/vgpu/: KubeVirt VMIs and a pod asking the
// vGPU resource on an A100 80GB cut by the vGPU Device Manager's config, and the mistakes people
// make (a misspelt scheduler, a config that asks more vGPUs than the GPU has, no config at all),
// each refused naming its file, line and field, with nothing written.
#include <gtest/gtest.h>
#include <fmt/format.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/cli/run_gpusim.hpp"

namespace gpusim::testing {
namespace {

namespace fs = std::filesystem;

const fs::path kSource = fs::path(GPUSIM_SOURCE_DIR);
const fs::path kVgpu = kSource / "traces/vgpu";

std::string vm_run(const fs::path& dir) {
  std::ofstream(dir / "nodes.csv") << "sn,cpu_milli,memory_mib,gpu,model\nvm-host-0,96000,786432,1,a100-sxm4-80gb\n";
  return fmt::format("run --mode replay --cluster {} --workload {} --policy binpack", (dir / "nodes.csv").string(),
                     (kVgpu / "vms.yaml").string());
}

TEST(VgpuCli, VmsAndAPodShareAGpuUnderEqualShare) {
  const fs::path dir = fresh_dir("vgpu-vms");
  const CliResult r = run_gpusim(dir, fmt::format("{} --kube {} --config {} --out out", vm_run(dir), (kVgpu / "equal-share.yaml").string(),
                                                  (kVgpu / "vgpu-configs.yaml").string()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Worked by hand (60 s boots; 4 vGPUs powered on from 60 s, each 1/4; 3 once the pod ends, then 2):
  // the pod's 300 s take 1200 s from 90 s; VM 1 has done 307.5 s by 1290 s and its last 292.5 s
  // take 877.5 s at 1/3; the training VM's two vGPUs end at 3397.5 s.
  const std::string pods = slurp(dir / "out/pods.csv");
  EXPECT_NE(pods.find("inference-vm-1,4000,16384,1,1000,0.000000,60.000000,2167.500000,completed"), std::string::npos) << pods;
  EXPECT_NE(pods.find("training-vm,0,32768,2,1000,60.000000,120.000000,3397.500000,completed"), std::string::npos) << pods;
  EXPECT_NE(pods.find("vgpu-pod,0,0,1,1000,30.000000,90.000000,1290.000000,completed"), std::string::npos) << pods;
}

TEST(VgpuCli, MistakesAreRefusedAtTheirLineWithNothingWritten) {
  const fs::path dir = fresh_dir("vgpu-mistakes");
  const std::string run = vm_run(dir);
  std::ofstream(dir / "bad-kube.yaml") << "devicePlugin:\n  model: kubevirt-vgpu\n  vgpu: {scheduler: equal}\n";
  const CliResult scheduler = run_gpusim(dir, fmt::format("{} --kube {} --config {} --out out", run, (dir / "bad-kube.yaml").string(),
                                                          (kVgpu / "vgpu-configs.yaml").string()));
  EXPECT_EQ(scheduler.exit_code, 1);
  EXPECT_NE(scheduler.err.find("bad-kube.yaml:3: devicePlugin.vgpu.scheduler: 'equal': expected best-effort, equal-share or "
                               "fixed-share"), std::string::npos) << scheduler.err;
  std::ofstream(dir / "too-many.yaml") << "version: v1\nvgpu-configs:\n  A100DX-20C:\n    - devices: all\n"
                                          "      vgpu-devices: {\"A100DX-20C\": 6}\n";
  const CliResult many = run_gpusim(dir, fmt::format("{} --kube {} --config {} --out out", run, (kVgpu / "equal-share.yaml").string(),
                                                     (dir / "too-many.yaml").string()));
  EXPECT_EQ(many.exit_code, 1);
  EXPECT_NE(many.err.find("too-many.yaml:4: vgpu-configs.A100DX-20C[0]: failed to create 6 A100DX-20C vGPU devices on GPU (index=0)"),
            std::string::npos) << many.err;
  const CliResult none = run_gpusim(dir, fmt::format("{} --kube {} --out out", run, (kVgpu / "equal-share.yaml").string()));
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_NE(none.err.find("no vGPU Device Manager config says its vGPUs"), std::string::npos) << none.err;
  EXPECT_FALSE(fs::exists(dir / "out"));
}

}  // namespace
}  // namespace gpusim::testing
