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

}  // namespace
}  // namespace gpusim::testing
