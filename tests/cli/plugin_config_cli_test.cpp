// --config through the binary: the retired --kube keys are refused with the real files' lines,
// which give the same pods as the bundled real files, and --config's mistakes are refused.
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

// The YAML lines a retired --kube key's message gives (indented by two spaces after "The lines:"
// or after a line ending in ","), unindented: what a user pastes into a file.
std::string pasted_lines(const std::string& message, const std::string& after) {
  std::istringstream in(message.substr(message.find(after) + after.size()));
  std::string line, out;
  std::getline(in, line);  // the rest of the line that introduces them
  while (std::getline(in, line) && line.starts_with("  ")) out += line.substr(2) + "\n";
  return out;
}

// gpusim's retired --kube sharing and HAMi keys (issue 30) are refused with the lines of the real
// file that replaces them; those lines, pasted into a file, give the same pods as the bundled real
// file (scripts/sharing_settings.sh), on the synthetic topology cluster's jobs.
TEST_F(PluginConfigCli, RetiredKubeKeysGiveTheRealFilesLines) {
  const fs::path sharing = kSource / "traces" / "sharing";
  const std::string common = fmt::format(
      "run --mode replay --cluster {} --workload {} --policy binpack --seed 42",
      (sharing / "openb-eighth-cluster.csv").string(), (kSource / "traces" / "synthetic" / "topology-jobs.csv").string());
  const auto s = [&](const char* file) { return (sharing / file).string(); };
  struct Case {
    const char* old_kube;     // the older --kube file's content
    const char* introducer;   // where the message's lines start
    std::string new_kube;     // the --kube file that stays
    std::string real_file;    // the bundled real file
  };
  const Case cases[] = {
      {"fractionalGpuRequests: one-device\ndevicePlugin:\n  model: time-slicing\n  sharing: {replicas: 2, allocationPolicy: distributed}\n",
       "The lines:", s("whole-gpu.yaml"), s("time-slicing-2.device-plugin.yaml")},
      {"devicePlugin:\n  model: time-slicing\n  sharing: {replicas: 2, allocationPolicy: packed}\n", "The lines:",
       s("device-plugin.yaml"), s("time-slicing-2-packed.device-plugin.yaml")},
      {"fractionalGpuRequests: one-device\ndevicePlugin:\n  model: mps\n  sharing: {replicas: 4}\n", "The lines:",
       s("whole-gpu.yaml"), s("mps-4.device-plugin.yaml")},
      {"devicePlugin:\n  model: hami-vgpu\n  hami: {gpuSchedulerPolicy: binpack}\n", "The lines:", s("hami-vgpu.yaml"),
       s("hami-vgpu-binpack.hami-values.yaml")},
  };
  for (std::size_t i = 0; i < std::size(cases); ++i) {
    const Case& c = cases[i];
    const fs::path old_kube = dir_ / fmt::format("old-{}.yaml", i);
    std::ofstream(old_kube) << c.old_kube;
    const CliResult refused = run_gpusim(dir_, fmt::format("{} --kube {} --out refused-{}", common, old_kube.string(), i));
    EXPECT_EQ(refused.exit_code, 1) << c.old_kube;
    EXPECT_NE(refused.err.find(": gone from --kube: "), std::string::npos) << refused.err;
    EXPECT_FALSE(fs::exists(dir_ / fmt::format("refused-{}", i)));
    const fs::path pasted = dir_ / fmt::format("pasted-{}.yaml", i);
    std::ofstream(pasted) << pasted_lines(refused.err, c.introducer);
    const std::string from_paste = pods(common, fmt::format("--kube {} --config {}", c.new_kube, pasted.string()), fmt::format("paste-{}", i));
    EXPECT_FALSE(from_paste.empty()) << slurp(pasted);
    EXPECT_EQ(from_paste, pods(common, fmt::format("--kube {} --config {}", c.new_kube, c.real_file), fmt::format("real-{}", i)))
        << slurp(pasted);
  }
  // summary.json names the files and what they hold unmodelled.
  const std::string summary = slurp(dir_ / "real-0" / "summary.json");
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
  // A retired --kube key, even beside the config that replaces it.
  std::ofstream(dir_ / "old.yaml") << "devicePlugin:\n  model: time-slicing\n  sharing: {replicas: 2}\n";
  r = run_gpusim(dir_, common + " --kube " + (dir_ / "old.yaml").string() + " --config " + ts);
  EXPECT_NE(r.err.find("old.yaml:3: devicePlugin.sharing.replicas: gone from --kube"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace gpusim::testing
