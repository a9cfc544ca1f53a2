// LoadAwareScheduling through the binary, as a user runs the utilisation comparison's files:
// koordlet's reports reach the summary, a run where nothing reports says so, and a mistaken args
// file is refused naming its line and field, with nothing written.
#include <gtest/gtest.h>
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "tests/cli/run_gpusim.hpp"

namespace gpusim::testing {
namespace {

namespace fs = std::filesystem;

const fs::path kSource = fs::path(GPUSIM_SOURCE_DIR);

// The first 40 GPU nodes of the sharing cluster and 300 pods of the openb default trace.
std::string inputs(const fs::path& dir) {
  copy_head(kSource / "traces/sharing/openb-eighth-cluster.csv", dir / "nodes.csv", 40);
  copy_head(kSource / "traces/data/openb/openb_pod_list_default.csv", dir / "pods.csv", 300);
  return fmt::format("run --mode replay --time-compression 10000 --cluster {} --workload {}", (dir / "nodes.csv").string(),
                     (dir / "pods.csv").string());
}

TEST(LoadAwareCli, KoordletReportsOnTimeSlicedNodesAndSaysWhenNothingReports) {
  const fs::path dir = fresh_dir("load-aware-reports");
  const std::string run = inputs(dir);
  const fs::path u = kSource / "traces/utilisation";
  const CliResult shared = run_gpusim(dir, fmt::format("{} --kube {} --config {} --policy {} --out shared", run,
                                                       (u / "time-slicing.yaml").string(),
                                                       (u / "time-slicing-4.device-plugin.yaml").string(),
                                                       (u / "load-aware.yaml").string()));
  ASSERT_EQ(shared.exit_code, 0) << shared.err;
  EXPECT_EQ(shared.err.find("koordlet reported no usage"), std::string::npos) << shared.err;
  const auto summary = nlohmann::json::parse(slurp(dir / "shared/summary.json"));
  EXPECT_GT(summary["policies"][0]["node_metric_reports"]["mean"].get<double>(), 0);
  // gpusim's default nodes (scheduler-assigned fractions) run no speed model: no agent, no report.
  const CliResult plain = run_gpusim(dir, fmt::format("{} --policy {} --out plain", run, (u / "load-aware.yaml").string()));
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_NE(plain.err.find("policy 'load-aware': koordlet reported no usage"), std::string::npos) << plain.err;
}

TEST(LoadAwareCli, AMistakenArgsFileIsRefusedAtItsLineWithNothingWritten) {
  const fs::path dir = fresh_dir("load-aware-bad-args");
  const std::string run = inputs(dir);
  {
    std::ofstream f(dir / "bad.yaml");
    f << "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n"
         "- schedulerName: la\n  plugins:\n    filter: {enabled: [{name: LoadAwareScheduling}]}\n"
         "  pluginConfig:\n  - name: LoadAwareScheduling\n    args:\n      usageThresholds: {memory: 95}\n";
  }
  const CliResult bad = run_gpusim(dir, fmt::format("{} --policy {} --out out", run, (dir / "bad.yaml").string()));
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("bad.yaml:10: profiles[0].pluginConfig[0].args.usageThresholds: 'memory': gpusim measures no CPU "
                         "or memory use"),
            std::string::npos)
      << bad.err;
  EXPECT_FALSE(fs::exists(dir / "out"));
}

}  // namespace
}  // namespace gpusim::testing
