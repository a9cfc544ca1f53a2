// Placement as the FGD artifact's Go simulator decides it (results/fgd-placements/), through the binary:
// integer scores (a score plugin's float expression truncated to int64, then BestFit's integer min-max
// normalisation) with ties to the lowest node index, and FGD's typical pods from a list of their own
// (--typical-pods).
#include <gtest/gtest.h>
#include <fmt/format.h>

#include "tests/cli/policy_files.hpp"
#include "tests/cli/run_gpusim.hpp"

namespace gpusim::testing {
namespace {

namespace fs = std::filesystem;

constexpr const char* kPodHeader =
    "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n";

std::string node_and_gpus(const fs::path& pods_csv, const std::string& pod) {
  const auto rows = pods_by_name(pods_csv);
  const auto& row = rows.at(pod);
  return row.at("node") + " " + row.at("gpus") + " " + row.at("outcome");
}

class FgdArtifact : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = fresh_dir(::testing::UnitTest::GetInstance()->current_test_info()->name()); }
  void write(const std::string& file, const std::string& text) { std::ofstream(dir_ / file) << text; }
  CliResult run(const std::string& args) { return run_gpusim(dir_, args); }
  fs::path dir_;
};

// BestFit on two nodes, pod p asks 1 core and one whole GPU:
//   n1 (6 cores, 1 GPU): raw = (6000 - 1000) / 128000 * 0.5 + (1000 - 1000) / 8000 * 0.5 = 0.01953125
//                        (1 - raw) * 100 = 98.046875 -> int 98
//   n2 (5 cores, 1 GPU): raw = (5000 - 1000) / 128000 * 0.5 = 0.015625 -> 98.4375 -> int 98
// Compared as floats n2 would win (98.44 > 98.05). As integers they tie: min-max normalisation with
// max == min gives both 0, and the tie goes to the lowest node index: n1. Listed the other way round,
// the tie goes to n2, the first in the list.
TEST_F(FgdArtifact, BestFitScoresAreTruncatedSoNearlyEqualNodesTieAndTheFirstNodeWins) {
  write("nodes.csv", "sn,cpu_milli,memory_mib,gpu,model\nn1,6000,8192,1,V100M32\nn2,5000,8192,1,V100M32\n");
  write("reversed.csv", "sn,cpu_milli,memory_mib,gpu,model\nn2,5000,8192,1,V100M32\nn1,6000,8192,1,V100M32\n");
  write("pods.csv", std::string(kPodHeader) + "p,1000,1024,1,1000,,LS,Running,0,10,0\n");
  write("bestfit.yaml", gpusim::testing::placement_policy("bestfit-node-index", "{name: best-fit, weight: 1000}", "best", "NodeIndex"));
  const std::string common = "run --workload pods.csv --policy bestfit.yaml --order as-listed --fill-target 1";
  ASSERT_EQ(run(common + " --cluster nodes.csv --out a").exit_code, 0);
  EXPECT_EQ(node_and_gpus(dir_ / "a" / "pods.csv", "p"), "n1 0 scheduled");
  ASSERT_EQ(run(common + " --cluster reversed.csv --out b").exit_code, 0);
  EXPECT_EQ(node_and_gpus(dir_ / "b" / "pods.csv", "p"), "n2 0 scheduled");
}

