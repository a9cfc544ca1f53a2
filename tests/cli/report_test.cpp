// Reports with plots: the SVGs exist, parse as XML and hold one series per policy; `gpusim report`
// redraws them from the files alone, byte for byte.
#include <gtest/gtest.h>
#include <fmt/format.h>


#include "tests/cli/run_gpusim.hpp"

namespace gpusim::testing {
namespace {

namespace fs = std::filesystem;

// The titled series gnuplot wrote into an SVG (<g id="gnuplot_plot_N" ><title>NAME</title>);
// untitled ones (the min-max bands) carry their id as title and are left out.
// (Plain string search: GCC 12 reports a false -Wmaybe-uninitialized inside <regex> in the
// sanitizer build.)
std::vector<std::string> series(const fs::path& svg) {
  const std::string text = slurp(svg);
  std::vector<std::string> names;
  for (std::size_t at = text.find("<g id=\"gnuplot_plot_"); at != std::string::npos; at = text.find("<g id=\"gnuplot_plot_", at + 1)) {
    const std::size_t open = text.find("><title>", at);
    const std::size_t close = text.find("</title>", open);
    if (open == std::string::npos || close == std::string::npos) break;
    const std::string name = text.substr(open + 8, close - open - 8);
    if (!name.starts_with("gnuplot_plot_")) names.push_back(name);
  }
  return names;
}

bool parses_as_xml(const fs::path& svg) {
  return std::system(fmt::format("xmllint --noout '{}' 2>/dev/null", svg.string()).c_str()) == 0;
}

TEST(Report, FillReportDrawsOneLinePerPolicyAndTheBars) {
  const fs::path dir = fresh_dir("report-fill");
  ASSERT_EQ(run_gpusim(dir, "compare --policies random,bestfit,fgd --seeds 2 --out o").exit_code, 0);
  const std::vector<std::string> policies{"random", "bestfit", "fgd"};
  ASSERT_TRUE(parses_as_xml(dir / "o" / "plots" / "allocation.svg"));
  EXPECT_EQ(series(dir / "o" / "plots" / "allocation.svg"), policies);
  ASSERT_TRUE(parses_as_xml(dir / "o" / "plots" / "unallocated.svg"));
  EXPECT_EQ(series(dir / "o" / "plots" / "unallocated.svg").size(), 1U);
  const std::string report = slurp(dir / "o" / "report.md");
  EXPECT_NE(report.find("](plots/allocation.svg)"), std::string::npos);
  EXPECT_NE(report.find("| GPUs allocated (%) | FGD artifact (%) | difference (pp) |"), std::string::npos) << report;
  EXPECT_NE(report.find("| 95.39 |"), std::string::npos) << "FGD's published figure beside gpusim's";
  // The manifest covers the plots, so a later run may replace them.
  EXPECT_NE(slurp(dir / "o" / "gpusim-manifest.json").find("plots/allocation.svg"), std::string::npos);
}

TEST(Report, ReplayReportDrawsItsFourPlotsAndReadableDurations) {
  const fs::path dir = fresh_dir("report-replay");
  ASSERT_EQ(run_gpusim(dir, "compare --mode replay --time-compression 100000 --policies bestfit,fgd --seeds 1 --out o").exit_code, 0);
  for (const char* plot : {"jct-cdf", "queueing-cdf", "allocation-time", "pending-time"}) {
    const fs::path svg = dir / "o" / "plots" / (std::string(plot) + ".svg");
    ASSERT_TRUE(parses_as_xml(svg)) << plot;
    EXPECT_EQ(series(svg), (std::vector<std::string>{"bestfit", "fgd"})) << plot;
  }
  const std::string report = slurp(dir / "o" / "report.md");
  EXPECT_NE(report.find(" d |"), std::string::npos) << "makespan in days, not raw seconds: " << report;
  EXPECT_EQ(report.find("±"), std::string::npos) << "one seed: no ± column";
  EXPECT_EQ(report.find("12537496"), std::string::npos);
}

TEST(Report, ReportCommandRedrawsFromTheFilesAlone) {
  const fs::path dir = fresh_dir("report-command");
  ASSERT_EQ(run_gpusim(dir, "run --policy fgd --out o").exit_code, 0);
  const std::string report = slurp(dir / "o" / "report.md");
  const std::string svg = slurp(dir / "o" / "plots" / "allocation.svg");
  const std::string summary = slurp(dir / "o" / "summary.json");
  fs::remove(dir / "o" / "report.md");
  fs::remove_all(dir / "o" / "plots");
  ASSERT_EQ(run_gpusim(dir, "report o").exit_code, 0);
  EXPECT_EQ(slurp(dir / "o" / "report.md"), report);
  EXPECT_EQ(slurp(dir / "o" / "plots" / "allocation.svg"), svg);
  EXPECT_EQ(slurp(dir / "o" / "summary.json"), summary);
  // Without the per-run files (as in the committed results, whose runs/ is not in git) the plots
  // cannot be redrawn: refused, the output as it was.
  fs::rename(dir / "o" / "curve.csv", dir / "curve.csv");
  const CliResult missing = run_gpusim(dir, "report o");
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find("are missing (e.g. curve.csv)"), std::string::npos) << missing.err;
  EXPECT_EQ(slurp(dir / "o" / "report.md"), report);
  fs::rename(dir / "curve.csv", dir / "o" / "curve.csv");
  // Not a gpusim output, or one with a user's file in it: refused, nothing touched.
  fs::create_directories(dir / "mine");
  std::ofstream(dir / "mine" / "summary.json") << "{}";
  EXPECT_EQ(run_gpusim(dir, "report mine").exit_code, 1);
  EXPECT_EQ(slurp(dir / "mine" / "summary.json"), "{}");
  std::ofstream(dir / "o" / "notes.txt") << "mine";
  EXPECT_EQ(run_gpusim(dir, "report o").exit_code, 1);
  EXPECT_TRUE(fs::exists(dir / "o" / "notes.txt"));
}

TEST(Report, DurationsReadAsPeopleReadThem) {
  const fs::path dir = fresh_dir("durations");
  std::ofstream(dir / "pods.csv") << "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n"
                                     "a,1000,1024,1,1000,,LS,Running,0,30,0\nb,1000,1024,1,1000,,LS,Running,0,7200,0\n"
                                     "c,1000,1024,1,1000,,LS,Running,0,864000,0\n";
  ASSERT_EQ(run_gpusim(dir, "run --mode replay --workload pods.csv --out o").exit_code, 0);
  const std::string report = slurp(dir / "o" / "report.md");
  // mean JCT (30 + 7200 + 864000) / 3 = 290410 s = 3.36 d; p95 = 864000 s = 10.00 d; makespan 10.00 d.
  EXPECT_NE(report.find("| 3.36 d | 10.00 d |"), std::string::npos) << report;
}

}  // namespace
}  // namespace gpusim::testing
