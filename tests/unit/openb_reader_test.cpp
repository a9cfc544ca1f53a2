#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "sim/core/status.hpp"
#include "traces/bundled.hpp"
#include "traces/openb_reader.hpp"

namespace gpusim::traces {
namespace {

namespace fs = std::filesystem;

class OpenbReaderTest : public ::testing::Test {
 protected:
  cluster::GpuCatalog catalog = cluster::GpuCatalog::load(default_catalog(default_data_root()));

  // ctest runs each test in its own process, in parallel: every test gets its own directory.
  fs::path dir() const {
    const fs::path d = fs::path(::testing::TempDir()) / "openb_reader" /
                       ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::create_directories(d);
    return d;
  }
  fs::path write(const std::string& name, const std::string& text) {
    const fs::path path = dir() / name;
    std::ofstream(path) << text;
    return path;
  }
  // The message of the InputError thrown by reading `text` as a pod list.
  std::string pod_error(const std::string& text) {
    const auto path = write("pods.csv", text);
    try {
      read_openb_pods(path, catalog);
    } catch (const core::InputError& e) {
      return e.what();
    }
    return "no error";
  }
  std::string pod_error_at(const fs::path& path) {
    try {
      read_openb_pods(path, catalog);
    } catch (const core::InputError& e) {
      return e.what();
    }
    return "no error";
  }
};

constexpr const char* kHeader =
    "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n";

TEST_F(OpenbReaderTest, ReadsFullRows) {
  const auto path = write("ok.csv", std::string(kHeader) +
                                        "p0,12000,16384,1,460,V100M16|V100M32|V100M32,LS,Running,10,100,12\n"
                                        "p1,4000,0,0,0,,BE,Pending,20,50,\n");
  const Workload w = read_openb_pods(path, catalog);
  ASSERT_EQ(w.pods.size(), 2U);
  EXPECT_TRUE(w.has_times);
  EXPECT_EQ(w.pods[0].gpu_milli, 460);
  EXPECT_TRUE(w.pods[0].allowed_models.allows(*catalog.find("V100M32")));
  EXPECT_FALSE(w.pods[0].allowed_models.allows(*catalog.find("T4")));
  EXPECT_EQ(w.pods[0].duration->micros(), 88'000'000) << "deletion minus scheduled";
  EXPECT_EQ(w.pods[1].duration->micros(), 30'000'000) << "never scheduled: deletion minus creation";
  EXPECT_TRUE(w.pods[1].allowed_models.any());
}

TEST_F(OpenbReaderTest, ReadsFiveColumnMultiGpuFiles) {
  const auto path = write("multi.csv", "name,cpu_milli,memory_mib,num_gpu,gpu_milli\np0,8000,100,8,1000\n");
  const Workload w = read_openb_pods(path, catalog);
  EXPECT_FALSE(w.has_times);
  EXPECT_EQ(w.pods[0].total_gpu_milli(), 8000);
}

TEST_F(OpenbReaderTest, MissingColumnNamesTheHeader) {
  EXPECT_EQ(pod_error("name,cpu_milli,memory_mib,num_gpu\np0,1,1,1\n"),
            (dir() / "pods.csv").string() + ":1: header: missing column 'gpu_milli'");
}

TEST_F(OpenbReaderTest, TextInANumberNamesLineAndField) {
  const std::string error = pod_error(std::string(kHeader) + "p0,12000,16384,1,460,,LS,Running,0,1,0\np1,12x00,1,0,0,,LS,Running,0,1,0\n");
  EXPECT_NE(error.find("pods.csv:3: cpu_milli: '12x00' is not an integer"), std::string::npos) << error;
}

TEST_F(OpenbReaderTest, NegativeValueIsRejected) {
  const std::string error = pod_error(std::string(kHeader) + "p0,1000,-5,0,0,,LS,Running,0,1,0\n");
  EXPECT_NE(error.find("pods.csv:2: memory_mib: -5 is negative"), std::string::npos) << error;
}

TEST_F(OpenbReaderTest, InconsistentGpuRequestsAreRejected) {
  EXPECT_NE(pod_error(std::string(kHeader) + "p,1,1,2,500,,LS,Running,0,1,0\n").find("gpu_milli: a fraction"), std::string::npos);
  EXPECT_NE(pod_error(std::string(kHeader) + "p,1,1,1,1500,,LS,Running,0,1,0\n").find("gpu_milli: 1500 exceeds"), std::string::npos);
  EXPECT_NE(pod_error(std::string(kHeader) + "p,1,1,1,500,X9,LS,Running,0,1,0\n").find("gpu_spec: unknown GPU model 'X9'"), std::string::npos);
  EXPECT_NE(pod_error(std::string(kHeader) + "p,1,1,1,500,,XX,Running,0,1,0\n").find("qos: unknown QoS"), std::string::npos);
  EXPECT_NE(pod_error(std::string(kHeader) + "p,1,1,1,500,,LS,Running,9,1,0\n").find("deletion_time: before creation_time"), std::string::npos);
}

TEST_F(OpenbReaderTest, WrongFieldCountIsRejected) {
  EXPECT_NE(pod_error(std::string(kHeader) + "p0,1,2\n").find("pods.csv:2: expected 11 fields"), std::string::npos);
}

TEST_F(OpenbReaderTest, NodeListErrors) {
  const auto bad_model = write("nodes.csv", "sn,cpu_milli,memory_mib,gpu,model\nn0,1000,1000,2,Z80\n");
  EXPECT_THROW(read_openb_nodes(bad_model, catalog), core::InputError);
  const auto gpu_no_model = write("nodes2.csv", "sn,cpu_milli,memory_mib,gpu,model\nn0,1000,1000,2,\n");
  try {
    read_openb_nodes(gpu_no_model, catalog);
    FAIL();
  } catch (const core::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("nodes2.csv:2: model: empty"), std::string::npos) << e.what();
  }
}

TEST_F(OpenbReaderTest, EveryBundledFileReads) {
  const auto root = default_data_root();
  const ClusterSpec gpu_nodes = read_openb_nodes(resolve_cluster("openb", root), catalog);
  EXPECT_EQ(gpu_nodes.nodes.size(), 1213U);
  int gpus = 0;
  for (const auto& n : gpu_nodes.nodes) gpus += n.gpu_count;
  EXPECT_EQ(gpus, 6212);
  EXPECT_EQ(read_openb_nodes(resolve_cluster("openb:all", root), catalog).nodes.size(), 1523U);
  for (const auto& variant : openb_variants()) {
    const Workload w = read_openb_pods(resolve_workload("openb:" + variant, root), catalog);
    EXPECT_GT(w.pods.size(), 7000U) << variant;
    EXPECT_EQ(w.has_times, !variant.starts_with("multigpu")) << variant;
  }
  EXPECT_EQ(read_openb_pods(resolve_workload("openb:default", root), catalog).pods.size(), 8152U);
  EXPECT_THROW(resolve_workload("openb:nope", root), core::InputError);
}

TEST_F(OpenbReaderTest, BlankAndCommentLinesAreCountedNeverSilent) {
  const auto path = write("skips.csv", std::string(kHeader) +
                                           "p0,1000,1,1,500,,LS,Running,0,10,0\n"
                                           "\n"
                                           "# a comment a user added\n"
                                           "   \n"
                                           "p1,1000,1,1,500,,LS,Running,0,10,0\n");
  const Workload w = read_openb_pods(path, catalog);
  EXPECT_EQ(w.pods.size(), 2U);
  EXPECT_EQ(w.skipped_lines, 3);
}

TEST_F(OpenbReaderTest, DuplicateNamesAreErrorsNamingBothLines) {
  EXPECT_NE(pod_error(std::string(kHeader) + "p0,1,1,0,0,,LS,Running,0,1,0\np0,1,1,0,0,,LS,Running,0,1,0\n")
                .find("pods.csv:3: name: duplicate pod name 'p0' (first at line 2)"),
            std::string::npos);
  std::istringstream nodes("sn,cpu_milli,memory_mib,gpu,model\nn1,1000,1000,0,\nn1,1000,1000,0,\n");
  try {
    read_openb_nodes(nodes, "nodes.csv", catalog);
    FAIL();
  } catch (const core::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("nodes.csv:3: sn: duplicate node name 'n1'"), std::string::npos) << e.what();
  }
}

