// Fill in a given order (`--order`), through the binary.
#include <gtest/gtest.h>
#include <fmt/format.h>

#include "tests/cli/policy_files.hpp"
#include "tests/cli/run_gpusim.hpp"

namespace gpusim::testing {
namespace {

namespace fs = std::filesystem;

// The rows of pods.csv as "name node gpus outcome".
std::vector<std::string> placements(const fs::path& pods_csv) {
  std::vector<std::string> rows;
  std::istringstream in(slurp(pods_csv));
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::stringstream fields(line);
    for (std::string x; std::getline(fields, x, ',');) f.push_back(x);
    if (line.back() == ',') f.emplace_back();
    rows.push_back(fmt::format("{} {} {} {}", f[1], f[10], f[11], f[9]));
  }
  return rows;
}

// n1: 4 cores, 4 GiB, 1 GPU; n2: 8 cores, 8 GiB, 2 GPUs. MostAllocated (integer, mean of CPU and
// memory), first-fit GPUs, ties to the lowest node index. Worked by hand:
//   a (1 GPU): n1 (1000*100/4000 + 1024*100/4096)/2 = 25, n2 (12 + 12)/2 = 12  -> n1, GPU 0
//   b (0.5 GPU): n1's GPU is full -> n2, GPU 0
//   c (0.5 GPU): n2, GPU 0 still has 500 free -> GPU 0 (first fit)
//   d (2 GPUs): n2 has one whole GPU free, n1 none -> fits nowhere: failed
//   e (CPU only): n1 (50 + 50)/2 = 50, n2 (4000/8000 -> 50, 4096/8192 -> 50) = 50: a tie -> n1
class FillOrder : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fresh_dir(::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::ofstream(dir_ / "nodes.csv") << "sn,cpu_milli,memory_mib,gpu,model\nn1,4000,4096,1,V100M32\nn2,8000,8192,2,V100M32\n";
    std::ofstream(dir_ / "pods.csv") << "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n"
                                        "a,1000,1024,1,1000,,LS,Running,50,60,50\n"
                                        "b,1000,1024,1,500,,LS,Running,40,60,40\n"
                                        "c,2000,2048,1,500,,LS,Running,40,60,40\n"
                                        "d,1000,1024,2,1000,,LS,Running,10,60,10\n"
                                        "e,1000,1024,0,0,,LS,Running,30,60,30\n";
    std::ofstream(dir_ / "pack.yaml") << gpusim::testing::placement_policy("pack", "{name: most-allocated}", "first-fit", "NodeIndex");
  }
  CliResult run(const std::string& extra, const char* out) {
    return run_gpusim(dir_, fmt::format("run --cluster nodes.csv --workload pods.csv --policy pack.yaml {} --out {}", extra, out));
  }
  fs::path dir_;
};

TEST_F(FillOrder, AsListedPlacesPodsAsWorkedOutByHand) {
  ASSERT_EQ(run("--order as-listed --fill-target 10", "o").exit_code, 0);
  EXPECT_EQ(placements(dir_ / "o" / "pods.csv"),
            (std::vector<std::string>{"a n1 0 scheduled", "b n2 0 scheduled", "c n2 0 scheduled", "d   failed", "e n1  scheduled"}));
  // The same for every seed: ties go by node index, nothing is shuffled.
  ASSERT_EQ(run("--order as-listed --fill-target 10 --seed 7", "o7").exit_code, 0);
  EXPECT_EQ(slurp(dir_ / "o" / "pods.csv"), slurp(dir_ / "o7" / "pods.csv"));
}

// 3 GPUs = 3000 milli; target 0.6 -> 1800: a + b = 1500 fit, + c = 2000 would not: two arrive.
TEST_F(FillOrder, AsListedStopsBeforeTheTargetIsCrossed) {
  ASSERT_EQ(run("--order as-listed --fill-target 0.6", "o").exit_code, 0);
  EXPECT_EQ(placements(dir_ / "o" / "pods.csv"), (std::vector<std::string>{"a n1 0 scheduled", "b n2 0 scheduled"}));
  EXPECT_NE(slurp(dir_ / "o" / "summary.json").find("\"order\": \"as-listed\""), std::string::npos);
}

// By creation time, then name: d (10), e (30), b and c (40: by name), a (50).
//   d (2 GPUs): only n2 has two -> GPUs 0-1
//   e: n1 (1000*100/4000 + 1024*100/4096)/2 = 25; n2 with d's share (2000*100/8000 + 2048*100/8192)/2 = 25:
//      a tie -> n1
//   b: only n1 has a GPU with room -> n1 GPU 0;  c: n1's GPU has 500 left -> n1 GPU 0
//   a (1 GPU): no whole GPU is free anywhere -> failed
TEST_F(FillOrder, CreationTimeSortsByTimeThenName) {
  ASSERT_EQ(run("--order creation-time --fill-target 10", "o").exit_code, 0);
  EXPECT_EQ(placements(dir_ / "o" / "pods.csv"),
            (std::vector<std::string>{"d n2 0-1 scheduled", "e n1  scheduled", "b n1 0 scheduled", "c n1 0 scheduled", "a   failed"}));
}

TEST_F(FillOrder, OrderIsAFillOptionAndCreationTimeNeedsTimes) {
  const CliResult replay = run("--mode replay --order as-listed", "r");
  EXPECT_EQ(replay.exit_code, 2);
  EXPECT_NE(replay.err.find("--order applies to --mode fill only"), std::string::npos) << replay.err;
  const CliResult bad = run("--order sideways", "s");
  EXPECT_EQ(bad.exit_code, 2);
  const CliResult untimed = run_gpusim(dir_, "run --workload openb:multigpu50 --order creation-time --out m");
  EXPECT_EQ(untimed.exit_code, 1);
  EXPECT_NE(untimed.err.find("needs the pod list's creation_time and deletion_time columns"), std::string::npos) << untimed.err;
}

// The bundled default list as listed: its requests stay under 130% of the cluster, so the
// whole list arrives and no copy is added.
TEST(FillOrderBundled, AsListedReachesTheEndOfTheListWithoutCopies) {
  const fs::path dir = fresh_dir("as-listed-bundled");
  ASSERT_EQ(run_gpusim(dir, "run --order as-listed --out o").exit_code, 0);
  const std::string summary = slurp(dir / "o" / "summary.json");
  EXPECT_NE(summary.find("\"arrived_pods\": 8152.0"), std::string::npos) << summary.substr(0, 2000);
  EXPECT_EQ(slurp(dir / "o" / "pods.csv").find("-tuned-"), std::string::npos);
  // --order shuffled is the default, byte for byte.
  ASSERT_EQ(run_gpusim(dir, "run --out d").exit_code, 0);
  ASSERT_EQ(run_gpusim(dir, "run --order shuffled --out s").exit_code, 0);
  for (const char* file : {"summary.json", "report.md", "pods.csv", "curve.csv"}) {
    EXPECT_EQ(slurp(dir / "d" / file), slurp(dir / "s" / file)) << file;
  }
  // Fill outputs carry fill settings only (a misplaced `else` once added replay's to them).
  EXPECT_EQ(slurp(dir / "d" / "summary.json").find("time_compression"), std::string::npos);
  EXPECT_EQ(slurp(dir / "d" / "report.md").find("compression"), std::string::npos);
  EXPECT_EQ(slurp(dir / "d" / "summary.json").find("\"order\""), std::string::npos);
}

}  // namespace
}  // namespace gpusim::testing