// FGD: score = int(100 * sigmoid((F(before) - F(after)) / 1000)), F = the node's idle GPU milli that a
// typical pod could not use, weighted by the typical pods' frequencies. Nodes n1 (8 cores, 2 GPUs) and
// n2 (8 cores, 1 GPU); the workload is one pod s: 1 core, half a GPU.
//
// Typical pods from the workload itself: {s's shape, frequency 1}.
//   n1: before [1000, 1000]: s fits, no GPU too full -> F = 0; after [500, 1000] (GPU 1 has the same free milli
//       as GPU 0, so only GPU 0 is tried): s still fits on both -> F = 0; sigmoid(0) = 0.5 -> 50
//   n2: before [1000] -> 0, after [500] -> 0: 50. A tie: the lowest index, n1, GPU 0.
// Typical pods from typical.csv: {t: 1 core, 2 whole GPUs, frequency 1}.
//   n1: before [1000, 1000]: t fits, F = 0; after [500, 1000]: one GPU of 1000 free, t needs two -> every idle
//       milli is a fragment (Q2): F = 1500; sigmoid(-1.5) = 0.18243 -> 18
//   n2: before [1000]: t never fits -> F = 1000; after [500] -> F = 500; sigmoid(0.5) = 0.62246 -> 62
//   -> n2, GPU 0.
TEST_F(FgdArtifact, TypicalPodsFromAnotherListChangeFgdsChoice) {
  write("nodes.csv", "sn,cpu_milli,memory_mib,gpu,model\nn1,8000,8192,2,V100M32\nn2,8000,8192,1,V100M32\n");
  write("pods.csv", std::string(kPodHeader) + "s,1000,1024,1,500,,LS,Running,0,10,0\n");
  write("typical.csv", std::string(kPodHeader) + "t,1000,1024,2,1000,,LS,Running,0,10,0\n");
  write("fgd.yaml", gpusim::testing::placement_policy("fgd-node-index", "{name: fgd, weight: 1000}", "fgd", "NodeIndex"));
  const std::string common = "run --cluster nodes.csv --workload pods.csv --policy fgd.yaml --order as-listed";
  ASSERT_EQ(run(common + " --out own").exit_code, 0);
  EXPECT_EQ(node_and_gpus(dir_ / "own" / "pods.csv", "s"), "n1 0 scheduled");
  EXPECT_EQ(slurp(dir_ / "own" / "summary.json").find("typical_pods"), std::string::npos);

  const CliResult other = run(common + " --typical-pods typical.csv --out other");
  ASSERT_EQ(other.exit_code, 0) << other.err;
  EXPECT_EQ(node_and_gpus(dir_ / "other" / "pods.csv", "s"), "n2 0 scheduled");
  EXPECT_NE(slurp(dir_ / "other" / "summary.json").find("\"typical_pods\": {\n      \"file\": \"typical.csv\""),
            std::string::npos);
}

TEST_F(FgdArtifact, TypicalPodsIsAFillOptionForFgdOnly) {
  write("pods.csv", std::string(kPodHeader) + "s,1000,1024,1,500,,LS,Running,0,10,0\n");
  const CliResult replay = run("run --workload pods.csv --mode replay --typical-pods pods.csv --out r");
  EXPECT_EQ(replay.exit_code, 2);
  EXPECT_NE(replay.err.find("--typical-pods applies to --mode fill only"), std::string::npos) << replay.err;
  const CliResult bestfit = run("run --workload pods.csv --policy bestfit --typical-pods pods.csv --out b");
  EXPECT_EQ(bestfit.exit_code, 2);
  EXPECT_NE(bestfit.err.find("--typical-pods applies to policies with the fgd plugin"), std::string::npos) << bestfit.err;
  const CliResult missing = run("run --workload pods.csv --typical-pods nowhere.csv --out m");
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_FALSE(fs::exists(dir_ / "m"));
}

// scripts/fgd_compare.py go-vs-go: two Go runs' logs (logrus lines as the Go simulator writes them),
// pod by pod over the arrivals both settled. Pod a goes to node n1 in both; b to n2 and n3 (a
// difference); c is still waiting in the second run, so it is not compared: 2 settled, 1 the same.
TEST_F(FgdArtifact, GoVsGoComparesTwoGoRunsOverTheArrivalsBothSettled) {
  const auto line = [](const std::string& msg) { return fmt::format("time=\"2023-05-11T00:00:00Z\" level=info msg=\"{}\\n\"\n", msg); };
  write("one.log", line("[0] attempt to create pod(paib-gpu/a)") + line("pod(paib-gpu/a) is scheduled to node(0001-n1)") +
                       line("[1] attempt to create pod(paib-gpu/b)") + line("pod(paib-gpu/b) is scheduled to node(0002-n2)") +
                       line("[2] attempt to create pod(paib-gpu/c)") + line("pod(paib-gpu/c) is scheduled to node(0001-n1)"));
  write("two.log", line("[0] attempt to create pod(paib-gpu/a)") + line("pod(paib-gpu/a) is scheduled to node(0001-n1)") +
                       line("[1] attempt to create pod(paib-gpu/b)") + line("pod(paib-gpu/b) is scheduled to node(0003-n3)") +
                       line("[2] attempt to create pod(paib-gpu/c)"));
  const std::string script = (fs::path(GPUSIM_SOURCE_DIR) / "scripts" / "fgd_compare.py").string();
  const std::string command = fmt::format("cd '{}' && python3 '{}' go-vs-go --log one.log --log two.log > out.txt 2>&1",
                                          dir_.string(), script);
  ASSERT_EQ(std::system(command.c_str()), 0) << slurp(dir_ / "out.txt");
  EXPECT_EQ(slurp(dir_ / "out.txt"),
            "2 arrivals settled in both runs; same node (or failed in both): 1 (50.00%)\n"
            "  first difference: arrival 1 b: n2 in the first run, n3 in the second\n");
}

}  // namespace
}  // namespace gpusim::testing
