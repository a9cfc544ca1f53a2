// Load-aware scheduling (Koordinator's LoadAwareScheduling on koordlet's GPU reports): where it
// and request-based binpack place pods, worked out by hand, with the reports' staleness.
//
// Two nodes, a and b, one GPU each, time-sliced into 4 replicas; every pod asks a quarter of a GPU
// (gpu_milli 250, asked as one replica) and uses its `gpu_demand_milli` of the GPU's time. The
// agents report at 60 s, 120 s, ... the averages since the start (the window is 300 s). With the
// default args a pod's estimate is round(250 x 0.85) = 213 of gpu-core and round(250 x 0.70) = 175
// of gpu-memory-ratio; the node's capacity is 1000 of each.
//
// p1 (demand 800) at 0 and p2 (demand 100) at 10 find no report: every node passes and scores 0,
// so both go to a (node-index ties), as under binpack. The report at 60 s shows a busy
// (0.8 x 60 + 0.1 x 50) / 60 = 0.88333 -> 883, memory (0.25 x 60 + 0.25 x 50) / 60 -> 458; p1 at 800
// and 250, p2 at 100 and 250 (over its 50 s). p3 (demand 300) at 70: on a, p1 was assigned before
// the report's interval (0 < 0 is false) and counts as reported; p2 was assigned inside it
// (0 < 10), so it adds max(0, 213 - 100) = 113 of gpu-core and max(0, 175 - 250) = 0 of memory:
// 883 + 113 + 213 = 1209, round(120.9) = 121 % > 65 %: a fails. b takes p3. Binpack puts p3 on a
// (2 of 4 replicas taken, against 0), where demands 0.8 + 0.1 + 0.3 pass the GPU: max-min shares
// give p1 0.6 (a rate of 0.75) until p2 ends at 110, then 0.7 (0.875) until p3 ends at 170; it
// loses 40 x 0.25 + 60 x 0.125 = 17.5 s and ends at 1017.5 s, against 1000 s under load-aware.
// p3 at 55 instead, before the first report, goes to a under both: the scheduler acts on what was
// last reported, not on what runs.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "policies/score/load_aware_args.hpp"
#include "sim/config/profiles.hpp"
#include "tests/k8s/k8s_harness.hpp"

