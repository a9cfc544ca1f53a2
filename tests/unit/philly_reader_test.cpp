// The Philly job-log reader: times relative to the earliest time stamp, gangs for jobs larger than
// a node, virtual clusters as queues, and refusals that name file, line and field.
#include <gtest/gtest.h>

#include <sstream>

#include "sim/core/status.hpp"
#include "traces/bundled.hpp"
#include "traces/philly_reader.hpp"

namespace gpusim::traces {
namespace {

constexpr const char* kHeader = "timestamp,duration,num_gpus,gpu_time,cluster\n";

Workload read(const std::string& rows, int max_gpus = 8) {
  std::istringstream in(std::string(kHeader) + rows);
  return read_philly_jobs(in, "jobs.csv", max_gpus);
}

std::string error_of(const std::string& rows, int max_gpus = 8) {
  try {
    read(rows, max_gpus);
  } catch (const core::InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(PhillyReader, TimesStartAtTheEarliestStampAndQueuesComeFromVirtualClusters) {
  // Rows are not in time order (as in the real log); the second row is the earliest.
  const Workload w = read(
      "2017-10-09 07:01:55,66.0,1,66.0,11cb48\n"
      "2017-10-09 06:13:03,2951.0,2,5902.0,6214e9\n"
      "2017-10-10 06:13:03,1.5,1,1.5,11cb48\n");
  ASSERT_EQ(w.pods.size(), 3u);
  EXPECT_TRUE(w.has_times);
  EXPECT_FALSE(w.has_gangs);
  EXPECT_EQ(w.pods[0].name, "job-00000");
  EXPECT_EQ(w.pods[0].creation_time->micros(), (48 * 60 + 52) * 1'000'000LL);
  EXPECT_EQ(w.pods[1].creation_time->micros(), 0);
  EXPECT_EQ(w.pods[2].creation_time->micros(), 86'400'000'000LL);
  EXPECT_EQ(w.pods[2].duration->micros(), 1'500'000);
  EXPECT_EQ(w.pods[1].gpu_count, 2);
  EXPECT_EQ(w.pods[1].gpu_milli, 1000);
  ASSERT_EQ(w.queues, (std::vector<std::string>{"11cb48", "6214e9"}));
  EXPECT_EQ(w.pods[0].queue, 0);
  EXPECT_EQ(w.pods[1].queue, 1);
  EXPECT_EQ(w.pods[2].queue, 0);
}

TEST(PhillyReader, JobsLargerThanANodeBecomeGangs) {
  // 12 GPUs on 8-GPU nodes: a worker of 8 and one of 4; 16: two of 8.
  const Workload w = read(
      "2017-10-01 00:00:00,10.0,12,120.0,a\n"
      "2017-10-01 00:00:00,10.0,16,160.0,a\n"
      "2017-10-01 00:00:00,10.0,8,80.0,a\n");
  ASSERT_EQ(w.pods.size(), 5u);
  EXPECT_TRUE(w.has_gangs);
  EXPECT_EQ(w.pods[0].name, "job-00000-w000");
  EXPECT_EQ(w.pods[0].gpu_count, 8);
  EXPECT_EQ(w.pods[1].gpu_count, 4);
  EXPECT_EQ(w.pods[0].gang, 1u);
  EXPECT_EQ(w.pods[1].gang, 1u);
  EXPECT_EQ(w.pods[2].gang, 2u);
  EXPECT_EQ(w.pods[3].gang, 2u);
  EXPECT_EQ(w.pods[4].gang, 0u);
  EXPECT_EQ(w.pods[4].name, "job-00002");
  ASSERT_EQ(w.notes.size(), 1u);
}

TEST(PhillyReader, RefusesWhatItCannotRead) {
  EXPECT_EQ(error_of("2017-02-30 00:00:00,1.0,1,1.0,a\n"), "jobs.csv:2: timestamp: '2017-02-30 00:00:00': no such date");
  EXPECT_EQ(error_of("2017-10-01 24:00:00,1.0,1,1.0,a\n"), "jobs.csv:2: timestamp: '2017-10-01 24:00:00': no such time of day");
  EXPECT_EQ(error_of("2017-10-01T00:00:00,1.0,1,1.0,a\n"),
            "jobs.csv:2: timestamp: '2017-10-01T00:00:00' is not a time stamp of the form YYYY-MM-DD HH:MM:SS");
  EXPECT_EQ(error_of("2017-10-01 00:00:00,-1.0,1,-1.0,a\n"), "jobs.csv:2: duration: -1.0 s is negative");
  EXPECT_EQ(error_of("2017-10-01 00:00:00,1.0,0,0.0,a\n"), "jobs.csv:2: num_gpus: a Philly job uses at least one GPU");
  EXPECT_EQ(error_of("2017-10-01 00:00:00,10.0,2,10.0,a\n"),
            "jobs.csv:2: gpu_time: 10.0 is not duration x num_gpus (10.0 x 2 = 20)");
  EXPECT_EQ(error_of("2017-10-01 00:00:00,1.0,1,1.0,\n"), "jobs.csv:2: cluster: empty, expected the job's virtual cluster");
  EXPECT_EQ(error_of(""), "jobs.csv: no jobs");
  EXPECT_EQ(error_of("2017-10-01 00:00:00,1.0,1,1.0,a\n", 0),
            "jobs.csv: the cluster has no GPU node, so no Philly job can run");
}

TEST(PhillyReader, BlankLinesAreCountedNotLost) {
  // The real log ends with an empty line.
  const Workload w = read("2017-10-01 00:00:00,1.0,1,1.0,a\n\n2017-10-01 00:00:01,1.0,1,1.0,a\n\n");
  EXPECT_EQ(w.pods.size(), 2u);
  EXPECT_EQ(w.skipped_lines, 2);
}

TEST(PhillyReader, TheBundledLogHasEveryJob) {
  const Workload w = read_philly_jobs(resolve_workload("philly", default_data_root()), 8);
  std::size_t jobs = 0;
  std::uint32_t last_gang = 0;
  for (const auto& pod : w.pods) {
    if (pod.gang == 0 || pod.gang != last_gang) ++jobs;
    last_gang = pod.gang;
  }
  EXPECT_EQ(jobs, 82'247u);
  EXPECT_EQ(w.queues.size(), 15u);
  EXPECT_EQ(w.skipped_lines, 1);
  EXPECT_EQ(resolve_cluster(default_cluster_for("philly"), default_data_root()).filename(), "philly_cluster.csv");
}

}  // namespace
}  // namespace gpusim::traces
