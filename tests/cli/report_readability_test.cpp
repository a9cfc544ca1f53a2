// Reports people can read and check: stdout and report.md show the same figures, a difference
// column subtracts as its columns read, labels say what they count, a policy from a profile file
// names the file, and the plots tell every policy apart, tick durations as people read them and say
// why a plot with nothing to draw is not there.
#include <gtest/gtest.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <set>
#include <sstream>

#include "tests/cli/run_gpusim.hpp"

namespace gpusim::testing {
namespace {

namespace fs = std::filesystem;

// (No <regex>: GCC 12 reports a false -Wmaybe-uninitialized inside it in the sanitizer build.)

// The words of a line.
std::vector<std::string> words(const std::string& line) {
  std::vector<std::string> out;
  std::istringstream in(line);
  for (std::string word; in >> word;) out.push_back(word);
  return out;
}

// Hundredths of a figure written with two decimals ("-0.03" -> -3).
long hundredths(const std::string& text) { return std::lround(std::stod(text) * 100); }

// The cells of the report.md table row of `policy`.
std::vector<std::string> row_of(const std::string& report, const std::string& policy) {
  const std::size_t at = report.find("\n| " + policy + " |");
  if (at == std::string::npos) return {};
  const std::string line = report.substr(at + 3, report.find('\n', at + 1) - at - 3);
  std::vector<std::string> cells;
  for (std::size_t from = 0, bar; (bar = line.find(" | ", from)) != std::string::npos; from = bar + 3) {
    cells.push_back(line.substr(from, bar - from));
  }
  return cells;
}

TEST(ReportReadability, StdoutAndReportShowTheSameFiguresAndTheDifferenceOfThem) {
  const fs::path dir = fresh_dir("readability-fill");
  // The FGD experiment's DotProd over seeds 42-51 has a mean of 90.815 (a tie at two decimals, stored
  // as 90.81499999999999773 in binary): stdout once printed 90.82 and report.md 90.81.
  const CliResult result = run_gpusim(dir, "compare --policies dotprod,fgd --seeds 10 --out o");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const std::string report = slurp(dir / "o" / "report.md");
  EXPECT_EQ(nlohmann::json::parse(slurp(dir / "o" / "summary.json"))["policies"][0]["gpu_allocation_pct"]["mean"], 90.815);
  EXPECT_NE(result.out.find("dotprod          gpu_allocation_pct    90.82 ± 0.30\n"), std::string::npos) << result.out;
  EXPECT_NE(report.find("\n| dotprod | 90.82 ± 0.30 | 90.85 | -0.03 |"), std::string::npos) << report;
  for (const std::string policy : {"dotprod", "fgd"}) {
    // stdout: "fgd              gpu_allocation_pct    95.23 ± 0.10"
    const std::size_t at = result.out.find(policy + " ");
    ASSERT_NE(at, std::string::npos) << result.out;
    const std::vector<std::string> printed = words(result.out.substr(at, result.out.find('\n', at) - at));
    ASSERT_EQ(printed.size(), 5U) << result.out;
    const std::vector<std::string> cells = row_of(report, policy);
    ASSERT_GE(cells.size(), 4U) << report;
    EXPECT_EQ(cells[1], fmt::format("{} ± {}", printed[2], printed[4])) << policy;
    // The difference column is the shown figure minus the published one, to the hundredth.
    EXPECT_EQ(hundredths(cells[3]), hundredths(printed[2]) - hundredths(cells[2])) << policy << ": " << cells[3];
  }
}

TEST(ReportReadability, APolicyFromAProfileFileIsNamedWithItsFile) {
  const fs::path dir = fresh_dir("readability-profile");
  fs::create_directories(dir / "profiles");
  fs::copy_file(fs::path(GPUSIM_SOURCE_DIR) / "policies" / "profiles" / "fifo-skip.yaml", dir / "profiles" / "fifo-skip.yaml");
  const CliResult result = run_gpusim(dir, "compare --policies bestfit,profiles/fifo-skip.yaml --seeds 1 --out o");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto summary = nlohmann::json::parse(slurp(dir / "o" / "summary.json"));
  const auto& files = summary.at("inputs").at("profile_files");
  ASSERT_EQ(files.size(), 1U) << files;  // bestfit is built in
  EXPECT_EQ(files[0].at("name"), "fifo-skip");
  EXPECT_EQ(files[0].at("file"), "profiles/fifo-skip.yaml");
  EXPECT_EQ(files[0].at("fnv1a64").get<std::string>().size(), 16U);
  const std::string report = slurp(dir / "o" / "report.md");
  EXPECT_NE(report.find("- policies from profile files: `fifo-skip` is `profiles/fifo-skip.yaml`\n"), std::string::npos) << report;
  // `--policy fifo-skip` is no built-in: the name alone does not run it.
  EXPECT_NE(run_gpusim(dir, "run --policy fifo-skip --out p").exit_code, 0);
  // Built-ins only: no such entry.
  ASSERT_EQ(run_gpusim(dir, "run --policy bestfit --out b").exit_code, 0);
  EXPECT_FALSE(nlohmann::json::parse(slurp(dir / "b" / "summary.json")).at("inputs").contains("profile_files"));
}

TEST(ReportReadability, PodAndJobCompletionTimesAreLabelledApart) {
  const fs::path dir = fresh_dir("readability-jobs");
  // A 16-GPU job runs as a gang of two 8-GPU worker pods: 3 pods, 2 jobs.
  std::ofstream(dir / "jobs.csv") << "timestamp,duration,num_gpus,gpu_time,cluster\n"
                                     "2017-10-01 00:00:00,3600.0,16,57600.0,vc\n"
                                     "2017-10-01 00:10:00,600.0,1,600.0,vc\n";
  const CliResult result = run_gpusim(dir, "run --workload jobs.csv --mode replay --policy fifo --out o");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const std::string report = slurp(dir / "o" / "report.md");
  EXPECT_NE(report.find("| policy | mean pod JCT | p95 pod JCT | mean pod queueing delay |"), std::string::npos) << report;
  EXPECT_NE(report.find("| jobs completed | mean job JCT | median job JCT | p95 job JCT | p99 job JCT | mean job queueing |"),
            std::string::npos)
      << report;
  EXPECT_EQ(report.find("| mean JCT |"), std::string::npos) << "no unqualified label";
  EXPECT_NE(report.find("\nPod figures count every pod, each worker of a job too"), std::string::npos);
  EXPECT_NE(report.find("\nJob figures count a job of the trace once, however many worker pods it has"), std::string::npos);
}

// The keyentry (legend) clauses of a plot script: (title, "dt N pt M") per titled series.
std::vector<std::pair<std::string, std::string>> legend(const std::string& script) {
  std::vector<std::pair<std::string, std::string>> entries;
  for (std::size_t at = script.find("keyentry "); at != std::string::npos; at = script.find("keyentry ", at + 1)) {
    const std::size_t title = script.find("title \"", at) + 7;
    const std::vector<std::string> clause = words(script.substr(at, title - at));
    std::string style;
    for (std::size_t i = 0; i + 1 < clause.size(); ++i) {
      if (clause[i] == "dt" || clause[i] == "pt") style += clause[i] + " " + clause[i + 1] + " ";
    }
    entries.emplace_back(script.substr(title, script.find('"', title) - title), style);
  }
  return entries;
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(ReportReadability, EveryPolicyHasItsOwnDashAndMarksSoCoincidingLinesShow) {
  const fs::path dir = fresh_dir("readability-styles");
  const std::vector<std::string> policies{"random", "dotprod", "gpu-clustering", "gpu-packing", "bestfit", "fgd"};
  ASSERT_EQ(run_gpusim(dir, "compare --policies random,dotprod,gpu-clustering,gpu-packing,bestfit,fgd --seeds 1 --out fill").exit_code, 0);
  ASSERT_EQ(run_gpusim(dir, "compare --mode replay --time-compression 100000 --policies bestfit,fgd,random --seeds 1 --out replay")
                .exit_code,
            0);
  for (const fs::path& script : {dir / "fill" / "plots" / "allocation.gp", dir / "replay" / "plots" / "jct-cdf.gp",
                                dir / "replay" / "plots" / "queueing-cdf.gp", dir / "replay" / "plots" / "allocation-time.gp",
                                dir / "replay" / "plots" / "pending-time.gp"}) {
    const std::string text = slurp(script);
    const auto entries = legend(text);
    const bool fill = script.parent_path().parent_path().filename() == "fill";
    ASSERT_EQ(entries.size(), fill ? policies.size() : 3U) << script << "\n" << text;
    std::set<std::string> styles;
    for (const auto& [title, style] : entries) styles.insert(style);
    EXPECT_EQ(styles.size(), entries.size()) << script << ": two policies drawn alike";
    // Each policy's line has its marks (the fill plot's inset draws them again).
    EXPECT_EQ(count(text, " with points "), entries.size() * (fill ? 2 : 1)) << script;
  }
  // The fill plot's inset enlarges the end, where the policies part.
  EXPECT_NE(slurp(dir / "fill" / "plots" / "allocation.gp").find("set multiplot"), std::string::npos);
}

TEST(ReportReadability, TheLogDurationAxisTicksInUnitsPeopleRead) {
  const fs::path dir = fresh_dir("readability-ticks");
  // Runs of 30 s, 2 h and 10 d: the JCT CDF's log axis spans them.
  std::ofstream(dir / "pods.csv") << "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n"
                                     "a,1000,1024,1,1000,,LS,Running,0,30,0\nb,1000,1024,1,1000,,LS,Running,0,7200,0\n"
                                     "c,1000,1024,1,1000,,LS,Running,0,864000,0\n";
  ASSERT_EQ(run_gpusim(dir, "run --mode replay --workload pods.csv --out o").exit_code, 0);
  const std::string script = slurp(dir / "o" / "plots" / "jct-cdf.gp");
  EXPECT_NE(script.find("set logscale x\n"), std::string::npos) << script;
  EXPECT_NE(script.find("set xtics (\"1 ms\" 0.001, "), std::string::npos) << script;
  EXPECT_NE(script.find("\"1 min\" 60, \"10 min\" 600, \"1 h\" 3600, \"1 d\" 86400, \"10 d\" 864000"), std::string::npos) << script;
  EXPECT_NE(script.find("set rmargin 5\n"), std::string::npos) << "room for the last tick label";
  EXPECT_NE(script.find("'completion - arrival (log scale)'"), std::string::npos) << script;
  // The data stay in seconds, the ticks name them.
  EXPECT_NE(slurp(dir / "o" / "plots" / "jct-cdf-fgd.dat").find("\n864000 1\n"), std::string::npos);
  const std::string svg = slurp(dir / "o" / "plots" / "jct-cdf.svg");
  for (const char* tick : {">1 min<", ">1 h<", ">1 d<", ">10 d<"}) EXPECT_NE(svg.find(tick), std::string::npos) << tick;
  EXPECT_EQ(svg.find("0.0000"), std::string::npos) << "no six-decimal tick labels";
}

TEST(ReportReadability, APlotWithNothingToDrawIsNamedNotDrawnWithoutAnError) {
  const fs::path dir = fresh_dir("readability-empty");
  // One pod asking 16 GPUs of a cluster whose largest node has 4: nothing ever runs.
  std::ofstream(dir / "pods.yaml") << "apiVersion: v1\nkind: Pod\nmetadata:\n  name: too-big\nspec:\n  containers:\n"
                                      "  - name: train\n    image: trainer\n    resources:\n      limits:\n        nvidia.com/gpu: 16\n";
  const std::string args = fmt::format("run --mode replay --cluster '{}' --workload pods.yaml --out o",
                                       (fs::path(GPUSIM_SOURCE_DIR) / "traces" / "examples" / "plain" / "nodes.yaml").string());
  const CliResult result = run_gpusim(dir, args);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.err.find("gnuplot"), std::string::npos) << result.err;
  const std::string report = slurp(dir / "o" / "report.md");
  EXPECT_NE(report.find("\nJob completion time CDF (completed pods, all seeds): not drawn, as no pod completed.\n"), std::string::npos)
      << report;
  EXPECT_NE(report.find("\nGPUs allocated over time (first seed): not drawn, as no run recorded one (no timeseries.csv has a row).\n"),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("\nPending pods over time (first seed): not drawn"), std::string::npos) << report;
  EXPECT_EQ(report.find("No plots"), std::string::npos) << report;
  EXPECT_EQ(report.find("!["), std::string::npos) << report;
  // No empty plots/ folder: the output can be redrawn and replaced as any other.
  EXPECT_FALSE(fs::exists(dir / "o" / "plots"));
  const CliResult redraw = run_gpusim(dir, "report o");
  EXPECT_EQ(redraw.exit_code, 0) << redraw.err;
  EXPECT_EQ(slurp(dir / "o" / "report.md"), report);
  EXPECT_EQ(run_gpusim(dir, args).exit_code, 0);
}

}  // namespace
}  // namespace gpusim::testing
