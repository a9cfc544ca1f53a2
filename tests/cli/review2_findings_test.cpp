// Defects a review of the reports, the export and the gate found, each driven through the binary.
// Each failed before its fix.
#include <gtest/gtest.h>
#include <fmt/format.h>

#include <fstream>

#include "sim/report/output_files.hpp"
#include "sim/report/report.hpp"
#include "tests/cli/policy_files.hpp"
#include "tests/cli/run_gpusim.hpp"

namespace gpusim::testing {
namespace {

namespace fs = std::filesystem;

constexpr const char* kTimedHeader =
    "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n";

TEST(ReviewTwo, DurationsChooseTheirUnitOnThePrintedValue) {
  EXPECT_EQ(report::readable_duration(119.994), "119.99 s");
  EXPECT_EQ(report::readable_duration(119.995), "2.00 min");
  EXPECT_EQ(report::readable_duration(120), "2.00 min");
  EXPECT_EQ(report::readable_duration(7199.9999), "2.00 h");
  EXPECT_EQ(report::readable_duration(2 * 86400), "2.00 d");
  EXPECT_EQ(report::readable_duration(-0.0), "0.00 s");
  EXPECT_EQ(report::readable_duration(-300), "-5.00 min");
}

// No completed pod: the empty CDFs are not drawn (report.md says so in their place), the other plots
// still are.
TEST(ReviewTwo, AReplayWithoutCompletedPodsStillDrawsItsOtherPlots) {
  const fs::path dir = fresh_dir("no-completed-plots");
  std::ofstream(dir / "pods.csv") << kTimedHeader << "f,1000,1024,1,1000,,LS,Failed,0,100,0\np,1000,1024,1,1000,,LS,Pending,0,50,\n";
  const CliResult result = run_gpusim(dir, "run --mode replay --workload pods.csv --out o");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_TRUE(fs::exists(dir / "o" / "plots" / "allocation-time.svg"));
  EXPECT_TRUE(fs::exists(dir / "o" / "plots" / "pending-time.svg"));
  EXPECT_FALSE(fs::exists(dir / "o" / "plots" / "jct-cdf.svg"));
  const std::string report = slurp(dir / "o" / "report.md");
  EXPECT_NE(report.find("\nJob completion time CDF (completed pods, all seeds): not drawn, as no pod completed.\n"), std::string::npos)
      << report;
  EXPECT_NE(report.find("](plots/allocation-time.svg)"), std::string::npos) << report;
  EXPECT_EQ(result.err.find("plots"), std::string::npos) << result.err;  // nothing missing to note
}

// Policy names are text in the plots ("my_policy" was drawn as "my" + subscript "p" + "olicy"), and a
// profile may not take a built-in policy's name (reports compare those with published figures).
TEST(ReviewTwo, ProfileNamesInPlotsAndReports) {
  const fs::path dir = fresh_dir("profile-names");
  std::ofstream(dir / "mine.yaml") << gpusim::testing::placement_policy("my_policy", "{name: best-fit}");
  ASSERT_EQ(run_gpusim(dir, "run --policy mine.yaml --out o").exit_code, 0);
  EXPECT_NE(slurp(dir / "o" / "plots" / "allocation.svg").find(">my_policy<"), std::string::npos);
  std::ofstream(dir / "fgd.yaml") << gpusim::testing::placement_policy("fgd", "{name: best-fit}");
  const CliResult impostor = run_gpusim(dir, "run --policy fgd.yaml --out f");
  EXPECT_EQ(impostor.exit_code, 1);
  EXPECT_NE(impostor.err.find("is a built-in policy's"), std::string::npos) << impostor.err;
}

// A directory per test: ctest runs each test in its own process, in parallel.
class ReviewTwoExport : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_storage_ = fresh_dir(::testing::UnitTest::GetInstance()->current_test_info()->name());
    dir_ = &dir_storage_;
    ASSERT_EQ(run_gpusim(*dir_, "compare --policies bestfit,fgd --seeds 1 --out fill").exit_code, 0);
  }
  std::string exported(const std::string& args) {
    const std::string command = fmt::format("cd '{}' && {} export openmetrics {} > x.om 2> x.err", dir_->string(), GPUSIM_TEST_BINARY, args);
    return std::system(command.c_str()) == 0 ? slurp(*dir_ / "x.om") : "failed: " + slurp(*dir_ / "x.err");
  }
  fs::path dir_storage_;
  fs::path* dir_ = nullptr;
};

