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

TEST(VgpuCli, TimeSlicedMigBackedVgpuOnTheBundledBlackwellFiles) {
  // One RTX PRO 6000 Blackwell host, DC-2-24C (two per 2g.48gb instance, 92 of 188 SMs), fixed
  // share: each vGPU gets half its instance, 46 / 188 of the GPU. The pod asks a whole GPU as one
  // vGPU (demand 1): its 300 s take 300 x 188 / 46 = 1226.087 s after its 60 s boot.
  const fs::path dir = fresh_dir("vgpu-blackwell");
  const fs::path blackwell = kVgpu / "blackwell";
  std::ofstream(dir / "nodes.csv") << "sn,cpu_milli,memory_mib,gpu,model\nbw-0,96000,786432,1,rtx-pro-6000-blackwell-server\n";
  std::ofstream(dir / "pods.csv")
      << "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n"
         "vm-0,1000,1024,1,1000,,,Succeeded,0,300,0\n";
  const std::string run = fmt::format("run --mode replay --cluster {} --workload {} --policy binpack --config {}",
                                      (dir / "nodes.csv").string(), (dir / "pods.csv").string(),
                                      (blackwell / "vgpu-configs.yaml").string());
  const CliResult ok = run_gpusim(dir, fmt::format("{} --kube {} --out out", run, (blackwell / "mig-time-sliced-fixed-share.yaml").string()));
  ASSERT_EQ(ok.exit_code, 0) << ok.err;
  const std::string pods = slurp(dir / "out/pods.csv");
  EXPECT_NE(pods.find(",60.000000,1286.086957,completed"), std::string::npos) << pods;
  // Without the GPU's MIG time-slicing mode the driver hides DC-2-24C: refused, nothing written.
  std::ofstream(dir / "off.yaml") << "pools:\n  - name: vgpu\n    devicePlugin: kubevirt-vgpu\n"
                                     "    labels: {nvidia.com/vgpu.config: DC-2-24C}\n    vgpu: {migTimeSlicing: false}\n";
  const CliResult off = run_gpusim(dir, fmt::format("{} --kube {} --out out2", run, (dir / "off.yaml").string()));
  EXPECT_EQ(off.exit_code, 1);
  EXPECT_NE(off.err.find("vgpu-configs.yaml:15: vgpu-configs.DC-2-24C[0]: vGPU type DC-2-24C is not supported on GPU (index=0)"),
            std::string::npos) << off.err;
  std::ofstream(dir / "typo.yaml") << "pools:\n  - name: vgpu\n    devicePlugin: kubevirt-vgpu\n    vgpu: {migTimeSlicing: yes please}\n";
  const CliResult typo = run_gpusim(dir, fmt::format("{} --kube {} --out out2", run, (dir / "typo.yaml").string()));
  EXPECT_EQ(typo.exit_code, 1);
  EXPECT_NE(typo.err.find("typo.yaml:4: pools[0].vgpu.migTimeSlicing"), std::string::npos) << typo.err;
  EXPECT_FALSE(fs::exists(dir / "out2"));
}

}  // namespace
}  // namespace gpusim::testing
