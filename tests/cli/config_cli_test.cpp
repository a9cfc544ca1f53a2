// `gpusim policies --describe`, `gpusim config check` and `gpusim config show` as a user runs them,
// and a KubeSchedulerConfiguration in the shape of the Kubernetes documentation's examples run
// end to end.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>

#include "tests/cli/run_gpusim.hpp"

namespace gpusim::testing {
namespace {

namespace fs = std::filesystem;

TEST(ConfigCli, DescribeShowsPluginsArgsDefaultsAndTheFile) {
  const auto dir = fresh_dir("config_describe");
  const auto result = run_gpusim(dir, "policies --describe Tiresias");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("policy tiresias\n  from policies/profiles/tiresias.yaml (built in)"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("  jobRank         Tiresias\n"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("queueThresholdsGpuSeconds: [3250, 7200]  (default)"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("tieBreak: NodeIndex  (default SeededRank; set in policies/profiles/tiresias.yaml"), std::string::npos)
      << result.out;
  const auto unknown = run_gpusim(dir, "policies --describe tiresia");
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_NE(unknown.err.find("unknown policy 'tiresia' (built-in: kube-default"), std::string::npos) << unknown.err;
}

TEST(ConfigCli, ShowPrintsAFileThatReadsBackAsTheSamePolicy) {
  const auto dir = fresh_dir("config_show");
  const auto shown = run_gpusim(dir, "config show gavel-ftf");
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_TRUE(shown.out.starts_with("# policies/profiles/gavel-ftf.yaml\n")) << shown.out;
  std::ofstream(dir / "copy.yaml") << shown.out;
  const auto described = run_gpusim(dir, "policies --describe copy.yaml");
  ASSERT_EQ(described.exit_code, 0) << described.err;
  EXPECT_NE(described.out.find("objective: FinishTimeFairness  (default MaxMin; set in copy.yaml)"), std::string::npos) << described.out;
}

TEST(ConfigCli, CheckReportsEveryFileAndFailsOnAnyBadOne) {
  const auto dir = fresh_dir("config_check");
  std::ofstream(dir / "good.yaml") << "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
                                      "leaderElection: {leaderElect: false}\nprofiles:\n- schedulerName: a\n- schedulerName: b\n";
  std::ofstream(dir / "bad.yaml") << "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
                                     "profiles:\n- schedulerName: a\n  plugins:\n    score:\n      enabled: [{name: NodeResourceFit}]\n";
  std::ofstream(dir / "other.yaml") << "apiVersion: v1\nkind: Pod\n";
  const auto result = run_gpusim(dir, "config check good.yaml bad.yaml other.yaml missing.yaml");
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.out.find("good.yaml: ok: KubeSchedulerConfiguration: 2 profiles: a, b"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("note: good.yaml: leaderElection does not change a simulation"), std::string::npos) << result.out;
  EXPECT_NE(result.err.find("bad.yaml:7: profiles[0].plugins.score: unknown plugin 'NodeResourceFit'"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("other.yaml:1: not a configuration file gpusim reads"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("missing.yaml: no such file"), std::string::npos) << result.err;
  EXPECT_EQ(run_gpusim(dir, "config check good.yaml").exit_code, 0);
}

// A typo among the top-level keys of a format told by its keys alone (NVIDIA's device-plugin and
// mig-parted configs) is named at its line, in the format it was meant for, by check and by run.
TEST(ConfigCli, ATopLevelTypoIsNamedInTheFormatItWasMeantFor) {
  const auto dir = fresh_dir("config_typo");
  std::ofstream(dir / "dp.yaml") << "version: v1\nflag: {migStrategy: none}\n";
  std::ofstream(dir / "mig.yaml") << "version: v1\nmig-config:\n  all-disabled: [{devices: all, mig-enabled: false}]\n";
  const auto check = run_gpusim(dir, "config check dp.yaml mig.yaml");
  EXPECT_EQ(check.exit_code, 1);
  EXPECT_NE(check.err.find("dp.yaml:2: flag: unknown field of NVIDIA's device-plugin config (known: version, flags, "
                           "resources, sharing, imex)"), std::string::npos) << check.err;
  EXPECT_NE(check.err.find("mig.yaml:2: mig-config: unknown field of NVIDIA's mig-parted config (known: version, "
                           "mig-configs)"), std::string::npos) << check.err;
  // The GPU Operator's form: a ConfigMap whose data entry is the config, the line counted in the file.
  std::ofstream(dir / "cm.yaml") << "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ts}\ndata:\n  any: |-\n    version: v1\n"
                                    "    sharing:\n      timeSlicing:\n        resources: [{name: nvidia.com/gpu, replicas: 2}]\n"
                                    "    flag: {migStrategy: none}\n";
  const auto in_map = run_gpusim(dir, "config check cm.yaml");
  EXPECT_NE(in_map.err.find("cm.yaml:10: data.any.flag: unknown field of NVIDIA's device-plugin config"), std::string::npos)
      << in_map.err;
  const auto run = run_gpusim(dir, "run --mode replay --time-compression 100000 --config dp.yaml --out out");
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.err.find("dp.yaml:2: flag: unknown field of NVIDIA's device-plugin config"), std::string::npos) << run.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "out"));
}

// A KubeSchedulerConfiguration as the Kubernetes documentation writes one: two profiles, the
// defaults and one without scoring, compared over the bundled fill experiment: each is a policy.
TEST(ConfigCli, TheDocumentationsTwoProfilesRunAsTwoPolicies) {
  const auto dir = fresh_dir("config_two_profiles");
  std::ofstream(dir / "sched.yaml") << R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
  - schedulerName: default-scheduler
  - schedulerName: no-scoring-scheduler
    plugins:
      preScore:
        disabled:
        - name: '*'
      score:
        disabled:
        - name: '*'
)";
  const auto result = run_gpusim(dir, "compare --policies sched.yaml --seeds 1 --fill-target 0.3 --out out --quiet");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto summary = nlohmann::json::parse(slurp(dir / "out" / "summary.json"));
  ASSERT_EQ(summary["policies"].size(), 2U);
  EXPECT_EQ(summary["policies"][0]["name"], "default-scheduler");
  EXPECT_EQ(summary["policies"][1]["name"], "no-scoring-scheduler");
  EXPECT_TRUE(fs::exists(dir / "out" / "runs" / "no-scoring-scheduler"));
  // `run` takes one policy: a file with two profiles is refused with what to do.
  const auto single = run_gpusim(dir, "run --policy sched.yaml --out single");
  EXPECT_EQ(single.exit_code, 2) << single.err;
  EXPECT_NE(single.err.find("2 profiles"), std::string::npos) << single.err;
}

// --config takes every kind: a KubeSchedulerConfiguration's profiles become the run's policies (the
// default policy only when nothing names one), and `config check` knows the device plugins' files.
TEST(ConfigCli, ConfigTakesSchedulerConfigurationsAndCheckKnowsEveryKind) {
  const auto dir = fresh_dir("config_every_kind");
  std::ofstream(dir / "sched.yaml") << "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
                                       "profiles:\n- schedulerName: mine\n";
  const auto run = run_gpusim(dir, "compare --config sched.yaml --seeds 1 --fill-target 0.2 --out out --quiet");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto summary = nlohmann::json::parse(slurp(dir / "out" / "summary.json"));
  ASSERT_EQ(summary["policies"].size(), 1U);
  EXPECT_EQ(summary["policies"][0]["name"], "mine");
  const auto both = run_gpusim(dir, "compare --policies bestfit --config sched.yaml --seeds 1 --fill-target 0.2 --out out2 --quiet");
  ASSERT_EQ(both.exit_code, 0) << both.err;
  EXPECT_EQ(nlohmann::json::parse(slurp(dir / "out2" / "summary.json"))["policies"].size(), 2U);
  const fs::path source(GPUSIM_SOURCE_DIR);
  const auto check = run_gpusim(dir, "config check " + (source / "traces" / "sharing" / "time-slicing-2.device-plugin.yaml").string());
  EXPECT_EQ(check.exit_code, 0) << check.err;
  EXPECT_NE(check.out.find("ok: NVIDIA device-plugin config"), std::string::npos) << check.out;
}

// A retired option's message starts from the policy the run names, with its own plugin's args.
TEST(ConfigCli, RetiredRoundLengthNamesThePolicyGiven) {
  const auto dir = fresh_dir("config_retired_round");
  const auto result = run_gpusim(dir, "run --workload philly --mode replay --policy gavel-ftf --round-length 100 --out out");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("gpusim config show gavel-ftf > my-gavel-ftf.yaml"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("args: {objective: FinishTimeFairness, heterogeneityAware: true, roundLengthSeconds: 100}"),
            std::string::npos) << result.err;
  const auto themis = run_gpusim(dir, "run --workload philly --mode replay --policy themis --round-length 30 --out out");
  EXPECT_NE(themis.err.find("- name: Themis\n    args: {fairness: 0.8, leaseSeconds: 30}"), std::string::npos) << themis.err;
  EXPECT_NE(themis.err.find("at least 60 s"), std::string::npos) << themis.err;
  EXPECT_FALSE(fs::exists(dir / "out"));
}

}  // namespace
}  // namespace gpusim::testing