namespace gpusim::testing {
namespace {

using k8s::DevicePluginModel;

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

sched::Profile policy_file(const std::string& name, const sched::Registry& registry) {
  return config::resolve_profiles(std::string(GPUSIM_SOURCE_DIR) + "/traces/utilisation/" + name + ".yaml", registry).at(0);
}

// Nodes of `gpus` GPUs each, every GPU time-sliced into 4 replicas, fractions asked as one
// replica, scheduled by `policy` (a file of traces/utilisation/) with node-index ties.
void time_sliced(K8sScenario& s, std::initializer_list<std::pair<const char*, int>> nodes, const std::string& policy) {
  for (const auto& [name, gpus] : nodes) s.node(name, gpus);
  s.kube.default_model = DevicePluginModel::kTimeSlicing;
  s.kube.default_sharing.replicas = 4;
  s.kube.fraction_as_one_device = true;
  s.profile = policy_file(policy, s.registry);
  s.profile->tie_break = sched::TieBreak::kNodeIndex;
}

experiment::RunResult two_nodes(const std::string& policy, std::int64_t p3_arrival) {
  K8sScenario s;
  time_sliced(s, {{"a", 1}, {"b", 1}}, policy);
  const std::pair<std::int64_t, std::int32_t> pods[] = {{0, 800}, {10, 100}, {p3_arrival, 300}};
  for (std::size_t i = 0; i < 3; ++i) {
    cluster::PodSpec& pod = s.pod("p" + std::to_string(i + 1), 1, pods[i].first, i == 0 ? 1000 : 100);
    pod.gpu_milli = 250;
    pod.gpu_demand_milli = pods[i].second;
  }
  return s.run();
}

TEST(LoadAware, RejectsTheNodeItsReportAndEstimatesShowBusyWhereBinpackStacks) {
  const auto aware = two_nodes("load-aware", 70);
  EXPECT_EQ(record(aware, 0).node, 0);
  EXPECT_EQ(record(aware, 1).node, 0);
  EXPECT_EQ(record(aware, 2).node, 1);
  // p1 and p2 share a within its time (0.9): nobody slows down.
  EXPECT_EQ(seconds(record(aware, 0).end_us), 1000);
  const auto binpack = two_nodes("binpack-gpu", 70);
  EXPECT_EQ(record(binpack, 2).node, 0);
  EXPECT_EQ(record(binpack, 1).node, 0);
  EXPECT_NEAR(seconds(record(binpack, 0).end_us), 1017.5, 1e-5);
}

TEST(LoadAware, BeforeTheFirstReportEveryNodePassesAndTies) {
  const auto aware = two_nodes("load-aware", 55);
  EXPECT_EQ(record(aware, 2).node, 0);
}

// The pod-assign cache. Nodes a and b have 2 GPUs each (capacity 2000). q1 (a quarter, demand 400)
// at 0 goes to a (no report). The report at 60 s shows a at 400 of gpu-core and 250 of memory.
// q2, a whole GPU (estimate 850 and 700), at 100: a would be 400 + 850 = 1250 (63 %, passes) and
// 950 of memory, scoring ((2000 - 1250) x 100 / 2000 = 37 + 52) / 2 = 44; b 850 and 700, scoring
// (57 + 65) / 2 = 61: b. q3, another whole GPU, at 110: b's report (60 s) does not show q2, so
// its estimate counts: 850 + 850 = 1700, 85 % > 65 %: b fails, and q3 goes to a (1250, 63 %).
// Without the cache b would read 850 and win again; request-based binpack puts all three on a.
experiment::RunResult assign_cache(const std::string& policy) {
  K8sScenario s;
  time_sliced(s, {{"a", 2}, {"b", 2}}, policy);
  cluster::PodSpec& q1 = s.pod("q1", 1, 0, 1000);
  q1.gpu_milli = 250;
  q1.gpu_demand_milli = 400;
  s.pod("q2", 1, 100, 1000).gpu_demand_milli = 500;
  s.pod("q3", 1, 110, 1000).gpu_demand_milli = 500;
  return s.run();
}

TEST(LoadAware, AssignedPodsTheReportDoesNotShowYetCountAtTheirEstimate) {
  const auto aware = assign_cache("load-aware");
  EXPECT_EQ(record(aware, 0).node, 0);
  EXPECT_EQ(record(aware, 1).node, 1);
  EXPECT_EQ(record(aware, 2).node, 0);
  const auto binpack = assign_cache("binpack-gpu");
  for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(record(binpack, i).node, 0) << i;
}

// Expiry. With nodeMetricExpirationSeconds 30 and reports every 60 s, a report is stale in the
// second half of every interval. A pod arriving at 100 s (the last report at 60 s, 40 s old) is
// turned away by every node ("node(s) nodeMetric expired"); the report at 120 s requeues it, as
// Koordinator's plugin registers NodeMetric updates, and it starts then. With
// enableScheduleWhenNodeMetricsExpired the stale node passes, and it starts at once.
TEST(LoadAware, AnExpiredReportTurnsTheNodeAwayUntilTheNextReport) {
  for (const bool allow : {false, true}) {
    K8sScenario s;
    time_sliced(s, {{"a", 1}}, "load-aware");
    auto args = std::make_shared<policy::LoadAwareArgs>(
        *std::dynamic_pointer_cast<const policy::LoadAwareArgs>(s.profile->plugin_args.at("load-aware")));
    args->node_metric_expiration_seconds = 30;
    args->enable_schedule_when_node_metrics_expired = allow;
    s.plugin_args["load-aware"] = args;
    s.pod("early", 1, 0, 500).gpu_milli = 250;
    s.pod("late", 1, 100, 100).gpu_milli = 250;
    const auto result = s.run();
    EXPECT_EQ(seconds(record(result, 0).start_us), 0);  // no report yet: the node passes
    EXPECT_EQ(seconds(record(result, 1).start_us), allow ? 100 : 120) << allow;
    // Reports every 60 s while a pod runs (to 500 s) and until a window (300 s) after it: 60 .. 840 s.
    EXPECT_EQ(metric(result, "node_metric_reports"), 14);
  }
}

// Review finding: a pod that ran between two reports while the agent was ticking must keep it
// ticking until its use has left every window. One GPU; a (0-10 s) and b (301-359 s) run, c (a
// whole GPU, estimated at 50 %) arrives at 1000 s. Had the agent gone idle with b still in its last
// window (the report at 360 s: b's 58 s over 300 s of window, 193), it would keep re-dating that
// figure, and c would read 193 + 500 = 69 % > 65 % for ever. The report at 900 s and later show 0:
// c starts at once.
TEST(LoadAware, APodBetweenTwoReportsKeepsTheAgentReportingUntilItsUseIsGone) {
  K8sScenario s;
  time_sliced(s, {{"a", 1}}, "load-aware");
  auto args = std::make_shared<policy::LoadAwareArgs>(
      *std::dynamic_pointer_cast<const policy::LoadAwareArgs>(s.profile->plugin_args.at("load-aware")));
  args->estimated_scaling_factors[0] = 50;
  s.plugin_args["load-aware"] = args;
  s.pod("a", 1, 0, 10);
  s.pod("b", 1, 301, 58);
  s.pod("c", 1, 1000, 100);
  const auto result = s.run();
  EXPECT_EQ(seconds(record(result, 2).start_us), 1000);
}

// Review finding: under Gavel's rounds the scheduler places a copy of the pod's spec; its release
// must still clear the pod-assign cache's entry (Koordinator keys it by pod UID). One 8-GPU node,
// ten whole-GPU pods 400 s apart, 100 s each: each finds the node empty but for its own estimate
// (850 of 8000, 11 %), and all ten run at their arrival. Before the fix every copy stayed in the
// cache at its full estimate, and the seventh read 6 x 850 + 850 = 74 % > 65 %.
TEST(LoadAware, ACopyOfThePodsSpecIsReleasedFromTheAssignCache) {
  // load-aware.yaml with Gavel's round, as a user would write it.
  std::string text = slurp(std::string(GPUSIM_SOURCE_DIR) + "/traces/utilisation/load-aware.yaml");
  text.replace(text.find("    filter:"), 0, "    round: {enabled: [{name: Gavel}]}\n");
  text += "  - name: Gavel\n    args: {objective: FinishTimeFairness, heterogeneityAware: true, roundLengthSeconds: 360}\n";
  const std::string file = ::testing::TempDir() + "/load-aware-gavel.yaml";
  std::ofstream(file) << text;
  K8sScenario s;
  time_sliced(s, {{"n0", 8}}, "load-aware");
  s.profile = config::resolve_profiles(file, s.registry).at(0);
  s.profile->tie_break = sched::TieBreak::kNodeIndex;
  ASSERT_EQ(s.profile->round_plugin, "gavel");
  for (int i = 0; i < 10; ++i) s.pod("p" + std::to_string(i), 1, 400 * i, 100).gpu_demand_milli = 500;
  const auto result = s.run();
  for (std::size_t i = 0; i < 10; ++i) EXPECT_EQ(seconds(record(result, i).start_us), 400.0 * static_cast<double>(i)) << i;
}

}  // namespace
}  // namespace gpusim::testing
