// Messages, word for word: every usage error reads "gpusim: error: ...", a tab in YAML is named as
// a tab, a bad duration gives its hint once, and the note about report.md's plots names only plots
// that should be there and are not.
#include <gtest/gtest.h>
#include <fmt/format.h>

#include <fstream>

#include "sim/report/report.hpp"
#include "tests/cli/run_gpusim.hpp"

namespace gpusim::testing {
namespace {

namespace fs = std::filesystem;

constexpr const char* kMoreHelp = "Run with --help for more information.\n";

TEST(Messages, EveryUsageErrorSaysGpusimError) {
  const fs::path dir = fresh_dir("messages-usage");
  const std::pair<const char*, std::string> cases[] = {
      // CLI11's own errors.
      {"run --no-such-option --out o", "The following argument was not expected: --no-such-option"},
      {"run", "--out is required"},
      {"run --seed -1 --out o", "--seed: -1 is negative; seeds are 0 .. 2^63-1"},
      {"", "A subcommand is required"},
      // gpusim's.
      {"frobnicate", "unknown command 'frobnicate' (commands: run, compare, sweep, export, report, trace, policies, config, calibrate, validate)"},
      {"run --policy fgd,bestfit --out o", "--policy takes one policy; use `gpusim compare --policies` for several"},
      {"run --mode replay --fill-target 1.2 --out o", "--fill-target applies to --mode fill only"},
  };
  for (const auto& [args, what] : cases) {
    const CliResult result = run_gpusim(dir, args);
    EXPECT_EQ(result.exit_code, 2) << args;
    EXPECT_EQ(result.err, "gpusim: error: " + what + "\n" + kMoreHelp) << args;
  }
  EXPECT_FALSE(fs::exists(dir / "o"));
}

TEST(Messages, ATabInYamlIsNamedWithItsColumn) {
  const fs::path dir = fresh_dir("messages-tab");
  // yaml-cpp calls the first "illegal map value", the second "illegal tab when looking for indentation".
  std::ofstream(dir / "kube.yaml") << "kubelet:\n\tnodeStatusUpdateFrequency: 10s\n";
  std::ofstream(dir / "kube2.yaml") << "kubelet:\n  nodeStatusUpdateFrequency: 10s\n \tterminationGracePeriod: 5s\n";
  std::ofstream(dir / "profile.yaml") << "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n"
                                         "\t- schedulerName: mine\n";
  const std::pair<std::string, std::string> cases[] = {
      {"run --mode replay --kube kube.yaml --out o", "kube.yaml:2: a tab character at column 1; YAML indents with spaces"},
      {"run --mode replay --kube kube2.yaml --out o", "kube2.yaml:3: a tab character at column 2; YAML indents with spaces"},
      {"run --policy profile.yaml --out o", "profile.yaml:4: a tab character at column 1; YAML indents with spaces"},
  };
  for (const auto& [args, what] : cases) {
    const CliResult result = run_gpusim(dir, args);
    EXPECT_EQ(result.exit_code, 1) << args;
    EXPECT_EQ(result.err, "gpusim: error: " + what + "\n") << args;
  }
  // Kubernetes manifests, read document by document: the line is the file's.
  std::ofstream(dir / "pods.yaml") << "apiVersion: v1\nkind: Pod\nmetadata:\n  name: a\n---\napiVersion: v1\nkind: Pod\n"
                                      "metadata:\n\tname: b\n";
  const CliResult manifest = run_gpusim(dir, "run --workload pods.yaml --out o");
  EXPECT_EQ(manifest.exit_code, 1);
  EXPECT_EQ(manifest.err, "gpusim: error: pods.yaml:9: yaml: a tab character at column 1; YAML indents with spaces\n");
  EXPECT_FALSE(fs::exists(dir / "o"));
}

TEST(Messages, ABadDurationGivesItsHintOnce) {
  const fs::path dir = fresh_dir("messages-duration");
  std::ofstream(dir / "kube.yaml") << "descheduler:\n  checkpointInterval: 10 minutes\n";
  const CliResult result = run_gpusim(dir, "run --mode replay --kube kube.yaml --out o");
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_EQ(result.err, "gpusim: error: kube.yaml:2: descheduler.checkpointInterval: '10 minutes' is not a duration: "
                        "unknown unit ' minutes' (units ns, us, ms, s, m, h; e.g. 90s, 1h30m, 500ms)\n");
}

// Three pods that all start on arrival: nothing waited, so there is no queueing-delay CDF to draw.
void write_pods_that_never_wait(const fs::path& dir) {
  std::ofstream(dir / "pods.csv")
      << "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n"
         "a,1000,1024,1,1000,,LS,Running,0,30,0\nb,1000,1024,1,1000,,LS,Running,0,7200,0\n"
         "c,1000,1024,1,1000,,LS,Running,0,864000,0\n";
}

TEST(Messages, APlotThatDoesNotApplyIsNoNote) {
  const fs::path dir = fresh_dir("messages-plots");
  write_pods_that_never_wait(dir);
  const CliResult result = run_gpusim(dir, "run --mode replay --workload pods.csv --out o");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.err, "") << "three plots drawn, the fourth does not apply";
  const std::string report = slurp(dir / "o" / "report.md");
  EXPECT_NE(report.find("\nQueueing delay CDF (completed pods, all seeds): not drawn, as every completed pod has 0 s here.\n"),
            std::string::npos) << report;
  EXPECT_EQ(report.find("No plots"), std::string::npos) << report;
  for (const char* plot : {"jct-cdf", "allocation-time", "pending-time"}) {
    EXPECT_TRUE(fs::exists(dir / "o" / "plots" / (std::string(plot) + ".svg"))) << plot;
  }
}

TEST(Messages, PlotsThatCouldNotBeDrawnAreNamed) {
  const fs::path dir = fresh_dir("messages-no-gnuplot");
  write_pods_that_never_wait(dir);
  // No gnuplot on PATH: no plot at all, said once.
  const std::string command = fmt::format("cd '{}' && PATH=/nonexistent {} run --mode replay --workload pods.csv --out o "
                                          "> /dev/null 2> err.txt", dir.string(), GPUSIM_TEST_BINARY);
  ASSERT_EQ(std::system(command.c_str()), 0);
  EXPECT_EQ(slurp(dir / "err.txt"), "gpusim: note: no plots in report.md: gnuplot is not installed "
                                    "(apt-get install gnuplot-nox, then `gpusim report DIR`)\n");
  // Some drawn, one failed: only the failed one is named.
  EXPECT_EQ(report::missing_plots_note({{"plots/jct-cdf.svg"}, "gnuplot failed on plots/queueing-cdf.gp"}),
            "report.md lacks plots: gnuplot failed on plots/queueing-cdf.gp");
  EXPECT_EQ(report::missing_plots_note({{"plots/jct-cdf.svg"}, ""}), "");
}


// The plots' gnuplots run side by side: one that fails (a gnuplot that refuses allocation-time.gp)
// is named and its plot left out, the others are drawn and listed in their order.
TEST(Messages, APlotThatFailsAmongOthersRunningIsNamedAndTheRestKept) {
  const fs::path dir = fresh_dir("messages-one-plot-fails");
  write_pods_that_never_wait(dir);
  fs::create_directories(dir / "bin");
  {
    std::ofstream fake(dir / "bin" / "gnuplot");
    fake << "#!/bin/sh\ncase \"$1\" in allocation-time.gp) exit 1;; esac\nexec /usr/bin/gnuplot \"$@\"\n";
  }
  fs::permissions(dir / "bin" / "gnuplot", fs::perms::owner_all);
  const std::string command = fmt::format("cd '{}' && PATH='{}':/usr/bin:/bin {} run --mode replay --workload pods.csv --out o "
                                          "> /dev/null 2> err.txt", dir.string(), (dir / "bin").string(), GPUSIM_TEST_BINARY);
  ASSERT_EQ(std::system(command.c_str()), 0);
  EXPECT_EQ(slurp(dir / "err.txt"), "gpusim: note: report.md lacks plots: gnuplot failed on plots/allocation-time.gp\n");
  EXPECT_TRUE(fs::exists(dir / "o" / "plots" / "jct-cdf.svg"));
  EXPECT_TRUE(fs::exists(dir / "o" / "plots" / "pending-time.svg"));
  EXPECT_FALSE(fs::exists(dir / "o" / "plots" / "allocation-time.svg"));
  const std::string report = slurp(dir / "o" / "report.md");
  const auto jct = report.find("plots/jct-cdf.svg"), pending = report.find("plots/pending-time.svg");
  ASSERT_NE(jct, std::string::npos) << report;
  ASSERT_NE(pending, std::string::npos) << report;
  EXPECT_LT(jct, pending);
  EXPECT_EQ(report.find("plots/allocation-time.svg"), std::string::npos) << report;
}

}  // namespace
}  // namespace gpusim::testing