TEST_F(OpenbReaderTest, TimesAndSizesOutOfRangeAreErrors) {
  // 10^13 s would overflow a microsecond count once multiplied (issue: time conversion).
  EXPECT_NE(pod_error(std::string(kHeader) + "p,1,1,0,0,,LS,Running,10000000000000,10000000000001,\n")
                .find("pods.csv:2: creation_time: 10000000000000 s is out of range"),
            std::string::npos);
  EXPECT_NE(pod_error(std::string(kHeader) + "p,1,1,0,0,,LS,Running,9223372036854775807,9223372036854775807,\n")
                .find("creation_time: 9223372036854775807 s is out of range"),
            std::string::npos);
  EXPECT_NE(pod_error(std::string(kHeader) + "p,9000000000000000000,1,0,0,,LS,Running,0,1,\n").find("cpu_milli: 9000000000000000000 is out of range"),
            std::string::npos);
  EXPECT_NE(pod_error(std::string(kHeader) + "p,1,-5,0,0,,LS,Running,0,1,\n").find("memory_mib: -5 is negative"), std::string::npos);
  EXPECT_NE(pod_error(std::string(kHeader) + "p,1,1,129,1000,,LS,Running,0,1,\n").find("num_gpu: 129 GPUs is too many"), std::string::npos);
  // The largest accepted time converts exactly.
  const auto path = write("max.csv", std::string(kHeader) + "p,1,1,0,0,,LS,Running,0,1000000000000,\n");
  EXPECT_EQ(read_openb_pods(path, catalog).pods[0].deletion_time->micros(), 1'000'000'000'000'000'000);
}

TEST_F(OpenbReaderTest, HeaderProblemsAreErrors) {
  EXPECT_NE(pod_error("name,name,cpu_milli\n").find("pods.csv:1: header: column 'name' appears twice"), std::string::npos);
  EXPECT_NE(pod_error("name,,cpu_milli\n").find("pods.csv:1: header: empty column name"), std::string::npos);
  EXPECT_NE(pod_error("").find("pods.csv:1: empty file"), std::string::npos);
}

TEST_F(OpenbReaderTest, UnknownGpuModelsListTheCatalogIds) {
  EXPECT_NE(pod_error(std::string(kHeader) + "p,1,1,1,1000,X99,LS,Running,0,1,\n").find("unknown GPU model 'X99' (catalog ids: k80,"),
            std::string::npos);
}

TEST_F(OpenbReaderTest, MissingFileAndDirectoryGetDifferentMessages) {
  EXPECT_NE(pod_error_at(dir() / "absent.csv").find("absent.csv: no such file"), std::string::npos);
  EXPECT_NE(pod_error_at(dir()).find("is a directory, expected the pod list file"), std::string::npos);
}

}  // namespace
}  // namespace gpusim::traces
