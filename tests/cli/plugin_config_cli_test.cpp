// --config through the binary: the examples and the sharing variants run from the plugins' own
// files give the same pods as their older --kube-only forms, and --config's mistakes are refused.
#include <gtest/gtest.h>
#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "tests/cli/run_gpusim.hpp"

namespace gpusim::testing {
namespace {

namespace fs = std::filesystem;

const fs::path kSource = fs::path(GPUSIM_SOURCE_DIR);

std::string slurp(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

class PluginConfigCli : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = fresh_dir(::testing::UnitTest::GetInstance()->current_test_info()->name()); }
  // pods.csv of a run with `settings` (--kube and --config options), or "" with the error in `err`.
  std::string pods(const std::string& common, const std::string& settings, const std::string& out) {
    const CliResult result = run_gpusim(dir_, fmt::format("{} {} --out {}", common, settings, out));
    EXPECT_EQ(result.exit_code, 0) << settings << ": " << result.err;
    return slurp(dir_ / out / "pods.csv");
  }
  fs::path dir_;
};

// Each pair: the older --kube file, and the real files that replace it (scripts/sharing_settings.sh),
// on the synthetic topology cluster's first jobs (whole-GPU and multi-GPU pods).
TEST_F(PluginConfigCli, RealFilesGiveTheOlderKubeFilesPods) {
  const fs::path sharing = kSource / "traces" / "sharing";
  const std::string common = fmt::format(
      "run --mode replay --cluster {} --workload {} --policy binpack --seed 42",
      (kSource / "traces" / "sharing" / "openb-eighth-cluster.csv").string(), (kSource / "traces" / "synthetic" / "topology-jobs.csv").string());
  const auto s = [&](const char* file) { return (sharing / file).string(); };
  const std::vector<std::pair<std::string, std::string>> pairs = {
      {"--kube " + s("time-slicing-2.yaml"), "--kube " + s("whole-gpu.yaml") + " --config " + s("time-slicing-2.device-plugin.yaml")},
      {"--kube " + s("time-slicing-2-packed.yaml"),
       "--kube " + s("device-plugin.yaml") + " --config " + s("time-slicing-2-packed.device-plugin.yaml")},
      {"--kube " + s("mps-4.yaml"), "--kube " + s("whole-gpu.yaml") + " --config " + s("mps-4.device-plugin.yaml")},
      {"--kube " + s("hami-vgpu-binpack.yaml"), "--kube " + s("hami-vgpu.yaml") + " --config " + s("hami-vgpu-binpack.hami-values.yaml")},
  };
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    const std::string old_pods = pods(common, pairs[i].first, fmt::format("old-{}", i));
    EXPECT_FALSE(old_pods.empty());
    EXPECT_EQ(old_pods, pods(common, pairs[i].second, fmt::format("new-{}", i))) << pairs[i].second;
  }
  // summary.json names the files and what they hold unmodelled.
  const std::string summary = slurp(dir_ / "new-0" / "summary.json");
  EXPECT_NE(summary.find("\"configs\""), std::string::npos);
  EXPECT_NE(summary.find("time-slicing-2.device-plugin.yaml"), std::string::npos);
}

TEST_F(PluginConfigCli, MistakesAreRefused) {
  const std::string common = fmt::format("run --mode replay --cluster {} --workload {} --policy binpack --out out",
                                         (kSource / "traces" / "sharing" / "openb-eighth-cluster.csv").string(),
                                         (kSource / "traces" / "synthetic" / "topology-jobs.csv").string());
  const fs::path kube = kSource / "traces" / "sharing" / "whole-gpu.yaml";
  // A --kube file is no plugin configuration.
  CliResult r = run_gpusim(dir_, common + " --config " + kube.string());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("whole-gpu.yaml: not a configuration gpusim reads"), std::string::npos) << r.err;
  // Two device-plugin configs: the plugin reads one.
  const std::string ts = (kSource / "traces" / "sharing" / "time-slicing-2.device-plugin.yaml").string();
  r = run_gpusim(dir_, common + " --kube " + kube.string() + " --config " + ts + " --config " + ts);
  EXPECT_NE(r.err.find("a second NVIDIA device-plugin config"), std::string::npos) << r.err;
  // Fill mode has no device plugins.
  r = run_gpusim(dir_, "run --mode fill --policy binpack --out out --config " + ts);
  EXPECT_NE(r.err.find("a device plugin's configuration applies to --mode replay only"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "out"));
  // The older --kube sharing keys and a config for the same nodes.
  r = run_gpusim(dir_, common + " --kube " + (kSource / "traces" / "sharing" / "time-slicing-2.yaml").string() + " --config " + ts);
  EXPECT_NE(r.err.find("keep them in the device-plugin config alone"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace gpusim::testing
