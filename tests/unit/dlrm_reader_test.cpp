// The Alibaba DLRM 2025 reader: roles become node selectors, services and their per-node limits
// are kept, rows without times are read explicitly, and refusals name file, line and field.
#include <gtest/gtest.h>

#include <sstream>

#include "sim/core/status.hpp"
#include "traces/dlrm_reader.hpp"

namespace gpusim::traces {
namespace {

constexpr const char* kHeader =
    "instance_sn,role,app_name,cpu_request,cpu_limit,gpu_request,gpu_limit,rdma_request,rdma_limit,memory_request,"
    "memory_limit,disk_request,disk_limit,max_instance_per_node,creation_time,scheduled_time,deletion_time\n";

Workload read(const std::string& rows) {
  std::istringstream in(std::string(kHeader) + rows);
  return read_dlrm_instances(in, "dlrm.csv");
}

std::string error_of(const std::string& rows) {
  try {
    read(rows);
  } catch (const core::InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(DlrmReader, RolesServicesAndRequestsBecomeThePods) {
  const Workload w = read(
      "i0,HN,app_7,12,12,1,1,25,25,120.0,120.0,640.0,800.0,8,,,\n"
      "i1,CN,app_3,64,64,0,0,1,1,320.5,320.5,255.0,300.0,-1,610.0,683.0,91730.0\n"
      "i2,HN,app_7,8,8,1,1,50,50,40.0,40.0,10.0,10.0,2,475.00000000000006,475.00000000000006,2843.0\n");
  ASSERT_EQ(w.pods.size(), 3u);
  EXPECT_EQ(w.apps, (std::vector<std::string>{"app_7", "app_3"}));
  const cluster::PodSpec &hn = w.pods[0], &cn = w.pods[1];
  EXPECT_EQ(hn.gpu_count, 1);
  EXPECT_EQ(hn.gpu_milli, 1000);
  EXPECT_EQ(hn.cpu_milli, 12000);
  EXPECT_EQ(hn.memory_mib, 120 * 1024);
  EXPECT_EQ(hn.rdma_percent, 25);
  EXPECT_EQ(hn.app, 0);
  EXPECT_EQ(hn.max_per_node, 8);
  EXPECT_EQ(hn.constraints->node_selector, (cluster::Labels{{kDlrmRoleLabel, "HN"}}));
  EXPECT_EQ(cn.gpu_count, 0);
  EXPECT_EQ(cn.memory_mib, 328'192);  // 320.5 GiB
  EXPECT_EQ(cn.max_per_node, 0);      // -1: no limit
  EXPECT_EQ(cn.app, 1);
  EXPECT_EQ(cn.constraints->node_selector, (cluster::Labels{{kDlrmRoleLabel, "CN"}}));
  // The float artefact reads as 475 s to the microsecond.
  EXPECT_EQ(w.pods[2].creation_time->micros(), 475'000'000);
  EXPECT_EQ(w.pods[2].app, 0);
}

TEST(DlrmReader, RowsWithoutTimesAreReadExplicitly) {
  const Workload w = read(
      "before,HN,a,8,8,1,1,25,25,40.0,40.0,1,1,2,,,1000.0\n"   // existed before the trace: arrives at 0
      "both,HN,a,8,8,1,1,25,25,40.0,40.0,1,1,2,,,\n"           // the whole window
      "alive,CN,b,8,8,0,0,1,1,40.0,40.0,1,1,-1,100.0,160.0,\n" // alive at the end (5000 s, the last time)
      "late,CN,b,8,8,0,0,1,1,40.0,40.0,1,1,-1,4000.0,4000.0,5000.0\n");
  ASSERT_EQ(w.pods.size(), 4u);
  EXPECT_EQ(w.pods[0].creation_time->micros(), 0);
  EXPECT_EQ(w.pods[0].duration->micros(), 1'000'000'000);
  EXPECT_EQ(w.pods[0].phase, cluster::TracePhase::kSucceeded);
  EXPECT_EQ(w.pods[1].duration->micros(), 5'000'000'000);
  EXPECT_EQ(w.pods[1].phase, cluster::TracePhase::kRunning);
  // Runs from its scheduled time (160 s) to the end: its 60 s wait is the trace's, not replayed.
  EXPECT_EQ(w.pods[2].creation_time->micros(), 100'000'000);
  EXPECT_EQ(w.pods[2].deletion_time->micros(), 5'000'000'000);
  EXPECT_EQ(w.pods[2].duration->micros(), 4'840'000'000);
  EXPECT_EQ(w.pods[2].phase, cluster::TracePhase::kRunning);
  ASSERT_GE(w.notes.size(), 2u);
  EXPECT_EQ(w.notes[0], "2 instances have no creation_time (they existed before the trace began): they arrive at 0 s");
  EXPECT_EQ(w.notes[1], "2 instances have no deletion_time (alive at the trace's end): they run until its last time, 5000 s");
}

TEST(DlrmReader, RefusalsNameTheFileLineAndField) {
  EXPECT_EQ(error_of("i0,XN,a,8,8,1,1,25,25,40.0,40.0,1,1,2,,,\n"),
            "dlrm.csv:2: role: 'XN' is neither CN (CPU node) nor HN (GPU node)");
  EXPECT_EQ(error_of("i0,CN,a,8,8,1,1,25,25,40.0,40.0,1,1,2,,,\n"),
            "dlrm.csv:2: gpu_request: a CN instance runs on a CPU node and asks no GPU");
  EXPECT_EQ(error_of("i0,HN,a,8,9,1,1,25,25,40.0,40.0,1,1,2,,,\n"),
            "dlrm.csv:2: cpu_limit: 9 differs from the request 8 (the trace has them equal; gpusim places by requests)");
  EXPECT_EQ(error_of("i0,HN,a,8,8,1,1,25,25,40.0,40.0,1,1,0,,,\n"),
            "dlrm.csv:2: max_instance_per_node: 0 is neither -1 (no limit) nor a positive count");
  EXPECT_EQ(error_of("i0,HN,a,8,8,1,1,25,25,40.0,40.0,1,1,2,,5.0,\n"),
            "dlrm.csv:2: scheduled_time: given without creation_time");
  EXPECT_EQ(error_of("i0,HN,a,8,8,1,1,25,25,40.0,40.0,1,1,2,10.0,12.0,11.0\n"),
            "dlrm.csv:2: deletion_time: before scheduled_time");
  EXPECT_EQ(error_of("i0,HN,a,8,8,1,1,25,25,40.0,40.0,1,1,2,,,\ni0,HN,a,8,8,1,1,25,25,40.0,40.0,1,1,2,,,\n"),
            "dlrm.csv:3: instance_sn: duplicate instance 'i0' (first at line 2)");
  EXPECT_EQ(error_of("i0,HN,a,8,8,1,1,25,25,40.0,40.0,10,5,2,,,\n"), "dlrm.csv:2: disk_limit: below disk_request");
  EXPECT_EQ(error_of(""), "dlrm.csv: no instances");
}

}  // namespace
}  // namespace gpusim::traces