// A fill run: dropped pods are Failed (not Pending forever), the final state is sampled, models
// without a memory figure have no FB_USED series, and modelName is the driver's device name.
TEST_F(ReviewTwoExport, FillExportsEndInTheRunsFinalState) {
  const std::string om = exported("fill --policy FGD");  // any spelling, as everywhere
  ASSERT_FALSE(om.starts_with("failed")) << om;
  const auto last_value = [&](const std::string& series) {
    const auto at = om.rfind("\n" + series + " ");
    EXPECT_NE(at, std::string::npos) << series;
    const auto start = at + series.size() + 2;
    return om.substr(start, om.find(' ', start) - start);
  };
  EXPECT_EQ(last_value("gpusim_pending_pods"), "0");
  const report::Table pods = report::read_table(*dir_ / "fill" / "runs" / "fgd" / "seed-42" / "pods.csv");
  int failed = 0, scheduled = 0;
  for (std::size_t r = 0; r < pods.row_count(); ++r) {
    failed += pods.row(r)[pods.column("outcome")] == "failed";
    scheduled += pods.row(r)[pods.column("outcome")] == "scheduled";
  }
  EXPECT_EQ(last_value("gpusim_pods{phase=\"Failed\"}"), std::to_string(failed));
  EXPECT_EQ(last_value("gpusim_pods{phase=\"Running\"}"), std::to_string(scheduled));
  EXPECT_NE(om.find("modelName=\"Tesla V100-SXM2-32GB\""), std::string::npos);
  EXPECT_EQ(om.find("DCGM_FI_DEV_FB_USED{gpu=\"0\",Hostname=\"openb-node-0227\""), std::string::npos) << "a G2 node: memory unknown";
}

TEST_F(ReviewTwoExport, DamagedOrOldOutputsAreClearErrors) {
  EXPECT_NE(exported("fill --policy nope").find("no run of policy 'nope'"), std::string::npos);
  // A damaged pods.csv is an input error (it was exit 70, or a value of -2e8).
  fs::create_directories(*dir_ / "bad");
  fs::copy(*dir_ / "fill" / "summary.json", *dir_ / "bad" / "summary.json");
  fs::copy(*dir_ / "fill" / "nodes.csv", *dir_ / "bad" / "nodes.csv");
  std::ofstream(*dir_ / "bad" / "pods.csv") << "order,name,cpu_milli,memory_mib,num_gpu,gpu_milli,arrival_s,start_s,end_s,outcome,node,gpus,gpu_share_milli\n"
                                                "0,p,1000,1024,1,abc,0,0,,scheduled,openb-node-0001,0,1000\n";
  const CliResult bad = run_gpusim(*dir_, "export openmetrics bad");
  EXPECT_EQ(bad.exit_code, 1) << bad.err;
  EXPECT_NE(bad.err.find("pods.csv:2: gpu_milli: 'abc' is not a number"), std::string::npos) << bad.err;
  // An output without the nodes.csv a run writes (an older gpusim's) says so.
  fs::remove(*dir_ / "bad" / "nodes.csv");
  const CliResult old = run_gpusim(*dir_, "export openmetrics bad");
  EXPECT_EQ(old.exit_code, 1);
  EXPECT_NE(old.err.find("bad: no nodes.csv: a gpusim older than this one wrote this output"), std::string::npos) << old.err;
}

// The table reserves room for its rows before it checks them: a wide header over many blank lines
// (a damaged file of 240 KB) must not ask for room for 4 billion fields.
TEST(ReviewTwo, AWideHeaderOverBlankLinesReadsAsNoRows) {
  const fs::path csv = fresh_dir("ReviewTwo.AWideHeaderOverBlankLines") / "timeseries.csv";
  {
    std::ofstream out(csv);
    out << "time_s";
    for (int i = 0; i < 20'000; ++i) out << ",x";
    out << '\n' << std::string(200'000, '\n');
  }
  const report::Table table = report::read_table(csv);
  EXPECT_EQ(table.row_count(), 0U);
  EXPECT_EQ(table.header.size(), 20'001U);
  EXPECT_LE(table.fields.capacity(), fs::file_size(csv) + table.header.size());
}

}  // namespace
}  // namespace gpusim::testing
