// `gpusim export openmetrics`: values worked out by hand, and the real promtool accepts the file.
#include <gtest/gtest.h>
#include <fmt/format.h>

#include "tests/cli/run_gpusim.hpp"

namespace gpusim::testing {
namespace {

namespace fs = std::filesystem;

bool has_line(const std::string& text, const std::string& line) { return text.find("\n" + line + "\n") != std::string::npos; }

// n1: 2 V100M32, n2: 1 T4. fgd places a (0.5 GPU, 0-3600 s) on n2; b (2 GPUs, Failed, 600-7200 s)
// on n1; c (1 GPU) waits for n2 until a ends at 3600, then runs 2800 s; d (Pending) waits from
// 1300 s until its deletion at 2000 s. Sampled every 600 s from epoch 1767225600:
//   t=600:  n1 GPUs 100%, n2 GPU 50%; Pending 0, Running 2
//   t=1800: Pending 2 (c, d); t=2400: Pending 1 (d withdrawn); t=3600: c runs on n2 (100%)
//   t=7200: b has failed, c succeeded
class OpenMetrics : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fresh_dir(::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::ofstream(dir_ / "nodes.csv") << "sn,cpu_milli,memory_mib,gpu,model\nn1,8000,16384,2,V100M32\nn2,8000,16384,1,T4\n";
    std::ofstream(dir_ / "pods.csv") << "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n"
                                        "a,1000,1024,1,500,,LS,Running,0,3600,0\nb,1000,1024,2,1000,,LS,Failed,600,7200,600\n"
                                        "c,1000,1024,1,1000,,LS,Succeeded,1200,4000,1200\nd,1000,1024,1,1000,,LS,Pending,1300,2000,\n";
    ASSERT_EQ(run_gpusim(dir_, "run --mode replay --cluster nodes.csv --workload pods.csv --out r").exit_code, 0);
  }
  fs::path dir_;
};

TEST_F(OpenMetrics, SeriesHoldTheHandComputedValues) {
  const std::string command = fmt::format("cd '{}' && {} export openmetrics r --step 600 > r.om", dir_.string(), GPUSIM_TEST_BINARY);
  ASSERT_EQ(std::system(command.c_str()), 0);
  const std::string om = slurp(dir_ / "r.om");
  const auto at = [](int seconds) { return 1767225600 + seconds; };
  EXPECT_TRUE(has_line(om, fmt::format("DCGM_FI_DEV_GPU_UTIL{{gpu=\"1\",Hostname=\"n1\",modelName=\"Tesla V100-SXM2-32GB\"}} 100 {}", at(600))));
  EXPECT_TRUE(has_line(om, fmt::format("DCGM_FI_DEV_GPU_UTIL{{gpu=\"0\",Hostname=\"n2\",modelName=\"Tesla T4\"}} 50 {}", at(600))));
  EXPECT_TRUE(has_line(om, fmt::format("DCGM_FI_DEV_GPU_UTIL{{gpu=\"0\",Hostname=\"n2\",modelName=\"Tesla T4\"}} 100 {}", at(3600))));
  EXPECT_TRUE(has_line(om, fmt::format("gpusim_pods{{phase=\"Pending\"}} 2 {}", at(1800))));
  EXPECT_TRUE(has_line(om, fmt::format("gpusim_pods{{phase=\"Pending\"}} 1 {}", at(2400))));
  EXPECT_TRUE(has_line(om, fmt::format("gpusim_pods{{phase=\"Running\"}} 2 {}", at(600))));
  EXPECT_TRUE(has_line(om, fmt::format("gpusim_pods{{phase=\"Failed\"}} 1 {}", at(7200))));
  EXPECT_TRUE(has_line(om, fmt::format("gpusim_pods{{phase=\"Succeeded\"}} 2 {}", at(7200))));
  EXPECT_TRUE(has_line(om, fmt::format("kube_node_status_allocatable{{node=\"n1\",resource=\"nvidia_com_gpu\",unit=\"integer\"}} 2 {}", at(0))));
  EXPECT_TRUE(has_line(om, fmt::format("gpusim_allocated_gpus 2.5 {}", at(600))));
  EXPECT_TRUE(om.ends_with("# EOF\n"));
}

TEST_F(OpenMetrics, PromtoolCreatesBlocksFromTheExport) {
  ASSERT_EQ(std::system("command -v promtool > /dev/null"), 0) << "promtool (Debian's prometheus package) is required: scripts/setup.sh installs it";
  const std::string command = fmt::format(
      "cd '{}' && {} export openmetrics r --epoch 1767225600 > r.om && promtool tsdb create-blocks-from openmetrics r.om blocks > promtool.log 2>&1",
      dir_.string(), GPUSIM_TEST_BINARY);
  ASSERT_EQ(std::system(command.c_str()), 0) << slurp(dir_ / "promtool.log");
  int blocks = 0;
  for (const auto& entry : fs::directory_iterator(dir_ / "blocks")) blocks += fs::exists(entry.path() / "meta.json");
  EXPECT_GT(blocks, 0);
}

TEST_F(OpenMetrics, BadRequestsAreClearErrors) {
  EXPECT_EQ(run_gpusim(dir_, "export openmetrics nowhere").exit_code, 1);
  EXPECT_EQ(run_gpusim(dir_, "export openmetrics r --policy nope").exit_code, 1);
  EXPECT_EQ(run_gpusim(dir_, "export openmetrics r --step 0").exit_code, 2);
  EXPECT_EQ(run_gpusim(dir_, "export openmetrics r --cluster nodes.csv").exit_code, 2) << "the output needs nothing else";
}

}  // namespace
}  // namespace gpusim::testing
